//! Request validation: every field checked, the first bad one named (semantics.md §2, §8).

use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::text::{self, SNIFF_BYTES};
use serde_json::{Map, Value};

/// Validated `fs/read_text_file` params.
#[derive(Clone, Debug)]
pub(crate) struct ReadParams {
    pub session_id: String,
    pub path: AbsPath,
    /// 1-based; absent, null and 0 are 1.
    pub line: u32,
    pub limit: Option<u32>,
}

/// Validated `fs/write_text_file` params.
#[derive(Clone, Debug)]
pub(crate) struct WriteParams {
    pub session_id: String,
    pub path: AbsPath,
    pub content: String,
}

/// The raw fields an audit event reports even when validation fails.
#[derive(Clone, Debug, Default)]
pub(crate) struct Echo {
    pub session_id: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub limit: Option<u32>,
    pub traceparent: Option<String>,
}

impl Echo {
    pub fn of(params: &Value) -> Echo {
        let m = params.as_object().map(Members::of).unwrap_or_default();
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let n = |v: Option<&Value>| v.and_then(Value::as_u64).and_then(|v| u32::try_from(v).ok());
        Echo {
            session_id: s(m.session_id),
            path: s(m.path),
            line: n(m.line),
            limit: n(m.limit),
            traceparent: s(m.meta.and_then(|m| m.get("traceparent"))),
        }
    }
}

/// The members a request's validation reads, found in one pass over the params object.
///
/// Every request is checked once and echoed once; a lookup per field would hash each name with
/// the map's SipHash (serde_json's ordered map keeps std's hasher), about a tenth of the
/// engine's time on a small read. A JSON object has each name once (a repeated one keeps its
/// last value), so one pass finds what the lookups would.
#[derive(Default)]
struct Members<'a> {
    session_id: Option<&'a Value>,
    path: Option<&'a Value>,
    line: Option<&'a Value>,
    limit: Option<&'a Value>,
    content: Option<&'a Value>,
    meta: Option<&'a Value>,
}

impl<'a> Members<'a> {
    fn of(obj: &'a Map<String, Value>) -> Members<'a> {
        let mut m = Members::default();
        for (name, value) in obj {
            let slot = match name.as_str() {
                "sessionId" => &mut m.session_id,
                "path" => &mut m.path,
                "line" => &mut m.line,
                "limit" => &mut m.limit,
                "content" => &mut m.content,
                "_meta" => &mut m.meta,
                _ => continue,
            };
            *slot = Some(value);
        }
        m
    }
}

fn object(params: &Value) -> Result<Members<'_>, AcpFsError> {
    params.as_object().map(Members::of).ok_or_else(|| AcpFsError::invalid_params("params", "params must be an object"))
}

fn required_str<'a>(value: Option<&'a Value>, field: &str) -> Result<&'a str, AcpFsError> {
    match value {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(AcpFsError::invalid_params(field, "required")),
        Some(_) => Err(AcpFsError::invalid_params(field, "must be a string")),
    }
}

fn required_string(value: Option<&Value>, field: &str) -> Result<String, AcpFsError> {
    required_str(value, field).map(str::to_owned)
}

fn path(value: Option<&Value>) -> Result<AbsPath, AcpFsError> {
    AbsPath::parse(required_str(value, "path")?).map_err(|why| AcpFsError::invalid_params("path", why))
}

/// An optional u32: absent/null is `None`; a malformed value is an error (strict) or `None`
/// (lenient).
fn optional_u32(value: Option<&Value>, field: &str, lenient: bool) -> Result<Option<u32>, AcpFsError> {
    let value = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let parsed = match value {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u32::try_from(u).map_err(|_| "must be at most 4294967295")
            } else if n.as_i64().is_some() {
                Err("must not be negative")
            } else {
                // JS numbers arrive as floats: 3.0 is the integer 3.
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 || !f.is_finite() {
                    Err("must be an integer")
                } else if f < 0.0 {
                    Err("must not be negative")
                } else if f > u32::MAX as f64 {
                    Err("must be at most 4294967295")
                } else {
                    Ok(f as u32)
                }
            }
        }
        _ => Err("must be an integer"),
    };
    match parsed {
        Ok(v) => Ok(Some(v)),
        Err(_) if lenient => Ok(None),
        Err(why) => Err(AcpFsError::invalid_params(field, why)),
    }
}

/// `_meta` is only checked: what acp-fs uses of it (`traceparent`) is taken by [`Echo`].
fn meta(value: Option<&Value>, lenient: bool) -> Result<(), AcpFsError> {
    match value {
        None | Some(Value::Null) | Some(Value::Object(_)) => Ok(()),
        Some(_) if lenient => Ok(()),
        Some(_) => Err(AcpFsError::invalid_params("_meta", "must be an object or null")),
    }
}

pub(crate) fn read(params: &Value, lenient: bool) -> Result<ReadParams, AcpFsError> {
    let m = object(params)?;
    let session_id = required_string(m.session_id, "sessionId")?;
    let path = path(m.path)?;
    let line = optional_u32(m.line, "line", lenient)?.unwrap_or(0).max(1);
    let limit = optional_u32(m.limit, "limit", lenient)?;
    meta(m.meta, lenient)?;
    Ok(ReadParams { session_id, path, line, limit })
}

pub(crate) fn write(params: &Value, lenient: bool) -> Result<WriteParams, AcpFsError> {
    let m = object(params)?;
    let session_id = required_string(m.session_id, "sessionId")?;
    let path = path(m.path)?;
    let content = required_string(m.content, "content")?;
    readable_back(&content)?;
    meta(m.meta, lenient)?;
    Ok(WriteParams { session_id, path, content })
}

/// Refuses content whose stored bytes could hold a NUL in the head reads sniff: after that
/// write every read of the file would answer `binary_file`, and so would every later write (an
/// agent may not replace what it could not read), so the write would lock the agent out.
///
/// The check runs before the target is known, so it takes the widest head any stored form can
/// have: a BOM only shifts the text later (new or BOM'd file) or is dropped (file without one),
/// CRLF conversion only shifts it later, and UTF-16 files have no NUL test at all. So the text
/// after a leading U+FEFF is what is checked, over the first [`SNIFF_BYTES`] of its UTF-8 bytes:
/// nothing a read refuses gets through; a few writes a read would accept (a NUL pushed past the
/// head by a BOM or `\r\n`, or in a UTF-16 file) are refused too.
fn readable_back(content: &str) -> Result<(), AcpFsError> {
    let text = text::strip_bom(content).as_bytes();
    match memchr::memchr(0, &text[..text.len().min(SNIFF_BYTES)]) {
        None => Ok(()),
        Some(at) => Err(AcpFsError::invalid_params(
            "content",
            format!(
                "has a NUL character at byte {at}: within the first {SNIFF_BYTES} bytes it would be read back as binary_file"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(r: Result<ReadParams, AcpFsError>) -> String {
        r.unwrap_err().data["field"].as_str().unwrap().to_owned()
    }

    #[test]
    fn strict_and_lenient() {
        let base = json!({"sessionId": "s", "path": "/a"});
        assert_eq!(read(&base, false).unwrap().line, 1);
        for bad in [json!(-1), json!(1.5), json!("2"), json!(4294967296u64), json!(true)] {
            let mut p = base.clone();
            p["limit"] = bad;
            assert_eq!(field(read(&p, false)), "limit");
            assert_eq!(read(&p, true).unwrap().limit, None);
        }
        let mut p = base.clone();
        p["line"] = json!(3.0);
        assert_eq!(read(&p, false).unwrap().line, 3);
        assert_eq!(field(read(&json!({"path": "/a"}), true)), "sessionId");
        assert_eq!(field(read(&json!([1]), false)), "params");
    }
}
