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
//! assert!(engine.open_session(&json!("s"), &json!("/p"), &json!([])).is_none());
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

use crate::agent;
use crate::dispatch::{respond, Dispatch};
use crate::engine::AcpFs;
use crate::error::{AcpFsError, ErrorKind};
use crate::io::{Answer, FileId, Io};
use crate::mcp::{McpDispatch, McpReply, McpServer};
use crate::operation::{Operation, Outcome, Step};
use crate::options::Options;
use crate::protocol::{FileSystemCapability, Response, READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::record::{AuditEvent, ChangeRecord, DocumentWrite};
use crate::storage::{FileKind, Metadata, StorageCaps, StorageError, StorageErrorKind, Symlinks};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

mod held;
pub use held::HeldOperations;

/// How deep a value from a host may nest, and how many values it may hold (semantics.md §8.1):
/// serde_json's recursion limit, and a budget that keeps a DAG of shared objects (small in
/// memory, 2^60 values once walked) from hanging the conversion.
pub const MAX_DEPTH: usize = 128;
/// See [`MAX_DEPTH`].
pub const MAX_VALUES: usize = 1_000_000;
/// Why a string with a lone surrogate (no UTF-8 form) is refused (semantics.md §8.1).
pub const LONE_SURROGATE: &str = "is not valid Unicode (a lone surrogate)";

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
        full_caps: StorageCaps::FULL,
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

/// An answer to an [`Io`], as a driver sends it: one of `{metadata, file?}` (an open may add
/// `bytes: true`, its head beside it), `{path}`, `{bytes: true}` (the bytes beside it),
/// `{done: true}`, `{approved}`, `{document}` or `{error}`. Host error codes and names
/// (`ENOENT`, `NotFoundError`, …) are classified here, once, for every binding.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct HostAnswer {
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<HostError>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub metadata: Option<HostMetadata>,
    /// The driver's number for the file `open` opened; `null` when it opened none.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number | null"))]
    pub file: Option<Option<FileId>>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub path: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
    pub bytes: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
    pub done: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub approved: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub document: Option<DocumentWrite>,
}

impl<'de> Deserialize<'de> for HostAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HostAnswer, D::Error> {
        // serde-wasm-bindgen reads a struct by asking the object for each field it declares (a
        // lookup, and an `in` test for each absent one): 17 crossings into JS for `{bytes: true}`.
        // An answer holds one or two of its nine members, so it is read as a map of those present.
        HostAnswer::deserialize(AsMap(d))
    }
}

/// A deserializer that reads a struct as a map (see [`HostAnswer`]'s `Deserialize`).
struct AsMap<D>(D);

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for AsMap<D> {
    type Error = D::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// A member that is present, even as `null`, is `Some`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A host storage's error: its `code` (Node), `name` (DOMException) and message.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostError {
    #[cfg_attr(feature = "ts", ts(optional))]
    pub code: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message: Option<String>,
}

/// What a stat or an open found. `modifiedMs` (Node's `mtimeMs`, fractional) is optional:
/// without it the file gets no line index.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostMetadata {
    pub kind: FileKind,
    pub size: f64,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub links: Option<f64>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub modified_ms: Option<f64>,
}

impl HostAnswer {
    /// A storage error answer (bytes a binding could not take in, say).
    pub fn storage_error(message: impl Into<String>) -> HostAnswer {
        HostAnswer {
            error: Some(HostError { message: Some(message.into()), ..HostError::default() }),
            ..HostAnswer::default()
        }
    }

    /// The answer for `len` bytes a binding could not take into the engine's memory (a file
    /// larger than a wasm32 address space): the storage failed to deliver, the engine lives on.
    pub fn bytes_do_not_fit(len: u64) -> HostAnswer {
        HostAnswer::storage_error(format!("{len} bytes do not fit in the engine's memory"))
    }

    /// The engine's [`Answer`], or why the answer is malformed.
    fn into_answer(self, bytes: Option<Vec<u8>>) -> Result<Answer, String> {
        if let Some(e) = self.error {
            let code = e.code.as_deref().unwrap_or("");
            let kind = classify(code, e.name.as_deref().unwrap_or(""));
            let message = match (e.message.as_deref().unwrap_or(""), code) {
                ("", "") => "storage error".to_owned(),
                (m, "") => m.to_owned(),
                ("", c) => c.to_owned(),
                (m, c) => format!("{c}: {m}"),
            };
            return Ok(Answer::Err(StorageError::new(kind, message)));
        }
        if let Some(m) = self.metadata {
            let count = |n: f64, what: &str| if n >= 0.0 { Ok(n) } else { Err(format!("metadata.{what} is negative")) };
            let meta = Metadata {
                kind: m.kind,
                size: count(m.size, "size")? as u64,
                links: m.links.map_or(Ok(1.0), |l| count(l, "links"))? as u64,
                modified: m.modified_ms.map(|t| count(t, "modifiedMs")).transpose()?.map(|t| (t * 1e6) as u64),
            };
            let head = match (self.bytes, bytes) {
                (None, _) => None,
                (Some(_), Some(head)) => Some(head.into()),
                (Some(_), None) => return Err("bytes were announced but not sent".into()),
            };
            return Ok(match (self.file, head) {
                (None, None) => Answer::Metadata(meta),
                (None | Some(None), Some(_)) => return Err("bytes came with metadata but no open file".into()),
                (Some(file), head) => Answer::Opened { file, meta, head },
            });
        }
        if let Some(path) = self.path {
            return Ok(Answer::Path(path));
        }
        if self.bytes.is_some() {
            return bytes.map(|b| Answer::Bytes(b.into())).ok_or_else(|| "bytes were announced but not sent".into());
        }
        if self.done.is_some() {
            return Ok(Answer::Done);
        }
        if let Some(approved) = self.approved {
            return Ok(Answer::Approved(approved));
        }
        if let Some(document) = self.document {
            return Ok(Answer::Document(document));
        }
        Err("it answers nothing".into())
    }
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

/// What a finished request produced, as a driver reports it: `{result}` or `{error}`, the
/// change record (`null` unless a write succeeded), and for a request that came as a message
/// (`dispatch`, `mcpDispatch`) the reply text to send. Its audit event is asked for apart
/// ([`HostOperation::audit`]): a host without an audit log does not pay for converting it.
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

/// The engine behind a binding's `Engine` class: every method takes what JS hands over (as
/// JSON values where a caller may pass anything) and gives typed values back.
#[derive(Clone)]
pub struct HostEngine {
    fs: AcpFs,
}

impl HostEngine {
    /// The engine for options (`Options::from_json`) over a storage that can do `caps`
    /// (`{symlinks: "none"|"resolvable"|"unresolvable", stat, rangedReads, write, makeDirs}`,
    /// missing booleans false).
    pub fn new(options: Value, caps: Value) -> Result<HostEngine, AcpFsError> {
        let caps = storage_caps(&caps)?;
        let options = Options::from_json(&options)?;
        Ok(HostEngine { fs: AcpFs::new(options, caps)? })
    }

    /// The engine itself, for hosts that also drive it from Rust.
    pub fn fs(&self) -> &AcpFs {
        &self.fs
    }

    /// Registers a session's roots; `None` on success.
    pub fn open_session(&self, session_id: &Value, cwd: &Value, additional_directories: &Value) -> Option<AcpFsError> {
        let opened = (|| {
            let id = string("sessionId", session_id)?;
            let cwd = cwd.as_str().ok_or_else(|| AcpFsError::invalid_params("cwd", PATH_STRING))?;
            let dirs = match additional_directories {
                Value::Null => Vec::new(),
                Value::Array(list) => list
                    .iter()
                    .enumerate()
                    .map(|(i, d)| {
                        d.as_str().map(str::to_owned).ok_or_else(|| {
                            AcpFsError::invalid_params(&format!("additionalDirectories[{i}]"), PATH_STRING)
                        })
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(AcpFsError::invalid_params("additionalDirectories", "must be an array")),
            };
            self.fs.open_session(id, cwd, &dirs)
        })();
        opened.err()
    }

    /// Forgets a session (nothing to do for an id no session was opened under).
    pub fn close_session(&self, session_id: &Value) {
        if let Some(id) = session_id.as_str() {
            self.fs.close_session(id);
        }
    }

    /// Registers (or replaces) an open document's unsaved text; `None` on success.
    pub fn open_document(&self, path: &Value, text: &Value) -> Option<AcpFsError> {
        (|| self.fs.open_document(string("path", path)?, string("text", text)?))().err()
    }

    /// The buffer was reloaded from storage with `text`; `None` on success.
    pub fn document_reloaded(&self, path: &Value, text: &Value) -> Option<AcpFsError> {
        (|| self.fs.document_reloaded(string("path", path)?, string("text", text)?))().err()
    }

    /// The buffer was saved; false when it is not open.
    pub fn document_saved(&self, path: &Value) -> bool {
        path.as_str().is_some_and(|p| self.fs.document_saved(p))
    }

    /// The open document's version, or `None`.
    pub fn document_version(&self, path: &Value) -> Option<u64> {
        self.fs.document_version(path.as_str()?)
    }

    pub fn close_document(&self, path: &Value) {
        if let Some(path) = path.as_str() {
            self.fs.close_document(path);
        }
    }

    /// The open document's current text.
    pub fn document(&self, path: &Value) -> Option<String> {
        self.fs.document(path.as_str()?)
    }

    pub fn capabilities(&self) -> FileSystemCapability {
        self.fs.capabilities()
    }

    /// Starts the request for `method`; `None` when it is not an fs method. `Err(reason)`:
    /// the binding could not convert the params (the driver refuses what has no JSON form
    /// first, so this is the driver's bug): the request ends with an `internal` error.
    pub fn start(&self, method: &str, params: Result<Value, String>) -> Option<HostOperation> {
        let op = match params {
            Ok(params) => self.fs.request(method, params),
            Err(why) => {
                let e = AcpFsError::internal(format!("the driver sent params that are not JSON: {why}"));
                self.fs.refused(method, e)
            }
        };
        op.map(|op| HostOperation::new(op, None))
    }

    /// [`start`](Self::start) with the params as JSON text: for small params one string crosses
    /// from JS instead of a value converted member by member (a wasm import per type probe).
    ///
    /// ```
    /// # use acp_fs::host::HostEngine;
    /// # use serde_json::json;
    /// let engine = HostEngine::new(json!({"roots": ["/p"]}), json!({"symlinks": "none"})).unwrap();
    /// let op = engine.start_json("fs/read_text_file", r#"{"sessionId": "s", "path": "/p/a.txt"}"#);
    /// assert!(op.is_some());
    /// assert!(engine.start_json("fs/unknown", "{}").is_none());
    /// ```
    pub fn start_json(&self, method: &str, params: &str) -> Option<HostOperation> {
        self.start(method, serde_json::from_str(params).map_err(|e| e.to_string()))
    }

    /// Classifies one raw JSON-RPC message, and starts the request if it is an fs call.
    pub fn dispatch(&self, message: &str) -> (HostDispatch, Option<HostOperation>) {
        match self.fs.dispatch(message) {
            Dispatch::NotMine => (HostDispatch::NotMine, None),
            Dispatch::Reply(reply) => (HostDispatch::Reply { reply }, None),
            Dispatch::Cancel(id) => (HostDispatch::Cancel { id }, None),
            Dispatch::Call(call) => {
                let id = call.id().to_owned();
                let call_of = HostDispatch::Call { id: id.clone(), method: call.method };
                (call_of, Some(HostOperation::new(call.operation, Some(Reply::Rpc(id)))))
            }
        }
    }

    /// The MCP tools `session_id`'s server offers (roots in the descriptions).
    pub fn mcp_tools(&self, session_id: &str) -> Vec<Value> {
        McpServer::new(self.fs.clone(), session_id).tools()
    }

    /// One MCP message for `session_id`'s server; a `tools/call` starts an operation whose
    /// outcome carries the JSON-RPC reply (the tool result).
    pub fn mcp_dispatch(&self, session_id: &str, message: &str) -> (HostDispatch, Option<HostOperation>) {
        match McpServer::new(self.fs.clone(), session_id).dispatch(message) {
            McpDispatch::NotMine => (HostDispatch::NotMine, None),
            McpDispatch::Reply(reply) => (HostDispatch::Reply { reply }, None),
            McpDispatch::Cancel(id) => (HostDispatch::Cancel { id }, None),
            McpDispatch::Call(call) => {
                let (operation, reply) = call.into_parts();
                let call_of = HostDispatch::Call { id: reply.id().to_owned(), method: method_of(&operation) };
                (call_of, Some(HostOperation::new(operation, Some(Reply::Mcp(reply)))))
            }
        }
    }
}

const PATH_STRING: &str = "must be an absolute path string";
const NOT_AN_ANSWER: &str = "it is not an answer object, or a member has the wrong type";

fn string<'a>(field: &str, value: &'a Value) -> Result<&'a str, AcpFsError> {
    value.as_str().ok_or_else(|| AcpFsError::invalid_params(field, "must be a string"))
}

fn method_of(op: &Operation) -> &'static str {
    if op.kind() == "write" {
        WRITE_TEXT_FILE
    } else {
        READ_TEXT_FILE
    }
}

/// Storage capabilities from their JSON form (missing booleans are false).
fn storage_caps(value: &Value) -> Result<StorageCaps, AcpFsError> {
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

/// How a request that came as a message is answered once it is done.
enum Reply {
    /// A JSON-RPC response with this raw id.
    Rpc(String),
    /// An MCP `tools/call` result.
    Mcp(McpReply),
}

impl Reply {
    fn to(&self, outcome: &Outcome) -> String {
        match self {
            Reply::Rpc(id) => respond(id, outcome.result.as_ref().map(Response::to_json).map_err(Clone::clone)),
            Reply::Mcp(reply) => reply.respond(outcome),
        }
    }
}

struct State {
    op: Operation,
    started: bool,
    /// A panic went through the operation: its future must not be polled again.
    broken: bool,
    /// The audit event, once the request has ended.
    audit: Option<AuditEvent>,
    #[cfg(feature = "disk")]
    files: crate::driver::OpenFiles<std::fs::File>,
    /// A write the disk loop finished: what a cancel that waited for the loop reports.
    #[cfg(feature = "disk")]
    finished: Option<HostOutcome>,
    /// The disk loop changed something (directories, the file): a cancel no longer stops it.
    #[cfg(feature = "disk")]
    changed: bool,
}

/// One request in flight, as a binding holds it: stepped with answers, cancelled, refused.
/// Nothing here may take the host down: a panic inside the engine, a malformed answer or a
/// step after the end becomes an outcome with an `internal` error.
///
/// It can be shared between threads (the native disk loop runs on a worker thread while the
/// JS thread may cancel).
pub struct HostOperation {
    state: Mutex<State>,
    /// Set by [`HostOperation::cancel`]; the disk loop checks it before every I/O.
    cancelled: AtomicBool,
    kind: &'static str,
    reply: Option<Reply>,
}

impl HostOperation {
    fn new(op: Operation, reply: Option<Reply>) -> HostOperation {
        let kind = op.kind();
        let state = State {
            op,
            started: false,
            broken: false,
            audit: None,
            #[cfg(feature = "disk")]
            files: Default::default(),
            #[cfg(feature = "disk")]
            finished: None,
            #[cfg(feature = "disk")]
            changed: false,
        };
        HostOperation { state: Mutex::new(state), cancelled: AtomicBool::new(false), kind, reply }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Poisoning only follows a panic, which `broken` records.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first call starts the request (whatever it is given: nothing was asked yet); each
    /// later one hands in the answer to the last [`Io`] (`bytes` beside `{bytes: true}`).
    /// `Some(Err(reason))`: the binding could not convert the answer.
    pub fn step(&self, answer: Option<Result<HostAnswer, String>>, bytes: Option<Vec<u8>>) -> HostStep {
        let mut state = self.lock();
        let step = self.advance(&mut state, answer, bytes);
        self.to_host(&mut state, step)
    }

    /// The audit event of the request once it has ended (semantics.md §7; `durationMs` is the
    /// driver's to stamp), `None` before.
    pub fn audit(&self) -> Option<AuditEvent> {
        self.lock().audit.clone()
    }

    /// Abandons the request: `-32800`, and no I/O after the last answered step. A write the
    /// disk loop finished while this waited for it is reported as it happened (semantics.md §6).
    pub fn cancel(&self) -> HostOutcome {
        self.end(AcpFsError::cancelled())
    }

    /// Asks the disk loop running this request ([`run_on_disk`](Self::run_on_disk), which holds
    /// the request while it works) to end before its next io, without waiting for it: the step
    /// the loop then returns says how the request ended, cancelled or, once it had changed
    /// something, with what it did (semantics.md §6). For a driver whose thread must not block
    /// on [`cancel`](Self::cancel) while a disk io runs.
    #[cfg(feature = "disk")]
    pub fn stop(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Ends the request with `-32602` naming `field`: params the driver refused before the
    /// engine saw them (no JSON form). It is reported (audit event) like any request.
    pub fn refuse(&self, field: &str, reason: &str) -> HostOutcome {
        self.end(AcpFsError::invalid_params(field, reason))
    }

    /// Ends the request with an `internal` error (the driver broke its own promise).
    pub fn abort(&self, reason: &str) -> HostOutcome {
        self.end(AcpFsError::internal(reason))
    }

    fn end(&self, error: AcpFsError) -> HostOutcome {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut state = self.lock();
        // The disk loop held the lock until it finished the write: the write happened, and it
        // is reported as it happened (with its change record), never as cancelled.
        #[cfg(feature = "disk")]
        if let Some(done) = state.finished.clone() {
            return done;
        }
        let outcome = self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(error))));
        self.to_host(&mut state, outcome).into_outcome()
    }

    /// Advances by one step, never panicking.
    fn advance(&self, state: &mut State, answer: Option<Result<HostAnswer, String>>, bytes: Option<Vec<u8>>) -> Step {
        if std::mem::replace(&mut state.started, true) {
            // A binding's own conversion error is not reported word for word: napi and
            // serde-wasm-bindgen word the same mistake differently, and hosts must see one text.
            let answer = match answer {
                None => Err("no answer".to_owned()),
                Some(Err(_)) => Err(NOT_AN_ANSWER.to_owned()),
                Some(Ok(answer)) => answer.into_answer(bytes),
            };
            match answer {
                Ok(answer) => self.guarded(state, |op| op.resume(answer)),
                Err(why) => {
                    let e = AcpFsError::internal(format!("the driver sent a malformed answer: {why}"));
                    self.guarded(state, |op| Step::Done(Box::new(op.fail(e))))
                }
            }
        } else {
            self.guarded(state, Operation::start)
        }
    }

    /// Runs `f` on the operation unless a panic broke it; a panic now breaks it.
    fn guarded(&self, state: &mut State, f: impl FnOnce(&mut Operation) -> Step) -> Step {
        if state.broken {
            return Step::Done(Box::new(self.broken("the operation failed earlier".into())));
        }
        match catch_unwind(AssertUnwindSafe(|| f(&mut state.op))) {
            Ok(step) => step,
            Err(payload) => {
                state.broken = true;
                Step::Done(Box::new(self.broken(panic_message(&*payload))))
            }
        }
    }

    /// The outcome of an operation whose own state cannot be trusted after a panic.
    fn broken(&self, message: String) -> Outcome {
        let error = AcpFsError::internal(message);
        Outcome { audit: AuditEvent::failed(self.kind, &error), result: Err(error), change: None }
    }

    /// An io as a host sees it: a write's bytes taken out to travel beside it.
    fn to_host_io(io: Io) -> HostStep {
        let changes = io.changes();
        match io {
            Io::Write { root, path, bytes } => {
                HostStep::Io { io: Io::Write { root, path, bytes: Vec::new() }, bytes: Some(bytes), changes }
            }
            io => HostStep::Io { io, bytes: None, changes },
        }
    }

    fn to_host(&self, state: &mut State, step: Step) -> HostStep {
        match step {
            Step::Io(io) => Self::to_host_io(io),
            Step::Done(outcome) => {
                #[cfg(feature = "disk")]
                {
                    state.files = Default::default();
                }
                let reply = self.reply.as_ref().map(|r| r.to(&outcome));
                let Outcome { result, change, audit } = *outcome;
                // The request's own end is what it reports, not a cancel or a step after it.
                state.audit.get_or_insert(audit);
                let (result, error) = match result {
                    Ok(r) => (Some(r), None),
                    Err(e) => (None, Some(e)),
                };
                HostStep::Done { done: Box::new(HostOutcome { result, error, change, reply }) }
            }
        }
    }

    /// Resumes with `answer` (if any) and performs storage I/O against the built-in disk until
    /// the request needs the host (`approve`, `writeDocument`, a `wait` whose turn has not
    /// come) or is done. For a worker thread: it blocks on the disk.
    #[cfg(feature = "disk")]
    pub fn run_on_disk(&self, answer: Option<Result<HostAnswer, String>>) -> HostStep {
        let disk = crate::DiskStorage::new();
        let mut state = self.lock();
        let mut step = self.advance(&mut state, answer, None);
        loop {
            step = match step {
                Step::Io(io @ (Io::Approve { .. } | Io::WriteDocument { .. })) => {
                    return self.to_host(&mut state, Step::Io(io))
                }
                // Another write to the path holds its turn (it may be waiting for a person):
                // the driver waits, not a worker thread (semantics.md §9).
                Step::Io(Io::Wait { turn, path }) if !turn.is_ready() => {
                    return self.to_host(&mut state, Step::Io(Io::Wait { turn, path }))
                }
                Step::Io(Io::Wait { .. }) => self.guarded(&mut state, |op| op.resume(Answer::Done)),
                Step::Io(_) if self.cancelled.load(Ordering::SeqCst) && !state.changed => {
                    let cancelled = AcpFsError::cancelled();
                    self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(cancelled))))
                }
                Step::Io(io) => {
                    state.changed |= io.changes();
                    let files = &mut state.files;
                    let host = crate::DefaultHost; // host I/O is returned above, never performed
                    match catch_unwind(AssertUnwindSafe(|| crate::perform(&disk, &host, files, io))) {
                        Ok(answer) => self.guarded(&mut state, |op| op.resume(answer)),
                        Err(payload) => {
                            let e = AcpFsError::internal(panic_message(&*payload));
                            self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(e))))
                        }
                    }
                }
                done @ Step::Done(_) => {
                    let step = self.to_host(&mut state, done);
                    if let (HostStep::Done { done }, "write") = (&step, self.kind) {
                        state.finished = Some((**done).clone());
                    }
                    return step;
                }
            }
        }
    }
}

impl HostStep {
    fn into_outcome(self) -> HostOutcome {
        match self {
            HostStep::Done { done } => *done,
            // `fail` always ends the operation.
            HostStep::Io { .. } => unreachable_outcome(),
        }
    }
}

fn unreachable_outcome() -> HostOutcome {
    let error = AcpFsError::internal("the operation went on after it ended");
    HostOutcome { result: None, error: Some(error), change: None, reply: None }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => format!("panic in acp-fs: {s}"),
        (_, Some(s)) => format!("panic in acp-fs: {s}"),
        _ => "panic in acp-fs".to_owned(),
    }
}

/// The agent's side of fs/* for drivers (see [`crate::agent`]): values in, typed values out.
pub mod agent_side {
    use super::*;

    /// A request to send, or why not.
    #[derive(Clone, Debug, Serialize)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(untagged)]
    pub enum HostRequest {
        Request {
            #[cfg_attr(feature = "ts", ts(type = "'fs/read_text_file' | 'fs/write_text_file'"))]
            method: &'static str,
            #[cfg_attr(feature = "ts", ts(type = "{ sessionId: string; path: string; [k: string]: unknown }"))]
            params: Value,
        },
        Error {
            error: AcpFsError,
        },
    }

    /// `clientCapabilities.fs` from an `initialize` request, its params, or the capabilities.
    pub fn client_fs_capabilities(value: &Value) -> FileSystemCapability {
        agent::client_fs_capabilities(value)
    }

    /// `{readTextFile, writeTextFile}` read by the core's own rule (only a real `true` counts).
    fn caps(caps: &Value) -> FileSystemCapability {
        agent::client_fs_capabilities(&serde_json::json!({ "fs": caps }))
    }

    /// The tool definitions for what `caps` allow.
    pub fn tool_definitions(caps_value: &Value) -> Vec<Value> {
        agent::tool_definitions(caps(caps_value))
    }

    /// A model's tool arguments checked with the client's rules.
    pub fn check_tool_arguments(tool: &str, session_id: &str, args: &Value) -> HostRequest {
        match agent::check_tool_arguments(tool, session_id, args) {
            Ok((method, params)) => HostRequest::Request { method, params },
            Err(error) => HostRequest::Error { error },
        }
    }

    /// As [`check_tool_arguments`], refused (`-32601`) when `caps` lack the tool's method.
    pub fn build_request(caps_value: &Value, tool: &str, session_id: &str, args: &Value) -> HostRequest {
        match agent::build_request(caps(caps_value), tool, session_id, args) {
            Ok(request) => {
                let method = match request.get("method").and_then(Value::as_str) {
                    Some(WRITE_TEXT_FILE) => WRITE_TEXT_FILE,
                    _ => READ_TEXT_FILE,
                };
                HostRequest::Request { method, params: request.get("params").cloned().unwrap_or(Value::Null) }
            }
            Err(error) => HostRequest::Error { error },
        }
    }

    /// The tool result for the client's answer `{result}` or `{error}`.
    pub fn tool_result(tool: &str, args: &Value, answer: &Value) -> Value {
        match answer.get("error").filter(|e| !e.is_null()) {
            Some(error) => agent::tool_result(tool, args, Err(error)),
            None => agent::tool_result(tool, args, Ok(answer.get("result"))),
        }
    }
}

impl AuditEvent {
    /// The audit event of a request that failed with `error` before it could say what it was.
    pub fn failed(op: &'static str, error: &AcpFsError) -> AuditEvent {
        AuditEvent {
            op,
            session_id: None,
            path: None,
            line: None,
            limit: None,
            bytes: 0,
            outcome: if error.kind == ErrorKind::Cancelled { "cancelled" } else { "error" },
            error_kind: Some(error.kind.as_str()),
            duration_ms: None,
            traceparent: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(value: Value, bytes: Option<Vec<u8>>) -> Result<Answer, String> {
        serde_json::from_value::<HostAnswer>(value).map_err(|e| e.to_string())?.into_answer(bytes)
    }

    /// A write of "new\n" to `a.txt` in a fresh directory of its own, run by the disk loop up to
    /// its approval: the operation, the file's path and the directory (for the caller to remove).
    #[cfg(feature = "disk")]
    fn disk_write_at_approval(name: &str) -> (HostOperation, std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("acp-fs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dir = dir.canonicalize().unwrap();
        let path = dir.join("a.txt");
        let caps =
            json!({"symlinks": "resolvable", "stat": true, "rangedReads": true, "write": true, "makeDirs": true});
        let engine = HostEngine::new(json!({}), caps).unwrap();
        assert!(engine.open_session(&json!("s"), &json!(dir.to_str().unwrap()), &json!([])).is_none());
        let params = json!({"sessionId": "s", "path": path.to_str().unwrap(), "content": "new\n"});
        let op = engine.start("fs/write_text_file", Ok(params)).unwrap();
        let approve = op.run_on_disk(None);
        assert!(matches!(approve, HostStep::Io { io: Io::Approve { .. }, .. }), "{approve:?}");
        (op, path, dir)
    }

    #[cfg(feature = "disk")]
    fn approved() -> Option<Result<HostAnswer, String>> {
        Some(Ok(serde_json::from_value::<HostAnswer>(json!({"approved": true})).unwrap()))
    }

    /// The disk loop wrote the file; a cancel that waited for it reports the write as it
    /// happened (with its change record), never as cancelled.
    #[cfg(feature = "disk")]
    #[test]
    fn a_cancel_after_the_disk_wrote_reports_the_write() {
        let (op, path, dir) = disk_write_at_approval("cancel");
        let HostStep::Done { done } = op.run_on_disk(approved()) else { panic!("the write ends") };
        assert!(done.error.is_none(), "{done:?}");
        let cancelled = op.cancel();
        assert!(cancelled.error.is_none(), "the write happened: {cancelled:?}");
        assert_eq!(cancelled.change.map(|c| c.new_text), Some("new\n".to_owned()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `stop` takes no lock: the disk loop sees it before its next io and ends the request
    /// there, cancelled, with nothing written; a later `cancel` reports that same end.
    #[cfg(feature = "disk")]
    #[test]
    fn a_stop_ends_the_disk_loop_at_its_next_io() {
        let (op, path, dir) = disk_write_at_approval("stop");
        op.stop();
        let HostStep::Done { done } = op.run_on_disk(approved()) else { panic!("the loop ends the request") };
        assert_eq!(done.error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        assert!(done.change.is_none());
        assert_eq!(op.audit().unwrap().outcome, "cancelled");
        assert!(!path.exists(), "nothing was written");
        assert_eq!(op.cancel().error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn io_shapes() {
        let io = |io: Io| serde_json::to_value(HostOperation::to_host_io(io)).unwrap();
        assert_eq!(
            io(Io::ReadAt { file: 2, offset: 5, len: 10 }),
            json!({"io": {"op": "readAt", "file": 2, "offset": 5, "length": 10}})
        );
        assert_eq!(
            io(Io::Open { root: "/p".into(), path: "/p/a".into(), head: 16384 }),
            json!({"io": {"op": "open", "root": "/p", "path": "/p/a", "head": 16384}})
        );
        // A write's bytes travel beside the request, never inside it.
        let HostStep::Io { io: Io::Write { bytes: inside, .. }, bytes, changes } =
            HostOperation::to_host_io(Io::Write { root: "/p".into(), path: "/p/a".into(), bytes: vec![1, 2] })
        else {
            panic!("a write stays a write")
        };
        assert_eq!((inside, bytes, changes), (Vec::new(), Some(vec![1, 2]), true));
        // What changes files or a buffer says so on the wire; nothing else carries the member.
        assert_eq!(
            io(Io::MakeDirs { root: "/p".into(), path: "/p/d".into() }),
            json!({"io": {"op": "makeDirs", "root": "/p", "path": "/p/d"}, "changes": true})
        );
        assert_eq!(
            io(Io::WriteDocument { path: "/p/a".into(), text: "x".into() }),
            json!({"io": {"op": "writeDocument", "path": "/p/a", "text": "x"}, "changes": true})
        );
        assert_eq!(
            io(Io::Stat { path: "/p/a".into(), follow: true }),
            json!({"io": {"op": "stat", "path": "/p/a", "follow": true}})
        );
    }

    #[test]
    fn answers_from_their_json() {
        let file = FileKind::File;
        let cases: [(Value, Option<Vec<u8>>, Answer); 10] = [
            (json!({"metadata": {"kind": "file", "size": 3}}), None, Answer::Metadata(Metadata::new(file, 3))),
            (
                json!({"metadata": {"kind": "file", "size": 3, "links": 2, "modifiedMs": 1.5}}),
                None,
                Answer::Metadata(Metadata { kind: file, size: 3, links: 2, modified: Some(1_500_000) }),
            ),
            (
                json!({"file": 4, "metadata": {"kind": "file", "size": 3}}),
                None,
                Answer::Opened { file: Some(4), meta: Metadata::new(file, 3), head: None },
            ),
            (
                json!({"file": 4, "metadata": {"kind": "file", "size": 3}, "bytes": true}),
                Some(b"abc".to_vec()),
                Answer::Opened { file: Some(4), meta: Metadata::new(file, 3), head: Some(b"abc".to_vec().into()) },
            ),
            (
                json!({"file": null, "metadata": {"kind": "directory", "size": 0}}),
                None,
                Answer::Opened { file: None, meta: Metadata::new(FileKind::Directory, 0), head: None },
            ),
            (json!({"path": "/x"}), None, Answer::Path("/x".into())),
            (json!({"bytes": true}), Some(vec![7]), Answer::Bytes(vec![7].into())),
            (json!({"done": true}), None, Answer::Done),
            (json!({"approved": false}), None, Answer::Approved(false)),
            (json!({"document": "writeThrough"}), None, Answer::Document(DocumentWrite::WriteThrough)),
        ];
        for (value, bytes, want) in cases {
            assert_eq!(answer(value.clone(), bytes).unwrap(), want, "{value}");
        }
        let Answer::Err(e) = answer(json!({"error": {"code": "ENOENT", "message": "gone"}}), None).unwrap() else {
            panic!("an error answer")
        };
        assert_eq!((e.kind, e.message.as_str()), (StorageErrorKind::NotFound, "ENOENT: gone"));
        for bad in [
            json!({"bytes": true}),
            json!({"file": 1, "metadata": {"kind": "file", "size": 3}, "bytes": true}),
            json!(42),
            json!({}),
            json!({"bogus": 1}),
            json!({"path": 5}),
            json!({"metadata": {"kind": "fifo", "size": 1}}),
            json!({"metadata": {"kind": "file", "size": -1}}),
            json!({"metadata": {"kind": "file"}}),
        ] {
            assert!(answer(bad.clone(), None).is_err(), "{bad} is malformed");
        }
        // Head bytes only come with a file that was opened.
        let headless = json!({"file": null, "metadata": {"kind": "file", "size": 3}, "bytes": true});
        assert!(answer(headless, Some(b"abc".to_vec())).is_err());
    }

    #[test]
    fn host_error_codes_and_names() {
        for (code, name, kind) in [
            ("ENOENT", "", StorageErrorKind::NotFound),
            ("", "NotFoundError", StorageErrorKind::NotFound),
            ("EACCES", "", StorageErrorKind::PermissionDenied),
            ("", "TypeMismatchError", StorageErrorKind::IsADirectory),
            ("ENOTDIR", "", StorageErrorKind::NotADirectory),
            ("ERR_ACP_FS_ESCAPE", "", StorageErrorKind::SymlinkEscape),
            ("EIO", "Error", StorageErrorKind::Other),
        ] {
            assert_eq!(classify(code, name), kind, "{code}/{name}");
        }
    }

    #[test]
    fn caps_from_their_json() {
        let caps = storage_caps(&json!({"symlinks": "resolvable", "stat": true, "rangedReads": true})).unwrap();
        assert!(caps.stat && caps.ranged_reads && !caps.write && caps.symlinks == Symlinks::Resolvable);
        let e = storage_caps(&json!({"symlinks": "maybe"})).unwrap_err();
        assert_eq!(e.data["field"], "caps.symlinks");
        assert!(HostEngine::new(json!({}), json!({"symlinks": "maybe"})).is_err());
        assert!(HostEngine::new(json!({"maxReadBytes": "lots"}), json!({})).is_err());
    }

    fn engine() -> HostEngine {
        let engine =
            HostEngine::new(json!({}), json!({"symlinks": "none", "rangedReads": true, "write": true})).unwrap();
        assert!(engine.open_session(&json!("s"), &json!("/p"), &Value::Null).is_none());
        engine
    }

    fn read(engine: &HostEngine) -> HostOperation {
        engine.start("fs/read_text_file", Ok(json!({"sessionId": "s", "path": "/p/a.txt"}))).unwrap()
    }

    fn done(step: HostStep) -> HostOutcome {
        match step {
            HostStep::Done { done } => *done,
            HostStep::Io { io, .. } => panic!("expected the end, got {io:?}"),
        }
    }

    #[test]
    fn lifecycle() {
        let engine = engine();
        // The first step ignores what it is given: nothing was asked yet.
        let op = read(&engine);
        assert!(matches!(op.step(Some(Err("junk".into())), None), HostStep::Io { io: Io::Open { .. }, .. }));
        // A malformed answer ends the request as the driver's bug, and so does every later step.
        let out = done(op.step(Some(Err("not an object".into())), None));
        let e = out.error.unwrap();
        assert_eq!((e.kind, e.code), (ErrorKind::Internal, -32603));
        assert!(e.message.ends_with(&format!("malformed answer: {NOT_AN_ANSWER}")), "{}", e.message);
        let audit = op.audit().unwrap();
        assert_eq!((audit.outcome, audit.error_kind), ("error", Some("internal")));
        assert_eq!(done(op.step(None, None)).error.unwrap().kind, ErrorKind::Internal);
        // No answer at all after the first step is malformed too.
        let op = read(&engine);
        op.step(None, None);
        assert_eq!(done(op.step(None, None)).error.unwrap().kind, ErrorKind::Internal);
        // Cancel: -32800 now, internal afterwards.
        let op = read(&engine);
        op.step(None, None);
        assert!(op.audit().is_none(), "no audit event while the request runs");
        let out = op.cancel();
        assert_eq!((out.error.unwrap().code, op.audit().unwrap().outcome), (-32800, "cancelled"));
        op.step(None, None);
        assert_eq!(op.audit().unwrap().outcome, "cancelled", "a step after the end does not rewrite the audit");
        assert_eq!(done(op.step(Some(Ok(HostAnswer::default())), None)).error.unwrap().kind, ErrorKind::Internal);
        // Refuse names the field, before any io, and the audit still says what was asked.
        let op = read(&engine);
        let e = op.refuse("path", LONE_SURROGATE).error.unwrap();
        assert_eq!((e.code, &e.data["field"]), (-32602, &json!("path")));
        assert_eq!(op.audit().unwrap().path.as_deref(), Some("/p/a.txt"));
        // Abort: internal, with the driver's reason.
        let out = read(&engine).abort("the pool is gone");
        assert_eq!(out.error.unwrap().message, "Internal error: the pool is gone");
        // Params a binding could not convert: internal, and not an fs method: none.
        let out = done(engine.start("fs/read_text_file", Err("a cycle".into())).unwrap().step(None, None));
        assert!(out.error.unwrap().message.contains("params that are not JSON: a cycle"));
        assert!(engine.start("session/new", Ok(json!({}))).is_none());
    }

    #[test]
    fn a_storage_error_from_a_binding_fails_the_read_as_storage() {
        let engine = engine();
        let op = read(&engine);
        op.step(None, None);
        let out = done(op.step(Some(Ok(HostAnswer::storage_error("4096 bytes do not fit"))), None));
        assert_eq!(out.error.unwrap().kind, ErrorKind::StorageError);
    }

    #[test]
    fn replies_come_with_the_outcome() {
        let engine = engine();
        let (what, op) = engine.dispatch(
            r#"{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}"#,
        );
        assert_eq!(
            serde_json::to_value(&what).unwrap(),
            json!({"kind": "call", "id": "\"x\"", "method": "fs/read_text_file"})
        );
        let op = op.unwrap();
        op.step(None, None);
        let bytes = Some(Ok(serde_json::from_value(json!({"bytes": true})).unwrap()));
        let opened =
            Some(Ok(serde_json::from_value(json!({"file": 0, "metadata": {"kind": "file", "size": 3}})).unwrap()));
        op.step(opened, None);
        let out = done(op.step(bytes, Some(b"hi\n".to_vec())));
        assert_eq!(out.reply.unwrap(), r#"{"jsonrpc":"2.0","id":"x","result":{"content":"hi\n"}}"#);
        let (what, op) = engine.dispatch(r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}"#);
        assert_eq!(serde_json::to_value(&what).unwrap(), json!({"kind": "cancel", "id": "7"}));
        assert!(op.is_none());
        // An MCP call's outcome carries the tool result; a cancelled one still has a reply (the
        // driver drops it when the peer cancelled).
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt"}}}"#;
        let (what, op) = engine.mcp_dispatch("s", call);
        assert_eq!(
            serde_json::to_value(&what).unwrap(),
            json!({"kind": "call", "id": "3", "method": "fs/read_text_file"})
        );
        let op = op.unwrap();
        op.step(None, None);
        let reply: Value = serde_json::from_str(&op.cancel().reply.unwrap()).unwrap();
        assert_eq!((reply["id"].clone(), reply["result"]["isError"].clone()), (json!(3), json!(true)));
        // Requests started by hand have no reply.
        let op = read(&engine);
        op.step(None, None);
        assert!(op.cancel().reply.is_none());
    }

    #[test]
    fn host_calls_name_what_is_wrong() {
        let engine = engine();
        let e = engine.open_session(&json!("s"), &json!(42), &Value::Null).unwrap();
        assert_eq!(e.data["field"], "cwd");
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!(["/q", 3])).unwrap();
        assert_eq!(e.data["field"], "additionalDirectories[1]");
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!("x")).unwrap();
        assert_eq!(e.data["field"], "additionalDirectories");
        assert_eq!(engine.open_document(&json!("rel.txt"), &json!("x")).unwrap().data["field"], "path");
        assert_eq!(engine.open_document(&json!("/p/a.txt"), &json!(1)).unwrap().data["field"], "text");
        assert!(engine.open_document(&json!("/p/a.txt"), &json!("buffer")).is_none());
        assert_eq!(engine.document(&json!("/p/a.txt")).as_deref(), Some("buffer"));
        assert!(engine.document_version(&json!("/p/a.txt")).is_some());
        assert!(engine.document_saved(&json!("/p/a.txt")) && !engine.document_saved(&json!(5)));
        engine.close_document(&json!("/p/a.txt"));
        assert_eq!(engine.document(&json!("/p/a.txt")), None);
        let info = serde_json::to_value(info()).unwrap();
        assert_eq!(info["internal"]["message"], "Internal error: {message}");
        assert_eq!(
            info["fullCaps"],
            json!({"symlinks": "resolvable", "stat": true, "rangedReads": true, "write": true, "makeDirs": true})
        );
    }
}

#[cfg(all(test, feature = "ts"))]
mod generated {
    //! `npm/types/host.d.ts` is generated from the types above; this fails when it is stale
    //! (`ACP_FS_BLESS=1 cargo test --all-features -p acp-fs host::generated` rewrites it).
    use super::agent_side::HostRequest;
    use super::*;
    use ts_rs::{Config, TS};

    fn generate() -> String {
        let cfg = Config::new().with_large_int("number");
        let decls = [
            HostInfo::decl(&cfg),
            HostAnswer::decl(&cfg),
            HostError::decl(&cfg),
            HostMetadata::decl(&cfg),
            HostOutcome::decl(&cfg),
            HostStep::decl(&cfg),
            HostDispatch::decl(&cfg),
            HostRequest::decl(&cfg),
            Io::decl(&cfg),
            AcpFsError::decl(&cfg),
            ErrorKind::decl(&cfg),
            ChangeRecord::decl(&cfg),
            AuditEvent::decl(&cfg),
            DocumentWrite::decl(&cfg),
            FileKind::decl(&cfg),
            StorageCaps::decl(&cfg),
            Symlinks::decl(&cfg),
            Response::decl(&cfg),
            crate::protocol::ReadTextFileResponse::decl(&cfg),
            crate::protocol::WriteTextFileResponse::decl(&cfg),
            FileSystemCapability::decl(&cfg),
        ];
        let mut out = String::from(
            "// Generated from core/src/host.rs and the types it names (ts-rs): do not edit.\n\
             // Regenerate: ACP_FS_BLESS=1 cargo test -p acp-fs --all-features host::generated\n\n\
             export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n",
        );
        for decl in decls {
            out.push_str("\nexport ");
            out.push_str(&decl);
            out.push('\n');
        }
        out
    }

    #[test]
    fn host_types_are_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../npm/types/host.d.ts");
        let want = generate();
        if std::env::var_os("ACP_FS_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "npm/types/host.d.ts is stale: run ACP_FS_BLESS=1 cargo test -p acp-fs --all-features host::generated"
        );
    }
}
