//! Reading a JSON object of settings (the engine's options, a session's) member by member, with
//! serde's own wording for a bad value (`invalid type: string "x", expected a boolean`,
//! `unknown field `y`, expected one of …`), so a message reads as it did when serde's derive
//! read these objects.
//!
//! Plain code rather than `#[derive(Deserialize)]`: the derive's visitors, and the buffering an
//! untagged enum needs, were 6.5 KB of the fs/* wasm module (3.5 KB gzipped) for objects read
//! once per engine or session.

use crate::error::AcpFsError;
use serde::de::{Error as _, Unexpected};
use serde_json::{Error, Value};

/// serde's name for what `value` is (`unexpected` of serde_json's own values).
#[cfg_attr(acp_fs_small, optimize(size))]
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// `value` is not what `expected` names.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn wrong_type(value: &Value, expected: &str) -> Error {
    Error::invalid_type(unexpected(value), &expected)
}

/// Each member of the settings object `value` given to `member` (its name, its value), in the
/// object's order; `null` is every default. The first member `member` refuses is `-32602` naming
/// it, with serde's message; a value that is no object is that error naming `whole`.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn members(
    value: &Value,
    whole: &str,
    type_name: &str,
    // A `dyn`: one copy of this loop for both settings objects, not one each.
    member: &mut dyn FnMut(&str, &Value) -> Result<(), Error>,
) -> Result<(), AcpFsError> {
    let object = match value {
        Value::Null => return Ok(()),
        Value::Object(object) => object,
        other => return Err(AcpFsError::invalid_params(whole, wrong_type(other, type_name).to_string())),
    };
    for (name, value) in object {
        member(name, value).map_err(|e| AcpFsError::invalid_params(name, e.to_string()))?;
    }
    Ok(())
}

/// A member no field has that name: serde's `deny_unknown_fields` message.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn unknown(name: &str, fields: &'static [&'static str]) -> Error {
    Error::unknown_field(name, fields)
}

#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn boolean(value: &Value) -> Result<bool, Error> {
    value.as_bool().ok_or_else(|| wrong_type(value, "a boolean"))
}

#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn strings(value: &Value) -> Result<Vec<String>, Error> {
    let Value::Array(list) = value else { return Err(wrong_type(value, "a sequence")) };
    list.iter().map(|s| s.as_str().map(str::to_owned).ok_or_else(|| wrong_type(s, "a string"))).collect()
}

/// `null` is `None`, as serde reads an `Option`.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn optional<T>(value: &Value, read: impl FnOnce(&Value) -> Result<T, Error>) -> Result<Option<T>, Error> {
    if value.is_null() {
        return Ok(None);
    }
    read(value).map(Some)
}

/// Which of `variants` (a unit enum's names) `value` names: its name as a string, or as the
/// single key of an object whose value is `null` (both forms serde takes).
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn variant(value: &Value, variants: &'static [&'static str]) -> Result<usize, Error> {
    let (name, inner) = match value {
        Value::String(name) => (name, None),
        Value::Object(object) => {
            let mut members = object.iter();
            match (members.next(), members.next()) {
                (Some((name, inner)), None) => (name, Some(inner)),
                _ => return Err(Error::invalid_value(Unexpected::Map, &"map with a single key")),
            }
        }
        other => return Err(wrong_type(other, "string or map")),
    };
    let index = variants.iter().position(|v| v == name).ok_or_else(|| Error::unknown_variant(name, variants))?;
    match inner {
        Some(inner) if !inner.is_null() => Err(wrong_type(inner, "unit")),
        _ => Ok(index),
    }
}

/// A byte count. A JS number past 2^31 crosses some bindings as a float (napi), so `5e9` is the
/// integer 5000000000 however it came; a fraction, a negative or a number past `u64` is refused.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn byte_count(value: &Value) -> Result<u64, Error> {
    let Value::Number(n) = value else { return Err(wrong_type(value, "u64")) };
    if let Some(count) = n.as_u64() {
        return Ok(count);
    }
    if let Some(negative) = n.as_i64() {
        return Err(Error::invalid_value(Unexpected::Signed(negative), &"u64"));
    }
    let v = n.as_f64().unwrap_or(f64::NAN);
    // 2^64, the first float past u64::MAX, and everything above it are refused.
    if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
        Ok(v as u64)
    } else {
        Err(wrong_type(value, "u64"))
    }
}
