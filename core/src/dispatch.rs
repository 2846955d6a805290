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
    #[serde(default)]
    method: Option<Value>,
    #[serde(default)]
    params: Option<Value>,
}

/// Keeps `"id": null` apart from a missing id (a notification).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
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
        let envelope: Envelope = match serde_json::from_str(message) {
            Ok(e) => e,
            Err(_) => {
                let (error, reason) = match serde_json::from_str::<&RawValue>(message) {
                    Ok(raw) if raw.get().starts_with('[') => (true, "batches are not supported"),
                    Ok(_) => (true, "a request must be a JSON object"),
                    Err(_) => (false, "the message is not valid JSON"),
                };
                let e = if error { AcpFsError::invalid_request(reason) } else { AcpFsError::parse_error(reason) };
                return Dispatch::Reply(respond("null", Err(e)));
            }
        };
        let method = match &envelope.method {
            None => return Dispatch::NotMine,
            Some(Value::String(m)) => m.as_str(),
            Some(_) => return reply(envelope.id, "the method must be a string"),
        };
        if method == "$/cancel_request" {
            return match envelope.params.as_ref().and_then(|p| p.get("requestId")) {
                Some(id) => Dispatch::Cancel(id.to_string()),
                None => Dispatch::NotMine,
            };
        }
        let method = match method {
            READ_TEXT_FILE => READ_TEXT_FILE,
            WRITE_TEXT_FILE => WRITE_TEXT_FILE,
            _ => return Dispatch::NotMine,
        };
        let Some(id) = envelope.id else {
            // A notification gets no answer, so running it would hide every outcome.
            return Dispatch::NotMine;
        };
        if !valid_id(id.get()) {
            return reply(None, "the id must be a string, a number or null");
        }
        if envelope.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
            return reply(Some(id), "jsonrpc must be \"2.0\"");
        }
        let params = envelope.params.unwrap_or(Value::Null);
        let Some(operation) = self.request(method, params) else {
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

fn reply(id: Option<&RawValue>, reason: &str) -> Dispatch {
    let id = id.filter(|i| valid_id(i.get())).map_or("null", |i| i.get());
    Dispatch::Reply(respond(id, Err(AcpFsError::invalid_request(reason))))
}

fn valid_id(raw: &str) -> bool {
    matches!(raw.as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')) || raw == "null"
}
