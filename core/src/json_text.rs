//! The checks semantics.md §8.1 makes of every member of a message's params, whether it is read
//! or not (a lone surrogate escape, nesting deeper than 128 levels), on the raw text
//! [`crate::json_scan`] cuts a message into; a number's value as serde_json reads it; and, for
//! the MCP tools, which read their arguments as a `Value`, [`value`], which reads one without
//! the visitor's token.
//!
//! `Value` is not used for what a peer sends to the fs methods. With the `raw_value` feature its
//! visitor takes an object whose only member is named `$serde_json::private::RawValue` for the
//! JSON text in that member's string, so a `path` sent as such an object was read as a string.

use crate::json_scan;
#[cfg(feature = "mcp")]
use serde::de::{MapAccess, Visitor};
#[cfg(feature = "mcp")]
use serde::Deserializer;

/// The reason given for a member with a lone surrogate escape.
pub(crate) const LONE: &str = "is not valid Unicode (a string escape with a lone surrogate)";

/// The reason given for a member nested too deep.
const TOO_DEEP: &str = "is nested deeper than 128 levels";

/// serde_json refuses the 128th level of arrays and objects one inside another (its recursion
/// limit): a member that deep could not be read as a `Value`, and is refused the same way.
const DEPTH_LIMIT: usize = 128;

/// `text` as a JSON string, to quote a value in a message. Not with `Debug`, which kept the
/// Unicode tables it needs in the fs/* wasm module, nor with `Value`'s `Display`, which brings a
/// second copy of serde_json's writer: this is the writer replies use (docs/benchmarks.md).
pub(crate) fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// The checks every member of params gets, read or not: `Err` is the reason to name it with.
pub(crate) fn check_member(raw: &str) -> Result<(), &'static str> {
    if has_lone_surrogate(raw) {
        return Err(LONE);
    }
    if raw.starts_with(['{', '[']) && depth(raw) >= DEPTH_LIMIT {
        return Err(TOO_DEEP);
    }
    Ok(())
}

/// How deep `raw` (valid JSON text) nests arrays and objects: `{}` is 1.
fn depth(raw: &str) -> usize {
    let bytes = raw.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = past_string(bytes, i);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

/// Where the JSON string starting at `bytes[at]` (its opening quote) ends: just past the first
/// quote that is not escaped.
fn past_string(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while let Some(off) = memchr::memchr2(b'"', b'\\', &bytes[i..]) {
        i += off + 1;
        if bytes[i - 1] == b'"' {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// The `\uXXXX` escapes in `raw` (valid JSON text) that are lone surrogates, by byte range. In
/// valid JSON a backslash only occurs inside a string and always starts an escape.
pub(crate) fn lone_surrogates(raw: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = raw.as_bytes();
    let unit = |at: usize| json_scan::hex4(raw, at + 2);
    let mut lone = Vec::new();
    // A high surrogate escape waiting for its low half, which must follow at once.
    let mut high: Option<usize> = None;
    let mut from = 0;
    while let Some(off) = memchr::memchr(b'\\', &bytes[from..]) {
        let at = from + off;
        let escape = if bytes.get(at + 1) == Some(&b'u') { unit(at) } else { None };
        from = at + if escape.is_some() { 6 } else { 2 };
        match escape {
            Some(0xD800..=0xDBFF) => lone.extend(high.replace(at).map(|h| h..h + 6)),
            Some(0xDC00..=0xDFFF) => match high.take() {
                Some(h) if h + 6 == at => {}
                Some(h) => lone.extend([h..h + 6, at..at + 6]),
                None => lone.push(at..at + 6),
            },
            _ => lone.extend(high.take().map(|h| h..h + 6)),
        }
    }
    lone.extend(high.map(|h| h..h + 6));
    lone
}

pub(crate) fn has_lone_surrogate(raw: &str) -> bool {
    // Text with no backslash has no escape at all. A quicker search for what may start a
    // surrogate escape (`\ud`, `\uD`) took 2 of the 9 µs of a 4 KB write's dispatch, but
    // memchr's substring searcher added 737 B to the fs/* module a web page downloads: the
    // whole write costs far more than the scan, so the module's bytes won (docs/benchmarks.md).
    memchr::memchr(b'\\', raw.as_bytes()).is_some() && !lone_surrogates(raw).is_empty()
}

/// A JSON string with lone surrogates shown as U+FFFD, to name a member whose name has one.
pub(crate) fn repaired(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut from = 0;
    for range in lone_surrogates(raw) {
        text.push_str(&raw[from..range.start]);
        text.push_str("\\ufffd");
        from = range.end;
    }
    text.push_str(&raw[from..]);
    json_scan::string(&text).unwrap_or_default()
}

/// `raw` (valid JSON text) with every number serde cannot hold replaced by `±1e308`.
#[cfg(feature = "mcp")]
pub(crate) fn saturated(raw: &str) -> std::borrow::Cow<'_, str> {
    let bytes = raw.as_bytes();
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = past_string(bytes, i),
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, i);
                if serde_json::from_str::<f64>(&raw[i..end]).is_err() {
                    out.push_str(&raw[copied..i]);
                    out.push_str(if bytes[i] == b'-' { "-1e308" } else { "1e308" });
                    copied = end;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return raw.into();
    }
    out.push_str(&raw[copied..]);
    out.into()
}

#[cfg(feature = "mcp")]
fn number_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .map_or(bytes.len(), |n| from + n)
}

/// JSON text read into a `Value` as what it says: an object is an object whatever its members
/// are named, where serde_json's own `Value` visitor reads one whose only member is
/// `$serde_json::private::RawValue` as the JSON text in it. The MCP tools read their arguments
/// so. serde_json's recursion limit holds as for its own visitor: it is the deserializer's.
#[cfg(feature = "mcp")]
pub(crate) fn value(text: &str) -> serde_json::Result<serde_json::Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Plain.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// [`value`]'s visitor: serde_json's, without the first key's classification.
#[cfg(feature = "mcp")]
struct Plain;

#[cfg(feature = "mcp")]
impl<'de> serde::de::DeserializeSeed<'de> for Plain {
    type Value = serde_json::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(feature = "mcp")]
impl<'de> Visitor<'de> for Plain {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<serde_json::Value, E> {
        Ok(b.into())
    }
    fn visit_i64<E>(self, n: i64) -> Result<serde_json::Value, E> {
        Ok(n.into())
    }
    fn visit_u64<E>(self, n: u64) -> Result<serde_json::Value, E> {
        Ok(n.into())
    }
    fn visit_f64<E>(self, n: f64) -> Result<serde_json::Value, E> {
        // A non-finite number is null, as serde_json's visitor makes it.
        Ok(n.into())
    }
    fn visit_str<E>(self, s: &str) -> Result<serde_json::Value, E> {
        Ok(s.into())
    }
    fn visit_string<E>(self, s: String) -> Result<serde_json::Value, E> {
        Ok(s.into())
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<serde_json::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Plain)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<serde_json::Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let member = map.next_value_seed(Plain)?;
            members.insert(name, member);
        }
        Ok(serde_json::Value::Object(members))
    }
}

/// A JSON number's value as serde_json reads it (what `Value::as_f64` gives); a number beyond
/// f64's range is `±1e308`, as [`saturated`] makes it.
pub(crate) fn number(raw: &str) -> f64 {
    // `Number`'s own reading, not a typed `f64`: the same digits to the same value, without
    // serde's error text for a value of another type (docs/benchmarks.md).
    raw.parse::<serde_json::Number>().ok().and_then(|n| n.as_f64()).unwrap_or(if raw.starts_with('-') {
        -1e308
    } else {
        1e308
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lone_surrogates_by_range() {
        assert!(lone_surrogates(r#""\ud83d\ude00 \u00e9 \\ud800""#).is_empty(), "pairs, BMP, an escaped backslash");
        assert_eq!(lone_surrogates(r#""\ud800x""#), vec![1..7]);
        assert_eq!(lone_surrogates(r#""\udc00\ud800""#), vec![1..7, 7..13]);
        assert_eq!(lone_surrogates(r#"["\ud800","\udc00"]"#), vec![2..8, 11..17]);
        assert_eq!(repaired(r#""k\ud800""#), "k\u{FFFD}");
    }

    #[test]
    #[cfg(feature = "mcp")]
    fn saturates_only_numbers_out_of_range() {
        assert_eq!(
            saturated(r#"{"a":"1e400","b":[1e400,-1E+999,2,1.5e3],"c\"1e400":0}"#),
            r#"{"a":"1e400","b":[1e308,-1e308,2,1.5e3],"c\"1e400":0}"#
        );
        assert!(matches!(saturated("[1,2]"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    #[cfg(feature = "mcp")]
    fn a_value_is_what_its_text_says() {
        let token = r#"{"$serde_json::private::RawValue":"[1]"}"#;
        assert_eq!(value(token).unwrap(), serde_json::json!({"$serde_json::private::RawValue": "[1]"}));
        let text = format!(r#"[{token},{{"a":[1,-2,2.5,1e300,"é",null,true,{{}}]}}]"#);
        // Everything else as serde_json's own visitor reads it, errors included.
        let plain = r#"{"a":[1,-2,2.5,1e300,"é",null,true,{}],"b":{"c":"d"},"a":0}"#;
        assert_eq!(value(plain).unwrap(), serde_json::from_str::<serde_json::Value>(plain).unwrap());
        assert_eq!(value(&text).unwrap()[0], serde_json::json!({"$serde_json::private::RawValue": "[1]"}));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for bad in ["[1,]", "1e400", r#""\ud800""#, &deep, "1 2"] {
            let want = serde_json::from_str::<serde_json::Value>(bad).unwrap_err().to_string();
            assert_eq!(value(bad).unwrap_err().to_string(), want, "{bad}");
        }
    }

    #[test]
    fn depth_skips_strings() {
        assert_eq!(depth("1"), 0);
        assert_eq!(depth("{}"), 1);
        assert_eq!(depth(r#"{"a":[{"b":"]]]}}[[[{{\"\\"},[]]}"#), 3);
        assert_eq!(depth(r#"["[","\"[",[["]"]]]"#), 3);
    }

    /// Nested arrays and objects, with brackets and escapes inside strings.
    fn nested() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<i64>().prop_map(serde_json::Value::from),
            "[\\[\\]{}\"\\\\a]{0,4}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(8, 64, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[\\[{\"a]{0,3}", inner), 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn value_depth(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(items) => 1 + items.iter().map(value_depth).max().unwrap_or(0),
            serde_json::Value::Object(m) => 1 + m.values().map(value_depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    proptest! {
        #[test]
        fn depth_is_the_values_nesting(v in nested()) {
            let text = serde_json::to_string(&v).unwrap();
            prop_assert_eq!(depth(&text), value_depth(&v), "{}", text);
        }

        /// serde_json's own limit: a member it cannot read as a `Value` is exactly one the
        /// check refuses as too deep.
        #[test]
        fn too_deep_is_where_serde_json_stops(levels in 120usize..136, object in any::<bool>()) {
            let (open, close) = if object { (r#"{"a":"#, "}") } else { ("[", "]") };
            let text = format!("{}1{}", open.repeat(levels), close.repeat(levels));
            let readable = serde_json::from_str::<serde_json::Value>(&text).is_ok();
            prop_assert_eq!(check_member(&text).is_ok(), readable);
        }

        /// The search for a backslash before the scan misses no lone surrogate, however spelled.
        #[test]
        fn lone_surrogates_are_found_past_the_quick_search(pieces in prop::collection::vec(
            prop::sample::select(vec![r"\ud800", r"\uDBFF", r"\udc00", r"\uDE00", r"\\", r"\n", r"\u00e9", "a", "u", "d", "é"]),
            0..12,
        )) {
            let text = format!("\"{}\"", pieces.concat());
            prop_assert_eq!(has_lone_surrogate(&text), !lone_surrogates(&text).is_empty(), "{}", text);
        }

        /// `number` is what a parsed `Value` says of the same digits.
        #[test]
        fn number_is_what_value_reads(text in "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,5})?([eE][-+]?[0-9]{1,3})?") {
            let value = number(&text);
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Number(n)) => prop_assert_eq!(value.to_bits(), n.as_f64().unwrap().to_bits()),
                _ => prop_assert_eq!(value.abs(), 1e308),
            }
        }
    }
}
