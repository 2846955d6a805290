//! Reading a JSON object of settings (the engine's options, a session's) member by member, with
//! serde's own wording for a bad value (`invalid type: string "x", expected a boolean`,
//! `unknown field `y`, expected one of …`), so a message reads as it did when serde's derive
//! read these objects.
//!
//! Plain code rather than `#[derive(Deserialize)]`: the derive's visitors, and the buffering an
//! untagged enum needs, were 6.5 KB of the fs/* wasm module (3.5 KB gzipped) for objects read
//! once per engine or session.

use crate::error::AcpFsError;
use crate::json_text::quoted;
use serde_json::Value;

/// Why a member was refused: serde's message for it.
pub(crate) type Error = String;

/// What `value` is, in serde_json's words (`invalid type: {this}, expected …`). Written here
/// rather than through serde's `Unexpected`: its `Display` can format any float and quote any
/// string with `Debug`, and kept both (with the Unicode tables `Debug` needs) in the fs/* wasm
/// module a web page downloads, for a message about an option (docs/benchmarks.md). A float is
/// written as serde_json writes it, a string as a JSON string.
#[cfg_attr(acp_fs_small, optimize(size))]
fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {}", quoted(s)),
        Value::Array(_) => "sequence".to_owned(),
        Value::Object(_) => "map".to_owned(),
    }
}

/// `value` is not what `expected` names.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn wrong_type(value: &Value, expected: &str) -> Error {
    format!("invalid type: {}, expected {expected}", unexpected(value))
}

/// `names` as serde lists what it expected: `` `a` ``, `` `a` or `b` ``, `` one of `a`, `b`, `c` ``.
#[cfg_attr(acp_fs_small, optimize(size))]
fn one_of(names: &[&str]) -> String {
    match names {
        [one] => format!("`{one}`"),
        [a, b] => format!("`{a}` or `{b}`"),
        _ => format!("one of {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")),
    }
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
        other => return Err(AcpFsError::invalid_params(whole, wrong_type(other, type_name))),
    };
    for (name, value) in object {
        member(name, value).map_err(|e| AcpFsError::invalid_params(name, e))?;
    }
    Ok(())
}

/// A member no field has that name: serde's `deny_unknown_fields` message.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn unknown(name: &str, fields: &'static [&'static str]) -> Error {
    format!("unknown field `{name}`, expected {}", one_of(fields))
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
                _ => return Err("invalid value: map, expected map with a single key".to_owned()),
            }
        }
        other => return Err(wrong_type(other, "string or map")),
    };
    let index = variants
        .iter()
        .position(|v| v == name)
        .ok_or_else(|| format!("unknown variant `{name}`, expected {}", one_of(variants)))?;
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
        return Err(format!("invalid value: integer `{negative}`, expected u64"));
    }
    let v = n.as_f64().unwrap_or(f64::NAN);
    // 2^64, the first float past u64::MAX, and everything above it are refused.
    if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
        Ok(v as u64)
    } else {
        Err(wrong_type(value, "u64"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::{Error as _, Unexpected};
    use serde_json::json;

    /// serde_json's own message for `value` where a boolean was expected.
    fn serde_says(value: &Value) -> String {
        serde_json::from_value::<bool>(value.clone()).unwrap_err().to_string()
    }

    /// The messages are serde's, word for word, though no serde error builds them.
    #[test]
    fn serde_wording_without_serde_errors() {
        let values = [
            json!(null),
            json!(false),
            json!(7),
            json!(-7),
            json!(1.5),
            json!(-1.0),
            json!(1e300),
            json!(1.8446744073709552e19),
            json!("x"),
            json!("a \"quoted\" \\ é €"),
            json!([1]),
            json!({"a": 1}),
        ];
        for value in values.iter().filter(|v| !v.is_boolean()) {
            assert_eq!(wrong_type(value, "a boolean"), serde_says(value), "{value}");
        }
        for fields in [&["a"][..], &["a", "b"], &["a", "b", "c"]] {
            assert_eq!(unknown("z", fields), serde_json::Error::unknown_field("z", fields).to_string());
            assert_eq!(
                variant(&json!("z"), fields).unwrap_err(),
                serde_json::Error::unknown_variant("z", fields).to_string()
            );
        }
        let map = serde_json::Error::invalid_value(Unexpected::Map, &"map with a single key").to_string();
        assert_eq!(variant(&json!({"a": null, "b": null}), &["a", "b"]).unwrap_err(), map);
        let negative = serde_json::Error::invalid_value(Unexpected::Signed(-3), &"u64").to_string();
        assert_eq!(byte_count(&json!(-3)).unwrap_err(), negative);
    }

    /// One difference, decided: a string is quoted as JSON, where serde's `Debug` quoting writes
    /// a control character as `\u{1}`.
    #[test]
    fn a_string_is_quoted_as_json() {
        assert_eq!(
            wrong_type(&json!("a\u{1}\n"), "a boolean"),
            r#"invalid type: string "a\u0001\n", expected a boolean"#
        );
        assert_eq!(serde_says(&json!("a\u{1}\n")), r#"invalid type: string "a\u{1}\n", expected a boolean"#);
    }
}
