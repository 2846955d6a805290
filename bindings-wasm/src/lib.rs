//! wasm-bindgen binding of the acp-fs engine: `docs/binding-interface.md` over [`acp_fs::host`], values converted
//! with serde (serde-wasm-bindgen; answers and small params as JSON text) and nothing else: rules, wording, limits and
//! a request's lifecycle are the core's. A panic aborts (a trap); the hook below keeps its message for the guard.

#[cfg(feature = "full")]
use acp_fs::host::agent_side;
use acp_fs::host::{self, HeldOperations, HostAnswer, HostDispatch, HostEngine, HostOperation, HostStep};
use acp_fs::{AcpFsError, Response};
use js_sys::{ArrayBuffer, Uint8Array};
use serde::Serialize;
use serde_json::Value;
use serde_wasm_bindgen::{from_value, Serializer};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"import type { AcpFsError as ErrorValue, AuditEvent, FileSystemCapability, HostAnswer, HostDispatch, HostInfo,
  HostOutcome, HostRequest, HostStep, JsonValue, StorageCaps } from '../types/host.js';"#;

/// Values out as the generated types say: plain objects for maps, `null` for `None`, numbers for
/// integers, a `Uint8Array` (a copy, not a view of wasm memory) for bytes.
const OUT: Serializer = Serializer::new().serialize_missing_as_null(true).serialize_maps_as_objects(true);

type Js = Result<JsValue, JsValue>;

fn js<T: Serialize + ?Sized>(value: &T) -> Js {
    value.serialize(&OUT).map_err(Into::into)
}

/// A conversion error's message.
fn reason(error: serde_wasm_bindgen::Error) -> String {
    let error = JsValue::from(error);
    error.dyn_ref::<js_sys::Error>().map_or_else(|| format!("{error:?}"), |e| e.message().into())
}

/// A JSON value, or `-32602` naming `field` with the conversion error.
fn arg(field: &str, value: JsValue) -> Result<Value, AcpFsError> {
    from_value(value).map_err(|e| host::invalid_params(field, &reason(e)))
}

/// A string, or a `TypeError` with the conversion error.
fn text(value: JsValue) -> Result<String, JsValue> {
    from_value(value).map_err(|e| js_sys::TypeError::new(&reason(e)).into())
}

/// What an argument the engine only reads as a string is when it is no JSON value: nothing.
fn lenient(value: JsValue) -> Value {
    from_value(value).unwrap_or_default()
}

/// `null`, or the error (a bad argument's included).
fn error_or_null(result: Result<Option<AcpFsError>, AcpFsError>) -> Js {
    js(&result.unwrap_or_else(Some))
}

/// The driver's constants: method names, walk limits, full storage caps, the `internal` template.
#[wasm_bindgen(js_name = hostInfo, unchecked_return_type = "HostInfo")]
pub fn host_info() -> Js {
    js(&host::info())
}

#[wasm_bindgen(js_name = invalidParams, unchecked_return_type = "ErrorValue")]
pub fn invalid_params(field: &str, reason: &str) -> Js {
    js(&host::invalid_params(field, reason))
}

/// An engine, or the error naming the bad option or capability (returned, never thrown).
#[wasm_bindgen(js_name = createEngine, unchecked_return_type = "Engine | ErrorValue")]
pub fn create_engine(options: JsValue, caps: JsValue) -> Js {
    match arg("options", options).and_then(|options| HostEngine::new(options, arg("caps", caps)?)) {
        Ok(engine) => Ok(Engine(engine, HeldOperations::default()).into()),
        Err(error) => js(&error),
    }
}

/// The engine for one storage, and its requests in flight by number (an object each would cost a
/// `FinalizationRegistry` entry; `npm/wasm/lib/guard.mjs` makes the driver's `Operation`s).
#[wasm_bindgen]
pub struct Engine(HostEngine, HeldOperations);

#[wasm_bindgen]
impl Engine {
    #[wasm_bindgen(js_name = openSession, unchecked_return_type = "ErrorValue | null")]
    pub fn open_session(&self, session_id: JsValue, cwd: JsValue, dirs: JsValue, session: JsValue) -> Js {
        let (id, cwd, dirs) = (arg("sessionId", session_id), arg("cwd", cwd), arg("additionalDirectories", dirs));
        let session = arg("session", session);
        error_or_null((|| Ok(self.0.open_session(&id?, &cwd?, &dirs?, &session?)))())
    }

    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&self, id: JsValue) {
        self.0.close_session(&lenient(id));
    }

    #[wasm_bindgen(js_name = openDocument, unchecked_return_type = "ErrorValue | null")]
    pub fn open_document(&self, path: JsValue, text: JsValue) -> Js {
        error_or_null((|| Ok(self.0.open_document(&arg("path", path)?, &arg("text", text)?)))())
    }

    #[wasm_bindgen(js_name = documentReloaded, unchecked_return_type = "ErrorValue | null")]
    pub fn document_reloaded(&self, path: JsValue, text: JsValue) -> Js {
        error_or_null((|| Ok(self.0.document_reloaded(&arg("path", path)?, &arg("text", text)?)))())
    }

    #[wasm_bindgen(js_name = documentSaved)]
    pub fn document_saved(&self, path: JsValue) -> bool {
        self.0.document_saved(&lenient(path))
    }

    #[wasm_bindgen(js_name = documentVersion, unchecked_return_type = "number | null")]
    pub fn document_version(&self, path: JsValue) -> Js {
        js(&self.0.document_version(&lenient(path)))
    }

    #[wasm_bindgen(js_name = closeDocument)]
    pub fn close_document(&self, path: JsValue) {
        self.0.close_document(&lenient(path));
    }

    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn document(&self, path: JsValue) -> Js {
        js(&self.0.document(&lenient(path)))
    }

    #[wasm_bindgen(unchecked_return_type = "FileSystemCapability")]
    pub fn capabilities(&self) -> Js {
        js(&self.0.capabilities())
    }

    /// The operation's number; none when `method` is not an fs method.
    pub fn start(&self, method: JsValue, params: JsValue) -> Option<u32> {
        Some(self.1.hold(self.0.start(&method.as_string()?, from_value(params).map_err(reason))?))
    }

    /// `start` with the params as JSON text (small params: one crossing, not one per member).
    #[wasm_bindgen(js_name = startJson)]
    pub fn start_json(&self, method: &str, params: &str) -> Option<u32> {
        Some(self.1.hold(self.0.start_json(method, params)?))
    }

    /// A raw JSON-RPC message; a call comes with its operation's number.
    #[wasm_bindgen(unchecked_return_type = "HostDispatch & { operation?: number }")]
    pub fn dispatch(&self, message: JsValue) -> Js {
        self.with_operation(self.0.dispatch(&text(message)?))
    }

    /// The MCP tools of `sessionId`'s server (roots in the descriptions).
    #[wasm_bindgen(js_name = mcpTools, unchecked_return_type = "JsonValue[]")]
    pub fn mcp_tools(&self, id: JsValue) -> Js {
        self.0.mcp_tools(&text(id)?).map_or_else(|e| Err(js(&e)?), |tools| js(&tools))
    }

    /// One MCP message for `sessionId`'s server; a `tools/call` comes with its operation's number.
    #[wasm_bindgen(js_name = mcpDispatch, unchecked_return_type = "HostDispatch & { operation?: number }")]
    pub fn mcp_dispatch(&self, id: JsValue, message: JsValue) -> Js {
        self.with_operation(self.0.mcp_dispatch(&text(id)?, &text(message)?))
    }

    fn with_operation(&self, (dispatch, op): (HostDispatch, Option<HostOperation>)) -> Js {
        let out = js(&dispatch)?;
        op.map_or(Ok(true), |op| js_sys::Reflect::set(&out, &"operation".into(), &self.1.hold(op).into()))?;
        Ok(out)
    }

    /// Operation `op`'s first step, then the answer to the io it returned as JSON text (small;
    /// one string instead of a value read member by member), `bytes` beside `{bytes: true}`. A
    /// malformed answer, a step after the end or a panic: `internal`.
    ///
    /// `wide`: a read's text that is not all ASCII comes as UTF-16 (`{done, wide}`, its
    /// `content` empty; see [`wide_content`]).
    #[wasm_bindgen(unchecked_return_type = "HostStep & { wide?: Uint16Array }")]
    pub fn step(
        &self,
        op: u32,
        answer: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] bytes: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "boolean")] wide: Option<bool>,
    ) -> Js {
        let answer = answer.map(|a| serde_json::from_str::<HostAnswer>(&a).map_err(|e| e.to_string()));
        let mut step = match bytes.as_ref().map(copy_in) {
            None => self.1.step(op, answer, None),
            Some(Ok(Ok(bytes))) => self.1.step(op, answer, Some(bytes)),
            Some(Ok(Err(len))) => self.1.step(op, Some(Ok(HostAnswer::bytes_do_not_fit(len))), None),
            Some(Err(why)) => self.1.step(op, Some(Err(why)), None),
        };
        if wide != Some(true) {
            return js(&step);
        }
        WIDE.with(|units| {
            let mut units = units.borrow_mut();
            let widened = wide_content(&mut step, &mut units);
            let out = js(&step)?;
            if widened {
                // SAFETY: a view of `units`, which nothing touches until the next `step` with
                // `wide`; the guard turns it into a string as soon as this returns, before any
                // other call into the module could allocate (and so grow, detaching the view).
                let view = unsafe { js_sys::Uint16Array::view(&units) };
                js_sys::Reflect::set(&out, &"wide".into(), &view)?;
            }
            Ok(out)
        })
    }

    /// Operation `op`'s audit event once the request has ended, else `null`.
    #[wasm_bindgen(unchecked_return_type = "AuditEvent | null")]
    pub fn audit(&self, op: u32) -> Js {
        js(&self.1.audit(op))
    }

    /// `-32800`, and no io after the last answered step.
    #[wasm_bindgen(unchecked_return_type = "HostOutcome")]
    pub fn cancel(&self, op: u32) -> Js {
        js(&self.1.cancel(op))
    }

    /// Params with no JSON form: `-32602` naming `field`.
    #[wasm_bindgen(unchecked_return_type = "HostOutcome")]
    pub fn refuse(&self, op: u32, field: &str, reason: &str) -> Js {
        js(&self.1.refuse(op, field, reason))
    }

    /// The driver broke: `internal`.
    #[wasm_bindgen(unchecked_return_type = "HostOutcome")]
    pub fn abort(&self, op: u32, reason: &str) -> Js {
        js(&self.1.abort(op, reason))
    }

    /// Forgets operation `op` (its number may name another one later).
    pub fn release(&self, op: u32) {
        self.1.release(op);
    }
}

#[wasm_bindgen]
extern "C" {
    /// Any view of an `ArrayBuffer` (a `Uint8Array` of another realm, a `Buffer`, a `DataView`).
    type View;
    #[wasm_bindgen(method, getter)]
    fn buffer(this: &View) -> JsValue;
    #[wasm_bindgen(method, getter = byteOffset)]
    fn byte_offset(this: &View) -> f64;
    #[wasm_bindgen(method, getter = byteLength)]
    fn byte_length(this: &View) -> f64;
}

/// The bytes of a `Uint8Array` (any view, an `ArrayBuffer`) copied into wasm memory, or
/// `Ok(Err(len))` when they do not fit; `Err` when `value` holds no bytes.
fn copy_in(value: &JsValue) -> Result<Result<Vec<u8>, u64>, String> {
    let (v, len) = (value.unchecked_ref::<View>(), value.unchecked_ref::<View>().byte_length());
    let view = if value.is_instance_of::<Uint8Array>() {
        value.clone().unchecked_into()
    } else if ArrayBuffer::is_view(value) {
        if v.byte_offset() + len > f64::from(u32::MAX) {
            return Ok(Err(len as u64));
        }
        Uint8Array::new_with_byte_offset_and_length(&v.buffer(), v.byte_offset() as u32, len as u32)
    } else if value.is_instance_of::<ArrayBuffer>() {
        Uint8Array::new(value)
    } else {
        let what = serde::de::Unexpected::Other(&format!("{value:?}"));
        return Err(reason(serde::de::Error::invalid_type(what, &"a Uint8Array")));
    };
    let mut bytes = Vec::new();
    // `Vec::with_capacity` would abort the instance on a file larger than its address space.
    let Ok(Ok(n)) = usize::try_from(len as u64).map(|n| bytes.try_reserve_exact(n).map(|()| n)) else {
        return Ok(Err(len as u64));
    };
    bytes.resize(n, 0);
    view.copy_to(&mut bytes);
    Ok(Ok(bytes))
}

thread_local! {
    /// The last widened text (reused: a read allocates nothing for it once it has grown).
    static WIDE: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

/// The most text a read hands over as UTF-16: above it the wasm memory would keep twice the
/// text's size for the rest of the instance's life, for a gain that the decode no longer
/// dominates.
const WIDE_MAX: usize = 1 << 20;

/// Moves a finished read's text into `units` as UTF-16, leaving its `content` empty; false (the
/// step untouched) for any other step, and for text that is all ASCII or larger than
/// [`WIDE_MAX`].
///
/// Why: a JS string is UTF-16, and Node's UTF-8 decoder (what wasm-bindgen's string passing
/// and `TextDecoder` use) takes about ten times as long for text with non-ASCII characters
/// as copying UTF-16 code units does (`Buffer#toString('utf16le')`): for a 4 KB source file it
/// was the largest cost of a whole read. ASCII text decodes as fast either way. Chromium's
/// `TextDecoder` is fast for UTF-8 and slow for UTF-16, so the guard asks for this only where
/// the host gave it a UTF-16 decoder (Node).
fn wide_content(step: &mut HostStep, units: &mut Vec<u16>) -> bool {
    let HostStep::Done { done } = step else { return false };
    let Some(Response::Read(read)) = done.result.as_mut() else { return false };
    let text = read.content.as_str();
    if text.len() > WIDE_MAX || text.is_ascii() {
        return false;
    }
    // At most one unit per byte: the vector is sized once, then cut to what was written.
    units.clear();
    units.resize(text.len(), 0);
    let written = utf16_into(text.as_bytes(), units);
    units.truncate(written);
    read.content = String::new();
    true
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

// The agent side (core agent.rs through host::agent_side); without feature `full`, lite.rs.
#[cfg(not(feature = "full"))]
mod lite;

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = clientFsCapabilities, unchecked_return_type = "FileSystemCapability")]
pub fn client_fs_capabilities(value: JsValue) -> Js {
    js(&agent_side::client_fs_capabilities(&from_value(value)?))
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "JsonValue[]")]
pub fn tool_definitions(caps: JsValue) -> Js {
    js(&agent_side::tool_definitions(&from_value(caps)?))
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = checkToolArguments, unchecked_return_type = "HostRequest")]
pub fn check_tool_arguments(tool: JsValue, session_id: JsValue, args: JsValue) -> Js {
    js(&agent_side::check_tool_arguments(&text(tool)?, &text(session_id)?, &from_value(args)?))
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "HostRequest")]
pub fn build_request(caps: JsValue, tool: JsValue, session_id: JsValue, args: JsValue) -> Js {
    js(&agent_side::build_request(&from_value(caps)?, &text(tool)?, &text(session_id)?, &from_value(args)?))
}

#[cfg(feature = "full")]
#[wasm_bindgen(js_name = toolResult, unchecked_return_type = "JsonValue")]
pub fn tool_result(tool: JsValue, args: JsValue, answer: JsValue) -> Js {
    js(&agent_side::tool_result(&text(tool)?, &from_value(args)?, &from_value(answer)?))
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A panic aborts the instance (an `unreachable` trap) before any JS sees its message; the hook
/// keeps the message so the package's guard can put it into the `internal` error it reports.
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
