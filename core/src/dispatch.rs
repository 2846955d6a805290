//! The raw JSON-RPC entry: fs methods answered, everything else handed back to the host.

use crate::engine::AcpFs;
use crate::error::AcpFsError;
use crate::operation::{Operation, Outcome};
use crate::protocol::{READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::storage::{Host, Storage};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// What to do with one incoming message.
#[derive(Debug)]
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
pub struct Call {
    id: Box<RawValue>,
    pub method: &'static str,
    pub operation: Operation,
}

impl Call {
    /// The request id as raw JSON text (`7`, `"abc"`).
    pub fn id(&self) -> &str {
        self.id.get()
    }

    /// The JSON-RPC response for the finished request.
    pub fn respond(&self, outcome: &Outcome) -> String {
        respond(self.id.get(), outcome.result.as_ref().map(|r| r.to_json()).map_err(Clone::clone))
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    jsonrpc: Option<Value>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present_value")]
    method: Option<Value>,
    #[serde(default)]
    params: Option<Value>,
}

/// Keeps `"id": null` apart from a missing id (a notification).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Keeps `"method": null` (malformed) apart from no method (a response).
fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Builds a JSON-RPC response around a raw id.
pub fn respond(id: &str, result: Result<Value, AcpFsError>) -> String {
    let body = match result {
        Ok(value) => format!("\"result\":{value}"),
        Err(e) => format!("\"error\":{}", e.to_json_rpc()),
    };
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},{body}}}")
}

impl AcpFs {
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
        let msg = match parse(message) {
            Ok(Some(msg)) => msg,
            Ok(None) => return Dispatch::NotMine,
            Err(reply) => return Dispatch::Reply(reply),
        };
        if msg.method == "$/cancel_request" {
            return match msg.params.as_ref().and_then(|p| p.get("requestId")) {
                Some(id) => Dispatch::Cancel(id.to_string()),
                None => Dispatch::NotMine,
            };
        }
        let method = match msg.method.as_str() {
            READ_TEXT_FILE => READ_TEXT_FILE,
            WRITE_TEXT_FILE => WRITE_TEXT_FILE,
            _ => return Dispatch::NotMine,
        };
        let id = match msg.request_id() {
            Ok(Some(id)) => id,
            // A notification gets no answer, so running it would hide every outcome.
            Ok(None) => return Dispatch::NotMine,
            Err(reply) => return Dispatch::Reply(reply),
        };
        let Some(operation) = self.request(method, msg.params.unwrap_or(Value::Null)) else {
            return Dispatch::NotMine;
        };
        Dispatch::Call(Call { id: id.to_owned(), method, operation })
    }

    /// Answers one raw message synchronously over `storage`: `None` when it is not ours.
    pub fn handle(&self, storage: &impl Storage, host: &impl Host, message: &str) -> Option<String> {
        match self.dispatch(message) {
            Dispatch::NotMine | Dispatch::Cancel(_) => None,
            Dispatch::Reply(r) => Some(r),
            Dispatch::Call(call) => {
                let Call { id, operation, .. } = call;
                let outcome = crate::run(operation, storage, host);
                Some(respond(id.get(), outcome.result.map(|r| r.to_json())))
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
pub fn not_served(message: &str) -> Option<String> {
    let msg = match parse(message) {
        Ok(Some(msg)) => msg,
        Ok(None) => return None,
        Err(reply) => return Some(reply),
    };
    match msg.request_id() {
        Ok(Some(id)) => Some(respond(id.get(), Err(AcpFsError::method_not_found(&msg.method)))),
        Ok(None) => None,
        Err(reply) => Some(reply),
    }
}

/// A JSON-RPC message with a string method.
pub(crate) struct Message<'a> {
    jsonrpc: Option<Value>,
    id: Option<&'a RawValue>,
    pub method: String,
    pub params: Option<Value>,
}

/// Parses one message: `Ok(None)` for a message without a method (a response), `Err(reply)`
/// for one that must be answered at once (-32700 / -32600).
pub(crate) fn parse(message: &str) -> Result<Option<Message<'_>>, String> {
    // serde would also read a JSON array as a struct (by position), so only objects get in.
    // An object that fails to parse is not valid JSON (the envelope accepts any member
    // values), e.g. a string with a lone surrogate escape.
    let object = message.trim_start().starts_with('{');
    let parsed = if object { serde_json::from_str::<Envelope>(message).ok() } else { None };
    let envelope = match parsed {
        Some(e) => e,
        None if object => return Err(respond("null", Err(AcpFsError::parse_error("the message is not valid JSON")))),
        None => {
            let (error, reason) = match serde_json::from_str::<&RawValue>(message) {
                Ok(raw) if raw.get().starts_with('[') => (true, "batches are not supported"),
                Ok(_) => (true, "a request must be a JSON object"),
                Err(_) => (false, "the message is not valid JSON"),
            };
            let e = if error { AcpFsError::invalid_request(reason) } else { AcpFsError::parse_error(reason) };
            return Err(respond("null", Err(e)));
        }
    };
    // The id is echoed verbatim, and a raw value keeps escapes unchecked: a lone surrogate in
    // it would make our reply invalid JSON too.
    if envelope.id.is_some_and(|id| id.get().starts_with('"') && serde_json::from_str::<String>(id.get()).is_err()) {
        return Err(respond("null", Err(AcpFsError::parse_error("the id is not a valid JSON string"))));
    }
    match envelope.method {
        None => Ok(None),
        Some(Value::String(method)) => {
            Ok(Some(Message { jsonrpc: envelope.jsonrpc, id: envelope.id, method, params: envelope.params }))
        }
        Some(_) => Err(invalid(envelope.id, "the method must be a string")),
    }
}

fn valid_id(raw: &str) -> bool {
    matches!(raw.as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')) || raw == "null"
}

impl<'a> Message<'a> {
    /// The id of a request (`None` for a notification), after checking the id's type and the
    /// `jsonrpc` version; `Err` is the -32600 reply.
    pub(crate) fn request_id(&self) -> Result<Option<&'a RawValue>, String> {
        let Some(id) = self.id else { return Ok(None) };
        if !valid_id(id.get()) {
            return Err(invalid(None, "the id must be a string, a number or null"));
        }
        if self.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
            return Err(invalid(Some(id), "jsonrpc must be \"2.0\""));
        }
        Ok(Some(id))
    }
}

fn invalid(id: Option<&RawValue>, reason: &str) -> String {
    let id = id.filter(|i| valid_id(i.get())).map_or("null", |i| i.get());
    respond(id, Err(AcpFsError::invalid_request(reason)))
}
