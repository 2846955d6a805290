//! Tool results: the text a model reads, the `structuredContent` a client checks against the
//! tool's `outputSchema`, and errors as `isError` results (MCP: a tool error is a result the
//! model can read and correct itself by; only an unknown tool is a protocol error).

use crate::agent;
use crate::error::AcpFsError;
use crate::operation::Done;
use crate::protocol::Response;
use serde_json::{json, Value};

/// A successful result: one text block, and `structured` as `structuredContent`.
pub(crate) fn text(text: String, structured: Value) -> Value {
    json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": false})
}

/// A successful result whose structured form is `{content: text}` (the reference server's
/// shape for every text-answering tool).
pub(crate) fn plain(text: String) -> Value {
    let structured = json!({"content": text});
    self::text(text, structured)
}

/// A tool's result as an operation's [`Done`]; `bytes` (of text returned) goes into the audit
/// event.
pub(crate) fn done(result: Value, bytes: u64) -> Done {
    Done { response: Response::Tool(result), change: None, bytes, stale: None }
}

/// The `isError` result for `error`: its message with its kind (or the argument it names), so
/// the model can tell a typo from a denial.
pub(crate) fn error(args: &Value, error: &AcpFsError) -> Value {
    let path = args.get("path").and_then(Value::as_str).unwrap_or("the file");
    json!({"content": [{"type": "text", "text": agent::error_text(path, &error.to_json_rpc())}], "isError": true})
}

/// The `outputSchema` of a tool whose structured result is `{content: string}`.
pub(crate) fn content_schema() -> Value {
    json!({"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]})
}
