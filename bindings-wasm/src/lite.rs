//! The agent's side in a module built without it (@acp-fs/wasm, fs/* only): the same exports,
//! so the shared JS runs unchanged, each throwing the core's error that names what is missing.

use acp_fs::AcpFsError;
use wasm_bindgen::prelude::*;

/// `false`: the error (in the outbox) is what the guard throws.
fn not_built(part: &str) -> Result<bool, JsValue> {
    super::put(&AcpFsError::not_built(part)).map(|()| false)
}

#[wasm_bindgen(js_name = clientFsCapabilities)]
pub fn client_fs_capabilities(_value: JsValue) -> Result<bool, JsValue> {
    not_built("clientFsCapabilities")
}

#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions(_caps: JsValue) -> Result<bool, JsValue> {
    not_built("toolDefinitions")
}

#[wasm_bindgen(js_name = checkToolArguments)]
pub fn check_tool_arguments(_tool: JsValue, _session_id: JsValue, _args: JsValue) -> Result<bool, JsValue> {
    not_built("checkToolArguments")
}

#[wasm_bindgen(js_name = buildRequest)]
pub fn build_request(_caps: JsValue, _tool: JsValue, _session_id: JsValue, _args: JsValue) -> Result<bool, JsValue> {
    not_built("buildRequest")
}

#[wasm_bindgen(js_name = toolResult)]
pub fn tool_result(_tool: JsValue, _args: JsValue, _answer: JsValue) -> Result<bool, JsValue> {
    not_built("toolResult")
}
