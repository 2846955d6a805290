//! wasm-bindgen binding of the acp-fs engine: `docs/binding-interface.md` over [`acp_fs::host`], values converted
//! with serde (in: every value through the inbox, [`inbox`], a request's small flat params into the core's `FlatParams`,
//! `startJson`'s params as JSON text; out: every value
//! through the outbox, [`outbox`]) and nothing else: rules, wording, limits and a request's lifecycle are the core's. A panic aborts (a trap); the hook below keeps its message for the guard,
//! except in the fs/* module, whose panics trap at once with no message (`docs/toolchain.md`).
// The fs/* module's calls a small read never makes are optimized for size there, as in the core
// (docs/toolchain.md#cold-code-optimized-for-size).
#![cfg_attr(acp_fs_small, feature(optimize_attribute))]

#[cfg(feature = "full")]
use acp_fs::host::agent_side;
use acp_fs::host::{self, HeldOperations, HostAnswer, HostDispatch, HostEngine, HostOperation, HostOutcome, HostStep};
use acp_fs::{AcpFsError, Io, ReadTextFileResponse, Response};
use serde::Serialize;
use serde_json::Value;
#[cfg(feature = "full")]
use serde_wasm_bindgen::from_value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// What a call that answers with a value returns: the value is in the outbox ([`outbox`]), where
/// the guard reads it; `Ok(false)` from a call that can also fail: the outbox holds the error
/// value the guard throws.
type Out = Result<(), JsValue>;

/// Puts a value in the outbox; one with no form there (none has) is a `TypeError`.
fn put<T: Serialize + ?Sized>(value: &T) -> Out {
    outbox::put(value, false).map_err(|why| js_sys::TypeError::new(&why).into())
}

/// The JSON values of a call's arguments, which the guard wrote into the inbox (`len` bytes, one
/// item per name in `fields`), or `-32602` naming the first that has none. Through the inbox
/// rather than serde-wasm-bindgen: its converter and the glue it needs were about 5 KB of the
/// gzipped fs/* module, for calls made once a session or document.
fn args(len: u32, fields: &[&'static str]) -> Result<Vec<Value>, AcpFsError> {
    inbox::args(len, fields).map_err(|field| host::invalid_params(field, host::NOT_JSON))
}

/// A string, or a `TypeError`.
fn text(value: JsValue) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| js_sys::TypeError::new("expected a string").into())
}

/// An argument the engine only reads as a string: anything else is nothing to it.
fn lenient(value: JsValue) -> Value {
    value.as_string().map_or(Value::Null, Value::String)
}

/// `null`, or the error (a bad argument's included).
fn error_or_null(result: Result<Option<AcpFsError>, AcpFsError>) -> Out {
    put(&result.unwrap_or_else(Some))
}

/// The driver's constants: method names, walk limits, full storage caps, the `internal` template.
#[wasm_bindgen(js_name = hostInfo)]
pub fn host_info() -> Out {
    put(&host::info())
}

#[wasm_bindgen(js_name = invalidParams)]
pub fn invalid_params(field: &str, reason: &str) -> Out {
    put(&host::invalid_params(field, reason))
}

/// An engine, or none and the error naming the bad option or capability in the outbox; the
/// options and the caps in the inbox ([`args`]).
#[wasm_bindgen(js_name = createEngine)]
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn create_engine(len: u32) -> Result<Option<Engine>, JsValue> {
    let made = args(len, &["options", "caps"]).and_then(|mut v| HostEngine::new(v.swap_remove(0), v.swap_remove(0)));
    match made {
        Ok(engine) => Ok(Some(Engine(engine, HeldOperations::default()))),
        Err(error) => put(&error).map(|()| None),
    }
}

/// The engine for one storage, and its requests in flight by number (an object each would cost a
/// `FinalizationRegistry` entry; `npm/wasm/lib/guard.mjs` makes the driver's `Operation`s).
#[wasm_bindgen]
pub struct Engine(HostEngine, HeldOperations);

#[wasm_bindgen]
impl Engine {
    /// The session id, cwd, additional directories and session options in the inbox ([`args`]).
    #[wasm_bindgen(js_name = openSession)]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn open_session(&self, len: u32) -> Out {
        let v = args(len, &["sessionId", "cwd", "additionalDirectories", "session"]);
        error_or_null(v.map(|v| self.0.open_session(&v[0], &v[1], &v[2], &v[3])))
    }

    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&self, id: JsValue) {
        self.0.close_session(&lenient(id));
    }

    /// The path and the text in the inbox ([`args`]).
    #[wasm_bindgen(js_name = openDocument)]
    pub fn open_document(&self, len: u32) -> Out {
        error_or_null(args(len, &["path", "text"]).map(|v| self.0.open_document(&v[0], &v[1])))
    }

    /// The path and the text in the inbox ([`args`]).
    #[wasm_bindgen(js_name = documentReloaded)]
    pub fn document_reloaded(&self, len: u32) -> Out {
        error_or_null(args(len, &["path", "text"]).map(|v| self.0.document_reloaded(&v[0], &v[1])))
    }

    #[wasm_bindgen(js_name = documentSaved)]
    pub fn document_saved(&self, path: JsValue) -> bool {
        self.0.document_saved(&lenient(path))
    }

    #[wasm_bindgen(js_name = documentVersion)]
    pub fn document_version(&self, path: JsValue) -> Out {
        put(&self.0.document_version(&lenient(path)))
    }

    #[wasm_bindgen(js_name = closeDocument)]
    pub fn close_document(&self, path: JsValue) {
        self.0.close_document(&lenient(path));
    }

    pub fn document(&self, path: JsValue) -> Out {
        put(&self.0.document(&lenient(path)))
    }

    pub fn capabilities(&self) -> Out {
        put(&self.0.capabilities())
    }

    /// The operation's number; none when `method` is not an fs method. The params in the inbox
    /// ([`args`]).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn start(&self, method: JsValue, len: u32) -> Option<u32> {
        let params = inbox::args(len, &["params"]).map(|mut v| v.swap_remove(0));
        let params = params.map_err(|field| format!("{field} {}", host::NOT_JSON));
        Some(self.1.hold(self.0.start(&method.as_string()?, params)?))
    }

    /// `start` with the params as JSON text (small params: one crossing, not one per member).
    /// Only in the full module: the fs/* one reads no JSON text ([`Engine::start_json_checked`]).
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = startJson)]
    pub fn start_json(&self, method: &str, params: &str) -> Option<u32> {
        Some(self.1.hold(self.0.start_json(method, params)?))
    }

    /// `startJson` with the params the JSON-RPC module read (`acp_fs::CheckedParams::to_json`),
    /// the method and the params in the inbox ([`args`]): the fs/* module has no JSON text reader
    /// (docs/design.md#the-json-rpc-module). None when `method` is not an fs method.
    #[cfg(not(feature = "full"))]
    #[wasm_bindgen(js_name = startJsonChecked)]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn start_json_checked(&self, len: u32) -> Option<u32> {
        let v = args(len, &["method", "params"]).ok()?;
        let params = acp_fs::CheckedParams::from_json(&v[1]);
        Some(self.1.hold(self.0.start_json_checked(v[0].as_str()?, params)?))
    }

    /// A request started and its first step in one call (a small read is a few microseconds of
    /// work, and each call into the module costs a share of it), the method and the params in
    /// the inbox ([`inbox::request`]), `len` bytes where [`answer_room`] made room for them: no
    /// JSON text, and flat params no JSON value. The number, the step in the outbox
    /// ([`outbox`]); none when `method` is not an fs method (or the layout holds no method and
    /// params).
    #[wasm_bindgen(js_name = beginFlat)]
    pub fn begin_flat(&self, len: u32, wide: bool) -> Option<u32> {
        let op = inbox::request(len, |method, params| {
            let op = match params {
                inbox::Params::Flat(params) => self.0.start_flat(method, params),
                inbox::Params::Json(params) => self.0.start(method, Ok(params)),
            };
            Some(self.1.hold(op?))
        });
        let op = op.ok()??;
        emit(&self.1.step(op, None, None), wide);
        Some(op)
    }

    /// A raw JSON-RPC message: what it is goes to the outbox; a call's operation number is
    /// returned. Only in the full module: the fs/* one is handed calls read already
    /// ([`Engine::call`]).
    #[cfg(feature = "full")]
    pub fn dispatch(&self, message: JsValue) -> Result<Option<u32>, JsValue> {
        self.with_operation(self.0.dispatch(&text(message)?))
    }

    /// A call the JSON-RPC module read from a message (`acp_fs::Parsed::to_json`'s id, method
    /// and params, in the inbox: [`args`]), as `dispatch` answers it: what it is to the outbox,
    /// the operation's number returned.
    #[cfg(not(feature = "full"))]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn call(&self, len: u32) -> Result<Option<u32>, JsValue> {
        let v = args(len, &["id", "method", "params"]).map_err(|e| js_sys::TypeError::new(&e.message))?;
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        let params = acp_fs::CheckedParams::from_json(&v[2]);
        self.with_operation(self.0.call(acp_fs::ParsedCall { id: text(&v[0]), method: text(&v[1]), params }))
    }

    /// The MCP tools of `sessionId`'s server (roots in the descriptions); `false`: the error.
    #[wasm_bindgen(js_name = mcpTools)]
    pub fn mcp_tools(&self, id: JsValue) -> Result<bool, JsValue> {
        match self.0.mcp_tools(&text(id)?) {
            Ok(tools) => put(&tools).map(|()| true),
            Err(error) => put(&error).map(|()| false),
        }
    }

    /// One MCP message for `sessionId`'s server, as [`dispatch`](Self::dispatch) (a `tools/call`
    /// is a call). Only in the full module: in the fs/* one the JSON-RPC module answers it.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = mcpDispatch)]
    pub fn mcp_dispatch(&self, id: JsValue, message: JsValue) -> Result<Option<u32>, JsValue> {
        self.with_operation(self.0.mcp_dispatch(&text(id)?, &text(message)?))
    }

    fn with_operation(&self, (dispatch, op): (HostDispatch, Option<HostOperation>)) -> Result<Option<u32>, JsValue> {
        put(&dispatch)?;
        Ok(op.map(|op| self.1.hold(op)))
    }

    /// Operation `op`'s first step, then the answer to the io it returned: its layout, `answer`
    /// bytes long, where [`answer_room`] made room for it ([`inbox`]; none: no answer), and beside
    /// `{bytes: true}` the length of its bytes, where [`bytes_room`] made room for them (negative:
    /// the host gave no bytes). A malformed answer, a step after the end or a panic: `internal`.
    /// The step goes to the outbox ([`outbox`]); `wide`: text that is not all ASCII (up to 1 MiB)
    /// as UTF-16 (the guard has a UTF-16 decoder: Node).
    pub fn step(&self, op: u32, wide: bool, answer: Option<u32>, bytes: Option<f64>) {
        let answer = answer.map(|len| inbox::answer(len).map_err(|e| e.to_string()));
        let step = match inbox_bytes(bytes) {
            None => self.1.step(op, answer, None),
            Some(Ok(Ok(bytes))) => self.1.step(op, answer, Some(bytes)),
            Some(Ok(Err(len))) => self.1.step(op, Some(Ok(HostAnswer::bytes_do_not_fit(len))), None),
            Some(Err(why)) => self.1.step(op, Some(Err(why)), None),
        };
        emit(&step, wide);
    }

    /// Operation `op`'s audit event once the request has ended, else `null` (to the outbox).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn audit(&self, op: u32) -> Result<(), JsValue> {
        put(&self.1.audit(op))
    }

    /// `-32800`, and no io after the last answered step (the outcome to the outbox).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn cancel(&self, op: u32) -> Result<(), JsValue> {
        put(&self.1.cancel(op))
    }

    /// Params with no JSON form: `-32602` naming `field` (the outcome to the outbox).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn refuse(&self, op: u32, field: &str, reason: &str) -> Result<(), JsValue> {
        put(&self.1.refuse(op, field, reason))
    }

    /// The driver broke: `internal` (the outcome to the outbox).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn abort(&self, op: u32, reason: &str) -> Result<(), JsValue> {
        put(&self.1.abort(op, reason))
    }

    /// Forgets operation `op` (its number may name another one later).
    pub fn release(&self, op: u32) {
        self.1.release(op);
    }
}

thread_local! {
    /// The bytes of the answer the next `step` takes, put here by the guard ([`bytes_room`]).
    static INBOX: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Room for the `len` bytes of the next answer in wasm memory, which the guard fills itself (one
/// call, where reading a `Uint8Array` from here took several imports); its address, or 0 when
/// they do not fit (the engine then reports so).
#[wasm_bindgen(js_name = __inbox)]
pub fn bytes_room(len: f64) -> u32 {
    INBOX.with(|inbox| {
        let mut inbox = inbox.borrow_mut();
        *inbox = Vec::new();
        // `Vec::with_capacity` would abort the instance on a file larger than its address space.
        let Ok(Ok(n)) = usize::try_from(len as u64).map(|n| inbox.try_reserve_exact(n).map(|()| n)) else {
            return 0;
        };
        inbox.resize(n, 0);
        inbox.as_ptr() as u32
    })
}

/// The answer's bytes: none (`None`), what the guard put in the inbox (`Some(len)`), bytes that
/// did not fit (`Ok(Err(len))`), or no bytes at all (a negative `len`: `Err`).
fn inbox_bytes(len: Option<f64>) -> Option<Result<Result<Vec<u8>, u64>, String>> {
    let len = len?;
    if len.is_nan() || len < 0.0 {
        return Some(Err(NOT_BYTES.to_owned()));
    }
    let bytes = INBOX.with(|inbox| std::mem::take(&mut *inbox.borrow_mut()));
    Some(Ok(if bytes.len() as f64 == len { Ok(bytes) } else { Err(len as u64) }))
}

/// What the engine is told of bytes that are no `Uint8Array` (it words the error itself).
const NOT_BYTES: &str = "the bytes are not a Uint8Array";

/// Room for an answer's layout at least `len` bytes long ([`inbox`]), which the guard writes
/// itself; its address (the same until room is made again).
#[wasm_bindgen(js_name = __answer)]
pub fn answer_room(len: u32) -> u32 {
    inbox::room(len)
}

/// The address of the outbox's slots ([`outbox::slots`]), for the guard.
#[wasm_bindgen(js_name = __outbox)]
pub fn outbox_slots() -> u32 {
    outbox::slots()
}

/// Puts `step` in the outbox; `wide`: non-ASCII text (up to 1 MiB) as UTF-16.
fn emit(step: &HostStep, wide: bool) {
    if let Some(content) = plain_read(step) {
        return outbox::put_read(content, wide);
    }
    if let HostStep::Io { io: Io::Open { root, path, head }, bytes: None, changes: false } = step {
        return outbox::put_open(root, path, *head);
    }
    if let Err(why) = outbox::put(step, wide) {
        let error = Some(AcpFsError::internal(format!("the step has no form the guard reads: {why}")));
        let done = HostOutcome { result: None, error, change: None, stale_document: None, reply: None };
        // An error outcome always has one.
        let _ = outbox::put(&HostStep::Done { done: Box::new(done) }, false);
    }
}

/// The content of a read's outcome that has nothing else ([`outbox::READ`]).
fn plain_read(step: &HostStep) -> Option<&str> {
    let HostStep::Done { done } = step else { return None };
    match &**done {
        HostOutcome {
            result: Some(Response::Read(ReadTextFileResponse { content, meta: None })),
            error: None,
            change: None,
            stale_document: None,
            reply: None,
        } => Some(content),
        _ => None,
    }
}

/// Writes the UTF-16 of `text` (valid UTF-8: it came from a `&str`) into `out`, which holds at
/// least one unit per byte; the number of units written. ASCII runs, most of a source file,
/// go sixteen bytes at a time (widened with SIMD); std's `encode_utf16` goes a character at a
/// time and took longer than the decode this replaces.
fn utf16_into(text: &[u8], out: &mut [u16]) -> usize {
    let (mut at, mut n) = (0, 0);
    while at < text.len() {
        let run = ascii_run(&text[at..], &mut out[n..]);
        at += run;
        n += run;
        let Some(&lead) = text.get(at) else { break };
        let cont = |k: usize| u32::from(text.get(at + k).map_or(0, |b| b & 0x3f));
        let (c, len) = match lead {
            0..0x80 => (u32::from(lead), 1),
            0xc0..0xe0 => (u32::from(lead & 0x1f) << 6 | cont(1), 2),
            0xe0..0xf0 => (u32::from(lead & 0x0f) << 12 | cont(1) << 6 | cont(2), 3),
            _ => (u32::from(lead & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3), 4),
        };
        if let Some(c) = c.checked_sub(0x1_0000) {
            out[n] = 0xd800 | (c >> 10) as u16;
            out[n + 1] = 0xdc00 | (c & 0x3ff) as u16;
            n += 2;
        } else {
            out[n] = c as u16;
            n += 1;
        }
        at += len;
    }
    n
}

/// Widens the ASCII bytes at the start of `text` into `out` (as long), sixteen at a time; how
/// many. Stops at the first sixteen that hold a non-ASCII byte, or fewer than sixteen left.
#[cfg(target_feature = "simd128")]
fn ascii_run(text: &[u8], out: &mut [u16]) -> usize {
    use core::arch::wasm32::{
        u16x8_extend_high_u8x16, u16x8_extend_low_u8x16, u8x16_bitmask, v128, v128_load, v128_store,
    };
    let mut at = 0;
    while at + 16 <= text.len() && at + 16 <= out.len() {
        // SAFETY: `at + 16` is within both slices (checked above); v128 loads and stores take
        // any alignment.
        let bytes = unsafe { v128_load(text.as_ptr().add(at).cast::<v128>()) };
        if u8x16_bitmask(bytes) != 0 {
            break;
        }
        unsafe {
            v128_store(out.as_mut_ptr().add(at).cast::<v128>(), u16x8_extend_low_u8x16(bytes));
            v128_store(out.as_mut_ptr().add(at + 8).cast::<v128>(), u16x8_extend_high_u8x16(bytes));
        }
        at += 16;
    }
    at
}

/// [`ascii_run`] without SIMD (a build for a target without it).
#[cfg(not(target_feature = "simd128"))]
fn ascii_run(text: &[u8], out: &mut [u16]) -> usize {
    let mut at = 0;
    while let (Some(Ok(chunk)), Some(Ok(to))) =
        (text.get(at..at + 16).map(<&[u8; 16]>::try_from), out.get_mut(at..at + 16).map(<&mut [u16; 16]>::try_from))
    {
        if chunk.iter().any(|b| !b.is_ascii()) {
            break;
        }
        *to = chunk.map(u16::from);
        at += 16;
    }
    at
}

mod inbox;
mod outbox;

// The agent side (core agent.rs through host::agent_side); without feature `full`, lite.rs.
#[cfg(not(feature = "full"))]
mod lite;

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = clientFsCapabilities)]
pub fn client_fs_capabilities(value: JsValue) -> Result<bool, JsValue> {
    put(&agent_side::client_fs_capabilities(&from_value(value)?)).map(|()| true)
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions(caps: JsValue) -> Result<bool, JsValue> {
    put(&agent_side::tool_definitions(&from_value(caps)?)).map(|()| true)
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = checkToolArguments)]
pub fn check_tool_arguments(tool: JsValue, session_id: JsValue, args: JsValue) -> Result<bool, JsValue> {
    put(&agent_side::check_tool_arguments(&text(tool)?, &text(session_id)?, &from_value(args)?)).map(|()| true)
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = buildRequest)]
pub fn build_request(caps: JsValue, tool: JsValue, session_id: JsValue, args: JsValue) -> Result<bool, JsValue> {
    let request = agent_side::build_request(&from_value(caps)?, &text(tool)?, &text(session_id)?, &from_value(args)?);
    put(&request).map(|()| true)
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = toolResult)]
pub fn tool_result(tool: JsValue, args: JsValue, answer: JsValue) -> Result<bool, JsValue> {
    put(&agent_side::tool_result(&text(tool)?, &from_value(args)?, &from_value(answer)?)).map(|()| true)
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A panic aborts the instance (an `unreachable` trap) before any JS sees its message; the hook
/// keeps the message so the package's guard can put it into the `internal` error it reports.
/// Not in a build whose panics trap at once (the fs/* module's): no hook would ever run there.
#[cfg(not(panic = "immediate-abort"))]
#[wasm_bindgen(start)]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        LAST_PANIC.with(|slot| slot.try_borrow_mut().map(|mut slot| *slot = Some(message)).unwrap_or(()));
    }));
}

/// The message of the last panic, once (for the package's trap guard; not part of the API).
#[wasm_bindgen(js_name = __takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|slot| slot.try_borrow_mut().ok().and_then(|mut slot| slot.take()))
}

// The module's allocator: talc, with free lists for small blocks in front of it.
use acp_fs_wasm_alloc as _;
