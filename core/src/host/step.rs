//! What a request gives back to a driver: the next io, or its outcome; and what an incoming
//! message is.

use crate::error::AcpFsError;
use crate::io::Io;
use crate::protocol::Response;
use crate::record::ChangeRecord;
use serde::Serialize;

/// What a finished request produced, as a driver reports it: `{result}` or `{error}`, the
/// change record (`null` unless a write succeeded), `staleDocument` (an open document the host
/// said matches storage, found holding other text: the editor should reload it; absent
/// otherwise), and for a request that came as a message
/// (`dispatch`, `mcpDispatch`) the reply text to send, which then stands for the result: a
/// message's outcome has `reply` and no `result` (its `error`, if it failed, stays). Its audit event is asked for apart
/// ([`HostOperation::audit`](super::HostOperation::audit)): a host without an audit log does not pay for converting it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostOutcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result: Option<Response>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<AcpFsError>,
    pub change: Option<ChangeRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stale_document: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reply: Option<String>,
}

/// One step of a request: the I/O it needs next (a write's bytes beside it), or its outcome.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum HostStep {
    Io {
        io: Io,
        #[serde(skip_serializing_if = "Option::is_none", with = "serde_bytes")]
        #[cfg_attr(feature = "ts", ts(optional, type = "Uint8Array"))]
        bytes: Option<Vec<u8>>,
        /// Performing the io changes files or an open buffer: once the driver has started it,
        /// a cancellation no longer abandons the request.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
        changes: bool,
    },
    Done {
        done: Box<HostOutcome>,
    },
}

/// What one incoming message is (an operation to run comes beside it).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum HostDispatch {
    /// Not for this engine (another method, a response, a notification): route it elsewhere.
    NotMine,
    /// Answer this at once.
    Reply { reply: String },
    /// Cancel the request with this id (raw JSON text) if it is in flight. MCP
    /// (`notifications/cancelled`) wants no reply for it; ACP's `$/cancel_request` gets -32800.
    Cancel { id: String },
    /// Run the operation that comes with this; its outcome carries the reply.
    Call {
        id: String,
        #[cfg_attr(feature = "ts", ts(type = "'fs/read_text_file' | 'fs/write_text_file'"))]
        method: &'static str,
    },
}

impl HostStep {
    pub(super) fn into_outcome(self) -> HostOutcome {
        match self {
            HostStep::Done { done } => *done,
            // `fail` always ends the operation.
            HostStep::Io { .. } => HostOutcome::internal("the operation went on after it ended"),
        }
    }
}

impl HostOutcome {
    /// An `internal` error outcome, for a request the engine cannot answer for (it went on after
    /// its end, or the driver named one that is not there).
    pub(super) fn internal(message: impl Into<String>) -> HostOutcome {
        HostOutcome {
            result: None,
            error: Some(AcpFsError::internal(message)),
            change: None,
            stale_document: None,
            reply: None,
        }
    }
}
