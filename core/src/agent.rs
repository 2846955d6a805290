//! The agent's side of fs/*: capability checks, tool definitions for the model, argument
//! validation with the client's own rules and messages, request builders that refuse what the
//! client did not advertise, and tool results from JSON-RPC answers.
//!
//! ```
//! use acp_fs::agent;
//! use serde_json::json;
//! let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
//!                   "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}}});
//! let caps = agent::client_fs_capabilities(&init);
//! assert!(caps.read_text_file && !caps.write_text_file);           // absent = false
//! assert_eq!(agent::tool_definitions(caps).len(), 1);              // only what the client serves
//! assert!(agent::build_request(caps, "write_text_file", "s", &json!({"path": "/p/a", "content": ""})).is_err());
//! let params = agent::build_request(caps, "read_text_file", "s", &json!({"path": "/p/a", "limit": 2})).unwrap();
//! assert_eq!(params, json!({"method": "fs/read_text_file", "params": {"sessionId": "s", "path": "/p/a", "limit": 2}}));
//! let r = agent::tool_result("read_text_file", &json!({"path": "/p/a"}),
//!     Err(&json!({"code": -32002, "message": "Resource not found: /p/a", "data": {"uri": "/p/a"}})));
//! assert_eq!(r["isError"], true);
//! assert_eq!(r["content"][0]["text"], "File not found: /p/a");
//! ```

use crate::error::{codes, AcpFsError};
use crate::params;
use crate::protocol::{FileSystemCapability, READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::window::Window;
use serde_json::{json, Map, Value};

/// The read tool's name, as fast-agent and the ACP v2 MCP surface call it.
pub const READ_TOOL: &str = "read_text_file";
/// The write tool's name, as fast-agent and the ACP v2 MCP surface call it.
pub const WRITE_TOOL: &str = "write_text_file";

/// `clientCapabilities.fs` from an `initialize` request, its params, or the
/// `clientCapabilities` object; anything absent or not `true` is `false` (the spec's MUST NOT).
pub fn client_fs_capabilities(value: &Value) -> FileSystemCapability {
    let caps = value.pointer("/params/clientCapabilities").or_else(|| value.get("clientCapabilities")).unwrap_or(value);
    let flag = |k: &str| caps.pointer(&format!("/fs/{k}")).and_then(Value::as_bool).unwrap_or(false);
    FileSystemCapability { read_text_file: flag("readTextFile"), write_text_file: flag("writeTextFile") }
}

/// The JSON Schema tool definitions for the capabilities the client advertised.
pub fn tool_definitions(caps: FileSystemCapability) -> Vec<Value> {
    tools(caps, "")
}

pub(crate) fn tools(caps: FileSystemCapability, where_: &str) -> Vec<Value> {
    let mut out = Vec::new();
    if caps.read_text_file {
        out.push(json!({
            "name": READ_TOOL,
            "description": format!("{READ_DESCRIPTION}{where_}"),
            "inputSchema": read_input_schema(),
        }));
    }
    if caps.write_text_file {
        out.push(json!({
            "name": WRITE_TOOL,
            "description": format!("{WRITE_DESCRIPTION}{where_}"),
            "inputSchema": write_input_schema(),
        }));
    }
    out
}

/// What the model reads about the read tool (the roots, if any, follow it).
pub(crate) const READ_DESCRIPTION: &str = "Read a text file through the editor, including unsaved changes. \
    Returns the exact text of the requested lines, line terminators included.";

/// What the model reads about the write tool (the roots, if any, follow it).
pub(crate) const WRITE_DESCRIPTION: &str =
    "Create or replace a text file through the editor. The editor may ask the user to approve the change.";

pub(crate) fn read_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Absolute path of the file."},
            "line": {"type": "integer", "minimum": 0, "maximum": 4294967295u64,
                     "description": "1-based line to start at (0 or absent: the first line)."},
            "limit": {"type": "integer", "minimum": 0, "maximum": 4294967295u64,
                      "description": "Maximum number of lines (absent: to the end)."}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

pub(crate) fn write_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Absolute path of the file."},
            "content": {"type": "string", "description": "The complete new text of the file."}
        },
        "required": ["path", "content"],
        "additionalProperties": false
    })
}

/// Checks a model's tool arguments with exactly the client's rules and messages, and returns
/// the `fs/*` method and params (with `sessionId`) to send.
pub fn check_tool_arguments(tool: &str, session_id: &str, args: &Value) -> Result<(&'static str, Value), AcpFsError> {
    let (method, allowed): (&'static str, &[&str]) = match tool {
        READ_TOOL => (READ_TEXT_FILE, &["path", "line", "limit"]),
        WRITE_TOOL => (WRITE_TEXT_FILE, &["path", "content"]),
        other => return Err(AcpFsError::invalid_params("name", format!("unknown tool {other:?}"))),
    };
    let obj = args.as_object().ok_or_else(|| AcpFsError::invalid_params("arguments", "must be an object"))?;
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(AcpFsError::invalid_params(extra, "unknown argument"));
    }
    let mut params: Map<String, Value> = obj.clone();
    params.insert("sessionId".into(), Value::String(session_id.to_owned()));
    let params = Value::Object(params);
    // The client-side validator is the one truth; a model gets the messages an agent would.
    match method {
        READ_TEXT_FILE => params::read((&params).into(), false).map(drop)?,
        _ => params::write((&params).into(), false).map(drop)?,
    }
    Ok((method, params))
}

/// A JSON-RPC call `{method, params}` for `tool`, refused when the client did not advertise
/// the capability (`-32601`, so it is never sent).
pub fn build_request(
    caps: FileSystemCapability,
    tool: &str,
    session_id: &str,
    args: &Value,
) -> Result<Value, AcpFsError> {
    // Capability first, as on the client side (semantics.md §8): an unadvertised method is
    // refused whatever its arguments.
    let (method, allowed) = match tool {
        READ_TOOL => (READ_TEXT_FILE, caps.read_text_file),
        WRITE_TOOL => (WRITE_TEXT_FILE, caps.write_text_file),
        other => return Err(AcpFsError::invalid_params("name", format!("unknown tool {other:?}"))),
    };
    if !allowed {
        return Err(AcpFsError::method_not_found(method));
    }
    let (method, params) = check_tool_arguments(tool, session_id, args)?;
    Ok(json!({"method": method, "params": params}))
}

/// A tool result `{content: [{type: "text", text}], isError}` from the client's answer:
/// `Ok(result)` (a write's `{}`, `null` or a missing result all mean success) or `Err(error)`
/// (the JSON-RPC error object). A read that ignored `limit` is cut to the window and says so.
pub fn tool_result(tool: &str, args: &Value, answer: Result<Option<&Value>, &Value>) -> Value {
    let path = args.get("path").and_then(Value::as_str).unwrap_or("the file");
    match answer {
        Ok(result) if tool == READ_TOOL => {
            let Some(content) = result.and_then(|r| r.get("content")).and_then(Value::as_str) else {
                return text_result(vec![format!("The client answered without content for {path}.")], true);
            };
            let limit = args.get("limit").and_then(Value::as_u64);
            match limit.map(|l| (l, Window::slice(content, 1, Some(l)))) {
                Some((l, Ok(kept))) if kept.len() < content.len() => {
                    let first = args.get("line").and_then(Value::as_u64).unwrap_or(1).max(1);
                    text_result(
                        vec![
                            kept.to_owned(),
                            match l {
                                1 => format!("[The client returned more than the 1 line asked for; showing line {first} only.]"),
                                _ => format!(
                                    "[The client returned more than the {l} lines asked for; showing lines {first}-{} only.]",
                                    first + l - 1
                                ),
                            },
                        ],
                        false,
                    )
                }
                _ => text_result(vec![content.to_owned()], false),
            }
        }
        Ok(_) if tool != WRITE_TOOL => text_result(vec![format!("Unknown tool {tool:?}.")], true),
        Ok(_) => {
            let bytes = args.get("content").and_then(Value::as_str).map_or(0, str::len);
            text_result(vec![format!("Wrote {path} ({bytes} bytes).")], false)
        }
        Err(error) => text_result(vec![error_text(path, error)], true),
    }
}

pub(crate) fn error_text(path: &str, error: &Value) -> String {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(codes::INTERNAL_ERROR);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("unknown error");
    let data = error.get("data");
    if code == codes::RESOURCE_NOT_FOUND {
        let uri = data.and_then(|d| d.get("uri")).and_then(Value::as_str).unwrap_or(path);
        return format!("File not found: {uri}");
    }
    let hint = data.and_then(|d| d.get("hint").or_else(|| d.get("reason"))).and_then(Value::as_str);
    let kind = data.and_then(|d| d.get("errorKind").or_else(|| d.get("field"))).and_then(Value::as_str);
    match (kind, hint) {
        (Some(k), Some(h)) if !message.contains(h) => format!("{message} ({k}: {h})"),
        (Some(k), _) => format!("{message} ({k})"),
        _ => format!("{message} (JSON-RPC error {code})"),
    }
}

fn text_result(texts: Vec<String>, is_error: bool) -> Value {
    let content: Vec<Value> = texts.into_iter().map(|t| json!({"type": "text", "text": t})).collect();
    json!({"content": content, "isError": is_error})
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: FileSystemCapability = FileSystemCapability { read_text_file: true, write_text_file: true };

    #[test]
    fn arguments_use_the_client_rules() {
        let e = check_tool_arguments(READ_TOOL, "s", &json!({"path": "rel.txt"})).unwrap_err();
        assert_eq!((e.code, e.data["field"].as_str()), (-32602, Some("path")));
        let e = check_tool_arguments(READ_TOOL, "s", &json!({"path": "/a", "limit": -1})).unwrap_err();
        assert_eq!(e.data["field"], "limit");
        let e = check_tool_arguments(WRITE_TOOL, "s", &json!({"path": "/a"})).unwrap_err();
        assert_eq!(e.data["field"], "content");
        let e = check_tool_arguments(READ_TOOL, "s", &json!({"path": "/a", "offset": 3})).unwrap_err();
        assert_eq!((e.data["field"].as_str(), e.data["reason"].as_str()), (Some("offset"), Some("unknown argument")));
        assert!(check_tool_arguments("delete_file", "s", &json!({})).is_err());
    }

    #[test]
    fn results_from_every_answer_shape() {
        let w = json!({"path": "/p/a", "content": "abc"});
        for ok in [Some(&json!({})), Some(&Value::Null), None] {
            let r = tool_result(WRITE_TOOL, &w, Ok(ok));
            assert_eq!(
                (r["isError"].as_bool(), r["content"][0]["text"].as_str()),
                (Some(false), Some("Wrote /p/a (3 bytes)."))
            );
        }
        let args = json!({"path": "/p/a", "line": 3, "limit": 2});
        let r = tool_result(READ_TOOL, &args, Ok(Some(&json!({"content": "c\nd\ne\nf\n"}))));
        assert_eq!(r["content"][0]["text"], "c\nd\n");
        assert!(r["content"][1]["text"].as_str().unwrap().contains("showing lines 3-4"));
        let exact = tool_result(READ_TOOL, &args, Ok(Some(&json!({"content": "c\nd\n"}))));
        assert_eq!(exact["content"].as_array().unwrap().len(), 1);
        let denied = json!({"code": -32603, "message": "path outside roots: /x",
                            "data": {"errorKind": "path_outside_roots", "path": "/x", "hint": "outside"}});
        let r = tool_result(READ_TOOL, &args, Err(&denied));
        assert_eq!(r["isError"], true);
        assert!(r["content"][0]["text"].as_str().unwrap().contains("path_outside_roots"));
    }

    #[test]
    fn capabilities_and_builders() {
        assert_eq!(client_fs_capabilities(&json!({})), FileSystemCapability::default());
        let c = client_fs_capabilities(&json!({"fs": {"readTextFile": true, "writeTextFile": "yes"}}));
        assert!(c.read_text_file && !c.write_text_file, "only a real true counts");
        assert_eq!(tool_definitions(BOTH).len(), 2);
        let e = build_request(FileSystemCapability::default(), READ_TOOL, "s", &json!({"path": "/a"})).unwrap_err();
        assert_eq!(e.code, -32601);
        let e = build_request(FileSystemCapability::default(), WRITE_TOOL, "s", &json!({"path": "rel"})).unwrap_err();
        assert_eq!(e.code, -32601, "the capability is checked before the arguments");
        let unknown = tool_result("rm", &json!({}), Ok(Some(&json!({}))));
        assert_eq!(unknown["isError"], true);
        let one = tool_result(
            READ_TOOL,
            &json!({"path": "/a", "line": 4, "limit": 1}),
            Ok(Some(&json!({"content": "d\ne\n"}))),
        );
        assert!(one["content"][1]["text"].as_str().unwrap().contains("the 1 line asked for; showing line 4 only"));
    }
}
