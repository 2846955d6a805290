//! `write_text_file`: the fs write method as a tool, with the agent side's
//! argument rules and results (`agent.rs`), so a model sees the same thing over ACP v1 and MCP.

use super::arguments::Call;
use super::registry::{Annotations, Tool};
use crate::agent::{self, WRITE_TOOL};
use crate::error::AcpFsError;
use crate::operation::Operation;
use crate::protocol::Response;
use serde_json::Value;
use std::borrow::Cow;

pub(crate) const WRITE_TEXT_FILE: Tool = Tool {
    name: WRITE_TOOL,
    title: "Write Text File",
    description: agent::WRITE_DESCRIPTION,
    input: agent::write_input_schema,
    output: None,
    // Replacing a file's text: destructive, and the same call twice leaves the same file.
    annotations: Annotations { read_only: false, destructive: true, idempotent: true },
    needs: &[super::registry::Need::Write],
    start: |call| start(WRITE_TOOL, call),
    answer: |args, result| Cow::Owned(answer(WRITE_TOOL, args, result)),
};

fn start(tool: &str, call: &Call) -> Result<Operation, AcpFsError> {
    let (method, params) = agent::check_tool_arguments(tool, call.session_id, call.raw)?;
    call.fs.tool_request(method, params).ok_or_else(|| AcpFsError::method_not_found(method))
}

fn answer(tool: &str, args: &Value, result: Result<&Response, &AcpFsError>) -> Value {
    match result {
        Ok(response) => agent::tool_result(tool, args, Ok(Some(&response.to_json()))),
        Err(e) => agent::tool_result(tool, args, Err(&e.to_json_rpc())),
    }
}
