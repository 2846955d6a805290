//! JSON text checked and cut into its parts by a scanner of the engine's own: the members of an
//! object as raw text, and a string member's text. This is all the raw JSON-RPC entry
//! ([`crate::dispatch`]) reads of a message.
//!
//! Why not serde_json's parser here: its typed reading carries serde's error text, which can
//! format any value a peer sends (a float's `Display`, a string's `Debug` with the Unicode
//! tables behind it). The fs/* wasm module a web page downloads held all of that only for
//! messages it already refuses with texts of its own. This scanner takes exactly the JSON
//! serde_json takes (RFC 8259: the whitespace, string, escape and number grammar, no control
//! character in a string), which the tests check against serde_json on generated text.
//!
//! Like serde_json's raw values it does not limit nesting; [`crate::json_text::check_member`]
//! judges depth where it matters. A number's value is read with serde_json's `Number`, which
//! keeps its reading of digits with none of the typed machinery.

/// Whether `text` starts (after whitespace) as an object does: its first token is `{`.
pub(crate) fn opens_object(text: &str) -> bool {
    let mut s = Scanner { bytes: text.as_bytes(), at: 0 };
    s.space();
    s.peek() == Some(b'{')
}

/// The value `text` holds, whitespace around it cut; `None` when `text` is not one JSON value.
pub(crate) fn value(text: &str) -> Option<&str> {
    let mut s = Scanner { bytes: text.as_bytes(), at: 0 };
    s.space();
    let start = s.at;
    s.value()?;
    let end = s.at;
    s.space();
    (s.at == text.len()).then(|| &text[start..end])
}

/// The members of the object `text` holds (whitespace around it allowed), in order, as raw text:
/// each name as sent (quoted, escapes kept), each value as sent. `None` when `text` is not a
/// JSON object. A name may come twice: which one counts is the reader's call.
pub(crate) fn members(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut s = Scanner { bytes: text.as_bytes(), at: 0 };
    let mut out = Vec::new();
    s.space();
    s.eat(b'{').then_some(())?;
    s.space();
    if !s.eat(b'}') {
        loop {
            s.space();
            let start = s.at;
            let end = s.name()?;
            let name = &text[start..end];
            s.space();
            let value = s.at;
            s.value()?;
            out.push((name, &text[value..s.at]));
            s.space();
            match s.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.space();
    (s.at == text.len()).then_some(out)
}

/// The text of a JSON string token (`raw`: valid JSON, quotes included); `None` when `raw` is
/// another kind of value, or when an escape in it is a lone surrogate (the one valid JSON
/// string that is no text).
pub(crate) fn string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        let mut next = at + 2;
        let c = match *rest.as_bytes().get(at + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(rest, at + 2)?;
                next = at + 6;
                match unit {
                    0xD800..=0xDBFF => {
                        // A high half counts only with a low half's escape right after it.
                        let low = (rest.as_bytes().get(next..next + 2) == Some(b"\\u"))
                            .then(|| hex4(rest, next + 2))
                            .flatten()
                            .filter(|low| (0xDC00..=0xDFFF).contains(low))?;
                        next += 6;
                        char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                    }
                    _ => char::from_u32(unit)?,
                }
            }
            _ => return None,
        };
        out.push(c);
        rest = &rest[next..];
    }
    out.push_str(rest);
    Some(out)
}

/// The four hex digits at `text[at..]` as a UTF-16 unit.
pub(crate) fn hex4(text: &str, at: usize) -> Option<u32> {
    let digits = text.get(at..at + 4)?;
    // `from_str_radix` would also take a sign.
    digits.bytes().all(|b| b.is_ascii_hexdigit()).then(|| u32::from_str_radix(digits, 16).ok()).flatten()
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn eat(&mut self, b: u8) -> bool {
        let here = self.peek() == Some(b);
        self.at += usize::from(here);
        here
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// One value, arrays and objects nested to any depth without recursion: `closers` holds
    /// what each open array or object waits for.
    fn value(&mut self) -> Option<()> {
        let mut closers = Vec::new();
        loop {
            self.space();
            match self.peek()? {
                b'{' => {
                    self.at += 1;
                    self.space();
                    if !self.eat(b'}') {
                        closers.push(b'}');
                        self.name()?;
                        continue;
                    }
                }
                b'[' => {
                    self.at += 1;
                    self.space();
                    if !self.eat(b']') {
                        closers.push(b']');
                        continue;
                    }
                }
                b'"' => self.string()?,
                b't' => self.word(b"true")?,
                b'f' => self.word(b"false")?,
                b'n' => self.word(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close what it ends, or go on to the next item.
            loop {
                let Some(&closer) = closers.last() else { return Some(()) };
                self.space();
                match self.next()? {
                    b',' if closer == b'}' => {
                        self.space();
                        self.name()?;
                        break;
                    }
                    b',' => break,
                    b if b == closer => {
                        closers.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A member's name and its colon: where the name ends.
    fn name(&mut self) -> Option<usize> {
        self.string()?;
        let end = self.at;
        self.space();
        self.eat(b':').then_some(end)
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.') {
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let _ = self.eat(b'+') || self.eat(b'-');
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let from = self.at;
        self.digits();
        (self.at > from).then_some(())
    }

    /// A string token: no control character in it, each escape one JSON has (a `\u` escape is
    /// four hex digits, whatever unit they name: a lone surrogate is valid JSON).
    fn string(&mut self) -> Option<()> {
        (self.next()? == b'"').then_some(())?;
        loop {
            let rest = &self.bytes[self.at..];
            let stop = memchr::memchr2(b'"', b'\\', rest)?;
            // No early exit, so the check runs over the bytes in wide steps.
            if rest[..stop].iter().fold(false, |control, &b| control | (b < 0x20)) {
                return None;
            }
            self.at += stop + 1;
            if rest[stop] == b'"' {
                return Some(());
            }
            match self.next()? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => {
                    let digits = self.bytes.get(self.at..self.at + 4)?;
                    digits.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                    self.at += 4;
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    /// serde_json's members of an object, as raw text.
    struct RawMembers<'a>(Vec<(&'a RawValue, &'a RawValue)>);

    impl<'de> serde::Deserialize<'de> for RawMembers<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = RawMembers<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RawMembers<'de>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        out.push(entry);
                    }
                    Ok(RawMembers(out))
                }
            }
            d.deserialize_map(V)
        }
    }

    /// serde_json's answer for the same text: the value's raw text, as its `RawValue` keeps it.
    fn serde_value(text: &str) -> Option<&str> {
        serde_json::from_str::<&RawValue>(text).ok().map(RawValue::get)
    }

    #[test]
    fn takes_and_refuses_what_serde_json_does() {
        let cases = [
            "0",
            "-0",
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "1e+",
            "1E-7",
            "-12.5e+3",
            "1.5E3",
            "+1",
            "0x10",
            "true",
            "tru",
            "nul",
            "null ",
            " \t\r\nfalse\n",
            "\u{b}1",
            "\"a\"",
            "\"\\u00e9\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\\x\"",
            "\"\t\"",
            "\"\u{1f}\"",
            "\"\u{7f}é\"",
            "\"unterminated",
            "\"\\\"",
            "[]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[[[]]]",
            "[[]",
            "{}",
            "{,}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":}",
            "{1:2}",
            "{\"a\":1,\"a\":2}",
            "{\"a\":[{\"b\":{}}],\"c\":\"}\"}",
            "{}}",
            "1 2",
            "",
            " ",
            "[1]x",
        ];
        for text in cases {
            assert_eq!(value(text), serde_value(text), "{text:?}");
        }
    }

    #[test]
    fn members_in_order_as_sent() {
        let text = " {\"a\" : 1 ,\"b\\u0041\":{\"c\":[1,\"]\"]}, \"a\":\"x\\\"\"} ";
        assert_eq!(
            members(text).unwrap(),
            vec![("\"a\"", "1"), ("\"b\\u0041\"", "{\"c\":[1,\"]\"]}"), ("\"a\"", "\"x\\\"\"")]
        );
        assert_eq!(members("{}").unwrap(), vec![]);
        for not_an_object in ["[]", "1", "{\"a\":1", "{\"a\":1}x", "{\"a\":1,}", "{\"a\"}"] {
            assert_eq!(members(not_an_object), None, "{not_an_object:?}");
        }
    }

    #[test]
    fn deep_nesting_is_scanned_without_recursion() {
        let deep = "[".repeat(200_000) + &"]".repeat(200_000);
        assert_eq!(value(&deep), Some(deep.as_str()));
        assert_eq!(value(&deep[1..]), None);
    }

    #[test]
    fn strings_read_as_serde_json_reads_them() {
        for raw in [r#""""#, r#""a\"b\\c\/d\be\ff\ng\rh\ti""#, r#""\u00e9\u20AC\ud83d\ude00 é""#, r#""\u0000""#] {
            assert_eq!(string(raw), serde_json::from_str::<String>(raw).ok(), "{raw}");
        }
        for lone in [r#""\ud800""#, r#""\udc00""#, r#""\ud800\u0041""#, r#""\ud800x""#, r#""\ude00\ud83d""#] {
            assert_eq!(string(lone), None, "{lone}");
            assert!(serde_json::from_str::<String>(lone).is_err(), "{lone}");
        }
    }

    /// Text near JSON: valid JSON pieces with bytes changed, dropped or repeated.
    fn near_json() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"",
            "\\",
            "\\u",
            "d83d",
            "\\ude00",
            "\\n",
            "\\x",
            "0",
            "-",
            "1",
            ".",
            "e",
            "E",
            "+",
            "9",
            "true",
            "false",
            "null",
            "nul",
            "\"k\"",
            "\"v\"",
            "é",
            "\u{1}",
            "\t",
            "\u{7f}",
            "a",
            "01",
            "1.5",
            "\"\\ud800\"",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    fn json() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<f64>().prop_map(|f| if f.is_finite() { format!("{f:e}") } else { "1e999".to_owned() }),
            any::<i64>().prop_map(|n| n.to_string()),
            "\\PC{0,8}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(" , "))),
                prop::collection::vec(("[a-z\"\\\\]{0,3}", inner), 0..6).prop_map(|v| {
                    let members: Vec<String> =
                        v.into_iter().map(|(k, v)| format!("{}:{v}", serde_json::to_string(&k).unwrap())).collect();
                    format!("{{\n{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn takes_what_serde_json_takes(text in prop_oneof![json(), near_json()]) {
            prop_assert_eq!(value(&text), serde_value(&text));
            let serde_members = serde_json::from_str::<RawMembers>(&text)
                .ok()
                .map(|m| m.0.into_iter().map(|(k, v)| (k.get(), v.get())).collect::<Vec<_>>());
            prop_assert_eq!(members(&text), serde_members);
        }

        #[test]
        fn strings_read_alike(
            s in "\\PC{0,12}",
            units in prop::collection::vec(prop_oneof![any::<u16>(), 0xD800u16..0xE000], 0..6),
        ) {
            let escaped: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
            for raw in [serde_json::to_string(&s).unwrap(), format!("\"{escaped}\"")] {
                prop_assert_eq!(string(&raw), serde_json::from_str::<String>(&raw).ok());
            }
        }
    }
}
