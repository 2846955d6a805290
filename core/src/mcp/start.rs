//! Starting a tool's operation: its logic, an `async fn` over the `Channel` asks, wrapped in an
//! [`Operation`] whose audit event names the session and the tool's `path` argument.

use super::arguments::Call;
use crate::ask::Channel;
use crate::error::AcpFsError;
use crate::operation::{Done, Operation};
use crate::params::Echo;
use crate::state::Shared;
use std::future::Future;
use std::sync::Arc;

/// The operation running `logic`; `kind` is `"read"` for a tool that changes nothing, `"write"`
/// for one that may (the audit event's `op`).
pub(crate) fn operation<F>(
    call: &Call,
    kind: &'static str,
    logic: impl FnOnce(Arc<Shared>, Channel) -> F,
) -> Result<Operation, AcpFsError>
where
    F: Future<Output = Result<Done, AcpFsError>> + Send + 'static,
{
    let echo = Echo::named(call.session_id, call.args.get("path").and_then(serde_json::Value::as_str));
    let shared = call.shared();
    Ok(Operation::new(kind, echo, move |channel| Box::pin(logic(shared, channel))))
}
