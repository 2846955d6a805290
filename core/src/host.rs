//! The host protocol: everything a driver outside Rust (the one JS driver of `@acp-fs/node` and
//! `@acp-fs/wasm`) exchanges with the engine, as typed serde values. Their TypeScript is
//! generated from these types into `npm/types/host.d.ts` (feature `ts`; a test fails when the
//! file is stale).
//!
//! A binding converts these values with serde and calls these methods; it holds no rule, no
//! wording and no limit of its own. The lifecycle of a request in flight (the first step, the
//! answers, a cancellation, a refusal, a panic or a malformed answer ending it) is
//! [`HostOperation`]'s; the wording of every error is [`AcpFsError`]'s.
//!
//! ```
//! use acp_fs::host::{HostAnswer, HostEngine, HostStep};
//! use serde_json::json;
//! let engine = HostEngine::new(json!({}), json!({"symlinks": "none", "rangedReads": true})).unwrap();
//! assert!(engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!(null)).is_none());
//! let op = engine.start("fs/read_text_file", Ok(json!({"sessionId": "s", "path": "/p/a.txt"}))).unwrap();
//! let HostStep::Io { io, .. } = op.step(None, None) else { panic!() };
//! assert_eq!(serde_json::to_value(&io).unwrap(), json!({"op": "open", "root": "/p", "path": "/p/a.txt", "head": 16384}));
//! // The open may carry the file's first bytes (here all of them): no `readAt` follows.
//! let opened = json!({"file": 0, "metadata": {"kind": "file", "size": 4}, "bytes": true});
//! let opened: HostAnswer = serde_json::from_value(opened).unwrap();
//! let HostStep::Done { done } = op.step(Some(Ok(opened)), Some(b"hey\n".to_vec())) else { panic!() };
//! assert!(op.audit().is_some());
//! assert_eq!(serde_json::to_value(&done.result).unwrap(), json!({"content": "hey\n"}));
//! ```

use crate::error::AcpFsError;
use crate::protocol::{READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::storage::StorageCaps;
use serde::Serialize;

#[cfg(feature = "mcp")]
pub mod agent_side;
mod answer;
#[cfg(feature = "disk")]
mod disk_loop;
mod engine;
#[cfg(test)]
mod fixtures;
#[cfg(all(test, feature = "ts"))]
mod generated;
mod held;
mod operation;
mod step;

pub use crate::params::{FlatParams, Scalar};
pub use answer::{classify, HostAnswer, HostEntry, HostError, HostMetadata};
pub use engine::mcp_not_built;
pub use engine::HostEngine;
pub use held::HeldOperations;
pub use operation::HostOperation;
pub use step::{HostDispatch, HostOutcome, HostStep};

/// How deep a value from a host may nest, and how many values it may hold (semantics.md §8.1):
/// serde_json's recursion limit, and a budget that keeps a DAG of shared objects (small in
/// memory, 2^60 values once walked) from hanging the conversion.
pub const MAX_DEPTH: usize = 128;
/// See [`MAX_DEPTH`].
pub const MAX_VALUES: usize = 1_000_000;
/// Why a string with a lone surrogate (no UTF-8 form) is refused (semantics.md §8.1).
pub const LONE_SURROGATE: &str = "is not valid Unicode (a lone surrogate)";
/// Why a binding refuses a value it was handed that has no JSON form. The driver walks every
/// value first and names what it finds (semantics.md §8.1), so only a caller of a binding's
/// low-level interface meets this.
pub const NOT_JSON: &str =
    "is not representable as JSON (a function, a symbol, a bigint past 64 bits, a cycle or too deep a nesting)";

/// What a driver needs to know of the engine once, before any request: the method names, the
/// limits of its value walk, the capabilities of a complete storage, and the templates of the
/// errors it reports when the engine cannot (a trapped wasm instance).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostInfo {
    pub read_method: &'static str,
    pub write_method: &'static str,
    pub full_caps: StorageCaps,
    pub max_depth: usize,
    pub max_values: usize,
    pub lone_surrogate: &'static str,
    /// An `internal` error whose message holds `{message}` where the reason goes.
    pub internal: AcpFsError,
    /// The `-32800` error of a cancelled request.
    pub cancelled: AcpFsError,
}

/// The driver's constants (see [`HostInfo`]).
pub fn info() -> HostInfo {
    HostInfo {
        read_method: READ_TEXT_FILE,
        write_method: WRITE_TEXT_FILE,
        full_caps: StorageCaps::DISK,
        max_depth: MAX_DEPTH,
        max_values: MAX_VALUES,
        lone_surrogate: LONE_SURROGATE,
        internal: AcpFsError::internal("{message}"),
        cancelled: AcpFsError::cancelled(),
    }
}

/// `-32602` naming `field`, for values a driver refuses before they reach the engine (a host
/// call given a number where a path goes).
pub fn invalid_params(field: &str, reason: &str) -> AcpFsError {
    AcpFsError::invalid_params(field, reason)
}
