//! ACP v1 wire types for the client file-system methods (semantics.md §1).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `fs/read_text_file`
pub const READ_TEXT_FILE: &str = "fs/read_text_file";
/// `fs/write_text_file`
pub const WRITE_TEXT_FILE: &str = "fs/write_text_file";
/// The ACP protocol version these methods belong to (v2 drops them).
pub const PROTOCOL_VERSION: u16 = 1;

/// `fs/read_text_file` params (ACP v1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReadTextFileRequest {
    /// The session whose roots the path must lie in.
    pub session_id: String,
    /// The file's absolute path.
    pub path: String,
    /// 1-based start line; absent, `null` or `0` means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub line: Option<u32>,
    /// Number of lines; absent or `null` means to the end, `0` gives `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub limit: Option<u32>,
    /// ACP's extension point (`traceparent` goes into the audit event).
    // TypeScript: any object, as the official SDK types it, so its requests pass as they are.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable, type = "{ [key: string]: unknown } | null"))]
    pub meta: Option<Map<String, Value>>,
}

/// Result of `fs/read_text_file`: the `content` of the lines asked for, terminators included
/// (an exact substring of the file's text), and ACP's `_meta` extension point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct ReadTextFileResponse {
    pub content: String,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "{ [key in string]?: JsonValue }"))]
    pub meta: Option<Map<String, Value>>,
}

/// `fs/write_text_file` params (ACP v1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WriteTextFileRequest {
    /// The session whose roots the path must lie in.
    pub session_id: String,
    /// The file's absolute path.
    pub path: String,
    /// The complete new text of the file.
    pub content: String,
    /// ACP's extension point (`traceparent` goes into the audit event).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable, type = "{ [key: string]: unknown } | null"))]
    pub meta: Option<Map<String, Value>>,
}

/// Result of `fs/write_text_file`: serializes as `{}`, never `null` (strict agents reject
/// `null`); `_meta` is ACP's extension point.
///
/// ```
/// let r = acp_fs::WriteTextFileResponse::default();
/// assert_eq!(serde_json::to_string(&r).unwrap(), "{}");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct WriteTextFileResponse {
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "{ [key in string]?: JsonValue }"))]
    pub meta: Option<Map<String, Value>>,
}

/// `clientCapabilities.fs` for the client's `initialize` request: whether the client serves
/// `fs/read_text_file` (`readTextFile`) and `fs/write_text_file` (`writeTextFile`). A missing
/// field is `false`, as the spec says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct FileSystemCapability {
    pub read_text_file: bool,
    pub write_text_file: bool,
}

/// A successful answer of either method.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Response {
    /// `fs/read_text_file`'s result.
    Read(ReadTextFileResponse),
    /// `fs/write_text_file`'s result.
    Write(WriteTextFileResponse),
    /// An MCP tool's result (`{content, structuredContent?, isError}`), as the tool shaped it.
    Tool(Value),
}

impl Response {
    /// The JSON-RPC `result` member: what `serde_json::to_value` makes of it, built by hand
    /// (serde_json's value serializer for these types was about 0.5 KB of the gzipped fs/* wasm
    /// module).
    pub fn to_json(&self) -> Value {
        let (content, meta) = match self {
            Response::Read(r) => (Some(&r.content), &r.meta),
            Response::Write(w) => (None, &w.meta),
            Response::Tool(value) => return value.clone(),
        };
        let mut m = Map::new();
        if let Some(content) = content {
            m.insert("content".into(), Value::String(content.clone()));
        }
        if let Some(meta) = meta {
            m.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_json_is_the_serde_form() {
        let meta = json!({"trace": "t", "n": [1, 2.5, null]}).as_object().cloned();
        let read =
            |meta: Option<Map<String, Value>>| Response::Read(ReadTextFileResponse { content: "é\n".into(), meta });
        let write = |meta| Response::Write(WriteTextFileResponse { meta });
        let tool = Response::Tool(json!({"content": [{"type": "text", "text": "x"}], "isError": false}));
        for response in [read(None), read(meta.clone()), write(None), write(meta), tool] {
            let text = |v: &Value| serde_json::to_string(v).unwrap();
            // Compared as text: the members' order is part of what a reply says.
            assert_eq!(text(&response.to_json()), text(&serde_json::to_value(&response).unwrap()), "{response:?}");
        }
    }
}
