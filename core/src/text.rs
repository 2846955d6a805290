//! Bytes to text and back (semantics.md §4): strict UTF-8, BOMs, UTF-16, line endings.

/// How a file's bytes encode its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// UTF-8 with a byte-order mark, remembered so a write puts it back.
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

/// The NUL test covers this much of the file's head (semantics.md §4).
pub const SNIFF_BYTES: usize = 8 * 1024;

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// Why bytes are not text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotText {
    Binary,
    Invalid,
}

impl Encoding {
    /// Detects the encoding from the file's head; `head` must hold the first
    /// [`SNIFF_BYTES`] bytes, or the whole file if it is shorter.
    pub fn sniff(head: &[u8]) -> Result<Encoding, NotText> {
        if head.starts_with(UTF8_BOM) {
            // A BOM does not excuse a NUL: the BOM'd text is still checked below.
        } else if head.starts_with(&[0xFF, 0xFE]) {
            return Ok(Encoding::Utf16Le);
        } else if head.starts_with(&[0xFE, 0xFF]) {
            return Ok(Encoding::Utf16Be);
        }
        let limit = head.len().min(SNIFF_BYTES);
        if memchr::memchr(0, &head[..limit]).is_some() {
            return Err(NotText::Binary);
        }
        Ok(if head.starts_with(UTF8_BOM) { Encoding::Utf8Bom } else { Encoding::Utf8 })
    }

    /// Bytes of the byte-order mark at the start of the file.
    pub fn bom_len(self) -> usize {
        match self {
            Encoding::Utf8 => 0,
            Encoding::Utf8Bom => 3,
            Encoding::Utf16Le | Encoding::Utf16Be => 2,
        }
    }

    /// Whether text can be streamed (UTF-8 windows are byte ranges of the file).
    pub fn is_utf8(self) -> bool {
        matches!(self, Encoding::Utf8 | Encoding::Utf8Bom)
    }
}

/// Decodes a whole file strictly.
pub fn decode(bytes: &[u8]) -> Result<(Encoding, String), NotText> {
    let encoding = Encoding::sniff(bytes)?;
    let body = &bytes[encoding.bom_len()..];
    let text = match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => {
            simdutf8::basic::from_utf8(body).map_err(|_| NotText::Invalid)?.to_owned()
        }
        Encoding::Utf16Le => decode_utf16(body, u16::from_le_bytes)?,
        Encoding::Utf16Be => decode_utf16(body, u16::from_be_bytes)?,
    };
    Ok((encoding, text))
}

/// Decodes UTF-16 code units (after the BOM); odd lengths and lone surrogates are invalid.
pub fn decode_utf16(body: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, NotText> {
    if body.len() % 2 != 0 {
        return Err(NotText::Invalid);
    }
    let units = body.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    char::decode_utf16(units).collect::<Result<String, _>>().map_err(|_| NotText::Invalid)
}

/// Encodes text for a file of `encoding`. A leading U+FEFF in `text` is taken as the BOM
/// itself, so a BOM is never doubled.
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn encode(text: &str, encoding: Encoding) -> Vec<u8> {
    let text = strip_bom(text);
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => [UTF8_BOM, text.as_bytes()].concat(),
        Encoding::Utf16Le => utf16(text, [0xFF, 0xFE], u16::to_le_bytes),
        Encoding::Utf16Be => utf16(text, [0xFE, 0xFF], u16::to_be_bytes),
    }
}

#[cfg_attr(acp_fs_small, optimize(size))]
fn utf16(text: &str, bom: [u8; 2], bytes: fn(u16) -> [u8; 2]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + text.len() * 2);
    out.extend_from_slice(&bom);
    for u in text.encode_utf16() {
        out.extend_from_slice(&bytes(u));
    }
    out
}

/// `text` without a leading U+FEFF.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}

/// Whether the text's first line terminator is `\r\n` (semantics.md §8).
pub fn uses_crlf(text: &str) -> bool {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(i) => i > 0 && text.as_bytes()[i - 1] == b'\r',
        None => false,
    }
}

/// `\n` → `\r\n`, for content that has no `\r` at all.
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    let mut rest = text;
    while let Some(i) = memchr::memchr(b'\n', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        out.push_str("\r\n");
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_strictly() {
        assert_eq!(decode(b"\xEF\xBB\xBFhi").unwrap(), (Encoding::Utf8Bom, "hi".to_owned()));
        assert_eq!(decode(&[0xFF, 0xFE, b'h', 0, b'i', 0]).unwrap(), (Encoding::Utf16Le, "hi".to_owned()));
        assert!(decode(b"\xC3(").is_err());
    }

    #[test]
    fn round_trips() {
        for enc in [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le, Encoding::Utf16Be] {
            let bytes = encode("a\r\nß😀", enc);
            assert_eq!(decode(&bytes).unwrap(), (enc, "a\r\nß😀".to_owned()));
        }
        assert_eq!(encode("\u{FEFF}x", Encoding::Utf8Bom), b"\xEF\xBB\xBFx");
    }

    #[test]
    fn binary_and_invalid() {
        assert_eq!(decode(b"a\0b"), Err(NotText::Binary));
        let mut late_nul = vec![b'a'; SNIFF_BYTES];
        late_nul.push(0);
        assert!(decode(&late_nul).is_ok(), "a NUL after the first 8 KiB is text");
        assert_eq!(decode(&[0xFF, 0xFE, 0x00, 0xD8]), Err(NotText::Invalid), "lone surrogate");
        assert_eq!(decode(&[0xFF, 0xFE, 0x61]), Err(NotText::Invalid), "odd length");
    }

    #[test]
    fn crlf() {
        assert!(uses_crlf("a\r\nb\n"));
        assert!(!uses_crlf("a\nb\r\n"));
        assert!(!uses_crlf("\nb"));
        assert_eq!(to_crlf("a\nb\n"), "a\r\nb\r\n");
    }
}
