//! wasm-bindgen binding of the acp-fs engine: the low-level `Engine` / `Operation` / `McpCall`
//! interface and the agent-side free functions of `docs/binding-interface.md`, shared with the
//! N-API binding. It converts JS values to the shapes of [`acp_fs::wire`] and back, and does
//! nothing else: the step loop against a JS storage is the shared JS driver's.
//!
//! Nothing here traps on bad input, and little throws. Sessions, documents, params, tool
//! arguments and answers that are wrong come back as `WireError`s or `done` outcomes; only the
//! constructor (as the interface says), `dispatch` / `mcpDispatch` / `mcpTools` given a
//! non-string, and the agent functions given a value with no JSON form throw a JS `Error`. A panic cannot be caught on
//! `wasm32-unknown-unknown` (it aborts), so the crate has no panicking path and nothing that
//! recurses on input, and it records a panic's message (`__takePanicMessage`) for the package's
//! JS guard, which turns the resulting trap into an `internal` outcome.

use acp_fs::mcp::{McpDispatch, McpServer};
use acp_fs::{
    agent, wire, AcpFs, AcpFsError, Answer, Dispatch, FileSystemCapability, Options, Outcome, Response, Step,
    StorageError, StorageErrorKind, READ_TEXT_FILE, WRITE_TEXT_FILE,
};
use js_sys::{Array, Object, Reflect, Uint8Array, JSON};
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(typescript_custom_section)]
const WIRE_TYPES: &str = r#"
export type WireError = { kind: string; code: number; message: string; data: unknown };
export type WireCaps = { symlinks?: 'none' | 'resolvable' | 'unresolvable'; stat?: boolean;
  rangedReads?: boolean; write?: boolean; makeDirs?: boolean };
export type WireChange = { sessionId: string; path: string; created: boolean; oldText: string | null; newText: string;
  merged?: true };
export type WireIo = { op: 'stat'; path: string; follow: boolean } | { op: 'realPath'; path: string }
  | { op: 'readAll'; path: string } | { op: 'open'; root: string; path: string }
  | { op: 'readAt'; file: number; offset: number; length: number }
  | { op: 'makeDirs'; root: string; path: string } | { op: 'write'; root: string; path: string }
  | { op: 'approve'; change: WireChange } | { op: 'writeDocument'; path: string; text: string }
  | { op: 'wait'; path: string };
export type WireAnswer = { metadata: { kind: 'file' | 'directory' | 'symlink' | 'other'; size: number; links?: number;
    modifiedMs?: number };
    file?: number | null }
  | { path: string } | { bytes: true } | { done: true } | { approved: boolean }
  | { document: 'buffer' | 'writeThrough' } | { error: { code?: string; name?: string; message?: string } };
export type WireAudit = { op: 'read' | 'write'; sessionId: string | null; path: string | null; line: number | null;
  limit: number | null; bytes: number; outcome: 'ok' | 'error' | 'cancelled'; errorKind?: string;
  durationMs: number | null; traceparent?: string };
export type WireOutcome = { result?: { content?: string; _meta?: object }; error?: WireError;
  change: WireChange | null; audit: WireAudit };
export type WireStep = { io: WireIo; bytes?: Uint8Array } | { done: WireOutcome };
export type WireDispatch = { kind: 'notMine' } | { kind: 'reply'; reply: string }
  | { kind: 'call'; id: string; method: string; operation: Operation } | { kind: 'cancel'; id: string };
export type WireMcpDispatch = { kind: 'notMine' } | { kind: 'reply'; reply: string }
  | { kind: 'cancel'; id: string } | { kind: 'call'; id: string; method: string; operation: Operation; call: McpCall };
export type WireFsCapabilities = { readTextFile: boolean; writeTextFile: boolean };
export type WireToolDefinition = { name: 'read_text_file' | 'write_text_file'; description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false } };
export type WireFsRequest = { method: 'fs/read_text_file' | 'fs/write_text_file'; params: { sessionId: string; path: string } };
export type WireToolResult = { content: { type: 'text'; text: string }[]; isError: boolean };
"#;

/// The engine for one storage: options, sessions, open documents.
#[wasm_bindgen]
pub struct Engine {
    fs: AcpFs,
}

#[wasm_bindgen]
impl Engine {
    /// Throws an `Error` whose message is the JSON of a `WireError` when an option or the caps
    /// are bad.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "object | null | undefined")] options: JsValue,
        #[wasm_bindgen(unchecked_param_type = "WireCaps")] caps: JsValue,
    ) -> Result<Engine, JsValue> {
        let caps = json_from(&caps).map_err(|e| AcpFsError::invalid_params("caps", e.reason)).map_err(thrown)?;
        let caps = wire::caps(&caps).map_err(thrown)?;
        let options = options_from(&options).map_err(thrown)?;
        AcpFs::new(options, caps).map(|fs| Engine { fs }).map_err(thrown)
    }

    #[wasm_bindgen(js_name = openSession, unchecked_return_type = "WireError | null")]
    pub fn open_session(
        &self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] cwd: JsValue,
        #[wasm_bindgen(js_name = additionalDirectories, unchecked_param_type = "string[]")]
        additional_directories: JsValue,
    ) -> JsValue {
        let opened = string("sessionId", &session_id).and_then(|id| {
            let cwd = cwd.as_string().ok_or_else(|| AcpFsError::invalid_params("cwd", PATH_STRING))?;
            let dirs = paths("additionalDirectories", &additional_directories)?;
            self.fs.open_session(&id, &cwd, &dirs)
        });
        error_or_null(opened)
    }

    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(
        &self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
    ) {
        // No session was ever opened under a non-string id, so there is nothing to close.
        if let Some(id) = session_id.as_string() {
            self.fs.close_session(&id);
        }
    }

    #[wasm_bindgen(js_name = openDocument, unchecked_return_type = "WireError | null")]
    pub fn open_document(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsValue {
        let opened = string("path", &path).and_then(|path| {
            let text = string("text", &text)?;
            self.fs.open_document(&path, &text)
        });
        error_or_null(opened)
    }

    /// The buffer was reloaded from storage with `text`: it matches the file (semantics.md §9).
    #[wasm_bindgen(js_name = documentReloaded, unchecked_return_type = "WireError | null")]
    pub fn document_reloaded(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsValue {
        let done = string("path", &path).and_then(|path| {
            let text = string("text", &text)?;
            self.fs.document_reloaded(&path, &text)
        });
        error_or_null(done)
    }

    /// The buffer was saved; false when it is not open.
    #[wasm_bindgen(js_name = documentSaved)]
    pub fn document_saved(&self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> bool {
        path.as_string().is_some_and(|path| self.fs.document_saved(&path))
    }

    /// The open document's version (a new one on every change), or `null`.
    #[wasm_bindgen(js_name = documentVersion, unchecked_return_type = "number | null")]
    pub fn document_version(&self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> JsValue {
        path.as_string()
            .and_then(|path| self.fs.document_version(&path))
            .map_or(JsValue::NULL, |v| JsValue::from(v as f64))
    }

    #[wasm_bindgen(js_name = closeDocument)]
    pub fn close_document(&self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) {
        if let Some(path) = path.as_string() {
            self.fs.close_document(&path);
        }
    }

    /// The open document's current text, or `null`.
    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn document(&self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> JsValue {
        path.as_string().and_then(|path| self.fs.document(&path)).map_or(JsValue::NULL, JsValue::from)
    }

    #[wasm_bindgen(unchecked_return_type = "{ readTextFile: boolean, writeTextFile: boolean }")]
    pub fn capabilities(&self) -> JsValue {
        value_to_js(serde_json::to_value(self.fs.capabilities()).unwrap_or(Value::Null))
    }

    /// Starts the request for `method`; `null` when it is not an fs method. Params that are
    /// not representable as JSON (a cycle, a lone surrogate in a string) make an operation whose
    /// first step is an `invalid_params` outcome naming the field, like any other bad params.
    #[wasm_bindgen(unchecked_return_type = "Operation | null")]
    pub fn start(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] method: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] params: JsValue,
    ) -> JsValue {
        let Some(method) = method.as_string() else { return JsValue::NULL };
        let (params, refused) = match json_from(&params) {
            Ok(params) => (params, None),
            Err(e) => (Value::Null, Some(AcpFsError::invalid_params(e.field.as_deref().unwrap_or("params"), e.reason))),
        };
        match self.fs.request(&method, params) {
            Some(op) => Operation { op, refused, started: false }.into(),
            None => JsValue::NULL,
        }
    }

    /// Classifies one raw JSON-RPC message (and starts the request if it is an fs call).
    /// Throws a `TypeError` when `message` is not a string: the raw dispatcher answers text.
    #[wasm_bindgen(unchecked_return_type = "WireDispatch")]
    pub fn dispatch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(message) = message.as_string() else {
            return Err(js_sys::TypeError::new("dispatch: the message must be a string (the raw JSON-RPC text)").into());
        };
        let out = Object::new();
        match self.fs.dispatch(&message) {
            Dispatch::NotMine => set(&out, "kind", &"notMine".into()),
            Dispatch::Reply(reply) => {
                set(&out, "kind", &"reply".into());
                set(&out, "reply", &reply.into());
            }
            Dispatch::Cancel(id) => {
                set(&out, "kind", &"cancel".into());
                set(&out, "id", &id.into());
            }
            Dispatch::Call(call) => {
                set(&out, "kind", &"call".into());
                set(&out, "id", &call.id().into());
                set(&out, "method", &call.method.into());
                let acp_fs::Call { operation, .. } = call;
                set(&out, "operation", &Operation { op: operation, refused: None, started: false }.into());
            }
        }
        Ok(out.into())
    }

    /// The MCP tools `sessionId`'s server offers (roots in the descriptions, only what the
    /// capabilities allow).
    #[wasm_bindgen(js_name = mcpTools, unchecked_return_type = "WireToolDefinition[]")]
    pub fn mcp_tools(
        &self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let session_id = session_id.as_string().ok_or_else(|| not_a_string("mcpTools", "sessionId"))?;
        Ok(value_to_js(Value::Array(McpServer::new(self.fs.clone(), session_id).tools())))
    }

    /// Classifies one MCP message for `sessionId`'s server and starts the tool call if there is
    /// one: run `operation` like any other, then `call.respond(...)` gives the reply. Throws a
    /// `TypeError` when `sessionId` or `message` is not a string.
    #[wasm_bindgen(js_name = mcpDispatch, unchecked_return_type = "WireMcpDispatch")]
    pub fn mcp_dispatch(
        &self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    ) -> Result<JsValue, JsValue> {
        let session_id = session_id.as_string().ok_or_else(|| not_a_string("mcpDispatch", "sessionId"))?;
        let message = message.as_string().ok_or_else(|| not_a_string("mcpDispatch", "message"))?;
        let out = Object::new();
        match McpServer::new(self.fs.clone(), session_id).dispatch(&message) {
            McpDispatch::NotMine => set(&out, "kind", &"notMine".into()),
            McpDispatch::Reply(reply) => {
                set(&out, "kind", &"reply".into());
                set(&out, "reply", &reply.into());
            }
            McpDispatch::Cancel(id) => {
                set(&out, "kind", &"cancel".into());
                set(&out, "id", &id.into());
            }
            McpDispatch::Call(call) => {
                let (operation, reply) = call.into_parts();
                let method = if operation.kind() == "write" { WRITE_TEXT_FILE } else { READ_TEXT_FILE };
                set(&out, "kind", &"call".into());
                set(&out, "id", &reply.id().into());
                set(&out, "method", &method.into());
                set(&out, "operation", &Operation { op: operation, refused: None, started: false }.into());
                set(&out, "call", &McpCall { reply }.into());
            }
        }
        Ok(out.into())
    }
}

/// An MCP `tools/call` whose operation is in flight: `respond` turns its answer into the reply.
#[wasm_bindgen]
pub struct McpCall {
    reply: acp_fs::mcp::McpReply,
}

#[wasm_bindgen]
impl McpCall {
    /// The JSON-RPC reply carrying the tool result, from the operation's `{result}` or `{error}`
    /// (a `WireOutcome` will do).
    pub fn respond(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ result?: object | null; error?: WireError | null }")] answer: JsValue,
    ) -> String {
        let outcome = match json_from(&answer) {
            Ok(answer) => wire::outcome_from(&answer),
            Err(e) => {
                let e = AcpFsError::internal(format!("the driver sent an outcome that is not JSON: {}", e.reason));
                wire::outcome_from(&serde_json::json!({ "error": wire::error(&e) }))
            }
        };
        self.reply.respond(&outcome)
    }
}

/// `clientCapabilities.fs` from an `initialize` request, its params, or the
/// `clientCapabilities` object (anything absent or not `true` is `false`). Throws an `Error`
/// carrying a wire error when `value` has no JSON form.
#[wasm_bindgen(js_name = clientFsCapabilities, unchecked_return_type = "WireFsCapabilities")]
pub fn client_fs_capabilities(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
) -> Result<JsValue, JsValue> {
    let value = json_argument("value", &value)?;
    Ok(caps_to_js(agent::client_fs_capabilities(&value)))
}

/// The tool definitions for what `caps` (`{readTextFile, writeTextFile}`) allow.
#[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "WireToolDefinition[]")]
pub fn tool_definitions(
    #[wasm_bindgen(unchecked_param_type = "WireFsCapabilities")] caps: JsValue,
) -> Result<JsValue, JsValue> {
    Ok(value_to_js(Value::Array(agent::tool_definitions(caps_from(&caps)?))))
}

/// A model's tool arguments checked with the client's rules: `{method, params}` to send, or
/// `{error}` (arguments with no JSON form too, naming the argument).
#[wasm_bindgen(js_name = checkToolArguments, unchecked_return_type = "WireFsRequest | { error: WireError }")]
pub fn check_tool_arguments(
    #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
    #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
) -> JsValue {
    let checked = tool_call(&tool, &session_id, &args).and_then(|(tool, session_id, args)| {
        agent::check_tool_arguments(&tool, &session_id, &args)
            .map(|(method, params)| serde_json::json!({"method": method, "params": params}))
    });
    request_or_error(checked)
}

/// As `checkToolArguments`, refused (`-32601`) when `caps` does not include the tool's method.
#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "WireFsRequest | { error: WireError }")]
pub fn build_request(
    #[wasm_bindgen(unchecked_param_type = "WireFsCapabilities")] caps: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
    #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
) -> Result<JsValue, JsValue> {
    let caps = caps_from(&caps)?;
    let built = tool_call(&tool, &session_id, &args)
        .and_then(|(tool, session_id, args)| agent::build_request(caps, &tool, &session_id, &args));
    Ok(request_or_error(built))
}

/// The tool result for the client's answer: `{result}` (a write's `{}`, `null` or no result
/// all mean success) or `{error}` (the JSON-RPC error object). Throws an `Error` carrying a wire
/// error when `tool` is not a string or a value has no JSON form.
#[wasm_bindgen(js_name = toolResult, unchecked_return_type = "WireToolResult")]
pub fn tool_result(
    #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ result?: unknown; error?: unknown }")] answer: JsValue,
) -> Result<JsValue, JsValue> {
    let tool = string("name", &tool).map_err(thrown)?;
    let args = json_argument("args", &args)?;
    let answer = json_argument("answer", &answer)?;
    let result = match answer.get("error").filter(|e| !e.is_null()) {
        Some(error) => agent::tool_result(&tool, &args, Err(error)),
        None => agent::tool_result(&tool, &args, Ok(answer.get("result"))),
    };
    Ok(value_to_js(result))
}

fn not_a_string(call: &str, what: &str) -> JsValue {
    js_sys::TypeError::new(&format!("{call}: the {what} must be a string")).into()
}

/// A free function's argument as JSON, or the thrown wire error naming it.
fn json_argument(field: &str, value: &JsValue) -> Result<Value, JsValue> {
    json_from(value).map_err(|e| thrown(AcpFsError::invalid_params(field, e.reason)))
}

/// The tool name, session id and arguments of a tool call; arguments with no JSON form are
/// invalid params naming the argument they sit under.
fn tool_call(tool: &JsValue, session_id: &JsValue, args: &JsValue) -> Result<(String, String, Value), AcpFsError> {
    let tool = string("name", tool)?;
    let session_id = string("sessionId", session_id)?;
    let args =
        json_from(args).map_err(|e| AcpFsError::invalid_params(e.field.as_deref().unwrap_or("arguments"), e.reason))?;
    Ok((tool, session_id, args))
}

fn request_or_error(request: Result<Value, AcpFsError>) -> JsValue {
    match request {
        Ok(request) => value_to_js(request),
        Err(e) => value_to_js(serde_json::json!({ "error": wire::error(&e) })),
    }
}

fn caps_to_js(caps: FileSystemCapability) -> JsValue {
    value_to_js(serde_json::json!({"readTextFile": caps.read_text_file, "writeTextFile": caps.write_text_file}))
}

/// `{readTextFile, writeTextFile}` read by the core's own rule (only a real `true` counts).
fn caps_from(caps: &JsValue) -> Result<FileSystemCapability, JsValue> {
    let caps = json_argument("caps", caps)?;
    Ok(agent::client_fs_capabilities(&serde_json::json!({ "fs": caps })))
}

/// One request in flight.
#[wasm_bindgen]
pub struct Operation {
    op: acp_fs::Operation,
    /// Params that never reached the engine: the first step reports them.
    refused: Option<AcpFsError>,
    started: bool,
}

#[wasm_bindgen]
impl Operation {
    /// First call with no arguments; then with the answer to the io it returned (`bytes`
    /// beside `{bytes: true}`). A malformed answer ends the operation with an `internal` error.
    #[wasm_bindgen(unchecked_return_type = "WireStep")]
    pub fn step(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "WireAnswer")] answer: Option<JsValue>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: Option<JsValue>,
    ) -> JsValue {
        let first = !std::mem::replace(&mut self.started, true);
        let step = if let Some(e) = self.refused.take() {
            Step::Done(Box::new(self.op.fail(e)))
        } else if first {
            // Whatever came with the first call, there was no io yet for it to answer.
            self.op.start()
        } else {
            match answer_from(answer.as_ref(), bytes.as_ref()) {
                Ok(answer) => self.op.resume(answer),
                Err(e) => Step::Done(Box::new(self.op.fail(e))),
            }
        };
        step_to_js(step)
    }

    /// Abandons the request: a `cancelled` outcome, and no io after the last answered step.
    #[wasm_bindgen(unchecked_return_type = "WireOutcome")]
    pub fn cancel(&mut self) -> JsValue {
        self.refused = None;
        outcome_to_js(self.op.cancel())
    }

    /// Ends the request with `error` (params the driver refused before the engine saw them):
    /// the outcome carries it, and no io follows.
    #[wasm_bindgen(unchecked_return_type = "WireOutcome")]
    pub fn fail(&mut self, #[wasm_bindgen(unchecked_param_type = "WireError")] error: JsValue) -> JsValue {
        self.refused = None;
        let error = match json_from(&error) {
            Ok(error) => wire::error_from(&error),
            Err(e) => AcpFsError::internal(format!("the driver sent an error that is not JSON: {}", e.reason)),
        };
        outcome_to_js(self.op.fail(error))
    }
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A panic aborts the instance (`unreachable` trap) before any JS sees its message; the hook
/// keeps the message so the package's guard can put it into the `internal` error it reports.
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        LAST_PANIC.with(|slot| {
            if let Ok(mut slot) = slot.try_borrow_mut() {
                *slot = Some(message);
            }
        });
    }));
}

/// The message of the last panic, once (for the package's trap guard; not part of the API).
#[wasm_bindgen(js_name = __takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|slot| slot.try_borrow_mut().ok().and_then(|mut slot| slot.take()))
}

fn step_to_js(step: Step) -> JsValue {
    match step {
        Step::Io(io) => {
            let (io, bytes) = wire::io(io);
            let out = value_to_js(serde_json::json!({ "io": io }));
            if let Some(bytes) = bytes {
                // A copy, not a view: a view into wasm memory dies when the memory grows.
                set(&out, "bytes", &Uint8Array::from(bytes.as_slice()).into());
            }
            out
        }
        Step::Done(outcome) => {
            let out = Object::new();
            set(&out, "done", &outcome_to_js(*outcome));
            out.into()
        }
    }
}

/// The wire outcome, with the texts it carries (content, old and new text) moved into it
/// rather than copied: they can be megabytes.
fn outcome_to_js(mut outcome: Outcome) -> JsValue {
    let content = match &mut outcome.result {
        Ok(Response::Read(read)) => Some(std::mem::take(&mut read.content)),
        _ => None,
    };
    let texts = outcome.change.as_mut().map(|c| (c.old_text.take(), std::mem::take(&mut c.new_text)));
    let mut value = wire::outcome(&outcome);
    let mut put = |pointer: &str, text: Option<String>| {
        if let (Some(slot), Some(text)) = (value.pointer_mut(pointer), text) {
            *slot = Value::String(text);
        }
    };
    put("/result/content", content);
    if let Some((old, new)) = texts {
        put("/change/oldText", old);
        put("/change/newText", Some(new));
    }
    value_to_js(value)
}

fn answer_from(answer: Option<&JsValue>, bytes: Option<&JsValue>) -> Result<Answer, AcpFsError> {
    let full = |answer: &JsValue| {
        json_from(answer)
            .map_err(|e| AcpFsError::internal(format!("the driver sent an answer that is not JSON: {}", e.reason)))
    };
    let (value, quick) = match answer {
        None => (Value::Null, false),
        Some(answer) => match answer_fields(answer) {
            Some(value) => (value, true),
            None => (full(answer)?, false),
        },
    };
    let bytes = match bytes.filter(|b| !b.is_null() && !b.is_undefined()) {
        None => None,
        Some(bytes) => match bytes_from(bytes) {
            Some(Ok(bytes)) => Some(bytes),
            // Memory the engine cannot have is the storage's failure to deliver the file, not a
            // broken driver: the request fails as a storage error and the engine lives on.
            Some(Err(len)) => {
                return Ok(Answer::Err(StorageError::new(
                    StorageErrorKind::Other,
                    format!("{len} bytes do not fit in the wasm engine's memory"),
                )))
            }
            None => return Err(AcpFsError::internal("the driver sent bytes that are not a Uint8Array or ArrayBuffer")),
        },
    };
    match (wire::answer(&value, bytes), answer) {
        // The quick read holds every field the core reads, so it fails exactly when the whole
        // answer would; the whole answer is converted only to name it in the error.
        (Err(_), Some(answer)) if quick => wire::answer(&full(answer)?, None),
        (answer, _) => answer,
    }
}

thread_local! {
    /// The keys of a `WireAnswer` and of its `error` / `metadata` objects, as JS strings made
    /// once: every step reads them.
    static ANSWER_KEYS: Keys = keys(&["error", "metadata", "file", "path", "bytes", "done", "approved", "document"]);
    static INNER_KEYS: Keys = keys(&["code", "name", "message", "kind", "size", "links", "modifiedMs"]);
    static OBJECT_PROTOTYPE: Object = Object::get_prototype_of(&Object::new());
}

type Keys = Vec<(&'static str, JsValue)>;

fn keys(names: &[&'static str]) -> Keys {
    names.iter().map(|&k| (k, JsValue::from_str(k))).collect()
}

/// The fields of a plain-object answer that the core reads, without converting the whole
/// object; `None` when the answer is anything else (the general conversion takes it then).
fn answer_fields(answer: &JsValue) -> Option<Value> {
    ANSWER_KEYS.with(|outer| INNER_KEYS.with(|inner| fields(answer, outer, Some(inner))))
}

fn fields(object: &JsValue, keys: &Keys, nested: Option<&Keys>) -> Option<Value> {
    if !object.is_object() || !OBJECT_PROTOTYPE.with(|p| Object::get_prototype_of(object) == *p) {
        return None;
    }
    let mut map = serde_json::Map::new();
    for (name, key) in keys {
        let value = Reflect::get(object, key).ok()?;
        if value.is_undefined() {
            continue;
        }
        let value = match (primitive(&value), nested) {
            (Some(v), _) => v,
            (None, Some(inner)) => fields(&value, inner, None)?,
            (None, None) => return None,
        };
        map.insert((*name).to_owned(), value);
    }
    Some(Value::Object(map))
}

fn primitive(value: &JsValue) -> Option<Value> {
    if value.is_null() {
        Some(Value::Null)
    } else if let Some(b) = value.as_bool() {
        Some(Value::Bool(b))
    } else if let Some(n) = value.as_f64() {
        Some(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    } else {
        value.as_string().map(Value::String)
    }
}

/// The bytes of a `Uint8Array`, another `ArrayBuffer` view or an `ArrayBuffer`, copied into
/// the engine's memory; `Some(Err(len))` when they do not fit, `None` for anything else.
fn bytes_from(value: &JsValue) -> Option<Result<Vec<u8>, f64>> {
    let view = if let Some(array) = value.dyn_ref::<Uint8Array>() {
        array.clone()
    } else if js_sys::ArrayBuffer::is_view(value) {
        // Another realm's Uint8Array, a Buffer from elsewhere, a DataView: read the bytes it spans.
        let get = |key: &str| Reflect::get(value, &key.into()).ok();
        let buffer = get("buffer")?;
        let offset = get("byteOffset")?.as_f64()?;
        let length = get("byteLength")?.as_f64()?;
        if offset + length > f64::from(u32::MAX) {
            return Some(Err(length));
        }
        Uint8Array::new_with_byte_offset_and_length(&buffer, offset as u32, length as u32)
    } else if value.is_instance_of::<js_sys::ArrayBuffer>() {
        Uint8Array::new(value)
    } else {
        return None;
    };
    let len = view.length() as usize;
    let mut bytes = Vec::new();
    // `Vec::with_capacity` would abort the instance on a file larger than the address space.
    if bytes.try_reserve_exact(len).is_err() {
        return Some(Err(len as f64));
    }
    bytes.resize(len, 0);
    view.copy_to(&mut bytes);
    Some(Ok(bytes))
}

/// Engine options from the JS options object, as `Options::from_json` reads them. Each value is
/// converted on its own: one that has no JSON form (a function, a cyclic or huge host object the
/// engine never reads) only fails the conversion if the engine reads that key, and then with the
/// reason; nothing is walked recursively inside wasm, so no options object can overflow the stack.
fn options_from(options: &JsValue) -> Result<Options, AcpFsError> {
    if options.is_null() || options.is_undefined() {
        return Ok(Options::default());
    }
    let value = if options.is_object() && !Array::is_array(options) && !options.is_function() {
        let mut map = serde_json::Map::new();
        let entries = entries(options).map_err(|e| AcpFsError::invalid_params("options", js_message(&e)))?;
        for (key, value) in entries {
            let Some(key) = key.as_string() else { continue };
            if value.is_undefined() || value.is_function() || value.is_symbol() {
                continue; // what JSON.stringify leaves out
            }
            let value = json_from(&value).unwrap_or_else(|e| Value::String(format!("<{}>", e.reason)));
            map.insert(key, value);
        }
        Value::Object(map)
    } else {
        json_from(options).map_err(|e| AcpFsError::invalid_params("options", e.reason))?
    };
    Options::from_json(&value)
}

/// How deep a value from JS may nest, and how many values it may hold: serde_json's recursion
/// limit, and the node budget of the N-API binding's conversion (a DAG of shared objects 60
/// levels deep is small in memory and 2^60 values once walked). Converting past either could
/// exhaust the wasm stack, which would corrupt the instance, or never finish.
const MAX_DEPTH: usize = 128;
const MAX_VALUES: usize = 1_000_000;

/// Why a JS value has no JSON form; `field` is the top-level key it was found under.
struct NotJson {
    field: Option<String>,
    reason: String,
}

impl NotJson {
    fn new(reason: impl Into<String>) -> NotJson {
        NotJson { field: None, reason: reason.into() }
    }
}

/// A JS value as a JSON value. Strings, numbers (BigInts too), arrays and plain objects convert
/// directly, as the N-API binding converts them. A value with anything else inside (a function,
/// a symbol) is taken as `JSON.stringify` would send it, which is what a JSON-RPC peer would have
/// sent. Size, nesting and text are checked first: nothing recursive runs inside wasm on a value
/// that could overflow its stack, and a lone surrogate (no UTF-8 form) is refused rather than
/// replaced (semantics.md §8.1).
fn json_from(value: &JsValue) -> Result<Value, NotJson> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    walk(value, false)?;
    let converted = serde_wasm_bindgen::from_value::<Value>(value.clone());
    // The conversion writes a lone surrogate as U+FFFD; only then are the JS strings looked at.
    if converted.as_ref().map_or(true, has_replacement) {
        walk(value, true)?;
    }
    if let Ok(v) = converted {
        return Ok(v);
    }
    let not_json = |why: String| NotJson::new(format!("not representable as JSON: {why}"));
    let text = JSON::stringify(value).map_err(|e| not_json(js_message(&e)))?;
    let Some(text) = text.as_string() else {
        return Err(NotJson::new("not representable as JSON"));
    };
    serde_json::from_str(&text).map_err(|e| not_json(e.to_string()))
}

fn has_replacement(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::String(s) if s.contains('\u{FFFD}') => return true,
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => {
                if map.keys().any(|k| k.contains('\u{FFFD}')) {
                    return true;
                }
                pending.extend(map.values());
            }
            _ => {}
        }
    }
    false
}

thread_local! {
    /// `String.prototype.isWellFormed` (ES2024), where the runtime has it.
    static IS_WELL_FORMED: Option<js_sys::Function> = Reflect::get(&JsValue::from_str(""), &"isWellFormed".into())
        .ok()
        .and_then(|f| f.dyn_into().ok());
}

/// No lone surrogates in `text` (a string, or anything else: then there is nothing to check).
fn well_formed(text: &JsValue) -> bool {
    let Some(text) = text.dyn_ref::<js_sys::JsString>() else { return true };
    let native = IS_WELL_FORMED.with(|f| f.as_ref().and_then(|f| f.call0(text).ok()).and_then(|v| v.as_bool()));
    // Older runtimes: the same check over the code units, only slower.
    native.unwrap_or_else(|| text.is_valid_utf16())
}

/// Walks `value` with an explicit stack (so the walk itself cannot overflow): fails past
/// [`MAX_DEPTH`] levels (a cycle nests forever), past [`MAX_VALUES`] values, and with `texts`
/// on a string or key with a lone surrogate, naming the top-level key it sits under.
fn walk(value: &JsValue, texts: bool) -> Result<(), NotJson> {
    const LONE: &str = "is not valid Unicode (a lone surrogate)";
    if texts && !well_formed(value) {
        return Err(NotJson::new(LONE));
    }
    let mut pending: Vec<(JsValue, usize, Option<String>)> = vec![(value.clone(), 0, None)];
    let mut values = 1usize;
    while let Some((value, depth, field)) = pending.pop() {
        if !value.is_object() || js_sys::ArrayBuffer::is_view(&value) {
            continue; // a primitive, or bytes: numbers all the way down
        }
        if depth >= MAX_DEPTH {
            return Err(NotJson { field, reason: format!("nested deeper than {MAX_DEPTH} levels (or cyclic)") });
        }
        let children: Vec<(JsValue, JsValue)> = if Array::is_array(&value) {
            value.unchecked_into::<Array>().iter().map(|child| (JsValue::UNDEFINED, child)).collect()
        } else {
            entries(&value).map_err(|e| NotJson {
                field: field.clone(),
                reason: format!("not representable as JSON: {}", js_message(&e)),
            })?
        };
        values += children.len();
        if values > MAX_VALUES {
            return Err(NotJson { field, reason: format!("more than {MAX_VALUES} values") });
        }
        for (key, child) in children {
            // Below the top level, errors name the top-level key the value sits under.
            let field = if depth == 0 { key.as_string().or(field.clone()) } else { field.clone() };
            if texts && !(well_formed(&key) && well_formed(&child)) {
                return Err(NotJson { field, reason: LONE.to_owned() });
            }
            if child.is_object() {
                pending.push((child, depth + 1, field));
            }
        }
    }
    Ok(())
}

#[wasm_bindgen]
extern "C" {
    /// `Object.entries`, catching what a getter or a proxy throws (an exception unwinding
    /// through wasm would skip the stack pointer's restore).
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn object_entries(object: &JsValue) -> Result<Array, JsValue>;
}

/// The own enumerable string-keyed properties of `object`, as JSON sees them.
fn entries(object: &JsValue) -> Result<Vec<(JsValue, JsValue)>, JsValue> {
    Ok(object_entries(object)?
        .iter()
        .map(|entry| {
            let entry: Array = entry.unchecked_into();
            (entry.get(0), entry.get(1))
        })
        .collect())
}

fn js_message(error: &JsValue) -> String {
    if let Some(e) = error.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    error.as_string().unwrap_or_else(|| "a non-Error value was thrown".to_owned())
}

/// Strings longer than this cross on their own instead of inside the JSON text: escaping and
/// re-parsing a file's content would cost more than the rest of the answer together.
const INLINE_TEXT: usize = 1024;

/// A JSON value as the plain JS value `JSON.parse` gives: one parse of a small text is far
/// cheaper than building the object property by property across the boundary. Long strings are
/// taken out first and set in place afterwards, each decoded once.
fn value_to_js(mut value: Value) -> JsValue {
    let mut long = Vec::new();
    take_long_strings(&mut value, &mut Vec::new(), &mut long);
    // serde_json writes valid JSON from a Value, so neither step fails.
    let Ok(js) = serde_json::to_string(&value).map_err(drop).and_then(|text| JSON::parse(&text).map_err(drop)) else {
        return JsValue::NULL;
    };
    for (path, text) in long {
        let key = |k: &PathKey| match k {
            PathKey::Name(name) => JsValue::from_str(name),
            PathKey::Index(i) => JsValue::from_f64(*i as f64),
        };
        let Some((last, parents)) = path.split_last() else { return JsValue::from_str(&text) };
        let mut target = js.clone();
        for k in parents {
            target = Reflect::get(&target, &key(k)).unwrap_or(JsValue::UNDEFINED);
        }
        let _ = Reflect::set(&target, &key(last), &JsValue::from_str(&text));
    }
    js
}

#[derive(Clone)]
enum PathKey {
    Name(String),
    Index(usize),
}

fn take_long_strings(value: &mut Value, path: &mut Vec<PathKey>, out: &mut Vec<(Vec<PathKey>, String)>) {
    match value {
        Value::String(s) if s.len() > INLINE_TEXT => {
            out.push((path.clone(), std::mem::take(s)));
            *value = Value::Null;
        }
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if matches!(child, Value::String(_) | Value::Object(_) | Value::Array(_)) {
                    path.push(PathKey::Name(key.clone()));
                    take_long_strings(child, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(PathKey::Index(i));
                take_long_strings(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn string(field: &str, value: &JsValue) -> Result<String, AcpFsError> {
    value.as_string().ok_or_else(|| AcpFsError::invalid_params(field, "must be a string"))
}

/// Why a root is refused before the engine sees it (the N-API binding's words).
const PATH_STRING: &str = "must be an absolute path string";

fn paths(field: &str, value: &JsValue) -> Result<Vec<String>, AcpFsError> {
    if value.is_null() || value.is_undefined() {
        return Ok(Vec::new());
    }
    let Some(array) = value.dyn_ref::<Array>() else {
        return Err(AcpFsError::invalid_params(field, "must be an array"));
    };
    array
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_string().ok_or_else(|| AcpFsError::invalid_params(&format!("{field}[{i}]"), PATH_STRING))
        })
        .collect()
}

fn error_or_null(result: Result<(), AcpFsError>) -> JsValue {
    match result {
        Ok(()) => JsValue::NULL,
        Err(e) => value_to_js(wire::error(&e)),
    }
}

fn thrown(e: AcpFsError) -> JsValue {
    js_sys::Error::new(&wire::error(&e).to_string()).into()
}

fn set(object: &JsValue, key: &str, value: &JsValue) {
    // Defining a fresh key on a plain object cannot fail.
    let _ = Reflect::set(object, &key.into(), value);
}
