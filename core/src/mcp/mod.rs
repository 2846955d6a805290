//! The same engine as MCP tools, for ACP v2 clients (which drop `fs/*` and serve files to the
//! agent through an MCP server): `tools/list` offers the tools this engine's storage can serve,
//! with the session's roots in their descriptions, and `tools/call` runs the engine with the same
//! policy, approvals and change records, answering a tool result. A message handler (JSON-RPC
//! in, JSON-RPC out), so a host can put it on any MCP transport.
//!
//! ```
//! use acp_fs::{mcp::McpServer, AcpFs, DefaultHost, MemoryStorage, Options, Storage};
//! let disk = MemoryStorage::new();
//! disk.put("/project/a.txt", "one\ntwo\n");
//! let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
//! fs.open_session("s", "/project", &[]).unwrap();
//! let server = McpServer::new(fs, "s");
//! let reply = server.handle(&disk, &DefaultHost, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
//!     "params":{"name":"read_text_file","arguments":{"path":"/project/a.txt","line":2}}}"#).unwrap();
//! assert_eq!(reply, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"two\n"}],"structuredContent":{"content":"two\n"},"isError":false}}"#);
//! ```
//!
//! # Adding a tool
//!
//! A tool is one `const` `Tool` (`registry.rs`) in the module of its family, listed once in
//! `registry::TOOLS` (that list is `tools/list`'s order and `tools/call`'s lookup). It declares:
//! - `name`, `title`, `description` (the roots are appended), `inputSchema` (`input`; its
//!   `properties` are the only arguments accepted, any other is refused by name before `start`
//!   runs), `outputSchema` (`output`, the shape of `structuredContent`), `annotations`;
//! - `needs`: the `Need`s it has of the engine and storage (writes, listing,
//!   rename, make-dir); a tool whose need is unmet is left out of `tools/list` and is an unknown
//!   tool to `tools/call` ([`McpServer::unavailable`] says why);
//! - `start`: builds the [`Operation`] from the `Call` (`arguments.rs`: typed argument getters
//!   with precise errors; `Call::path` resolves a relative path against the session's cwd). The
//!   operation is an `async fn` over the `Channel` asks, like `read.rs`, and ends with
//!   `output::done(result, bytes)`, `result` being the whole tool result (`output::text`,
//!   `output::plain`);
//! - `answer`: the tool result from the outcome; `registry::answer` (a tool's own result as it is,
//!   an error as an `isError` result) unless the tool shapes fs results itself.

mod arguments;
mod find;
mod globs;
mod grep;
mod info;
mod listing;
mod media;
mod output;
mod reads;
pub(crate) mod registry;
mod roots;
mod start;
mod target;
mod text_files;
mod walk;

mod changes;
pub(crate) mod edit;
mod mutate;

use crate::dispatch::{parse, respond, respond_result};
use crate::engine::AcpFs;
use crate::error::AcpFsError;
use crate::operation::{Operation, Outcome};
use crate::storage::{Host, Storage};
use arguments::Call;
use registry::Tool;
use serde_json::{json, Value};

/// MCP revisions whose `tools/list` and `tools/call` this server speaks (unchanged since the
/// first); a client asking for another gets the newest.
const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// One session's file access as an MCP tool server.
#[derive(Clone)]
pub struct McpServer {
    fs: AcpFs,
    session_id: String,
}

/// What to do with one MCP message.
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "a call must be run and answered, a reply sent"]
pub enum McpDispatch {
    /// A notification or a response: nothing to answer.
    NotMine,
    /// Answer this at once.
    Reply(String),
    /// Run the operation, then answer with [`McpCall::respond`] (boxed: a call is ten times
    /// the size of the other answers).
    Call(Box<McpCall>),
    /// `notifications/cancelled` for this request id (raw JSON text): cancel the call if it is
    /// in flight. MCP says a cancelled request gets no answer, so the driver drops the reply.
    Cancel(String),
}

/// A `tools/call` in flight.
#[derive(Debug)]
#[must_use = "a request is answered only once it is run to its outcome"]
pub struct McpCall {
    id: Box<str>,
    tool: &'static Tool,
    arguments: Value,
    /// The request the tool call runs, to answer with [`McpCall::respond`].
    pub operation: Operation,
}

impl McpCall {
    /// The JSON-RPC response carrying the tool result (errors are `isError` results, so the
    /// model can read them and correct itself).
    pub fn respond(&self, outcome: &Outcome) -> String {
        tool_response(&self.id, self.tool, &self.arguments, outcome)
    }

    /// Splits the call so a driver can own the operation (run it, move it to another thread)
    /// and answer later with the [`McpReply`].
    pub fn into_parts(self) -> (Operation, McpReply) {
        let McpCall { id, tool, arguments, operation } = self;
        (operation, McpReply { id, tool, arguments })
    }
}

/// What is needed to answer a `tools/call` once its operation has finished.
#[derive(Debug)]
pub struct McpReply {
    id: Box<str>,
    tool: &'static Tool,
    arguments: Value,
}

impl McpReply {
    /// The JSON-RPC response for the finished operation (see [`McpCall::respond`]).
    pub fn respond(&self, outcome: &Outcome) -> String {
        tool_response(&self.id, self.tool, &self.arguments, outcome)
    }

    /// The request id as raw JSON text, to match a later cancellation.
    pub fn id(&self) -> &str {
        &self.id
    }
}

fn tool_response(id: &str, tool: &Tool, arguments: &Value, outcome: &Outcome) -> String {
    respond_result(id, &(tool.answer)(arguments, outcome.result.as_ref()))
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl McpServer {
    /// Serves `session_id`'s roots through `fs`.
    pub fn new(fs: AcpFs, session_id: impl Into<String>) -> McpServer {
        McpServer { fs, session_id: session_id.into() }
    }

    /// The tools this server offers (only what the engine's capabilities allow).
    pub fn tools(&self) -> Vec<Value> {
        let roots = self.fs.roots(&self.session_id).unwrap_or_default();
        let where_ = match roots.len() {
            0 => String::new(),
            _ => format!(" (allowed roots: {})", roots.join(", ")),
        };
        registry::offered(&self.fs.shared).map(|t| t.definition(&where_)).collect()
    }

    /// The tools this server leaves out of `tools/list`, each with the reason (a storage
    /// capability or an option), for a host to show.
    pub fn unavailable(&self) -> Vec<(&'static str, &'static str)> {
        registry::TOOLS.iter().filter_map(|t| Some((t.name, t.unavailable(&self.fs.shared)?))).collect()
    }

    /// Classifies one message and starts the tool call if there is one.
    pub fn dispatch(&self, message: &str) -> McpDispatch {
        let msg = match parse(message) {
            Ok(Some(msg)) => msg,
            Ok(None) => return McpDispatch::NotMine,
            Err(reply) => return McpDispatch::Reply(reply),
        };
        if msg.method == "notifications/cancelled" {
            return match msg.params().ok().flatten().as_ref().and_then(|p| p.get("requestId")) {
                Some(id) => McpDispatch::Cancel(id.to_string()),
                None => McpDispatch::NotMine,
            };
        }
        let id = match msg.request_id() {
            Ok(Some(id)) => id,
            Ok(None) => return McpDispatch::NotMine,
            Err(reply) => return McpDispatch::Reply(reply),
        };
        let reply = |result: Result<Value, AcpFsError>| McpDispatch::Reply(respond(id, result));
        // Params a `Value` cannot hold (a lone surrogate escape) are answered for this request,
        // as the fs methods do (semantics.md §8.1), naming the member they are in.
        let params = match msg.params() {
            Ok(params) => params.unwrap_or(Value::Null),
            Err(e) => return reply(Err(e)),
        };
        match msg.method.as_str() {
            "initialize" => {
                let asked = params.get("protocolVersion").and_then(Value::as_str);
                let version = PROTOCOL_VERSIONS.into_iter().find(|v| Some(*v) == asked).unwrap_or(PROTOCOL_VERSIONS[0]);
                reply(Ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": "acp-fs", "version": env!("CARGO_PKG_VERSION")},
                })))
            }
            "ping" => reply(Ok(json!({}))),
            "tools/list" => reply(Ok(json!({"tools": self.tools()}))),
            "tools/call" => self.call(id, &params),
            other => reply(Err(AcpFsError::method_not_found(other))),
        }
    }

    fn call(&self, id: &str, params: &Value) -> McpDispatch {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        // An unknown tool is a protocol error (MCP: -32602); bad arguments are tool errors.
        let Some(tool) = registry::offered(&self.fs.shared).find(|t| t.name == name) else {
            let e = AcpFsError::invalid_params("name", format!("unknown tool {name:?}"));
            return McpDispatch::Reply(respond(id, Err(e)));
        };
        let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let started = Call::new(&self.fs, &self.session_id, tool, &arguments).and_then(|call| (tool.start)(&call));
        match started {
            Ok(operation) => McpDispatch::Call(Box::new(McpCall { id: id.into(), tool, arguments, operation })),
            Err(e) => McpDispatch::Reply(respond_result(id, &(tool.answer)(&arguments, Err(&e)))),
        }
    }

    /// Answers one message synchronously over `storage`; `None` when nothing is to be answered.
    #[must_use = "the reply is what the peer is waiting for"]
    pub fn handle(&self, storage: &impl Storage, host: &impl Host, message: &str) -> Option<String> {
        match self.dispatch(message) {
            McpDispatch::NotMine | McpDispatch::Cancel(_) => None,
            McpDispatch::Reply(r) => Some(r),
            McpDispatch::Call(call) => {
                let (operation, reply) = call.into_parts();
                Some(reply.respond(&crate::run(operation, storage, host)))
            }
        }
    }
}
