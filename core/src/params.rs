//! Request validation: every field checked, the first bad one named (semantics.md §2, §8).
//!
//! Params arrive as a JSON value, as flat members a binding read without building one
//! ([`FlatParams`]), or as JSON text read member by member (`Params::of_text`, the raw
//! dispatcher's); each becomes [`Params`], the members validation reads, so each rule and each
//! message is written once.

use crate::dispatch::Checked;
use crate::error::AcpFsError;
use crate::json_scan;
use crate::json_text;
use crate::path::AbsPath;
use crate::text::{self, SNIFF_BYTES};
use serde_json::Value;

/// Params whose members are all scalars, as a binding hands them over without building a JSON
/// value (the wasm module reads them so from its inbox: no map built, no name hashed or copied).
/// They stand for the JSON object of their members, what a peer would have sent: only the
/// members the engine reads are kept, a repeated name with its last value, as in a parsed JSON
/// object.
///
/// ```
/// use acp_fs::host::{FlatParams, HostEngine, Scalar};
/// use serde_json::json;
/// let engine = HostEngine::new(json!({"roots": ["/p"]}), json!({"symlinks": "none"})).unwrap();
/// let mut params = FlatParams::default();
/// params.push("sessionId", Scalar::Text("s".to_owned()));
/// params.push("path", Scalar::Text("/p/a.txt".to_owned()));
/// params.push("line", Scalar::Number(3.0));
/// assert!(engine.start_flat("fs/read_text_file", params).is_some());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatParams(Box<Members>);

impl FlatParams {
    /// Adds the member `name` (after the ones before it: a later one of the same name wins).
    pub fn push(&mut self, name: &str, value: Scalar) {
        if let Some(at) = place(name) {
            self.0.values[at] = Some(Member::of_flat(value));
        }
    }
}

/// One member of [`FlatParams`]: a JavaScript primitive JSON can carry.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JavaScript number. It stands for the JSON number `JSON.stringify` writes for it, as
    /// serde_json reads those digits; a non-finite one for `null`, as `JSON.stringify` writes it.
    Number(f64),
    /// A string (a Rust string: text with a lone surrogate has no such form, and no JSON text).
    Text(String),
}

/// A request's params as validation reads them: the members it reads, `None` when the params
/// are no object.
#[derive(Debug, PartialEq)]
pub(crate) struct Params(Option<Box<Members>>);

/// The members of a JSON value, copied (what a check takes it moves out of them).
impl From<&Value> for Params {
    fn from(value: &Value) -> Params {
        let Value::Object(object) = value else { return Params(None) };
        let mut members = Box::<Members>::default();
        for (name, value) in object {
            if let Some(at) = place(name) {
                members.values[at] = Some(Member::of_json(value));
                if at == META {
                    members.traceparent = value.get("traceparent").and_then(Value::as_str).map(str::to_owned);
                }
            }
        }
        Params(Some(members))
    }
}

impl Params {
    /// The members as a JSON object that reads back ([`From<&Value>`]) to the same members:
    /// `null` when the params are no object, an object read only for `traceparent` as one with
    /// only that (`_meta`) or with nothing, a boolean or an array as `false`.
    pub(crate) fn to_value(&self) -> Value {
        let Params(Some(members)) = self else { return Value::Null };
        let mut object = serde_json::Map::new();
        for (at, slot) in members.values.iter().enumerate() {
            let Some(member) = slot else { continue };
            let value = match member {
                Member::Null => Value::Null,
                Member::Text(s) => Value::String(s.clone()),
                Member::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
                Member::Object => match &members.traceparent {
                    Some(t) if at == META => serde_json::json!({ "traceparent": t }),
                    _ => Value::Object(serde_json::Map::new()),
                },
                Member::Other => Value::Bool(false),
            };
            object.insert(NAMES[at].to_owned(), value);
        }
        Value::Object(object)
    }

    /// The members of params sent as JSON text ([`checked_members`](crate::dispatch::checked_members):
    /// each checked, a string read, anything else still raw text; `None` when params is no
    /// object), read as a parsed JSON value would give them, without building one.
    pub(crate) fn of_text(members: Option<Vec<Checked<'_>>>) -> Params {
        let Some(checked) = members else { return Params(None) };
        let mut members = Box::<Members>::default();
        for Checked { name, raw, string } in checked {
            if let Some(at) = place(&name) {
                if at == META {
                    members.traceparent = traceparent(raw);
                }
                members.values[at] = Some(match string {
                    Some(string) => Member::Text(string),
                    None => Member::of_text(raw),
                });
            }
        }
        Params(Some(members))
    }
}

/// `_meta.traceparent` when `_meta` (raw JSON text) is an object and it is a string; the last
/// of that name, as in a parsed object.
fn traceparent(meta: &str) -> Option<String> {
    let members = json_scan::members(meta)?;
    let (_, value) =
        members.into_iter().rev().find(|(name, _)| json_scan::string(name).as_deref() == Some("traceparent"))?;
    json_scan::string(value)
}

impl From<FlatParams> for Params {
    fn from(flat: FlatParams) -> Params {
        Params(Some(flat.0))
    }
}

/// The members validation reads, each in its [`place`], found in one pass.
///
/// Every request is checked once and echoed once; a lookup per field would hash each name with
/// the map's SipHash (serde_json's ordered map keeps std's hasher), about a tenth of the
/// engine's time on a small read. A JSON object has each name once (a repeated one keeps its
/// last value), so one pass finds what the lookups would; a repeated flat member replaces the
/// one before it alike.
#[derive(Clone, Debug, Default, PartialEq)]
struct Members {
    values: [Option<Member>; 6],
    /// `_meta.traceparent`, a string: all that is read of an object.
    traceparent: Option<String>,
}

const SESSION_ID: usize = 0;
const PATH: usize = 1;
const LINE: usize = 2;
const LIMIT: usize = 3;
const CONTENT: usize = 4;
const META: usize = 5;

/// The names of the members validation reads, by [`place`].
const NAMES: [&str; 6] = ["sessionId", "path", "line", "limit", "content", "_meta"];

/// Where in [`Members`] the member `name` goes, if validation reads it.
fn place(name: &str) -> Option<usize> {
    Some(match name {
        "sessionId" => SESSION_ID,
        "path" => PATH,
        "line" => LINE,
        "limit" => LIMIT,
        "content" => CONTENT,
        "_meta" => META,
        _ => return None,
    })
}

/// One member's value as validation reads it, from either form.
#[derive(Clone, Debug, PartialEq)]
enum Member {
    Null,
    Text(String),
    /// A JSON number's value. As an `f64` a `u64` above `u32::MAX` stays above it and an `i64`
    /// stays negative, so every check reads the value alike, whatever form the digits took
    /// (`3`, `3.0` and `3e0` are one value, and the echo too takes it by value).
    Number(f64),
    /// An object (all a field reads of one, `_meta`'s `traceparent`, is kept beside).
    Object,
    /// A boolean or an array: no field takes one, and every field says so alike.
    Other,
}

impl Member {
    fn of_json(value: &Value) -> Member {
        match value {
            Value::Null => Member::Null,
            Value::String(s) => Member::Text(s.clone()),
            Value::Number(n) => Member::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::Object(_) => Member::Object,
            Value::Bool(_) | Value::Array(_) => Member::Other,
        }
    }

    /// A member's raw JSON text, not a string (read already: `Checked::string`), as
    /// [`Member::of_json`] reads the value serde_json would parse from it.
    fn of_text(text: &str) -> Member {
        match text.as_bytes().first() {
            Some(b'n') => Member::Null,
            Some(b'-' | b'0'..=b'9') => Member::Number(json_text::number(text)),
            Some(b'{') => Member::Object,
            _ => Member::Other,
        }
    }

    /// What a peer's JSON would have carried for a flat member: `JSON.stringify` writes a whole
    /// number below 1e21 as plain digits (`-0` as "0"), which serde_json reads as a `u64` where
    /// it fits (below 2^64); anything else it holds as an `i64` or an `f64`; a non-finite
    /// number is `null`.
    fn of_flat(value: Scalar) -> Member {
        match value {
            Scalar::Null => Member::Null,
            Scalar::Bool(_) => Member::Other,
            Scalar::Text(s) => Member::Text(s),
            Scalar::Number(n) if !n.is_finite() => Member::Null,
            Scalar::Number(n) => Member::Number(n),
        }
    }
}

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
    /// An MCP tool's echo: its session and the path it works on, when that is text.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn named(session_id: &str, path: Option<&str>) -> Echo {
        Echo { session_id: Some(session_id.to_owned()), path: path.map(str::to_owned), ..Echo::default() }
    }

    pub fn of(params: &Params) -> Echo {
        let Params(Some(members)) = params else { return Echo::default() };
        let Members { values: [session_id, path, line, limit, ..], traceparent } = &**members;
        let s = |slot: &Option<Member>| match slot {
            Some(Member::Text(s)) => Some(s.clone()),
            _ => None,
        };
        let n = |slot: &Option<Member>| match *slot {
            Some(Member::Number(n)) if n.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&n) => Some(n as u32),
            _ => None,
        };
        let traceparent = traceparent.clone();
        Echo { session_id: s(session_id), path: s(path), line: n(line), limit: n(limit), traceparent }
    }
}

fn object(params: Params) -> Result<Box<Members>, AcpFsError> {
    params.0.ok_or_else(|| AcpFsError::invalid_params("params", "params must be an object"))
}

/// A required string member, moved out of its slot.
fn required_string(slot: &mut Option<Member>, field: &str) -> Result<String, AcpFsError> {
    match slot.take() {
        Some(Member::Text(s)) => Ok(s),
        None | Some(Member::Null) => Err(AcpFsError::invalid_params(field, "required")),
        Some(_) => Err(AcpFsError::invalid_params(field, "must be a string")),
    }
}

fn path(slot: &mut Option<Member>) -> Result<AbsPath, AcpFsError> {
    AbsPath::parse(&required_string(slot, "path")?).map_err(|why| AcpFsError::invalid_params("path", why))
}

/// An optional u32: absent/null is `None`; a malformed value is an error (strict) or `None`
/// (lenient).
fn optional_u32(slot: &Option<Member>, field: &str, lenient: bool) -> Result<Option<u32>, AcpFsError> {
    let parsed = match *slot {
        None | Some(Member::Null) => return Ok(None),
        // JS numbers arrive as floats: 3.0 is the integer 3.
        Some(Member::Number(f)) => {
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
        Some(_) => Err("must be an integer"),
    };
    match parsed {
        Ok(v) => Ok(Some(v)),
        Err(_) if lenient => Ok(None),
        Err(why) => Err(AcpFsError::invalid_params(field, why)),
    }
}

/// `_meta` is only checked: what acp-fs uses of it (`traceparent`) is taken by [`Echo`].
fn meta(slot: &Option<Member>, lenient: bool) -> Result<(), AcpFsError> {
    match slot {
        None | Some(Member::Null) | Some(Member::Object) => Ok(()),
        Some(_) if lenient => Ok(()),
        Some(_) => Err(AcpFsError::invalid_params("_meta", "must be an object or null")),
    }
}

pub(crate) fn read(params: Params, lenient: bool) -> Result<ReadParams, AcpFsError> {
    let mut m = object(params)?;
    let [session_id, path_, line, limit, _, meta_] = &mut m.values;
    let session_id = required_string(session_id, "sessionId")?;
    let path = path(path_)?;
    let line = optional_u32(line, "line", lenient)?.unwrap_or(0).max(1);
    let limit = optional_u32(limit, "limit", lenient)?;
    meta(meta_, lenient)?;
    Ok(ReadParams { session_id, path, line, limit })
}

pub(crate) fn write(params: Params, lenient: bool) -> Result<WriteParams, AcpFsError> {
    let mut m = object(params)?;
    let [session_id, path_, _, _, content, meta_] = &mut m.values;
    let session_id = required_string(session_id, "sessionId")?;
    let path = path(path_)?;
    let content = required_string(content, "content")?;
    readable_back(&content)?;
    meta(meta_, lenient)?;
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
    use proptest::prelude::*;
    use serde_json::json;

    fn field(r: Result<ReadParams, AcpFsError>) -> String {
        r.unwrap_err().data["field"].as_str().unwrap().to_owned()
    }

    #[test]
    fn strict_and_lenient() {
        let read = |p: &Value, lenient| read(p.into(), lenient);
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

    /// The JSON text `JSON.stringify` writes for a number (ECMA-262's Number::toString): the
    /// shortest digits that read back as `x`, plain up to 21 integer digits, else with an
    /// exponent; `null` for what JSON has no number for.
    fn js_number(x: f64) -> String {
        if !x.is_finite() {
            return "null".to_owned();
        }
        if x == 0.0 {
            return "0".to_owned();
        }
        let shortest = format!("{:e}", x.abs());
        let (mantissa, exp) = shortest.split_once('e').unwrap();
        let digits = mantissa.replace('.', "");
        let (k, n) = (digits.len() as i32, exp.parse::<i32>().unwrap() + 1);
        let body = if k <= n && n <= 21 {
            format!("{digits}{}", "0".repeat((n - k) as usize))
        } else if 0 < n && n <= 21 {
            format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
        } else if -6 < n && n <= 0 {
            format!("0.{}{digits}", "0".repeat(-n as usize))
        } else {
            let (sign, e) = if n >= 1 { ('+', n - 1) } else { ('-', 1 - n) };
            let fraction = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
            format!("{}{fraction}e{sign}{e}", &digits[..1])
        };
        if x < 0.0 {
            format!("-{body}")
        } else {
            body
        }
    }

    #[test]
    fn js_number_writes_what_json_stringify_does() {
        for (x, text) in [
            (-0.0, "0"),
            (3.0, "3"),
            (1.5, "1.5"),
            (-1.0, "-1"),
            (4294967296.0, "4294967296"),
            (9007199254740993.0, "9007199254740992"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (-1.5e-7, "-1.5e-7"),
            (0.000001, "0.000001"),
            (123456.789, "123456.789"),
            (f64::NAN, "null"),
        ] {
            assert_eq!(js_number(x), text);
        }
    }

    /// The JSON text of members, as `JSON.stringify` of their object writes it (a repeated name
    /// written twice: serde_json keeps the last, as the flat form does).
    fn json_text(members: &[(String, Scalar)]) -> String {
        let members: Vec<String> = members
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    Scalar::Null => "null".to_owned(),
                    Scalar::Bool(b) => b.to_string(),
                    Scalar::Number(n) => js_number(*n),
                    Scalar::Text(s) => serde_json::to_string(s).unwrap(),
                };
                format!("{}:{value}", serde_json::to_string(name).unwrap())
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            prop::sample::select(vec![
                -0.0,
                0.0,
                1.0,
                3.0,
                1.5,
                -1.0,
                -1.5,
                4294967295.0,
                4294967295.5,
                4294967296.0,
                9007199254740993.0,
                2251799813685248.5,
                18446744073709551616.0,
                -9223372036854775808.0,
                -9223372036854777856.0,
                1e21,
                -1e21,
                1e300,
                5e-324,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ]),
            (-10i64..5_000_000_000).prop_map(|n| n as f64),
            (-10i64..5_000_000_000).prop_map(|n| n as f64 + 0.5),
            (-1e22..1e22f64).prop_map(f64::trunc),
            any::<f64>(),
        ]
    }

    fn scalar() -> impl Strategy<Value = Scalar> {
        prop_oneof![
            Just(Scalar::Null),
            any::<bool>().prop_map(Scalar::Bool),
            number().prop_map(Scalar::Number),
            prop::sample::select(vec!["s", "/a", "/p/a.txt", "rel/a", "", "/a/../b", "C:\\x", "a\0b", "\u{feff}\0"])
                .prop_map(|s| Scalar::Text(s.to_owned())),
            "\\PC{0,6}".prop_map(Scalar::Text),
        ]
    }

    /// Members of any names and values, most often after a valid session and path (a later
    /// member may replace them), so the checks after those are reached too.
    fn members() -> impl Strategy<Value = Vec<(String, Scalar)>> {
        let name = prop::sample::select(vec!["sessionId", "path", "line", "limit", "content", "_meta", "x", "Path"]);
        let valid = vec![
            ("sessionId".to_owned(), Scalar::Text("s".to_owned())),
            ("path".to_owned(), Scalar::Text("/p/a.txt".to_owned())),
        ];
        let start = prop_oneof![1 => Just(Vec::new()), 4 => Just(valid)];
        (start, prop::collection::vec((name.prop_map(str::to_owned), scalar()), 0..6)).prop_map(
            |(mut members, more)| {
                members.extend(more);
                members
            },
        )
    }

    proptest! {
        /// Flat params are validated and echoed exactly as the JSON object they stand for
        /// (built from their JSON text, as serde_json reads it): the same params or the same
        /// error, field and message, strict and lenient.
        #[test]
        fn flat_params_read_as_their_json(members in members()) {
            let text = json_text(&members);
            let json: Value = serde_json::from_str(&text).unwrap();
            let mut flat = FlatParams::default();
            for (name, value) in members {
                flat.push(&name, value);
            }
            // And as the raw dispatcher reads the same text, member by member.
            let as_text = || Params::of_text(crate::dispatch::checked_members(&text).unwrap());
            for lenient in [false, true] {
                let (f, j, t) = (read(flat.clone().into(), lenient), read((&json).into(), lenient), read(as_text(), lenient));
                prop_assert_eq!(format!("{f:?}"), format!("{j:?}"), "{}", text);
                prop_assert_eq!(format!("{t:?}"), format!("{j:?}"), "{}", text);
                let (f, j, t) = (write(flat.clone().into(), lenient), write((&json).into(), lenient), write(as_text(), lenient));
                prop_assert_eq!(format!("{f:?}"), format!("{j:?}"), "{}", text);
                prop_assert_eq!(format!("{t:?}"), format!("{j:?}"), "{}", text);
            }
            let (f, j, t) = (Echo::of(&flat.into()), Echo::of(&(&json).into()), Echo::of(&as_text()));
            prop_assert_eq!(format!("{f:?}"), format!("{j:?}"), "{}", text);
            prop_assert_eq!(format!("{t:?}"), format!("{j:?}"), "{}", text);
        }
    }
}
