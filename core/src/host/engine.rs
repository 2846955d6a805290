//! The engine as a binding's `Engine` class sees it: JSON values in, typed values out.

use super::operation::HostOperation;
#[cfg(any(feature = "json-rpc", feature = "mcp"))]
use super::operation::Reply;
use super::step::HostDispatch;
use crate::dispatch::{CheckedParams, Dispatch, ParsedCall};
use crate::engine::AcpFs;
use crate::error::AcpFsError;
use crate::json_text::quoted;
#[cfg(feature = "mcp")]
use crate::mcp::{McpDispatch, McpServer};
#[cfg(feature = "mcp")]
use crate::operation::Operation;
use crate::options::{Options, SessionOptions};
use crate::params::{FlatParams, Params};
use crate::protocol::FileSystemCapability;
#[cfg(feature = "mcp")]
use crate::protocol::{READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::storage::{StorageCaps, Symlinks};
use serde_json::Value;

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

    /// Registers a session's roots and its options (`SessionOptions::from_json`: the rest of
    /// the JS session object, `null` for none); `None` on success.
    pub fn open_session(
        &self,
        session_id: &Value,
        cwd: &Value,
        additional_directories: &Value,
        session: &Value,
    ) -> Option<AcpFsError> {
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
            self.fs.open_session_with(id, cwd, &dirs, &SessionOptions::from_json(session)?)
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
    #[must_use = "a request is answered only once it is run to its outcome"]
    pub fn start(&self, method: &str, params: Result<Value, String>) -> Option<HostOperation> {
        self.start_params(method, params.map(|params| (&params).into()))
    }

    fn start_params(&self, method: &str, params: Result<Params, String>) -> Option<HostOperation> {
        let op = match params {
            Ok(params) => self.fs.start(method, params),
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
    #[must_use = "a request is answered only once it is run to its outcome"]
    pub fn start_json(&self, method: &str, params: &str) -> Option<HostOperation> {
        // Read as the raw dispatcher reads params, member by member with no `Value` built, and
        // checked to be JSON in the same pass.
        self.start_json_checked(method, CheckedParams::of_text(Some(params)))
    }

    /// [`start_json`](Self::start_json) with its params read already ([`CheckedParams::of_text`]:
    /// `@acp-fs/wasm`'s fs/* module has no JSON text reader and is handed them so). What the
    /// driver cannot have written (not JSON, a lone surrogate escape) is its bug: `internal`.
    #[must_use = "a request is answered only once it is run to its outcome"]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn start_json_checked(&self, method: &str, params: CheckedParams) -> Option<HostOperation> {
        self.start_params(method, params.into_params().map_err(|e| AcpFsError::from(e).message))
    }

    /// [`start`](Self::start) with flat params (every member a scalar), read without a JSON
    /// value; validated and echoed exactly as their JSON object would be.
    #[must_use = "a request is answered only once it is run to its outcome"]
    pub fn start_flat(&self, method: &str, params: FlatParams) -> Option<HostOperation> {
        self.fs.start(method, params.into()).map(|op| HostOperation::new(op, None))
    }

    /// Classifies one raw JSON-RPC message, and starts the request if it is an fs call.
    #[must_use = "a call must be run and answered, a reply sent"]
    pub fn dispatch(&self, message: &str) -> (HostDispatch, Option<HostOperation>) {
        self.fs.dispatch(message).into()
    }

    /// [`dispatch`](Self::dispatch) of a call [`parse_message`](crate::parse_message) read
    /// already (`@acp-fs/wasm`'s JSON-RPC module reads messages for its fs/* module).
    #[must_use = "a call must be run and answered, a reply sent"]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn call(&self, call: ParsedCall) -> (HostDispatch, Option<HostOperation>) {
        self.fs.call(call).into()
    }

    /// The MCP tools `session_id`'s server offers (roots in the descriptions).
    #[cfg(feature = "mcp")]
    pub fn mcp_tools(&self, session_id: &str) -> Result<Vec<Value>, AcpFsError> {
        Ok(McpServer::new(self.fs.clone(), session_id).tools())
    }

    /// Without feature `mcp`: the error naming the missing MCP tools.
    #[cfg(not(feature = "mcp"))]
    pub fn mcp_tools(&self, _session_id: &str) -> Result<Vec<Value>, AcpFsError> {
        Err(AcpFsError::not_built(MCP_TOOLS))
    }

    /// One MCP message for `session_id`'s server; a `tools/call` starts an operation whose
    /// outcome carries the JSON-RPC reply (the tool result).
    #[cfg(feature = "mcp")]
    #[must_use = "a call must be run and answered, a reply sent"]
    pub fn mcp_dispatch(&self, session_id: &str, message: &str) -> (HostDispatch, Option<HostOperation>) {
        McpServer::new(self.fs.clone(), session_id).dispatch(message).into()
    }

    /// Without feature `mcp`: a request is answered with the error naming the missing MCP tools.
    #[cfg(not(feature = "mcp"))]
    #[must_use = "a reply must be sent"]
    pub fn mcp_dispatch(&self, _session_id: &str, message: &str) -> (HostDispatch, Option<HostOperation>) {
        (mcp_not_built(message), None)
    }
}

/// What a build without feature `mcp` makes of an MCP message: a request is answered with the
/// error naming the missing MCP tools (after the envelope checks); anything else is not its.
/// `@acp-fs/wasm`'s JSON-RPC module answers so for its fs/* module.
///
/// ```
/// use acp_fs::host::{mcp_not_built, HostDispatch};
/// let HostDispatch::Reply { reply } = mcp_not_built(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#) else { panic!() };
/// assert!(reply.starts_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601"#));
/// let note = mcp_not_built(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
/// assert!(matches!(note, HostDispatch::NotMine));
/// ```
pub fn mcp_not_built(message: &str) -> HostDispatch {
    match crate::dispatch::refuse_request(message, |_| AcpFsError::not_built(MCP_TOOLS)) {
        Some(reply) => HostDispatch::Reply { reply },
        None => HostDispatch::NotMine,
    }
}

/// The part a build without feature `mcp` lacks, as its errors name it.
const MCP_TOOLS: &str = "the MCP tools";

/// A message for the engine as a driver sees it: what it is, and the request it started.
impl From<Dispatch> for (HostDispatch, Option<HostOperation>) {
    fn from(dispatch: Dispatch) -> Self {
        match dispatch {
            Dispatch::NotMine => (HostDispatch::NotMine, None),
            Dispatch::Reply(reply) => (HostDispatch::Reply { reply }, None),
            Dispatch::Cancel(id) => (HostDispatch::Cancel { id }, None),
            Dispatch::Call(call) => {
                let id = call.id().to_owned();
                let call_of = HostDispatch::Call { id: id.clone(), method: call.method };
                // Without `json-rpc` the binding writes the reply (`crate::respond_json`).
                #[cfg(feature = "json-rpc")]
                let reply = Some(Reply::Rpc(id));
                #[cfg(not(feature = "json-rpc"))]
                let reply = None;
                (call_of, Some(HostOperation::new(call.operation, reply)))
            }
        }
    }
}

/// An MCP message as a driver sees it: what it is, and the `tools/call` it started.
#[cfg(feature = "mcp")]
impl From<McpDispatch> for (HostDispatch, Option<HostOperation>) {
    fn from(dispatch: McpDispatch) -> Self {
        match dispatch {
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

fn string<'a>(field: &str, value: &'a Value) -> Result<&'a str, AcpFsError> {
    value.as_str().ok_or_else(|| AcpFsError::invalid_params(field, "must be a string"))
}

#[cfg(feature = "mcp")]
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
        // Quoted as JSON ([`quoted`] says why).
        other => return Err(AcpFsError::invalid_params("caps.symlinks", format!("unknown value {}", quoted(other)))),
    };
    Ok(StorageCaps {
        symlinks,
        stat: flag("stat"),
        ranged_reads: flag("rangedReads"),
        write: flag("write"),
        make_dirs: flag("makeDirs"),
        list: flag("list"),
        rename: flag("rename"),
        make_dir: flag("makeDir"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::fixtures::{done, engine, read};
    use crate::host::info;
    use serde_json::json;

    #[test]
    fn caps_from_their_json() {
        let caps = storage_caps(&json!({"symlinks": "resolvable", "stat": true, "rangedReads": true})).unwrap();
        assert!(caps.stat && caps.ranged_reads && !caps.write && caps.symlinks == Symlinks::Resolvable);
        let e = storage_caps(&json!({"symlinks": "maybe"})).unwrap_err();
        assert_eq!(e.data["field"], "caps.symlinks");
        assert!(HostEngine::new(json!({}), json!({"symlinks": "maybe"})).is_err());
        assert!(HostEngine::new(json!({"maxReadBytes": "lots"}), json!({})).is_err());
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
        // The reply stands for the result: it does not cross twice.
        assert!(out.result.is_none());
        let (what, op) = engine.dispatch(r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}"#);
        assert_eq!(serde_json::to_value(&what).unwrap(), json!({"kind": "cancel", "id": "7"}));
        assert!(op.is_none());
        // An MCP call's outcome carries the tool result; a cancelled one still has a reply (the
        // driver drops it when the peer cancelled). A build without the tools answers -32601.
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt"}}}"#;
        let (what, op) = engine.mcp_dispatch("s", call);
        if cfg!(feature = "mcp") {
            assert_eq!(
                serde_json::to_value(&what).unwrap(),
                json!({"kind": "call", "id": "3", "method": "fs/read_text_file"})
            );
            let op = op.unwrap();
            op.step(None, None);
            let reply: Value = serde_json::from_str(&op.cancel().reply.unwrap()).unwrap();
            assert_eq!((reply["id"].clone(), reply["result"]["isError"].clone()), (json!(3), json!(true)));
        } else {
            let what = serde_json::to_value(&what).unwrap();
            let reply: Value = serde_json::from_str(what["reply"].as_str().unwrap()).unwrap();
            assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(3), json!(-32601)));
            assert!(op.is_none());
        }
        // Requests started by hand have no reply.
        let op = read(&engine);
        op.step(None, None);
        assert!(op.cancel().reply.is_none());
    }

    #[test]
    fn host_calls_name_what_is_wrong() {
        let engine = engine();
        let e = engine.open_session(&json!("s"), &json!(42), &Value::Null, &json!(null)).unwrap();
        assert_eq!(e.data["field"], "cwd");
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!(["/q", 3]), &json!(null)).unwrap();
        assert_eq!(e.data["field"], "additionalDirectories[1]");
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!("x"), &json!(null)).unwrap();
        assert_eq!(e.data["field"], "additionalDirectories");
        // The session's options: an unknown agent, a misspelt key or a non-object is named.
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!({"agent": "qwen-code"})).unwrap();
        assert_eq!((e.code, e.data["field"].as_str()), (crate::codes::INVALID_PARAMS, Some("agent")));
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!({"agnet": "gemini-cli"})).unwrap();
        assert_eq!(e.data["field"], "agnet");
        let e = engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!("gemini-cli")).unwrap();
        assert_eq!(e.data["field"], "session");
        assert!(engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!({"agent": "gemini-cli"})).is_none());
        assert!(engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!({"agent": null})).is_none());
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
            json!({"symlinks": "resolvable", "stat": true, "rangedReads": true, "write": true, "makeDirs": true,
                   "list": true, "rename": true, "makeDir": true})
        );
    }
}
