//! The JSON-RPC module of `@acp-fs/wasm`: raw JSON-RPC messages read, and their replies written,
//! for the fs/* module, and nothing else.
//!
//! The fs/* module a web page downloads reads no JSON text: a page that serves fs/* through the
//! typed calls (`readTextFile`, `writeTextFile`: the ACP SDK's client handlers, the editor
//! bindings) never needs it, and the reader and the writer were 15 KB of the gzipped module. A
//! raw message (`AcpFs.handle`, an MCP handler) is read here, the first time one comes: the
//! module says what it is, and for an fs call hands its id, method and checked params to the
//! fs/* module, which runs it; the call's outcome comes back here for its reply
//! (docs/design.md#the-json-rpc-module). Every rule is the engine's (core/src/dispatch.rs).
#![forbid(unsafe_code)]

use wasm_bindgen::prelude::*;

/// A string, or a `TypeError` (as the fs/* module's own calls answer a message that is none).
fn text(value: JsValue) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| js_sys::TypeError::new("expected a string").into())
}

/// `value` as JSON text, by serde_json's writer (not `Value`'s `Display`, which brings two more).
fn json(value: &serde_json::Value) -> String {
    serde_json::to_string(value).expect("a Value serializes")
}

/// What one raw message is, as JSON text ([`acp_fs::Parsed::to_json`]).
#[wasm_bindgen(js_name = parseMessage)]
pub fn parse_message(message: JsValue) -> Result<String, JsValue> {
    Ok(json(&acp_fs::parse_message(&text(message)?).to_json()))
}

/// Params sent as JSON text, read and checked, as JSON text ([`acp_fs::CheckedParams::to_json`]).
#[wasm_bindgen(js_name = checkParams)]
pub fn check_params(params: &str) -> String {
    json(&acp_fs::CheckedParams::of_text(Some(params)).to_json())
}

/// The reply to the call with raw id `id`, from its outcome as JSON text
/// ([`acp_fs::respond_json`]).
#[wasm_bindgen]
pub fn respond(id: &str, outcome: &str) -> String {
    // Not JSON is the driver's bug: answered as `respond_json` answers an outcome of no form.
    let outcome = serde_json::from_str(outcome).unwrap_or(serde_json::Value::Null);
    acp_fs::respond_json(id, &outcome)
}

/// What a module without the MCP tools makes of an MCP message for `sessionId`'s server, as
/// JSON text of the dispatch ([`acp_fs::host::mcp_not_built`]).
#[wasm_bindgen(js_name = refuseMcp)]
pub fn refuse_mcp(session_id: JsValue, message: JsValue) -> Result<String, JsValue> {
    text(session_id)?;
    let dispatch = acp_fs::host::mcp_not_built(&text(message)?);
    Ok(json(&serde_json::to_value(dispatch).expect("a dispatch serializes")))
}

// The modules' allocator (talc; without the fs/* module's free lists, which cost bytes).
use acp_fs_wasm_alloc as _;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_params_and_answers_as_the_engine() {
        // What the engine reads of them (semantics.md §8): the path as sent, line 2.
        let read: serde_json::Value = serde_json::from_str(&check_params(r#"{"path":"/a","line":2}"#)).unwrap();
        assert_eq!((read["params"]["path"].as_str(), read["params"]["line"].as_f64()), (Some("/a"), Some(2.0)));
        // Not JSON: -32602 naming `params` (semantics.md §8.1).
        let refused: serde_json::Value = serde_json::from_str(&check_params("{oops")).unwrap();
        assert_eq!(refused["refused"]["field"], "params");
        let reply = respond("3", r#"{"result":{"content":"x"},"change":null}"#);
        assert_eq!(reply, r#"{"jsonrpc":"2.0","id":3,"result":{"content":"x"}}"#);
    }
}
