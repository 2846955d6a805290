//! N-API binding of acp-fs: docs/binding-interface.md over `acp_fs::host`, and nothing else.
//! Every value crosses with napi's serde support; every rule, wording, limit and the lifecycle of
//! a request in flight are the core's (`HostEngine`, `HostOperation`); everything users see is
//! the shared JS driver's (npm/shared/). The types named in `ts_*_type` are generated from the
//! core into npm/types/host.d.ts, which binding.d.ts imports (npm/node/package.json `dtsHeader`).
//!
//! Typed values go out through `serde_json::Value` (napi's `Value` conversion keeps a number a
//! number up to 2^53, where its serializer makes a BigInt of every u64 above u32::MAX, a `readAt`
//! offset past 4 GiB say), except a write's step: its io holds no number, and napi's serializer
//! gives its `serde_bytes` a Buffer where serde_json would give an array of numbers.

use acp_fs::host::{self, agent_side, HostAnswer, HostDispatch, HostEngine, HostOperation, HostStep};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde::Serialize;
use serde_bytes::ByteBuf;
use serde_json::Value;
use std::sync::Arc;

type Answered = Option<std::result::Result<HostAnswer, String>>;

fn json<T: Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::from_reason(e.to_string()))
}

/// An argument the driver may leave out, as JSON would carry it.
fn arg(value: Option<Value>) -> Value {
    value.unwrap_or_default()
}

/// A step's answer (and bytes) for the core: one that does not convert is the core's to report.
fn answer(env: &Env, answer: Option<Unknown>, bytes: Option<Unknown>) -> (Answered, Option<Vec<u8>>) {
    let answer = answer.map(|a| env.from_js_value::<HostAnswer, _>(a).map_err(|e| e.reason));
    match bytes.map(|b| env.from_js_value::<ByteBuf, _>(b)).transpose() {
        Ok(bytes) => (answer, bytes.map(ByteBuf::into_vec)),
        Err(e) => (Some(Err(e.reason)), None),
    }
}

fn step_js(env: &Env, step: HostStep) -> Result<Unknown<'_>> {
    match step {
        HostStep::Io { bytes: Some(_), .. } => env.to_js_value(&step),
        _ => json(&step)?.into_unknown(env),
    }
}

/// A dispatch with its operation, if one came, as the `operation` member.
fn dispatched(env: &Env, (dispatch, op): (HostDispatch, Option<HostOperation>)) -> Result<Object<'_>> {
    let mut object = Object::from_unknown(env.to_js_value(&dispatch)?)?;
    if let Some(op) = op {
        object.set("operation", Operation { op: Arc::new(op) })?;
    }
    Ok(object)
}

#[napi(catch_unwind, ts_return_type = "HostInfo")]
pub fn host_info() -> Result<Value> {
    json(&host::info())
}

#[napi(catch_unwind, ts_return_type = "AcpFsError")]
pub fn invalid_params(field: String, reason: String) -> Result<Value> {
    json(&host::invalid_params(&field, &reason))
}

/// An engine, or the error naming the bad option or capability (returned, never thrown).
#[napi(
    catch_unwind,
    ts_args_type = "options: JsonValue | undefined, caps: Partial<StorageCaps>",
    ts_return_type = "Engine | AcpFsError"
)]
pub fn create_engine(options: Option<Value>, caps: Option<Value>) -> Result<Either<Engine, Value>> {
    match HostEngine::new(arg(options), arg(caps)) {
        Ok(engine) => Ok(Either::A(Engine { engine })),
        Err(e) => json(&e).map(Either::B),
    }
}

/// The engine for one storage: options, sessions, open documents (made by `createEngine`).
#[napi]
pub struct Engine {
    engine: HostEngine,
}

#[napi]
impl Engine {
    #[napi(
        catch_unwind,
        ts_args_type = "sessionId: unknown, cwd: unknown, additionalDirectories: unknown, session?: unknown",
        ts_return_type = "AcpFsError | null"
    )]
    pub fn open_session(
        &self,
        session_id: Option<Value>,
        cwd: Option<Value>,
        dirs: Option<Value>,
        session: Option<Value>,
    ) -> Result<Value> {
        json(&self.engine.open_session(&arg(session_id), &arg(cwd), &arg(dirs), &arg(session)))
    }

    #[napi(catch_unwind, ts_args_type = "sessionId: unknown")]
    pub fn close_session(&self, session_id: Option<Value>) {
        self.engine.close_session(&arg(session_id))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown, text: unknown", ts_return_type = "AcpFsError | null")]
    pub fn open_document(&self, path: Option<Value>, text: Option<Value>) -> Result<Value> {
        json(&self.engine.open_document(&arg(path), &arg(text)))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown, text: unknown", ts_return_type = "AcpFsError | null")]
    pub fn document_reloaded(&self, path: Option<Value>, text: Option<Value>) -> Result<Value> {
        json(&self.engine.document_reloaded(&arg(path), &arg(text)))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown")]
    pub fn document_saved(&self, path: Option<Value>) -> bool {
        self.engine.document_saved(&arg(path))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown", ts_return_type = "number | null")]
    pub fn document_version(&self, path: Option<Value>) -> Result<Value> {
        json(&self.engine.document_version(&arg(path)))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown")]
    pub fn close_document(&self, path: Option<Value>) {
        self.engine.close_document(&arg(path))
    }

    #[napi(catch_unwind, ts_args_type = "path: unknown")]
    pub fn document(&self, path: Option<Value>) -> Option<String> {
        self.engine.document(&arg(path))
    }

    #[napi(catch_unwind, ts_return_type = "FileSystemCapability")]
    pub fn capabilities(&self) -> Result<Value> {
        json(&self.engine.capabilities())
    }

    /// `null` when `method` is not an fs method.
    #[napi(catch_unwind, ts_args_type = "method: string, params: JsonValue")]
    pub fn start(&self, method: String, params: Option<Unknown>) -> Option<Operation> {
        let params = params.map_or(Ok(Value::Null), Value::from_unknown).map_err(|e| e.reason);
        self.engine.start(&method, params).map(|op| Operation { op: Arc::new(op) })
    }

    /// `start` with the params as JSON text (small params: one string, not one call per member).
    #[napi(catch_unwind)]
    pub fn start_json(&self, method: String, params: String) -> Option<Operation> {
        self.engine.start_json(&method, &params).map(|op| Operation { op: Arc::new(op) })
    }

    /// A raw JSON-RPC message; a call comes with its operation, whose outcome carries `reply`.
    #[napi(catch_unwind, ts_return_type = "HostDispatch & { operation?: Operation }")]
    pub fn dispatch<'env>(&self, env: &'env Env, message: String) -> Result<Object<'env>> {
        dispatched(env, self.engine.dispatch(&message))
    }

    /// The MCP tools of `sessionId`'s server (roots in the descriptions).
    #[napi(catch_unwind, ts_return_type = "JsonValue[]")]
    pub fn mcp_tools(&self, session_id: String) -> Result<Vec<Value>> {
        // Only an engine built without feature `mcp` refuses (this binding's has it).
        self.engine.mcp_tools(&session_id).map_err(|e| Error::from_reason(e.message))
    }

    /// One MCP message for `sessionId`'s server; a `tools/call` comes with its operation, whose
    /// outcome's `reply` is the tool result.
    #[napi(catch_unwind, ts_return_type = "HostDispatch & { operation?: Operation }")]
    pub fn mcp_dispatch<'env>(&self, env: &'env Env, session_id: String, message: String) -> Result<Object<'env>> {
        dispatched(env, self.engine.mcp_dispatch(&session_id, &message))
    }
}

/// One `fs/read_text_file` or `fs/write_text_file` request in flight.
#[napi]
pub struct Operation {
    op: Arc<HostOperation>,
}

#[napi]
impl Operation {
    /// First call: no answer needed; then the answer to the io it returned (`bytes` beside
    /// `{bytes: true}`).
    #[napi(catch_unwind, ts_args_type = "answer?: HostAnswer, bytes?: Uint8Array", ts_return_type = "HostStep")]
    pub fn step<'env>(&self, env: &'env Env, answer: Option<Unknown>, bytes: Option<Unknown>) -> Result<Unknown<'env>> {
        let (answer, bytes) = self::answer(env, answer, bytes);
        step_js(env, self.op.step(answer, bytes))
    }

    /// The audit event once the request has ended, else `null`.
    #[napi(catch_unwind, ts_return_type = "AuditEvent | null")]
    pub fn audit(&self) -> Result<Value> {
        json(&self.op.audit())
    }

    /// `-32800`, and no io after the last answered step.
    #[napi(catch_unwind, ts_return_type = "HostOutcome")]
    pub fn cancel(&self) -> Result<Value> {
        json(&self.op.cancel())
    }

    /// Params with no JSON form, refused by the driver: `-32602` naming `field`.
    #[napi(catch_unwind, ts_return_type = "HostOutcome")]
    pub fn refuse(&self, field: String, reason: String) -> Result<Value> {
        json(&self.op.refuse(&field, &reason))
    }

    /// The driver broke: `internal`.
    #[napi(catch_unwind, ts_return_type = "HostOutcome")]
    pub fn abort(&self, reason: String) -> Result<Value> {
        json(&self.op.abort(&reason))
    }

    /// Ends a `runOnDisk` in flight before its next io, without waiting for it: its step says how.
    #[napi(catch_unwind)]
    pub fn stop(&self) {
        self.op.stop();
    }

    /// Resumes with `answer` and performs storage io against the built-in disk on the libuv pool
    /// until the request needs the host (approve, writeDocument, wait).
    #[napi(catch_unwind, ts_args_type = "answer?: HostAnswer", ts_return_type = "Promise<HostStep>")]
    pub fn run_on_disk(&self, env: &Env, answer: Option<Unknown>) -> AsyncTask<DiskRun> {
        let (answer, _) = self::answer(env, answer, None);
        AsyncTask::new(DiskRun { op: self.op.clone(), answer })
    }
}

/// `Operation.runOnDisk` on the libuv pool.
pub struct DiskRun {
    op: Arc<HostOperation>,
    answer: Answered,
}

impl<'env> napi::ScopedTask<'env> for DiskRun {
    type Output = HostStep;
    type JsValue = Unknown<'env>;

    fn compute(&mut self) -> Result<HostStep> {
        Ok(self.op.run_on_disk(self.answer.take()))
    }

    fn resolve(&mut self, env: &'env Env, step: HostStep) -> Result<Unknown<'env>> {
        step_js(env, self.op.settle(step))
    }
}

#[napi(catch_unwind, ts_args_type = "value: JsonValue", ts_return_type = "FileSystemCapability")]
pub fn client_fs_capabilities(value: Option<Value>) -> Result<Value> {
    json(&agent_side::client_fs_capabilities(&arg(value)))
}

#[napi(catch_unwind, ts_args_type = "caps: JsonValue", ts_return_type = "JsonValue[]")]
pub fn tool_definitions(caps: Option<Value>) -> Vec<Value> {
    agent_side::tool_definitions(&arg(caps))
}

#[napi(catch_unwind, ts_args_type = "tool: string, sessionId: string, args: JsonValue", ts_return_type = "HostRequest")]
pub fn check_tool_arguments(tool: String, session_id: String, args: Option<Value>) -> Result<Value> {
    json(&agent_side::check_tool_arguments(&tool, &session_id, &arg(args)))
}

#[napi(
    catch_unwind,
    ts_args_type = "caps: JsonValue, tool: string, sessionId: string, args: JsonValue",
    ts_return_type = "HostRequest"
)]
pub fn build_request(caps: Option<Value>, tool: String, session_id: String, args: Option<Value>) -> Result<Value> {
    json(&agent_side::build_request(&arg(caps), &tool, &session_id, &arg(args)))
}

#[napi(
    catch_unwind,
    ts_args_type = "tool: string, args: JsonValue, answer: { result?: JsonValue, error?: JsonValue }",
    ts_return_type = "JsonValue"
)]
pub fn tool_result(tool: String, args: Option<Value>, answer: Option<Value>) -> Value {
    agent_side::tool_result(&tool, &arg(args), &arg(answer))
}
