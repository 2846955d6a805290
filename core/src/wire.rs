//! The JSON shapes of steps, answers and outcomes, for drivers outside Rust (the JS driver
//! shared by `@acp-fs/node` and `@acp-fs/wasm`). Bytes travel beside the JSON, so bindings can
//! hand them over as `Uint8Array` instead of arrays of numbers.
//!
//! ```
//! use acp_fs::wire;
//! use serde_json::json;
//! let (answer, _) = (wire::answer(&json!({"error": {"code": "ENOENT", "message": "gone"}}), None).unwrap(), ());
//! assert!(matches!(answer, acp_fs::Answer::Err(e) if e.kind == acp_fs::StorageErrorKind::NotFound));
//! ```

use crate::error::{AcpFsError, ErrorKind};
use crate::io::{Answer, FileId, Io};
use crate::operation::Outcome;
use crate::protocol::Response;
use crate::record::AuditEvent;
use crate::record::DocumentWrite;
use crate::storage::{FileKind, Metadata, StorageCaps, StorageError, StorageErrorKind, Symlinks};
use serde_json::{json, Map, Value};

/// An [`Io`] as `{op, ...}` plus the bytes of a write.
///
/// `op` is one of `stat {path, follow}`, `realPath {path}`, `readAll {path}`,
/// `open {root, path}`, `readAt {file, offset, length}`, `makeDirs {root, path}`,
/// `write {root, path}` (bytes beside), `approve {change}`, `writeDocument {path, text}`,
/// `wait {path}` (answer `{done: true}` after another operation of the engine ended).
pub fn io(io: Io) -> (Value, Option<Vec<u8>>) {
    match io {
        Io::Stat { path, follow } => (json!({"op": "stat", "path": path, "follow": follow}), None),
        Io::RealPath { path } => (json!({"op": "realPath", "path": path}), None),
        Io::ReadAll { path } => (json!({"op": "readAll", "path": path}), None),
        Io::Open { root, path } => (json!({"op": "open", "root": root, "path": path}), None),
        Io::ReadAt { file, offset, len } => {
            (json!({"op": "readAt", "file": file, "offset": offset, "length": len}), None)
        }
        Io::MakeDirs { root, path } => (json!({"op": "makeDirs", "root": root, "path": path}), None),
        Io::Write { root, path, bytes } => (json!({"op": "write", "root": root, "path": path}), Some(bytes)),
        Io::Approve { change } => (json!({"op": "approve", "change": change}), None),
        Io::WriteDocument { path, text } => (json!({"op": "writeDocument", "path": path, "text": text}), None),
        Io::Wait { path, .. } => (json!({"op": "wait", "path": path}), None),
    }
}

/// An answer from its JSON form (bytes beside it for reads):
/// `{metadata: {kind: "file"|"directory"|"symlink"|"other", size, links?, modifiedMs?}}`, the same with
/// `file` (the driver's number for the file it opened) for `open`, `{path}`, `{bytes: true}`,
/// `{done: true}`, `{approved: bool}`, `{document: "buffer"|"writeThrough"}`, or
/// `{error: {code?, name?, message?}}` where `code`/`name` are the host error's (`ENOENT`,
/// `NotFoundError`, …) and are classified here, once, for every binding.
pub fn answer(value: &Value, bytes: Option<Vec<u8>>) -> Result<Answer, AcpFsError> {
    let bad = || AcpFsError::internal(format!("the driver sent a malformed answer: {value}"));
    let obj = value.as_object().ok_or_else(bad)?;
    if let Some(e) = obj.get("error") {
        let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
        let kind = classify(s("code"), s("name"));
        let message = match (s("message"), s("code")) {
            ("", "") => "storage error".to_owned(),
            (m, "") => m.to_owned(),
            ("", c) => c.to_owned(),
            (m, c) => format!("{c}: {m}"),
        };
        return Ok(Answer::Err(StorageError::new(kind, message)));
    }
    if let Some(m) = obj.get("metadata") {
        let kind = match m.get("kind").and_then(Value::as_str) {
            Some("file") => FileKind::File,
            Some("directory") => FileKind::Directory,
            Some("symlink") => FileKind::Symlink,
            Some("other") => FileKind::Other,
            _ => return Err(bad()),
        };
        let count = |key: &str| m.get(key).and_then(Value::as_f64).filter(|n| *n >= 0.0);
        let size = count("size").ok_or_else(bad)? as u64;
        let links = match m.get("links") {
            None | Some(Value::Null) => 1,
            Some(_) => count("links").ok_or_else(bad)? as u64,
        };
        // `modifiedMs` (Node's `mtimeMs`, fractional milliseconds) is optional: without it the
        // file gets no line index.
        let modified = match m.get("modifiedMs") {
            None | Some(Value::Null) => None,
            Some(_) => Some((count("modifiedMs").ok_or_else(bad)? * 1e6) as u64),
        };
        let meta = Metadata { kind, size, links, modified };
        return match obj.get("file") {
            None => Ok(Answer::Metadata(meta)),
            Some(Value::Null) => Ok(Answer::Opened { file: None, meta }),
            Some(f) => {
                let file = f.as_u64().and_then(|f| FileId::try_from(f).ok()).ok_or_else(bad)?;
                Ok(Answer::Opened { file: Some(file), meta })
            }
        };
    }
    if let Some(p) = obj.get("path") {
        return Ok(Answer::Path(p.as_str().ok_or_else(bad)?.to_owned()));
    }
    if obj.contains_key("bytes") {
        return Ok(Answer::Bytes(bytes.ok_or_else(bad)?.into()));
    }
    if obj.contains_key("done") {
        return Ok(Answer::Done);
    }
    if let Some(a) = obj.get("approved") {
        return Ok(Answer::Approved(a.as_bool().ok_or_else(bad)?));
    }
    if let Some(d) = obj.get("document") {
        return match d.as_str() {
            Some("buffer") => Ok(Answer::Document(DocumentWrite::Buffer)),
            Some("writeThrough") => Ok(Answer::Document(DocumentWrite::WriteThrough)),
            _ => Err(bad()),
        };
    }
    Err(bad())
}

/// Host error codes and names (Node `code`, DOMException `name`, VS Code `FileSystemError`)
/// to the kinds the engine understands.
pub fn classify(code: &str, name: &str) -> StorageErrorKind {
    match (code, name) {
        ("ERR_ACP_FS_ESCAPE", _) => StorageErrorKind::SymlinkEscape,
        ("ENOENT", _) | (_, "NotFoundError") | ("FileNotFound", _) | (_, "EntryNotFound") => StorageErrorKind::NotFound,
        ("EACCES" | "EPERM" | "EROFS" | "NoPermissions", _) | (_, "NotAllowedError" | "SecurityError") => {
            StorageErrorKind::PermissionDenied
        }
        ("EISDIR" | "FileIsADirectory", _) | (_, "TypeMismatchError") => StorageErrorKind::IsADirectory,
        ("ENOTDIR" | "FileNotADirectory", _) => StorageErrorKind::NotADirectory,
        ("ENOSYS" | "ENOTSUP" | "Unavailable", _) | (_, "NotSupportedError") => StorageErrorKind::Unsupported,
        _ => StorageErrorKind::Other,
    }
}

/// An outcome as `{result}` or `{error: {kind, code, message, data}}`, plus `change` and
/// `audit`.
pub fn outcome(outcome: &Outcome) -> Value {
    let mut m = Map::new();
    match &outcome.result {
        Ok(r) => {
            m.insert("result".into(), r.to_json());
        }
        Err(e) => {
            m.insert("error".into(), error(e));
        }
    }
    m.insert("change".into(), serde_json::to_value(&outcome.change).unwrap_or(Value::Null));
    m.insert("audit".into(), serde_json::to_value(&outcome.audit).unwrap_or(Value::Null));
    Value::Object(m)
}

/// An error as `{kind, code, message, data}` (the fields of the JS `AcpFsError`).
pub fn error(e: &AcpFsError) -> Value {
    json!({"kind": e.kind.as_str(), "code": e.code, "message": e.message, "data": e.data})
}

/// An error back from its wire form ([`error`]'s inverse); a malformed one is an `internal`
/// error saying so.
pub fn error_from(value: &Value) -> AcpFsError {
    let kind = value.get("kind").and_then(Value::as_str).and_then(ErrorKind::from_name);
    let code = value.get("code").and_then(Value::as_i64);
    match (kind, code, value.get("message").and_then(Value::as_str)) {
        (Some(kind), Some(code), Some(message)) => AcpFsError {
            kind,
            code,
            message: message.to_owned(),
            data: value.get("data").cloned().unwrap_or(Value::Null),
        },
        _ => AcpFsError::internal(format!("the driver sent a malformed error: {value}")),
    }
}

/// An outcome's result back from `{result}` / `{error}` ([`outcome`]'s inverse, for replies built
/// after the driver ran the operation); change and audit stay with the driver, which has
/// reported them already.
pub fn outcome_from(value: &Value) -> Outcome {
    let bad = || AcpFsError::internal(format!("the driver sent a malformed outcome: {value}"));
    let result = match (value.get("error").filter(|e| !e.is_null()), value.get("result")) {
        (Some(error), _) => Err(error_from(error)),
        (None, Some(r)) if r.get("content").is_some() => {
            serde_json::from_value(r.clone()).map(Response::Read).map_err(|_| bad())
        }
        (None, Some(r)) => serde_json::from_value(r.clone()).map(Response::Write).map_err(|_| bad()),
        (None, None) => Err(bad()),
    };
    let audit = AuditEvent {
        op: if matches!(result, Ok(Response::Write(_))) { "write" } else { "read" },
        session_id: None,
        path: None,
        line: None,
        limit: None,
        bytes: 0,
        outcome: if result.is_ok() { "ok" } else { "error" },
        error_kind: result.as_ref().err().map(|e| e.kind.as_str()),
        duration_ms: None,
        traceparent: None,
    };
    Outcome { result, change: None, audit }
}

/// Storage capabilities from `{symlinks: "none"|"resolvable"|"unresolvable", stat,
/// rangedReads, write, makeDirs}` (missing booleans are false).
pub fn caps(value: &Value) -> Result<StorageCaps, AcpFsError> {
    let flag = |k: &str| value.get(k).and_then(Value::as_bool).unwrap_or(false);
    let symlinks = match value.get("symlinks").and_then(Value::as_str).unwrap_or("none") {
        "none" => Symlinks::None,
        "resolvable" => Symlinks::Resolvable,
        "unresolvable" => Symlinks::Unresolvable,
        other => return Err(AcpFsError::invalid_params("caps.symlinks", format!("unknown value {other:?}"))),
    };
    Ok(StorageCaps {
        symlinks,
        stat: flag("stat"),
        ranged_reads: flag("rangedReads"),
        write: flag("write"),
        make_dirs: flag("makeDirs"),
    })
}
