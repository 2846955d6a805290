//! What a request leaves behind for the host: change records and audit events (§5, §7).

use crate::error::{AcpFsError, ErrorKind};
use serde::Serialize;

/// One successful change, for review and undo: the session whose agent made it, the path it
/// made (normalized, absolute), and what it did. A write (no `kind`) says whether it `created`
/// the file, beside the texts; a `move` names where the file or directory came `from`; a
/// `makeDir` made the directory at `path`. `createdDirs` lists the directories the change
/// created, outermost first (semantics.md §10.7): undo removes them innermost first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct ChangeRecord {
    pub session_id: String,
    pub path: String,
    pub created: bool,
    /// `None` when the file was created; the open buffer's text for an open document.
    pub old_text: Option<String>,
    /// The text as stored: after line-ending conversion, without the BOM.
    pub new_text: String,
    /// The file had changed since the agent read it and `new_text` is the three-way merge of
    /// both edits (semantics.md §9); only sent when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
    pub merged: bool,
    // Left out for a write, so a write's record is what it always was.
    #[serde(skip_serializing_if = "ChangeKind::is_write")]
    #[cfg_attr(feature = "ts", ts(optional, type = "'move' | 'makeDir'"))]
    pub kind: ChangeKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Array<string>"))]
    pub created_dirs: Vec<String>,
}

/// What a [`ChangeRecord`] records. Approvals carry it too: a host can ask differently about a
/// move or a new directory than about a text change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ChangeKind {
    /// A file's text was written (created or replaced): `oldText`/`newText` say how.
    #[default]
    Write,
    /// A file or directory was renamed from `from` to `path`; `oldText` is `null`, `newText` empty.
    Move,
    /// The directory `path` was made (with `createdDirs`); `oldText` is `null`, `newText` empty.
    MakeDir,
}

impl ChangeKind {
    /// A text change: the kind a record leaves out.
    pub fn is_write(&self) -> bool {
        *self == ChangeKind::Write
    }
}

/// The host's choice for a write that targets an open document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DocumentWrite {
    /// The open buffer takes the new text; storage is untouched (the user saves).
    Buffer,
    /// The buffer takes the new text and storage is written too.
    WriteThrough,
}

/// One request, for the host's audit log (semantics.md §7). `sessionId`, `path`, `line`,
/// `limit` and `traceparent` (from `_meta`) echo what the request asked, each `None` when the
/// request did not carry it or it was malformed; `errorKind` is the [`ErrorKind`] of a request
/// that did not end `"ok"`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct AuditEvent {
    /// `"read"` or `"write"`.
    #[cfg_attr(feature = "ts", ts(type = "'read' | 'write'"))]
    pub op: &'static str,
    pub session_id: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub limit: Option<u32>,
    /// Bytes of text returned or written.
    pub bytes: u64,
    /// `"ok"`, `"error"` or `"cancelled"`.
    #[cfg_attr(feature = "ts", ts(type = "'ok' | 'error' | 'cancelled'"))]
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "ErrorKind"))]
    pub error_kind: Option<&'static str>,
    /// Filled by the driver, which owns a clock (the engine has none: wasm has no `Instant`).
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub traceparent: Option<String>,
}

impl AuditEvent {
    /// The event of a `"read"` or `"write"` that ended with `ended`: the bytes of text it
    /// returned or wrote, or its error. What the request asked for is the caller's to add.
    pub(crate) fn ended(op: &'static str, ended: Result<u64, &AcpFsError>) -> AuditEvent {
        let (bytes, outcome, error_kind) = match ended {
            Ok(bytes) => (bytes, "ok", None),
            Err(e) if e.kind == ErrorKind::Cancelled => (0, "cancelled", Some(e.kind.as_str())),
            Err(e) => (0, "error", Some(e.kind.as_str())),
        };
        AuditEvent {
            op,
            session_id: None,
            path: None,
            line: None,
            limit: None,
            bytes,
            outcome,
            error_kind,
            duration_ms: None,
            traceparent: None,
        }
    }

    /// The audit event of a request that failed with `error` before it could say what it was.
    pub fn failed(op: &'static str, error: &AcpFsError) -> AuditEvent {
        AuditEvent::ended(op, Err(error))
    }
}
