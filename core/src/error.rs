//! The one error type of acp-fs and its JSON-RPC mapping (semantics.md §6).

use serde::Serialize;
use serde_json::{json, Value};
use std::fmt;

/// JSON-RPC codes acp-fs answers with. ACP has no "forbidden" code and reserves
/// -32000..-32099, so policy denials are `INTERNAL_ERROR` plus an [`ErrorKind`] in `data`.
pub mod codes {
    /// The message is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC request (no `jsonrpc: "2.0"`, a bad id or method).
    pub const INVALID_REQUEST: i64 = -32600;
    /// A method that is not served: unknown, or its capability is off (`readOnly`).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// A param is missing or wrong; `data.field` names it.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Policy denials, storage failures and broken promises; `data.errorKind` says which.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP's "resource not found": the file does not exist (`data.uri`).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// The request was cancelled before it changed anything.
    pub const REQUEST_CANCELLED: i64 = -32800;
}

/// What went wrong, as a stable machine-readable kind (`code` on the JS `AcpFsError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The message is not JSON (`-32700`).
    ParseError,
    /// The message is JSON but not a valid JSON-RPC request (`-32600`).
    InvalidRequest,
    /// The method is not served: unknown, or switched off by `readOnly` (`-32601`).
    MethodNotFound,
    /// A param is missing, of the wrong type or out of range; `data.field` names it (`-32602`).
    InvalidParams,
    /// The file does not exist (`-32002`, as ACP's TypeScript SDK answers it).
    NotFound,
    /// The path lies outside every root of the session.
    PathOutsideRoots,
    /// A symlink on the way leads outside the roots, or something moved after the check.
    SymlinkEscape,
    /// A deny rule or the extension allow list refuses the path.
    DeniedByPattern,
    /// The path is not a regular file (a directory, a FIFO, a device), or lies below one.
    NotAFile,
    /// The file has more than one hard link and `refuseHardlinks` is on.
    HardLink,
    /// The file holds a NUL byte (or is UTF-16 without a BOM): it is not text.
    BinaryFile,
    /// The file is not valid text in its encoding (UTF-8, or UTF-16 after a BOM).
    NotUtf8,
    /// The file or the content is over `maxReadBytes` / `maxWriteBytes`.
    FileTooLarge,
    /// The storage refused access.
    PermissionDenied,
    /// The host (a person) did not approve the write.
    UserRejected,
    /// The file changed since the agent read it and the edits cannot be merged.
    StaleWrite,
    /// Something is already where a move or a new directory would go: nothing is replaced.
    AlreadyExists,
    /// The request was cancelled before it changed anything (`-32800`).
    Cancelled,
    /// The storage failed in a way no other kind describes.
    StorageError,
    /// A broken promise inside acp-fs or its driver, never the caller's fault.
    Internal,
}

impl ErrorKind {
    /// Every kind, in table order.
    pub const ALL: [ErrorKind; 20] = [
        ErrorKind::ParseError,
        ErrorKind::InvalidRequest,
        ErrorKind::MethodNotFound,
        ErrorKind::InvalidParams,
        ErrorKind::NotFound,
        ErrorKind::PathOutsideRoots,
        ErrorKind::SymlinkEscape,
        ErrorKind::DeniedByPattern,
        ErrorKind::NotAFile,
        ErrorKind::HardLink,
        ErrorKind::BinaryFile,
        ErrorKind::NotUtf8,
        ErrorKind::FileTooLarge,
        ErrorKind::PermissionDenied,
        ErrorKind::UserRejected,
        ErrorKind::StaleWrite,
        ErrorKind::AlreadyExists,
        ErrorKind::Cancelled,
        ErrorKind::StorageError,
        ErrorKind::Internal,
    ];

    /// The kind with this name (`errorKind` in an error's data).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Its name in an error's data (`errorKind`), e.g. `"path_outside_roots"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::ParseError => "parse_error",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::MethodNotFound => "method_not_found",
            ErrorKind::InvalidParams => "invalid_params",
            ErrorKind::NotFound => "not_found",
            ErrorKind::PathOutsideRoots => "path_outside_roots",
            ErrorKind::SymlinkEscape => "symlink_escape",
            ErrorKind::DeniedByPattern => "denied_by_pattern",
            ErrorKind::NotAFile => "not_a_file",
            ErrorKind::HardLink => "hard_link",
            ErrorKind::BinaryFile => "binary_file",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::FileTooLarge => "file_too_large",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::UserRejected => "user_rejected",
            ErrorKind::StaleWrite => "stale_write",
            ErrorKind::AlreadyExists => "already_exists",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::StorageError => "storage_error",
            ErrorKind::Internal => "internal",
        }
    }

    /// The JSON-RPC code this kind is answered with (before `zedCompat` adjustments).
    pub fn json_rpc_code(self) -> i64 {
        match self {
            ErrorKind::ParseError => codes::PARSE_ERROR,
            ErrorKind::InvalidRequest => codes::INVALID_REQUEST,
            ErrorKind::MethodNotFound => codes::METHOD_NOT_FOUND,
            ErrorKind::InvalidParams => codes::INVALID_PARAMS,
            ErrorKind::NotFound => codes::RESOURCE_NOT_FOUND,
            ErrorKind::Cancelled => codes::REQUEST_CANCELLED,
            _ => codes::INTERNAL_ERROR,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as it will be answered: kind, JSON-RPC code, message and data.
///
/// ```
/// use acp_fs::{AcpFsError, ErrorKind};
/// let e = AcpFsError::not_found("/project/missing.txt");
/// assert_eq!(e.kind, ErrorKind::NotFound);
/// assert_eq!(e.code, -32002);
/// assert_eq!(e.message, "Resource not found: /project/missing.txt");
/// assert_eq!(e.to_json_rpc()["data"]["uri"], "/project/missing.txt");
/// ```
///
/// Its serde form is what JS drivers see: `{kind, code, message, data}`: the [`ErrorKind`], the
/// JSON-RPC code it is answered with, the message, and the `data` member (`null` when none).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct AcpFsError {
    pub kind: ErrorKind,
    pub code: i64,
    pub message: String,
    #[cfg_attr(feature = "ts", ts(type = "JsonValue"))]
    pub data: Value,
}

impl AcpFsError {
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn new(kind: ErrorKind, message: impl Into<String>, data: Value) -> Self {
        AcpFsError { kind, code: kind.json_rpc_code(), message: message.into(), data }
    }

    /// `-32602` naming the offending field.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn invalid_params(field: &str, reason: impl Into<String>) -> Self {
        Self::invalid_params_because(field, reason.into())
    }

    // The generic constructors convert and call one body each: inlined per argument type, the
    // message and data building was copied into every caller's code (the fs/* wasm module).
    #[inline(never)]
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn invalid_params_because(field: &str, reason: String) -> Self {
        Self::new(
            ErrorKind::InvalidParams,
            format!("Invalid params: {field}: {reason}"),
            json!({ "field": field, "reason": reason }),
        )
    }

    /// `-32602` for a start line past the end (Zed's wording, so agents written against Zed
    /// recognise it).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn past_end(line: u64, line_count: u64) -> Self {
        Self::new(
            ErrorKind::InvalidParams,
            format!("Attempting to read beyond the end of the file, line {line}"),
            json!({ "line": line, "lineCount": line_count }),
        )
    }

    /// `-32002` exactly as the TypeScript SDK's `RequestError.resourceNotFound(uri)`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn not_found(path: &str) -> Self {
        Self::new(ErrorKind::NotFound, format!("Resource not found: {path}"), json!({ "uri": path }))
    }

    /// A policy denial: `-32603` with `{errorKind, path, hint}`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn denied(kind: ErrorKind, path: &str, hint: impl Into<String>) -> Self {
        Self::denied_because(kind, path, hint.into())
    }

    #[inline(never)]
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn denied_because(kind: ErrorKind, path: &str, hint: String) -> Self {
        Self::new(
            kind,
            format!("{}: {path}: {hint}", kind.as_str().replace('_', " ")),
            json!({ "errorKind": kind.as_str(), "path": path, "hint": hint }),
        )
    }

    /// `-32601` for a method that is not served (unknown, or its capability is off).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorKind::MethodNotFound, format!("Method not found: {method}"), json!({ "method": method }))
    }

    /// `-32601` for a part this build of the engine left out (cargo feature `mcp`: the MCP tools
    /// and the agent's side), naming it and where it is built in. `@acp-fs/wasm`'s default module
    /// is built without it, so a web page that serves `fs/*` alone does not download it.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn not_built(part: &str) -> Self {
        Self::new(
            ErrorKind::MethodNotFound,
            format!(
                "Method not found: {part}: not in this build of the engine, which serves fs/* only (cargo feature \
                 `mcp`; in JavaScript import @acp-fs/wasm/full, or use @acp-fs/node)"
            ),
            json!({ "method": part, "feature": "mcp", "module": "@acp-fs/wasm/full" }),
        )
    }

    /// `-32800`: the request was cancelled before it completed.
    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "Request cancelled", Value::Null)
    }

    /// `-32603` `storage_error`: the host's storage failed in a way no other kind describes.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn storage(path: &str, message: &str) -> Self {
        Self::new(
            ErrorKind::StorageError,
            format!("Storage error: {path}: {message}"),
            json!({ "errorKind": "storage_error", "path": path, "hint": message }),
        )
    }

    /// `-32603` `internal`: a broken promise inside acp-fs or its driver (never the caller's fault).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn internal(message: impl Into<String>) -> Self {
        Self::internal_because(message.into())
    }

    #[inline(never)]
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn internal_because(message: String) -> Self {
        Self::new(ErrorKind::Internal, format!("Internal error: {message}"), json!({ "errorKind": "internal" }))
    }

    /// `-32700`, for a transport that cannot even read a message (the raw dispatcher's own).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn parse_error(reason: &str) -> Self {
        Self::new(ErrorKind::ParseError, "Parse error", json!({ "reason": reason }))
    }

    /// `-32600`: a message that is JSON but not a valid request.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn invalid_request(reason: &str) -> Self {
        Self::new(ErrorKind::InvalidRequest, "Invalid request", json!({ "reason": reason }))
    }

    /// The JSON-RPC `error` member: `{code, message, data?}`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn to_json_rpc(&self) -> Value {
        serde_json::to_value(JsonRpcError::of(self)).expect("an error is JSON")
    }
}

/// The JSON-RPC error object of an [`AcpFsError`], borrowed: `{code, message, data}` in that
/// order, `data` left out when null. Replies serialize it straight into their text, with no
/// copy of the error's data (dispatch.rs).
#[derive(Serialize)]
pub(crate) struct JsonRpcError<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Value::is_null")]
    data: &'a Value,
}

impl<'a> JsonRpcError<'a> {
    pub(crate) fn of(e: &'a AcpFsError) -> Self {
        Self::new(e.code, &e.message, &e.data)
    }

    pub(crate) fn new(code: i64, message: &'a str, data: &'a Value) -> Self {
        JsonRpcError { code, message, data }
    }
}

impl fmt::Display for AcpFsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for AcpFsError {}
