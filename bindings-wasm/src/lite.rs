//! The agent's side in a module built without it (@acp-fs/wasm, fs/* only): the same exports,
//! so the shared JS runs unchanged, each throwing the core's error that names what is missing.

use acp_fs::AcpFsError;
use wasm_bindgen::prelude::*;

fn not_built(part: &str) -> Result<JsValue, JsValue> {
    Err(super::js(&AcpFsError::not_built(part))?)
}

#[wasm_bindgen(js_name = clientFsCapabilities, unchecked_return_type = "FileSystemCapability")]
pub fn client_fs_capabilities(_value: JsValue) -> Result<JsValue, JsValue> {
    not_built("clientFsCapabilities")
}

#[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "JsonValue[]")]
pub fn tool_definitions(_caps: JsValue) -> Result<JsValue, JsValue> {
    not_built("toolDefinitions")
}

#[wasm_bindgen(js_name = checkToolArguments, unchecked_return_type = "HostRequest")]
pub fn check_tool_arguments(_tool: JsValue, _session_id: JsValue, _args: JsValue) -> Result<JsValue, JsValue> {
    not_built("checkToolArguments")
}

#[wasm_bindgen(js_name = buildRequest, unchecked_return_type = "HostRequest")]
pub fn build_request(_caps: JsValue, _tool: JsValue, _session_id: JsValue, _args: JsValue) -> Result<JsValue, JsValue> {
    not_built("buildRequest")
}

#[wasm_bindgen(js_name = toolResult, unchecked_return_type = "JsonValue")]
pub fn tool_result(_tool: JsValue, _args: JsValue, _answer: JsValue) -> Result<JsValue, JsValue> {
    not_built("toolResult")
}
