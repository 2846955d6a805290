//! Absolute path forms, lexical normalization and containment (semantics.md §3, §8).
//!
//! `std::path` is deliberately not used: its rules depend on the compile target, and the same
//! request must be judged the same way by the native addon on Linux, the wasm build in a
//! browser and a Windows host.

use std::fmt;

/// Which family an absolute path belongs to. Paths of different styles never contain each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `/a/b`
    Posix,
    /// `C:\a\b` (also accepted as `C:/a/b`)
    Drive,
    /// `\\server\share\a`
    Unc,
}

/// A validated, lexically normalized absolute path.
///
/// ```
/// use acp_fs::path::AbsPath;
/// let p = AbsPath::parse("/project/src/../lib/./a.rs").unwrap();
/// assert_eq!(p.as_str(), "/project/lib/a.rs");
/// let w = AbsPath::parse("c:/Users/me/..\\proj").unwrap();
/// assert_eq!(w.as_str(), "C:\\Users\\proj");
/// assert!(AbsPath::parse("src/main.rs").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbsPath {
    text: String,
    style: Style,
    /// Length of the root prefix (`/`, `C:\`, `\\server\share`).
    root_len: usize,
}

impl AbsPath {
    /// Validates and normalizes `input`; the error is the reason, for `data.reason`.
    pub fn parse(input: &str) -> Result<AbsPath, &'static str> {
        if input.is_empty() {
            return Err("path is empty");
        }
        if input.contains('\0') {
            return Err("path contains a NUL character");
        }
        let bytes = input.as_bytes();
        // Bytes, not `&input[..5]`: a multi-byte character across byte 5 would panic.
        if bytes.len() >= 5 && bytes[..5].eq_ignore_ascii_case(b"file:") {
            return Err("file:// URIs are not accepted; send an absolute path");
        }
        if bytes[0] == b'/' {
            // On a Windows host `\` separates too, so `/p/..\..\x` would climb out after the
            // check: refuse the ambiguity instead of guessing the host.
            if input.contains('\\') {
                return Err("a POSIX path must not contain a backslash");
            }
            // Most paths arrive normalized: kept as they are, without taking them apart.
            if input[1..].split('/').all(|c| !matches!(c, "" | "." | "..")) {
                return Ok(AbsPath { text: input.to_owned(), style: Style::Posix, root_len: 1 });
            }
            return Ok(Self::build(Style::Posix, String::from("/"), input[1..].split('/')));
        }
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            if bytes.len() == 2 || !is_win_sep(bytes[2]) {
                return Err("drive-relative paths are not absolute");
            }
            let root = format!("{}:\\", (bytes[0] as char).to_ascii_uppercase());
            return Ok(Self::build(Style::Drive, root, input[3..].split(is_win_sep_char)));
        }
        if let Some(rest) = input.strip_prefix("\\\\") {
            let mut parts = rest.split(is_win_sep_char);
            let server = parts.next().unwrap_or("");
            if server == "?" || server == "." {
                return Err("device and verbatim paths (\\\\?\\, \\\\.\\) are not accepted");
            }
            let share = parts.next().unwrap_or("");
            if [server, share].iter().any(|c| c.is_empty() || *c == "." || *c == "..") {
                return Err("UNC paths need a server and a share");
            }
            let root = format!("\\\\{server}\\{share}");
            return Ok(Self::build(Style::Unc, root, parts));
        }
        Err("path must be absolute")
    }

    fn build<'a>(style: Style, root: String, parts: impl Iterator<Item = &'a str>) -> AbsPath {
        let mut stack: Vec<&str> = Vec::new();
        for part in parts {
            match part {
                "" | "." => {}
                ".." => {
                    stack.pop();
                }
                p => stack.push(p),
            }
        }
        let root_len = root.len();
        let mut text = root;
        let sep = style.separator();
        for (i, part) in stack.iter().enumerate() {
            // The POSIX and drive roots already end with a separator; the UNC root does not.
            if i > 0 || style == Style::Unc {
                text.push(sep);
            }
            text.push_str(part);
        }
        AbsPath { text, style, root_len }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn style(&self) -> Style {
        self.style
    }

    /// True for `/`, `C:\` and `\\server\share`.
    pub fn is_root(&self) -> bool {
        self.text.len() == self.root_len
    }

    /// The last component, if this is not a root.
    pub fn file_name(&self) -> Option<&str> {
        self.components().last()
    }

    /// The components below the root, in order.
    pub fn components(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.text[self.root_len..].split(self.style.separator()).filter(|c| !c.is_empty())
    }

    /// The containing directory; `None` for a root.
    pub fn parent(&self) -> Option<AbsPath> {
        if self.is_root() {
            return None;
        }
        let cut = self.text.rfind(self.style.separator()).unwrap_or(0).max(self.root_len);
        Some(AbsPath { text: self.text[..cut].to_owned(), style: self.style, root_len: self.root_len })
    }

    /// Appends normalized components (names without separators, as produced by `components`).
    pub fn join<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> AbsPath {
        let mut out = self.clone();
        for name in names {
            if !out.is_root() || out.style == Style::Unc {
                out.text.push(out.style.separator());
            }
            out.text.push_str(name);
        }
        out
    }

    /// Whether `self` is `other` or lies below it (same style; drive and UNC paths compare
    /// ASCII-case-insensitively, as Windows file systems do).
    ///
    /// ```
    /// use acp_fs::path::AbsPath;
    /// let root = AbsPath::parse("/project").unwrap();
    /// assert!(AbsPath::parse("/project/a").unwrap().starts_with(&root));
    /// assert!(!AbsPath::parse("/project2/a").unwrap().starts_with(&root));
    /// ```
    pub fn starts_with(&self, other: &AbsPath) -> bool {
        if self.style != other.style || self.text.len() < other.text.len() {
            return false;
        }
        // Bytes, not `split_at`: the cut may fall inside a character of `self`.
        let (head, tail) = self.text.as_bytes().split_at(other.text.len());
        let same = match self.style {
            Style::Posix => head == other.text.as_bytes(),
            Style::Drive | Style::Unc => head.eq_ignore_ascii_case(other.text.as_bytes()),
        };
        let sep = self.style.separator() as u8;
        same && (tail.is_empty() || other.is_root() && other.style != Style::Unc || tail[0] == sep)
    }

    /// Whether two paths name the same place (case rules as in [`AbsPath::starts_with`]).
    pub fn same_as(&self, other: &AbsPath) -> bool {
        self.text.len() == other.text.len() && self.starts_with(other)
    }
}

impl Style {
    pub fn separator(self) -> char {
        match self {
            Style::Posix => '/',
            Style::Drive | Style::Unc => '\\',
        }
    }
}

impl fmt::Display for AbsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn is_win_sep(b: u8) -> bool {
    b == b'\\' || b == b'/'
}

fn is_win_sep_char(c: char) -> bool {
    c == '\\' || c == '/'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        AbsPath::parse(s).unwrap().as_str().to_owned()
    }

    #[test]
    fn posix_normalization() {
        assert_eq!(norm("/"), "/");
        assert_eq!(norm("//a//b/"), "/a/b");
        assert_eq!(norm("/a/./b/../c"), "/a/c");
        assert_eq!(norm("/.."), "/");
        assert_eq!(norm("/a/../../b"), "/b");
        assert!(AbsPath::parse("/a\\b").is_err());
        assert_eq!(norm("//?/C:/x"), "/?/C:/x");
    }

    proptest::proptest! {
        /// A POSIX path kept as it arrived is the one normalization would have built.
        #[test]
        fn a_normal_posix_path_is_kept_as_built(tail in "[a./]{0,8}") {
            let input = format!("/{tail}");
            let built = AbsPath::build(Style::Posix, String::from("/"), input[1..].split('/'));
            proptest::prop_assert_eq!(AbsPath::parse(&input), Ok(built));
        }
    }

    #[test]
    fn windows_forms() {
        assert_eq!(norm("C:\\"), "C:\\");
        assert_eq!(norm("c:/x/y/"), "C:\\x\\y");
        assert_eq!(norm("C:\\x\\..\\..\\y"), "C:\\y");
        assert_eq!(norm("\\\\srv\\share\\a\\..\\..\\b"), "\\\\srv\\share\\b");
        assert_eq!(norm("\\\\srv\\share"), "\\\\srv\\share");
        assert_eq!(AbsPath::parse("C:foo"), Err("drive-relative paths are not absolute"));
        assert!(AbsPath::parse("C:").is_err());
        assert!(AbsPath::parse("\\\\?\\C:\\x").is_err());
        assert!(AbsPath::parse("\\\\.\\pipe\\x").is_err());
        assert!(AbsPath::parse("\\\\srv").is_err());
        assert!(AbsPath::parse("\\x").is_err());
    }

    #[test]
    fn never_slices_inside_a_character() {
        assert_eq!(AbsPath::parse("abcdé/x"), Err("path must be absolute"));
        assert!(AbsPath::parse("FILE:///x").is_err());
        assert_eq!(norm("/é/ü"), "/é/ü");
    }

    #[test]
    fn parents_and_joins() {
        let p = AbsPath::parse("/a/b").unwrap();
        assert_eq!(p.parent().unwrap().as_str(), "/a");
        assert_eq!(p.parent().unwrap().parent().unwrap().as_str(), "/");
        assert!(AbsPath::parse("/").unwrap().parent().is_none());
        assert_eq!(AbsPath::parse("/").unwrap().join(["x", "y"]).as_str(), "/x/y");
        let u = AbsPath::parse("\\\\s\\h\\a").unwrap();
        assert_eq!(u.parent().unwrap().as_str(), "\\\\s\\h");
        assert_eq!(u.parent().unwrap().join(["z"]).as_str(), "\\\\s\\h\\z");
        assert_eq!(AbsPath::parse("C:\\").unwrap().join(["z"]).as_str(), "C:\\z");
        assert_eq!(AbsPath::parse("C:\\a").unwrap().parent().unwrap().as_str(), "C:\\");
    }

    #[test]
    fn containment() {
        let root = AbsPath::parse("C:\\Proj").unwrap();
        assert!(AbsPath::parse("c:/proj/x").unwrap().starts_with(&root));
        assert!(!AbsPath::parse("C:\\Project").unwrap().starts_with(&root));
        assert!(AbsPath::parse("/x").unwrap().starts_with(&AbsPath::parse("/").unwrap()));
        assert!(AbsPath::parse("C:\\x").unwrap().starts_with(&AbsPath::parse("C:\\").unwrap()));
        let unc = AbsPath::parse("\\\\s\\h").unwrap();
        assert!(AbsPath::parse("\\\\s\\h\\x").unwrap().starts_with(&unc));
        assert!(!AbsPath::parse("\\\\s\\hx").unwrap().starts_with(&unc));
        assert!(!AbsPath::parse("/x").unwrap().starts_with(&root));
        assert!(!AbsPath::parse("/é").unwrap().starts_with(&AbsPath::parse("/x").unwrap()));
    }
}
