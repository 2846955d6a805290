//! N-API binding of acp-fs: the low-level interface of docs/binding-interface.md (`Engine`,
//! `Operation`, `McpCall` and the agent-side free functions), plus `Operation.runOnDisk`, which
//! drives the core's `DiskStorage` on the libuv pool. Conversion only: every decision is the
//! core's, every JS-facing behaviour the shared driver's (npm/shared/driver.mjs).
//!
//! Nothing here may take the host editor down: a panic in the core, a malformed answer or a step
//! after the end becomes a `done` outcome with an `internal` error.

use acp_fs::mcp::{McpDispatch, McpServer};
use acp_fs::{agent, wire};
use acp_fs::{
    AcpFs, AcpFsError, Answer, AuditEvent, DefaultHost, DiskStorage, Dispatch, Io, OpenFiles, Options, Outcome, Step,
    READ_TEXT_FILE, WRITE_TEXT_FILE,
};
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Bad input to the engine's constructor or session calls is reported as an Error whose message
/// is the wire error, so the driver can rebuild the exact `AcpFsError`.
fn wire_error(e: AcpFsError) -> Error {
    Error::from_reason(wire::error(&e).to_string())
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => format!("panic in acp-fs: {s}"),
        (_, Some(s)) => format!("panic in acp-fs: {s}"),
        _ => "panic in acp-fs".to_owned(),
    }
}

/// The engine for one storage: options, sessions, open documents.
#[napi]
pub struct Engine {
    fs: AcpFs,
}

#[napi]
impl Engine {
    #[napi(constructor, catch_unwind, ts_args_type = "options: object | null | undefined, caps: WireCaps")]
    pub fn new(options: Option<Value>, caps: Value) -> Result<Engine> {
        let caps = wire::caps(&caps).map_err(wire_error)?;
        let options = Options::from_json(&options.unwrap_or(Value::Null)).map_err(wire_error)?;
        let fs = AcpFs::new(options, caps).map_err(wire_error)?;
        Ok(Engine { fs })
    }

    /// `null` on success, else the wire error (a bad cwd or additional directory).
    #[napi(
        catch_unwind,
        ts_args_type = "sessionId: string, cwd: string, additionalDirectories: string[]",
        ts_return_type = "WireError | null"
    )]
    pub fn open_session(&self, session_id: String, cwd: Value, additional_directories: Option<Value>) -> Value {
        let Some(cwd) = cwd.as_str() else {
            return wire::error(&AcpFsError::invalid_params("cwd", "must be an absolute path string"));
        };
        let mut dirs = Vec::new();
        match additional_directories.unwrap_or(Value::Null) {
            Value::Null => {}
            Value::Array(list) => {
                for (i, d) in list.into_iter().enumerate() {
                    match d {
                        Value::String(s) => dirs.push(s),
                        _ => {
                            let field = format!("additionalDirectories[{i}]");
                            return wire::error(&AcpFsError::invalid_params(&field, "must be an absolute path string"));
                        }
                    }
                }
            }
            _ => return wire::error(&AcpFsError::invalid_params("additionalDirectories", "must be an array")),
        }
        match self.fs.open_session(&session_id, cwd, &dirs) {
            Ok(()) => Value::Null,
            Err(e) => wire::error(&e),
        }
    }

    #[napi(catch_unwind)]
    pub fn close_session(&self, session_id: String) {
        self.fs.close_session(&session_id);
    }

    #[napi(catch_unwind, ts_return_type = "WireError | null")]
    pub fn open_document(&self, path: String, text: String) -> Value {
        match self.fs.open_document(&path, &text) {
            Ok(()) => Value::Null,
            Err(e) => wire::error(&e),
        }
    }

    /// The buffer was reloaded from storage with `text`: it matches the file (semantics.md §9).
    #[napi(catch_unwind, ts_return_type = "WireError | null")]
    pub fn document_reloaded(&self, path: String, text: String) -> Value {
        match self.fs.document_reloaded(&path, &text) {
            Ok(()) => Value::Null,
            Err(e) => wire::error(&e),
        }
    }

    /// The buffer was saved; false when it is not open.
    #[napi(catch_unwind)]
    pub fn document_saved(&self, path: String) -> bool {
        self.fs.document_saved(&path)
    }

    /// The open document's version (a new one on every change), or null.
    #[napi(catch_unwind)]
    pub fn document_version(&self, path: String) -> Option<f64> {
        self.fs.document_version(&path).map(|v| v as f64)
    }

    #[napi(catch_unwind)]
    pub fn close_document(&self, path: String) {
        self.fs.close_document(&path);
    }

    #[napi(catch_unwind)]
    pub fn document(&self, path: String) -> Option<String> {
        self.fs.document(&path)
    }

    #[napi(catch_unwind, ts_return_type = "{ readTextFile: boolean, writeTextFile: boolean }")]
    pub fn capabilities(&self) -> Value {
        let c = self.fs.capabilities();
        json!({"readTextFile": c.read_text_file, "writeTextFile": c.write_text_file})
    }

    /// `null` when `method` is not an fs method.
    #[napi(catch_unwind, ts_args_type = "method: string, params: unknown")]
    pub fn start(&self, method: String, params: Option<Value>) -> Option<Operation> {
        self.fs.request(&method, params.unwrap_or(Value::Null)).map(Operation::new)
    }

    #[napi(
        catch_unwind,
        ts_return_type = "{ kind: 'notMine' } | { kind: 'reply', reply: string } | { kind: 'call', id: string, method: string, operation: Operation } | { kind: 'cancel', id: string }"
    )]
    pub fn dispatch(&self, message: String) -> Dispatched {
        match self.fs.dispatch(&message) {
            Dispatch::NotMine => Dispatched::NotMine,
            Dispatch::Reply(reply) => Dispatched::Reply(reply),
            Dispatch::Cancel(id) => Dispatched::Cancel(id),
            Dispatch::Call(call) => {
                let id = call.id().to_owned();
                let method = call.method;
                Dispatched::Call(id, method, Operation::new(call.operation))
            }
        }
    }

    /// The MCP tools `sessionId`'s server offers (roots in the descriptions, only what the
    /// capabilities allow).
    #[napi(catch_unwind, ts_return_type = "WireToolDefinition[]")]
    pub fn mcp_tools(&self, session_id: String) -> Value {
        Value::Array(McpServer::new(self.fs.clone(), session_id).tools())
    }

    /// Classifies one MCP message for `sessionId`'s server and starts the tool call if there is
    /// one: run `operation` like any other, then `call.respond(...)` gives the reply.
    #[napi(
        catch_unwind,
        ts_return_type = "{ kind: 'notMine' } | { kind: 'reply', reply: string } | { kind: 'cancel', id: string } | { kind: 'call', id: string, method: string, operation: Operation, call: McpCall }"
    )]
    pub fn mcp_dispatch(&self, session_id: String, message: String) -> McpDispatched {
        match McpServer::new(self.fs.clone(), session_id).dispatch(&message) {
            McpDispatch::NotMine => McpDispatched::NotMine,
            McpDispatch::Reply(reply) => McpDispatched::Reply(reply),
            McpDispatch::Cancel(id) => McpDispatched::Cancel(id),
            McpDispatch::Call(call) => {
                let (operation, reply) = call.into_parts();
                let method = if operation.kind() == "write" { WRITE_TEXT_FILE } else { READ_TEXT_FILE };
                let id = reply.id().to_owned();
                McpDispatched::Call(id, method, Operation::new(operation), McpCall { reply })
            }
        }
    }
}

/// What `Engine.mcpDispatch` found, as `{kind, …}`.
pub enum McpDispatched {
    NotMine,
    Reply(String),
    Cancel(String),
    Call(String, &'static str, Operation, McpCall),
}

impl TypeName for McpDispatched {
    fn type_name() -> &'static str {
        "McpDispatched"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for McpDispatched {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut obj = Object::new(&Env::from_raw(env))?;
        match val {
            McpDispatched::NotMine => obj.set("kind", "notMine")?,
            McpDispatched::Reply(reply) => {
                obj.set("kind", "reply")?;
                obj.set("reply", reply)?;
            }
            McpDispatched::Cancel(id) => {
                obj.set("kind", "cancel")?;
                obj.set("id", id)?;
            }
            McpDispatched::Call(id, method, operation, call) => {
                obj.set("kind", "call")?;
                obj.set("id", id)?;
                obj.set("method", method)?;
                obj.set("operation", operation)?;
                obj.set("call", call)?;
            }
        }
        Object::to_napi_value(env, obj)
    }
}

/// An MCP `tools/call` whose operation is in flight: `respond` turns its answer into the reply.
#[napi]
pub struct McpCall {
    reply: acp_fs::mcp::McpReply,
}

#[napi]
impl McpCall {
    /// The JSON-RPC reply carrying the tool result, from the operation's `{result}` or `{error}`
    /// (a `WireOutcome` will do).
    #[napi(catch_unwind, ts_args_type = "answer: { result?: object | null, error?: WireError | null }")]
    pub fn respond(&self, answer: Option<Value>) -> String {
        self.reply.respond(&wire::outcome_from(&answer.unwrap_or(Value::Null)))
    }
}

/// `clientCapabilities.fs` from an `initialize` request, its params, or the
/// `clientCapabilities` object (anything absent or not `true` is `false`).
#[napi(catch_unwind, ts_args_type = "value: unknown", ts_return_type = "WireFsCapabilities")]
pub fn client_fs_capabilities(value: Option<Value>) -> Value {
    caps_to_json(agent::client_fs_capabilities(&value.unwrap_or(Value::Null)))
}

/// The tool definitions for what `caps` (`{readTextFile, writeTextFile}`) allow.
#[napi(catch_unwind, ts_args_type = "caps: WireFsCapabilities", ts_return_type = "WireToolDefinition[]")]
pub fn tool_definitions(caps: Option<Value>) -> Value {
    Value::Array(agent::tool_definitions(caps_from(caps)))
}

/// A model's tool arguments checked with the client's rules: `{method, params}` to send, or
/// `{error}`.
#[napi(
    catch_unwind,
    ts_args_type = "tool: string, sessionId: string, args: unknown",
    ts_return_type = "WireFsRequest | { error: WireError }"
)]
pub fn check_tool_arguments(tool: String, session_id: String, args: Option<Value>) -> Value {
    match agent::check_tool_arguments(&tool, &session_id, &args.unwrap_or(Value::Null)) {
        Ok((method, params)) => json!({"method": method, "params": params}),
        Err(e) => json!({"error": wire::error(&e)}),
    }
}

/// As `checkToolArguments`, refused (`-32601`) when `caps` does not include the tool's method.
#[napi(
    catch_unwind,
    ts_args_type = "caps: WireFsCapabilities, tool: string, sessionId: string, args: unknown",
    ts_return_type = "WireFsRequest | { error: WireError }"
)]
pub fn build_request(caps: Option<Value>, tool: String, session_id: String, args: Option<Value>) -> Value {
    match agent::build_request(caps_from(caps), &tool, &session_id, &args.unwrap_or(Value::Null)) {
        Ok(request) => request,
        Err(e) => json!({"error": wire::error(&e)}),
    }
}

/// The tool result for the client's answer: `{result}` (a write's `{}`, `null` or no result
/// all mean success) or `{error}` (the JSON-RPC error object).
#[napi(
    catch_unwind,
    ts_args_type = "tool: string, args: unknown, answer: { result?: unknown, error?: unknown }",
    ts_return_type = "WireToolResult"
)]
pub fn tool_result(tool: String, args: Option<Value>, answer: Option<Value>) -> Value {
    let args = args.unwrap_or(Value::Null);
    let answer = answer.unwrap_or(Value::Null);
    match answer.get("error").filter(|e| !e.is_null()) {
        Some(error) => agent::tool_result(&tool, &args, Err(error)),
        None => agent::tool_result(&tool, &args, Ok(answer.get("result"))),
    }
}

fn caps_to_json(caps: acp_fs::FileSystemCapability) -> Value {
    json!({"readTextFile": caps.read_text_file, "writeTextFile": caps.write_text_file})
}

/// `{readTextFile, writeTextFile}` read by the core's own rule (only a real `true` counts).
fn caps_from(caps: Option<Value>) -> acp_fs::FileSystemCapability {
    agent::client_fs_capabilities(&json!({ "fs": caps.unwrap_or(Value::Null) }))
}

/// What `Engine.dispatch` found, as `{kind, …}`.
pub enum Dispatched {
    NotMine,
    Reply(String),
    Call(String, &'static str, Operation),
    Cancel(String),
}

impl TypeName for Dispatched {
    fn type_name() -> &'static str {
        "Dispatched"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Dispatched {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut obj = Object::new(&Env::from_raw(env))?;
        match val {
            Dispatched::NotMine => obj.set("kind", "notMine")?,
            Dispatched::Reply(reply) => {
                obj.set("kind", "reply")?;
                obj.set("reply", reply)?;
            }
            Dispatched::Cancel(id) => {
                obj.set("kind", "cancel")?;
                obj.set("id", id)?;
            }
            Dispatched::Call(id, method, operation) => {
                obj.set("kind", "call")?;
                obj.set("id", id)?;
                obj.set("method", method)?;
                obj.set("operation", operation)?;
            }
        }
        Object::to_napi_value(env, obj)
    }
}

/// One step's result as the driver sees it: `{io, bytes?}` or `{done}`.
pub enum Next {
    Io(Value, Option<Vec<u8>>),
    Done(Value),
}

impl TypeName for Next {
    fn type_name() -> &'static str {
        "Next"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Next {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut obj = Object::new(&Env::from_raw(env))?;
        match val {
            Next::Io(io, bytes) => {
                obj.set("io", io)?;
                if let Some(bytes) = bytes {
                    obj.set("bytes", Buffer::from(bytes))?;
                }
            }
            Next::Done(outcome) => obj.set("done", outcome)?,
        }
        Object::to_napi_value(env, obj)
    }
}

struct Slot {
    op: acp_fs::Operation,
    started: bool,
    /// A panic went through the operation; its future must not be polled again.
    broken: bool,
}

/// Shared between the JS thread and at most one pool task at a time.
struct Inner {
    slot: Mutex<Slot>,
    /// Set by `cancel()`; the pool loop checks it before every disk io.
    cancelled: AtomicBool,
    kind: &'static str,
    /// The disk files this operation opened; closed when it ends.
    files: Mutex<OpenFiles<std::fs::File>>,
}

enum Input {
    Start,
    Answer(Answer),
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // Poisoning only follows a panic, which `broken` already records.
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Advances the core operation by one step; never panics.
    fn advance(&self, input: std::result::Result<Input, AcpFsError>) -> Step {
        let mut slot = self.lock();
        if slot.broken {
            return Step::Done(Box::new(self.internal(&mut slot, "the operation failed earlier".into())));
        }
        let input = match (slot.started, input) {
            (false, _) => Ok(Input::Start),
            (true, input) => input,
        };
        slot.started = true;
        let stepped = catch_unwind(AssertUnwindSafe(|| match input {
            Ok(Input::Start) => Ok(slot.op.start()),
            Ok(Input::Answer(answer)) => Ok(slot.op.resume(answer)),
            Err(e) => Err(e),
        }));
        match stepped {
            Ok(Ok(step)) => step,
            Ok(Err(e)) => Step::Done(Box::new(self.failed(&mut slot, e))),
            Err(payload) => {
                slot.broken = true;
                Step::Done(Box::new(self.internal(&mut slot, panic_message(&*payload))))
            }
        }
    }

    /// Ends the operation with `e` (a malformed answer): no io after it.
    fn failed(&self, slot: &mut Slot, e: AcpFsError) -> Outcome {
        slot.op.fail(e)
    }

    fn internal(&self, slot: &mut Slot, message: String) -> Outcome {
        let e = AcpFsError::internal(message);
        if !slot.broken {
            return self.failed(slot, e);
        }
        // The operation's own state is not to be trusted after a panic: report without it.
        let audit = AuditEvent {
            op: self.kind,
            session_id: None,
            path: None,
            line: None,
            limit: None,
            bytes: 0,
            outcome: "error",
            error_kind: Some(e.kind.as_str()),
            duration_ms: None,
            traceparent: None,
        };
        Outcome { result: Err(e), change: None, audit }
    }

    fn cancel(&self) -> Outcome {
        self.end(AcpFsError::cancelled())
    }

    /// Ends the operation with `error` (a cancellation, or the driver's refusal): no io after it.
    fn end(&self, error: AcpFsError) -> Outcome {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut slot = self.lock();
        if slot.broken {
            return self.internal(&mut slot, "the operation failed earlier".into());
        }
        match catch_unwind(AssertUnwindSafe(|| slot.op.fail(error))) {
            Ok(outcome) => outcome,
            Err(payload) => {
                slot.broken = true;
                self.internal(&mut slot, panic_message(&*payload))
            }
        }
    }
}

fn to_next(step: Step) -> Next {
    match step {
        Step::Io(io) => {
            let (io, bytes) = wire::io(io);
            Next::Io(io, bytes)
        }
        Step::Done(outcome) => Next::Done(wire::outcome(&outcome)),
    }
}

fn parse_answer(answer: Option<Value>, bytes: Option<Vec<u8>>) -> std::result::Result<Input, AcpFsError> {
    wire::answer(&answer.unwrap_or(Value::Null), bytes).map(Input::Answer)
}

/// One `fs/read_text_file` or `fs/write_text_file` request in flight.
#[napi]
pub struct Operation {
    inner: Arc<Inner>,
}

impl Operation {
    fn new(op: acp_fs::Operation) -> Operation {
        let kind = op.kind();
        let slot = Mutex::new(Slot { op, started: false, broken: false });
        let files = Mutex::default();
        Operation { inner: Arc::new(Inner { slot, cancelled: AtomicBool::new(false), kind, files }) }
    }
}

#[napi]
impl Operation {
    /// First call with no arguments; then with the answer to the io it returned (`bytes` beside
    /// `{bytes: true}` answers).
    #[napi(
        catch_unwind,
        ts_args_type = "answer?: WireAnswer, bytes?: Uint8Array",
        ts_return_type = "{ io: WireIo, bytes?: Buffer } | { done: WireOutcome }"
    )]
    pub fn step(&self, answer: Option<Value>, bytes: Option<Uint8Array>) -> Next {
        let bytes = bytes.map(|b| b.to_vec());
        to_next(self.inner.advance(parse_answer(answer, bytes)))
    }

    /// Abandons the request: `-32800`, and no io after the last answered step.
    #[napi(catch_unwind, ts_return_type = "WireOutcome")]
    pub fn cancel(&self) -> Value {
        wire::outcome(&self.inner.cancel())
    }

    /// Ends the request with `error` (params the driver refused before the engine saw them):
    /// the outcome carries it, and no io follows.
    #[napi(catch_unwind, ts_args_type = "error: WireError", ts_return_type = "WireOutcome")]
    pub fn fail(&self, error: Option<Value>) -> Value {
        wire::outcome(&self.inner.end(wire::error_from(&error.unwrap_or(Value::Null))))
    }

    /// Resumes with `answer` (if any) and performs storage io against the built-in disk storage
    /// on the libuv pool until the operation needs the host (approve / writeDocument) or is done.
    #[napi(
        catch_unwind,
        ts_args_type = "answer?: WireAnswer",
        ts_return_type = "Promise<{ io: WireIo } | { done: WireOutcome }>"
    )]
    pub fn run_on_disk(&self, answer: Option<Value>) -> AsyncTask<DiskRun> {
        AsyncTask::new(DiskRun { inner: self.inner.clone(), answer })
    }
}

pub struct DiskRun {
    inner: Arc<Inner>,
    answer: Option<Value>,
}

impl DiskRun {
    fn run(&mut self) -> Next {
        let disk = DiskStorage::new();
        let mut files = self.inner.files.lock().unwrap_or_else(|e| e.into_inner());
        let mut step = self.inner.advance(parse_answer(self.answer.take(), None));
        loop {
            step = match step {
                Step::Io(io @ (Io::Approve { .. } | Io::WriteDocument { .. })) => return to_next(Step::Io(io)),
                // Another write to the path holds its turn (it may be waiting for a person):
                // wait on the JS side, not on a pool thread; the driver answers when an
                // operation of this engine ended (semantics.md §9).
                Step::Io(Io::Wait { turn, path }) => {
                    if !turn.is_ready() {
                        return to_next(Step::Io(Io::Wait { turn, path }));
                    }
                    self.inner.advance(Ok(Input::Answer(Answer::Done)))
                }
                Step::Done(outcome) => {
                    *files = OpenFiles::default();
                    return Next::Done(wire::outcome(&outcome));
                }
                Step::Io(io) => {
                    if self.inner.cancelled.load(Ordering::SeqCst) {
                        *files = OpenFiles::default();
                        return Next::Done(wire::outcome(&self.inner.cancel()));
                    }
                    // Host ios are returned above, so DefaultHost is never consulted.
                    match catch_unwind(AssertUnwindSafe(|| acp_fs::perform(&disk, &DefaultHost, &mut files, io))) {
                        Ok(answer) => self.inner.advance(Ok(Input::Answer(answer))),
                        Err(payload) => {
                            let e = AcpFsError::internal(panic_message(&*payload));
                            self.inner.advance(Err(e))
                        }
                    }
                }
            }
        }
    }
}

impl Task for DiskRun {
    type Output = Next;
    type JsValue = Next;

    fn compute(&mut self) -> Result<Next> {
        // `advance` and `perform` catch their own panics; this one guards the glue between them.
        match catch_unwind(AssertUnwindSafe(|| self.run())) {
            Ok(next) => Ok(next),
            Err(payload) => {
                let mut slot = self.inner.lock();
                slot.broken = true;
                Ok(Next::Done(wire::outcome(&self.inner.internal(&mut slot, panic_message(&*payload)))))
            }
        }
    }

    fn resolve(&mut self, _env: Env, output: Next) -> Result<Next> {
        Ok(output)
    }
}
