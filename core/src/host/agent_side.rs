//! The agent's side of fs/* for drivers (see [`crate::agent`]): values in, typed values out.

use crate::agent;
use crate::error::AcpFsError;
use crate::protocol::{FileSystemCapability, READ_TEXT_FILE, WRITE_TEXT_FILE};
use serde::Serialize;
use serde_json::Value;

/// A request to send, or why not.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum HostRequest {
    Request {
        #[cfg_attr(feature = "ts", ts(type = "'fs/read_text_file' | 'fs/write_text_file'"))]
        method: &'static str,
        #[cfg_attr(feature = "ts", ts(type = "{ sessionId: string; path: string; [k: string]: unknown }"))]
        params: Value,
    },
    Error {
        error: AcpFsError,
    },
}

/// `clientCapabilities.fs` from an `initialize` request, its params, or the capabilities.
pub fn client_fs_capabilities(value: &Value) -> FileSystemCapability {
    agent::client_fs_capabilities(value)
}

/// `{readTextFile, writeTextFile}` read by the core's own rule (only a real `true` counts).
fn caps(caps: &Value) -> FileSystemCapability {
    agent::client_fs_capabilities(&serde_json::json!({ "fs": caps }))
}

/// The tool definitions for what `caps` allow.
pub fn tool_definitions(caps_value: &Value) -> Vec<Value> {
    agent::tool_definitions(caps(caps_value))
}

/// A model's tool arguments checked with the client's rules.
pub fn check_tool_arguments(tool: &str, session_id: &str, args: &Value) -> HostRequest {
    match agent::check_tool_arguments(tool, session_id, args) {
        Ok((method, params)) => HostRequest::Request { method, params },
        Err(error) => HostRequest::Error { error },
    }
}

/// As [`check_tool_arguments`], refused (`-32601`) when `caps` lack the tool's method.
pub fn build_request(caps_value: &Value, tool: &str, session_id: &str, args: &Value) -> HostRequest {
    match agent::build_request(caps(caps_value), tool, session_id, args) {
        Ok(request) => {
            let method = match request.get("method").and_then(Value::as_str) {
                Some(WRITE_TEXT_FILE) => WRITE_TEXT_FILE,
                _ => READ_TEXT_FILE,
            };
            HostRequest::Request { method, params: request.get("params").cloned().unwrap_or(Value::Null) }
        }
        Err(error) => HostRequest::Error { error },
    }
}

/// The tool result for the client's answer `{result}` or `{error}`.
pub fn tool_result(tool: &str, args: &Value, answer: &Value) -> Value {
    match answer.get("error").filter(|e| !e.is_null()) {
        Some(error) => agent::tool_result(tool, args, Err(error)),
        None => agent::tool_result(tool, args, Ok(answer.get("result"))),
    }
}
