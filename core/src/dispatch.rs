//! The raw JSON-RPC entry: fs methods answered, everything else handed back to the host.

use crate::engine::AcpFs;
use crate::error::{AcpFsError, JsonRpcError};
use crate::json_scan;
use crate::json_text::{self, has_lone_surrogate, LONE};
use crate::operation::{Operation, Outcome};
use crate::params::Params;
use crate::protocol::{Response, READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::storage::{Host, Storage};
use serde_json::{json, Value};

/// What to do with one incoming message.
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "a call must be run and answered, a reply sent"]
pub enum Dispatch {
    /// Not an fs request (another method, a response, a notification): route it elsewhere.
    NotMine,
    /// Answer this at once (malformed message).
    Reply(String),
    /// Run this request, then answer with [`Call::respond`].
    Call(Call),
    /// `$/cancel_request` for this request id (raw JSON text): cancel it if it is in flight.
    Cancel(String),
}

/// An fs request taken from a message, with its id kept byte-for-byte.
#[derive(Debug)]
#[must_use = "a request is answered only once it is run to its outcome"]
pub struct Call {
    id: Box<str>,
    /// [`READ_TEXT_FILE`] or [`WRITE_TEXT_FILE`].
    pub method: &'static str,
    /// The request, to run to its [`Outcome`] and answer with [`Call::respond`].
    pub operation: Operation,
}

impl Call {
    /// The request id as raw JSON text (`7`, `"abc"`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The JSON-RPC response for the finished request.
    pub fn respond(&self, outcome: &Outcome) -> String {
        respond_outcome(&self.id, outcome)
    }
}

/// The members of a message, each kept as its raw JSON text. Nothing is decoded before it is
/// known which member it belongs to: a value `serde_json::Value` cannot hold (a string escape
/// with a lone surrogate, a number beyond f64) must be answered for the member it is in, not
/// turn the whole message into a parse error that cannot name the request.
struct Members<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    method: Option<&'a str>,
    params: Option<&'a str>,
    /// A lone surrogate in another member (or in a member's name).
    lone_surrogate: bool,
}

impl<'a> Members<'a> {
    /// The members of a message object (valid JSON, each name at most once among the four);
    /// `None` when it is not.
    fn of(message: &'a str) -> Option<Members<'a>> {
        let mut m = Members { jsonrpc: None, id: None, method: None, params: None, lone_surrogate: false };
        for (key, value) in json_scan::members(message)? {
            let Some(name) = json_scan::string(key) else {
                m.lone_surrogate = true;
                continue;
            };
            let slot = match name.as_str() {
                "jsonrpc" => &mut m.jsonrpc,
                "id" => &mut m.id,
                "method" => &mut m.method,
                "params" => &mut m.params,
                _ => {
                    m.lone_surrogate |= has_lone_surrogate(value);
                    continue;
                }
            };
            // Which of two ids or methods is meant cannot be known.
            if slot.replace(value).is_some() {
                return None;
            }
        }
        Some(m)
    }
}

/// Builds a JSON-RPC response around a raw id.
pub fn respond(id: &str, result: Result<Value, AcpFsError>) -> String {
    reply(id, result.as_ref())
}

/// [`respond`] with the outcome borrowed: an error is written as it is, not copied into a
/// `Value` first (that copy kept serde_json's `Value` cloning in the fs/* wasm module).
pub(crate) fn reply(id: &str, result: Result<&Value, &AcpFsError>) -> String {
    match result {
        Ok(value) => respond_result(id, value),
        Err(e) => error_reply(id, &JsonRpcError::of(e)),
    }
}

/// A reply with this error.
fn error_reply(id: &str, error: &JsonRpcError) -> String {
    // Through `serde_json::to_string`, the writer replies use, not `Value`'s `Display`, which
    // brought two more copies of the serializer (compact and pretty) into the fs/* wasm module.
    let error = serde_json::to_string(error).expect("an error serializes");
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{error}}}")
}

/// The JSON-RPC response for a request whose outcome a binding holds as JSON, in
/// [`crate::host::HostOutcome`]'s form: its `result`, or its `error` (`{code, message, data}`,
/// the error's other members left out as [`respond`] leaves them). What a binding whose engine
/// writes no replies (cargo feature `json-rpc` off) answers a call with.
///
/// ```
/// use serde_json::json;
/// let broken = acp_fs::respond_json("1", &json!({"error": {"code": "x"}}));
/// assert!(broken.starts_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603"#), "{broken}");
/// let ok = acp_fs::respond_json("7", &json!({"result": {"content": "a\n"}, "change": null}));
/// assert_eq!(ok, r#"{"jsonrpc":"2.0","id":7,"result":{"content":"a\n"}}"#);
/// let error = json!({"error": {"kind": "not_found", "code": -32002, "message": "Resource not found: /p/a", "data": {"uri": "/p/a"}}});
/// assert_eq!(
///     acp_fs::respond_json("\"x\"", &error),
///     r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32002,"message":"Resource not found: /p/a","data":{"uri":"/p/a"}}}"#
/// );
/// ```
pub fn respond_json(id: &str, outcome: &Value) -> String {
    let error = outcome.get("error").filter(|e| !e.is_null());
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
    let message = error.and_then(|e| e.get("message")).and_then(Value::as_str);
    match (error, code, message, outcome.get("result")) {
        (Some(e), Some(code), Some(message), _) => {
            error_reply(id, &JsonRpcError::new(code, message, e.get("data").unwrap_or(&Value::Null)))
        }
        (None, _, _, Some(result)) => respond_result(id, result),
        // Neither a result nor an error as a binding's outcome holds one: its bug, answered so.
        _ => respond(id, Err(AcpFsError::internal("the binding's outcome has neither a result nor an error"))),
    }
}

/// The JSON-RPC response for a finished request: its result serialized as it is, not first
/// copied into a `Value` (a read's whole text, and serde_json's `Value` cloning in the fs/*
/// wasm module).
pub(crate) fn respond_outcome(id: &str, outcome: &Outcome) -> String {
    match &outcome.result {
        Ok(Response::Tool(value)) => reply(id, Ok(value)),
        Ok(response) => {
            let len = match response {
                Response::Read(r) => r.content.len() + 16,
                _ => 8,
            };
            envelope(id, len, |out| serde_json::to_writer(out, response).expect("a response serializes into a Vec"))
        }
        Err(e) => reply(id, Err(e)),
    }
}

/// [`respond`] with a borrowed result, serialized once straight into the reply: a tool's answer
/// may be megabytes, and neither a copy of it nor a second pass over its text is needed.
pub(crate) fn respond_result(id: &str, value: &Value) -> String {
    envelope(id, json_len(value), |out| {
        // Only an MCP tool's answer repeats its text; fs/* replies (the module a web page loads
        // without the tools) keep serde_json's own writer and its size.
        #[cfg(feature = "mcp")]
        write_compact(out, value, &mut None);
        #[cfg(not(feature = "mcp"))]
        serde_json::to_writer(out, value).expect("a Value serializes into a Vec");
    })
}

/// A reply with `result` written by `result`, about `len` bytes of JSON.
fn envelope(id: &str, len: usize, result: impl FnOnce(&mut Vec<u8>)) -> String {
    // Sized for the whole reply up front (escapes, a line break's say, add a little): a large
    // answer is not copied over and over as the buffer doubles.
    let guess = 64 + id.len() + len;
    let mut out = Vec::with_capacity(guess + guess / 16);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"result\":");
    result(&mut out);
    out.push(b'}');
    // The id is a raw JSON value (UTF-8) and serde_json writes UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A string at least this long is escaped once per reply and its JSON copied where it comes
/// again: an MCP tool answers its text twice (the content block and `structuredContent`), and
/// escaping was a sixth of the standalone server's CPU on a 100-file `read_multiple_files`.
#[cfg(feature = "mcp")]
const ESCAPED_ONCE: usize = 4096;

/// `value` as serde_json's compact JSON, byte for byte, with a long string that equals the last
/// long one written copied from it rather than escaped again (`last`: that string and where its
/// JSON is in `out`).
#[cfg(feature = "mcp")]
fn write_compact<'v>(out: &mut Vec<u8>, value: &'v Value, last: &mut Option<(&'v str, std::ops::Range<usize>)>) {
    const INTO_VEC: &str = "JSON serializes into a Vec";
    match value {
        Value::String(s) if s.len() >= ESCAPED_ONCE => {
            if let Some((seen, at)) = last {
                if *seen == s.as_str() {
                    out.extend_from_within(at.clone());
                    return;
                }
            }
            let start = out.len();
            serde_json::to_writer(&mut *out, s).expect(INTO_VEC);
            *last = Some((s, start..out.len()));
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(out, item, last);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect(INTO_VEC);
                out.push(b':');
                write_compact(out, member, last);
            }
            out.push(b'}');
        }
        other => serde_json::to_writer(&mut *out, other).expect(INTO_VEC),
    }
}

/// About how long `value` is as JSON text (its strings unescaped).
fn json_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len(v) + 1).sum::<usize>(),
        Value::Object(members) => 2 + members.iter().map(|(k, v)| k.len() + 4 + json_len(v)).sum::<usize>(),
        _ => 8,
    }
}

/// What the raw entry makes of a message before anything runs: all of it is read from the text
/// alone, so it needs no engine ([`parse_message`]; [`AcpFs::dispatch`] starts the call).
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "a call must be run and answered, a reply sent"]
pub enum Parsed {
    /// Not an fs request (another method, a response, a notification): route it elsewhere.
    NotMine,
    /// Answer this at once (malformed message).
    Reply(String),
    /// `$/cancel_request` for this request id (raw JSON text).
    Cancel(String),
    /// An fs request: to start with [`AcpFs::call`] and answer under its id.
    Call(ParsedCall),
}

impl Parsed {
    /// As JSON for a binding that reads messages in one module and runs requests in another
    /// (`@acp-fs/wasm`, docs/design.md#the-json-rpc-module): `{kind: "notMine"}`, `{kind:
    /// "reply", reply}` and `{kind: "cancel", id}` as [`crate::host::HostDispatch`] has them, and
    /// `{kind: "call", id, method, params}`, the params as [`CheckedParams::to_json`] writes them.
    pub fn to_json(&self) -> Value {
        use crate::host::HostDispatch;
        let dispatch = match self {
            Parsed::Call(c) => {
                return json!({"kind": "call", "id": c.id, "method": c.method, "params": c.params.to_json()})
            }
            Parsed::NotMine => HostDispatch::NotMine,
            Parsed::Reply(reply) => HostDispatch::Reply { reply: reply.clone() },
            Parsed::Cancel(id) => HostDispatch::Cancel { id: id.clone() },
        };
        serde_json::to_value(dispatch).expect("a dispatch serializes")
    }
}

/// An fs request read from a message: its id as raw JSON text, its method, its params.
#[derive(Debug)]
pub struct ParsedCall {
    /// The request id as raw JSON text (`7`, `"abc"`), kept byte for byte for the reply.
    pub id: String,
    /// `fs/read_text_file` or `fs/write_text_file`.
    pub method: String,
    /// The params, checked.
    pub params: CheckedParams,
}

/// A request's params read from JSON text: the members the engine reads, or the member refused
/// (semantics.md §8.1). What `@acp-fs/wasm`'s JSON-RPC module hands its fs/* module, which has
/// no JSON text reader of its own (docs/design.md#the-json-rpc-module); nothing in it depends
/// on the engine's options.
pub struct CheckedParams(Result<Params, Refusal>);

impl std::fmt::Debug for CheckedParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CheckedParams({})", self.to_json())
    }
}

impl CheckedParams {
    /// `params`, the raw JSON text of a message's `params` member (`None`: no such member).
    pub fn of_text(params: Option<&str>) -> CheckedParams {
        CheckedParams(params.map_or(Ok(None), checked_members).map(Params::of_text))
    }

    /// As JSON that [`from_json`](Self::from_json) reads back to the same params: `{params}`,
    /// an object of the members the engine reads, each a JSON value it reads as it read the
    /// text (`null` when params is no object), or `{refused: {field, reason}}`.
    ///
    /// ```
    /// use acp_fs::CheckedParams;
    /// let p = CheckedParams::of_text(Some(r#"{"path": "/p/a", "line": 3.0, "x": [1], "_meta": {"traceparent": "t"}}"#));
    /// assert_eq!(p.to_json().to_string(), r#"{"params":{"path":"/p/a","line":3.0,"_meta":{"traceparent":"t"}}}"#);
    /// assert_eq!(CheckedParams::from_json(&p.to_json()).to_json(), p.to_json());
    /// let bad = CheckedParams::of_text(Some(r#"{"path": "\ud800"}"#));
    /// assert_eq!(bad.to_json()["refused"]["field"], "path");
    /// ```
    pub fn to_json(&self) -> Value {
        match &self.0 {
            Ok(params) => json!({"params": params.to_value()}),
            Err(Refusal { field, reason }) => json!({"refused": {"field": field, "reason": reason}}),
        }
    }

    /// [`to_json`](Self::to_json)'s form read back (anything else: params that are no object).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn from_json(value: &Value) -> CheckedParams {
        let text = |v: &Value, name| v.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
        match value.get("refused") {
            Some(r) => CheckedParams(Err(Refusal { field: text(r, "field"), reason: text(r, "reason") })),
            None => CheckedParams(Ok(value.get("params").unwrap_or(&Value::Null).into())),
        }
    }

    pub(crate) fn into_params(self) -> Result<Params, Refusal> {
        self.0
    }
}

/// The member of params refused, and why: `-32602` naming it.
#[derive(Debug, PartialEq)]
pub(crate) struct Refusal {
    field: String,
    reason: String,
}

impl Refusal {
    fn new(field: &str, reason: &str) -> Refusal {
        Refusal { field: field.to_owned(), reason: reason.to_owned() }
    }
}

impl From<Refusal> for AcpFsError {
    fn from(r: Refusal) -> AcpFsError {
        AcpFsError::invalid_params(&r.field, r.reason)
    }
}

/// Reads one raw message as [`AcpFs::dispatch`] does, without starting anything.
///
/// ```
/// use acp_fs::{parse_message, Parsed};
/// let call = r#"{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a"}}"#;
/// let Parsed::Call(call) = parse_message(call) else { panic!() };
/// assert_eq!((call.id.as_str(), call.method.as_str()), ("7", "fs/read_text_file"));
/// assert!(matches!(parse_message(r#"{"jsonrpc":"2.0","method":"session/update"}"#), Parsed::NotMine));
/// ```
pub fn parse_message(message: &str) -> Parsed {
    let msg = match parse(message) {
        Ok(Some(msg)) => msg,
        Ok(None) => return Parsed::NotMine,
        Err(reply) => return Parsed::Reply(reply),
    };
    if msg.method == "$/cancel_request" {
        // As sent: the id of the request it names is kept as sent too, and the driver reads
        // both as JSON before it compares them.
        let members = msg.params.map(checked_members).and_then(Result::ok).flatten().unwrap_or_default();
        return match members.into_iter().rev().find(|m| m.name == "requestId") {
            Some(id) => Parsed::Cancel(id.raw.to_owned()),
            None => Parsed::NotMine,
        };
    }
    if !matches!(msg.method.as_str(), READ_TEXT_FILE | WRITE_TEXT_FILE) {
        return Parsed::NotMine;
    }
    let id = match msg.request_id() {
        Ok(Some(id)) => id.to_owned(),
        // A notification gets no answer, so running it would hide every outcome.
        Ok(None) => return Parsed::NotMine,
        Err(reply) => return Parsed::Reply(reply),
    };
    let params = CheckedParams::of_text(msg.params);
    Parsed::Call(ParsedCall { id, method: msg.method, params })
}

impl AcpFs {
    /// Starts `method` with params the raw entry read ([`parse_message`]): a refused member
    /// fails the request naming it. `None` when `method` is not an fs method.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn start_checked(&self, method: &str, params: CheckedParams) -> Option<Operation> {
        match params.into_params() {
            Ok(params) => self.start(method, params),
            Err(refused) => self.refused(method, refused.into()),
        }
    }

    /// Classifies a raw message and starts the request if it is ours.
    ///
    /// ```
    /// use acp_fs::{AcpFs, Dispatch, Options, StorageCaps};
    /// let fs = AcpFs::new(Options::default(), StorageCaps::FULL).unwrap();
    /// assert!(matches!(fs.dispatch(r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}"#), Dispatch::NotMine));
    /// let Dispatch::Reply(r) = fs.dispatch("{not json") else { panic!() };
    /// assert_eq!(r, r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"reason":"the message is not valid JSON"}}}"#);
    /// ```
    pub fn dispatch(&self, message: &str) -> Dispatch {
        match parse_message(message) {
            Parsed::NotMine => Dispatch::NotMine,
            Parsed::Reply(reply) => Dispatch::Reply(reply),
            Parsed::Cancel(id) => Dispatch::Cancel(id),
            Parsed::Call(call) => self.call(call),
        }
    }

    /// A call [`parse_message`] read, started.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn call(&self, call: ParsedCall) -> Dispatch {
        let method = if call.method == WRITE_TEXT_FILE { WRITE_TEXT_FILE } else { READ_TEXT_FILE };
        match self.start_checked(&call.method, call.params) {
            Some(operation) => Dispatch::Call(Call { id: call.id.into(), method, operation }),
            None => Dispatch::NotMine,
        }
    }

    /// Answers one raw message synchronously over `storage`: `None` when it is not ours.
    #[must_use = "the reply is what the peer is waiting for"]
    pub fn handle(&self, storage: &impl Storage, host: &impl Host, message: &str) -> Option<String> {
        match self.dispatch(message) {
            Dispatch::NotMine | Dispatch::Cancel(_) => None,
            Dispatch::Reply(r) => Some(r),
            Dispatch::Call(call) => {
                let Call { id, operation, .. } = call;
                let outcome = crate::run(operation, storage, host);
                Some(respond_outcome(&id, &outcome))
            }
        }
    }
}

/// The answer a standalone server gives a message nothing else handled: `-32601` for a
/// request (after the same envelope checks as fs requests), `None` for notifications and
/// responses, and `-32700`/`-32600` for malformed messages.
///
/// ```
/// let r = acp_fs::not_served(r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{}}"#).unwrap();
/// assert!(r.starts_with(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601"#));
/// assert_eq!(acp_fs::not_served(r#"{"jsonrpc":"2.0","method":"session/update"}"#), None);
/// ```
#[must_use = "the reply is what the peer is waiting for"]
pub fn not_served(message: &str) -> Option<String> {
    refuse_request(message, AcpFsError::method_not_found)
}

/// `error(method)` for a request, after the envelope checks; `None` for a notification or a
/// response, `-32700`/`-32600` for a malformed message.
pub(crate) fn refuse_request(message: &str, error: impl FnOnce(&str) -> AcpFsError) -> Option<String> {
    let msg = match parse(message) {
        Ok(Some(msg)) => msg,
        Ok(None) => return None,
        Err(reply) => return Some(reply),
    };
    match msg.request_id() {
        Ok(Some(id)) => Some(respond(id, Err(error(&msg.method)))),
        Ok(None) => None,
        Err(reply) => Some(reply),
    }
}

/// A JSON-RPC message with a string method.
pub(crate) struct Message<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    pub method: String,
    params: Option<&'a str>,
    lone_surrogate: bool,
}

/// Parses one message: `Ok(None)` for a message without a method (a response), `Err(reply)`
/// for one that must be answered at once (-32700 / -32600).
pub(crate) fn parse(message: &str) -> Result<Option<Message<'_>>, String> {
    // serde would also read a JSON array as a struct (by position), so only objects get in.
    // Members are raw JSON text, which serde checks for syntax only, so an object that fails
    // here is not valid JSON (or names a member twice).
    let object = message.trim_start().starts_with('{');
    let parsed = if object { Members::of(message) } else { None };
    let members = match parsed {
        Some(m) => m,
        None if object => return Err(respond("null", Err(AcpFsError::parse_error("the message is not valid JSON")))),
        None => {
            let (error, reason) = match json_scan::value(message) {
                Some(raw) if raw.starts_with('[') => (true, "batches are not supported"),
                Some(_) => (true, "a request must be a JSON object"),
                None => (false, "the message is not valid JSON"),
            };
            let e = if error { AcpFsError::invalid_request(reason) } else { AcpFsError::parse_error(reason) };
            return Err(respond("null", Err(e)));
        }
    };
    // The id is echoed verbatim, and a raw value keeps escapes unchecked: a lone surrogate in
    // it would make our reply invalid JSON too. The only fault that leaves a request unanswerable.
    if members.id.is_some_and(|id| id.starts_with('"') && has_lone_surrogate(id)) {
        return Err(respond("null", Err(AcpFsError::parse_error("the id is not a valid JSON string"))));
    }
    let Some(method) = members.method else { return Ok(None) };
    match json_scan::string(method) {
        Some(name) => Ok(Some(Message {
            jsonrpc: members.jsonrpc,
            id: members.id,
            method: name,
            params: members.params,
            lone_surrogate: members.lone_surrogate,
        })),
        None if has_lone_surrogate(method) => Err(invalid(members.id, LONE_IN_MESSAGE)),
        None => Err(invalid(members.id, "the method must be a string")),
    }
}

const LONE_IN_MESSAGE: &str = "the message is not valid Unicode (a string escape with a lone surrogate)";

fn valid_id(raw: &str) -> bool {
    matches!(raw.as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')) || raw == "null"
}

impl<'a> Message<'a> {
    /// The id of a request (`None` for a notification), after checking the id's type and the
    /// `jsonrpc` version; `Err` is the -32600 reply.
    pub(crate) fn request_id(&self) -> Result<Option<&'a str>, String> {
        let Some(id) = self.id else { return Ok(None) };
        if !valid_id(id) {
            return Err(invalid(None, "the id must be a string, a number or null"));
        }
        if self.jsonrpc.and_then(json_scan::string).as_deref() != Some("2.0") {
            return Err(invalid(Some(id), "jsonrpc must be \"2.0\""));
        }
        if self.lone_surrogate {
            return Err(invalid(Some(id), LONE_IN_MESSAGE));
        }
        Ok(Some(id))
    }

    /// The params as a `Value` (see [`decode_params`]).
    #[cfg(feature = "mcp")]
    pub(crate) fn params(&self) -> Result<Option<Value>, AcpFsError> {
        self.params.map(decode_params).transpose()
    }
}

/// One member of params after the checks every member gets whether it is read or not.
pub(crate) struct Checked<'a> {
    pub name: String,
    /// The value's JSON text, as sent.
    pub raw: &'a str,
    /// The value when it is a JSON string: read here, since reading it is how a lone surrogate
    /// in it is found (the text is valid JSON, so a string that does not read has one), and a
    /// write's content is not gone over twice.
    pub string: Option<String>,
}

/// The members of params, each after the checks every member gets whether it is read or not;
/// `None` when params is not an object. `Err` is the `-32602` naming the top-level member at
/// fault (`params` itself when params is not an object), the first in order (semantics.md
/// §8.1):
/// - a string escape with a lone surrogate is refused: replacing it would write or read
///   something other than what was sent;
/// - nesting deeper than serde_json's limit is refused;
/// - a number beyond f64's range is no fault here: each field judges it as the too-large
///   number it is ([`json_text::number`]), and anywhere else it is not read.
///
/// `text` need not have been scanned before: it is checked to be JSON here, in the same pass
/// that cuts an object into its members.
pub(crate) fn checked_members(text: &str) -> Result<Option<Vec<Checked<'_>>>, Refusal> {
    let not_json = || Refusal::new("params", "is not valid JSON");
    if !json_scan::opens_object(text) {
        let value = json_scan::value(text).ok_or_else(not_json)?;
        return json_text::check_member(value).map(|()| None).map_err(|why| Refusal::new("params", why));
    }
    let members = json_scan::members(text).ok_or_else(not_json)?;
    let mut checked = Vec::with_capacity(members.len());
    for (key, raw) in members {
        let Some(name) = json_scan::string(key) else {
            return Err(Refusal::new(&json_text::repaired(key), LONE));
        };
        let string = if raw.starts_with('"') {
            Some(json_scan::string(raw).ok_or_else(|| Refusal::new(&name, LONE))?)
        } else {
            json_text::check_member(raw).map_err(|why| Refusal::new(&name, why))?;
            None
        };
        checked.push(Checked { name, raw, string });
    }
    Ok(Some(checked))
}

/// Params as a `Value` (the MCP tools read them so), from [`checked_members`]: a number beyond
/// f64's range, which a `Value` cannot hold, becomes the largest finite number of its sign.
#[cfg(feature = "mcp")]
pub(crate) fn decode_params(raw: &str) -> Result<Value, AcpFsError> {
    let value = |text: &str| json_text::value(&json_text::saturated(text));
    let Some(members) = checked_members(raw).map_err(AcpFsError::from)? else {
        return value(raw).map_err(|e| AcpFsError::invalid_params("params", format!("is not valid JSON: {e}")));
    };
    let mut object = serde_json::Map::new();
    for Checked { name, raw, string } in members {
        let member = match string {
            Some(string) => Value::String(string),
            None => value(raw).map_err(|e| AcpFsError::invalid_params(&name, format!("is not valid JSON: {e}")))?,
        };
        object.insert(name, member);
    }
    Ok(Value::Object(object))
}

fn invalid(id: Option<&str>, reason: &str) -> String {
    let id = id.filter(|i| valid_id(i)).unwrap_or("null");
    respond(id, Err(AcpFsError::invalid_request(reason)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryStorage, Options, Storage};
    use proptest::prelude::*;

    /// What `@acp-fs/wasm`'s two modules hand each other: params read from JSON text in the
    /// JSON-RPC module, crossing as JSON (a JavaScript value between them, its numbers `f64`s),
    /// read back in the fs/* module as the same members, or the same refusal.
    fn member() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            r#""s""#,
            r#""/p/a.txt""#,
            r#""\u00e9\n""#,
            r#""\ud800""#,
            "3",
            "3.0",
            "3e0",
            "-0",
            "-2",
            "0.5",
            "1e400",
            "-1e400",
            "18446744073709551616",
            "4294967296",
            "null",
            "true",
            "[1]",
            "{}",
            r#"{"traceparent":"t"}"#,
            r#"{"traceparent":1,"x":[]}"#,
            r#"{"traceparent":"a","traceparent":"b"}"#,
        ])
        .prop_map(str::to_owned)
    }

    proptest! {
        #[test]
        fn checked_params_cross_as_json_unchanged(members in prop::collection::vec((prop::sample::select(
            vec!["sessionId", "path", "line", "limit", "content", "_meta", "x"]), member()), 0..8), array in any::<bool>()) {
            let body = members.iter().map(|(n, v)| format!("\"{n}\":{v}")).collect::<Vec<_>>().join(",");
            let text = if array { format!("[{body}]") } else { format!("{{{body}}}") };
            let read = CheckedParams::of_text(Some(&text));
            // JSON text out of one module, a JavaScript value in between, JSON into the other.
            let crossed: Value = serde_json::from_str(&serde_json::to_string(&read.to_json()).unwrap()).unwrap();
            let back = CheckedParams::from_json(&crossed);
            prop_assert_eq!(&back.0, &read.0, "{}", text);
        }
    }

    /// Params text no scan went over before (`HostEngine::start_json`'s) is checked here, in one
    /// pass, whitespace around it allowed as anywhere in JSON.
    #[test]
    fn checked_members_checks_text_not_scanned_before() {
        let names = |text| checked_members(text).unwrap().map(|m| m.into_iter().map(|c| c.name).collect::<Vec<_>>());
        assert_eq!(names(" \n{\"a\": 1, \"b\": \"x\"} "), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(names(" 7 "), None);
        assert_eq!(names("null"), None);
        for bad in ["", " ", "{\"a\":", "{\"a\": 1} x", "[1,]", "nul", " {", "\"\\x\""] {
            let Err(e) = checked_members(bad) else { panic!("{bad:?} is not JSON") };
            let e = AcpFsError::from(e);
            assert_eq!((e.code, e.data["field"].as_str()), (-32602, Some("params")), "{bad:?}");
        }
    }

    fn reply(message: &str, options: Options) -> Value {
        let disk = MemoryStorage::new();
        disk.put("/p/a.txt", "one\ntwo\n");
        let fs = AcpFs::new(Options { roots: Some(vec!["/p".into()]), ..options }, disk.caps()).unwrap();
        let text = fs.handle(&disk, &crate::DefaultHost, message).expect("answered");
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    #[cfg(feature = "mcp")]
    fn a_reply_is_serde_jsons_compact_json_byte_for_byte_with_long_strings_escaped_once() {
        // Long strings with everything that escapes, twice as a tool answers them, beside short
        // ones, a different long one, numbers, nulls and nesting.
        let long = format!("{}\"quoted\" \\ tab\t cr\r nul\u{0} é 😀 \u{2028}\n", "line of text\n".repeat(400));
        let other = format!("{long}!");
        let short = "a \"b\"\n".to_owned();
        let value = serde_json::json!({
            "content": [{"type": "text", "text": long}, {"type": "text", "text": other}, {"type": "text", "text": long}],
            "structuredContent": {"content": long, "short": short, "again": short, "n": [1, -2.5, 1e300, null, true]},
            "isError": false,
            "": {"nested": [[long], {}, []]}
        });
        let want = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}}", serde_json::to_string(&value).unwrap());
        assert_eq!(respond_result("7", &value), want);
        // A reply that is only one long string, and one with none.
        for v in [Value::String(long.clone()), serde_json::json!({"k": "v"})] {
            assert_eq!(
                respond_result("\"id\"", &v),
                format!("{{\"jsonrpc\":\"2.0\",\"id\":\"id\",\"result\":{}}}", serde_json::to_string(&v).unwrap())
            );
        }
    }

    #[test]
    fn an_error_reply_is_the_contracts_error_object() {
        // semantics.md §6: a missing file's message and `{uri}`, escaped as JSON in the reply.
        assert_eq!(
            respond(r#""x""#, Err(AcpFsError::not_found("/p/\"q\".txt"))),
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32002,"message":"Resource not found: /p/\"q\".txt","data":{"uri":"/p/\"q\".txt"}}}"#
        );
        let reply: Value = serde_json::from_str(&respond("7", Err(AcpFsError::invalid_params("line", "no")))).unwrap();
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["error"]["data"], serde_json::json!({"field": "line", "reason": "no"}));
        // A cancellation has no data: the member is left out, not null.
        assert_eq!(
            respond("7", Err(AcpFsError::cancelled())),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"Request cancelled"}}"#
        );
        // `to_json_rpc` is the same object.
        for e in [AcpFsError::not_found("/p/a"), AcpFsError::cancelled()] {
            let want = serde_json::json!({"jsonrpc": "2.0", "id": 7, "error": e.to_json_rpc()});
            assert_eq!(respond("7", Err(e)), want.to_string());
        }
    }

    #[test]
    fn huge_line_is_invalid_params_with_the_id() {
        let r = reply(
            r#"{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt","line":1e400}}"#,
            Options::default(),
        );
        assert_eq!(r["id"], "x");
        assert_eq!(r["error"]["code"], -32602);
        assert_eq!(r["error"]["data"], serde_json::json!({"field": "line", "reason": "must be at most 4294967295"}));
        let r = reply(
            r#"{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt","line":-1e400}}"#,
            Options::default(),
        );
        assert_eq!(r["error"]["data"]["reason"], "must not be negative");
    }

    #[test]
    fn lone_surrogate_in_content_names_it() {
        let r = reply(
            r#"{"jsonrpc":"2.0","id":2,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/p/n.txt","content":"a\ud800"}}"#,
            Options::default(),
        );
        assert_eq!(r["id"], 2);
        assert_eq!(r["error"]["data"]["field"], "content");
        assert!(r["error"]["data"]["reason"].as_str().unwrap().contains("lone surrogate"), "{r}");
    }
}
