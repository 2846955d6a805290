//! A clean open document is a cache of the storage (semantics.md §9 "Open documents").
//!
//! The host marks a buffer clean when it saved it or reloaded it from storage: from then on it
//! only mirrors the file, and a terminal, a formatter or `git checkout` can move the file on
//! without the editor noticing. So reads and writes of a clean document go to the storage, and
//! when what the storage holds is not the clean text, the document is stale: the host is told,
//! so the editor can reload it. A buffer with unsaved edits is the user's and is never
//! replaced by what storage holds.

use crate::index::Identity;
use crate::path::AbsPath;
use crate::state::{Document, Shared};

/// What a read or write saw of the storage behind a clean document.
pub(crate) enum Evidence<'a> {
    /// The whole text (`None`: no file), at this version.
    Whole(Option<&'a str>, Option<Identity>),
    /// Only a window, of the file at this version: enough to see that it moved since the text
    /// was last seen to match, not to compare the text.
    Window(Option<Identity>),
}

/// What `evidence` says of the clean document `doc` (opened under `name`): its name when the
/// storage no longer holds its text. Reported by every request that finds it so, until the
/// host reloads the document or the user types: a request that fails after the check does
/// not swallow the news.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn check(shared: &Shared, name: &AbsPath, doc: &Document, evidence: Evidence<'_>) -> Option<String> {
    let stale = match evidence {
        Evidence::Whole(Some(text), identity) if same_text(&doc.text, text) => {
            shared.document_verified(name, doc.version, identity);
            false
        }
        Evidence::Whole(..) => true,
        Evidence::Window(now) => matches!((doc.verified, now), (Some(then), Some(now)) if then != now),
    };
    stale.then(|| name.as_str().to_owned())
}

/// The same text as far as an editor's buffer can tell: editors hold a file's lines with `\n`
/// and without its byte order mark, so `\r\n` and a leading BOM do not make a difference.
fn same_text(buffer: &str, stored: &str) -> bool {
    lines_as_lf(buffer).eq(lines_as_lf(stored))
}

/// The bytes of `text` without a leading BOM, each `\r\n` read as `\n`.
fn lines_as_lf(text: &str) -> impl Iterator<Item = u8> + '_ {
    let bytes = text.strip_prefix('\u{FEFF}').unwrap_or(text).as_bytes();
    bytes.iter().enumerate().filter(move |&(i, &b)| !(b == b'\r' && bytes.get(i + 1) == Some(&b'\n'))).map(|(_, &b)| b)
}

#[cfg(test)]
mod tests {
    use super::same_text;

    #[test]
    fn line_endings_and_a_bom_are_not_a_difference() {
        assert!(same_text("a\nb\n", "a\r\nb\r\n"));
        assert!(same_text("a\nb", "\u{FEFF}a\nb"));
        assert!(!same_text("a\nb\n", "a\nb\nc\n"));
        assert!(!same_text("a\nb\n", "a\nB\n"));
        assert!(!same_text("a\r\n", "a\n\n"));
        // Equal lengths, endings in other places: still the same lines.
        assert!(same_text("a\r\nb\n", "a\nb\r\n"));
        assert!(!same_text("a\r\nb\n", "a\nb\r\nc"));
    }
}
