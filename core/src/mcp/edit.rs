//! `edit_file`'s text work (semantics.md §10.7): exact-text replacements applied in order to
//! what is there now, and the git-style unified diff the reference server answers with.
//!
//! Pure functions over strings: the operation (reading what is there, the ledger, approval,
//! the write) is the write path's (`write.rs`), which calls [`apply`] on the current text.

use crate::error::AcpFsError;
use crate::text;

/// One replacement: `old_text` must occur exactly once in the text as the edits before it left
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub old_text: String,
    pub new_text: String,
}

/// Applies `edits` in order to `current`; `crlf_aware`: the file's line endings are kept (an
/// `oldText`/`newText` written with `\n` is matched and written as `\r\n` in a file whose
/// lines end in `\r\n`, semantics.md §4), unless option `lineEndings` is `asIs`.
///
/// An `oldText` that is not found, or found more than once, fails the whole request with
/// `-32602` naming `edits[i].oldText`: nothing is applied. No whitespace-flexible matching (the
/// reference server's fallback): an edit lands exactly where the agent quoted, and the error
/// says where a whitespace-insensitive match is, so the model can resend the exact text.
pub(crate) fn apply(current: &str, edits: &[Edit], crlf_aware: bool) -> Result<String, AcpFsError> {
    let crlf = crlf_aware && text::uses_crlf(current);
    let mut out = current.to_owned();
    for (i, edit) in edits.iter().enumerate() {
        let field = format!("edits[{i}].oldText");
        // The agent's text in the file's line endings, when it has none of its own.
        let convert = |s: &str| if crlf && !s.contains('\r') { text::to_crlf(s) } else { s.to_owned() };
        let (old, at) = match find_unique(&out, &edit.old_text) {
            Found::Once(at) => (edit.old_text.clone(), at),
            Found::None if crlf && edit.old_text.contains('\n') && !edit.old_text.contains('\r') => {
                let old = text::to_crlf(&edit.old_text);
                match find_unique(&out, &old) {
                    Found::Once(at) => (old, at),
                    found => return Err(refuse(&field, &out, &edit.old_text, found, i)),
                }
            }
            found => return Err(refuse(&field, &out, &edit.old_text, found, i)),
        };
        let new = convert(&edit.new_text);
        out.replace_range(at..at + old.len(), &new);
    }
    Ok(out)
}

#[derive(Debug, PartialEq)]
enum Found {
    None,
    Once(usize),
    Many(usize),
}

/// Where `needle` occurs in `hay`, counting overlapping occurrences (`aa` is twice in `aaa`:
/// either replacement is a guess). An empty needle occurs once in an empty text only.
fn find_unique(hay: &str, needle: &str) -> Found {
    if needle.is_empty() {
        return if hay.is_empty() { Found::Once(0) } else { Found::Many(hay.chars().count() + 1) };
    }
    let Some(first) = hay.find(needle) else { return Found::None };
    let mut count = 1;
    let mut from = first;
    while let Some(next) = hay[from..].char_indices().nth(1).map(|(j, _)| from + j) {
        match hay[next..].find(needle) {
            Some(j) => {
                count += 1;
                from = next + j;
            }
            None => break,
        }
    }
    if count == 1 {
        Found::Once(first)
    } else {
        Found::Many(count)
    }
}

fn refuse(field: &str, text: &str, old: &str, found: Found, index: usize) -> AcpFsError {
    let reason = match found {
        Found::Many(n) if old.is_empty() => format!(
            "edit {index}: oldText is empty, which matches {n} places; quote the text to replace \
             (an empty oldText only fits an empty file)"
        ),
        Found::Many(n) => format!(
            "edit {index}: oldText occurs {n} times in the file (after the edits before it); add \
             surrounding lines so that it occurs exactly once. Nothing was changed"
        ),
        _ => match loose_line(text, old) {
            Some(line) => format!(
                "edit {index}: oldText was not found exactly; lines matching it except for leading \
                 and trailing whitespace start at line {line}. Send oldText with the file's exact \
                 whitespace. Nothing was changed"
            ),
            None => format!(
                "edit {index}: oldText was not found in the file (after the edits before it); it must \
                 match exactly, whitespace and line breaks included. Read the file again. Nothing \
                 was changed"
            ),
        },
    };
    AcpFsError::invalid_params(field, reason)
}

/// The 1-based line where `old`'s lines match `text`'s lines with each line trimmed: what the
/// reference server would have matched with its whitespace-flexible fallback.
fn loose_line(text: &str, old: &str) -> Option<usize> {
    let want: Vec<&str> = old.lines().map(str::trim).collect();
    if want.is_empty() || want.iter().all(|l| l.is_empty()) {
        return None;
    }
    let have: Vec<&str> = text.lines().map(str::trim).collect();
    have.windows(want.len()).position(|w| w == want.as_slice()).map(|i| i + 1)
}

/// The reference server's diff: jsdiff's `createTwoFilesPatch(path, path, old, new,
/// "original", "modified")` form (an `Index:` line, a rule, `---`/`+++` headers naming the
/// file and the side, hunks with 4 lines of context). Unlike the reference, the texts are not
/// converted to `\n` first: the diff is of the exact texts, so it applies to the file as it is.
pub(crate) fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let patch = diffy::DiffOptions::new().set_context_len(4).create_patch(old, new);
    // diffy writes an empty context line as an empty line by default (git's
    // diff.suppressBlankEmpty); jsdiff, like `diff -u`, writes it as a single space.
    let patch = diffy::PatchFormatter::new().suppress_blank_empty(false).fmt_patch(&patch).to_string();
    // diffy quotes a file name with a tab in it; the reference's headers are `name<TAB>side`.
    let hunks = patch.splitn(3, '\n').nth(2).unwrap_or("");
    format!("Index: {path}\n{}\n--- {path}\toriginal\n+++ {path}\tmodified\n{hunks}", "=".repeat(67))
}

/// The diff as the reference's tool result shows it: in a ```` ```diff ```` fence with more
/// backticks than any run inside it, followed by a blank line.
pub(crate) fn fenced(diff: &str) -> String {
    let mut ticks = 3;
    while diff.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    let sep = if diff.ends_with('\n') { "" } else { "\n" };
    format!("{fence}diff\n{diff}{sep}{fence}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(old: &str, new: &str) -> Edit {
        Edit { old_text: old.into(), new_text: new.into() }
    }

    #[test]
    fn edits_apply_in_order_on_what_the_earlier_ones_left() {
        let got = apply("a\nb\nc\n", &[e("b\n", "B\nb2\n"), e("b2\nc", "C")], true).unwrap();
        assert_eq!(got, "a\nB\nC\n");
    }

    #[test]
    fn not_found_and_ambiguous_name_the_edit() {
        let err = apply("one\ntwo\n", &[e("one", "1"), e("three", "3")], true).unwrap_err();
        assert_eq!((err.code, err.data["field"].as_str()), (-32602, Some("edits[1].oldText")));
        assert!(err.data["reason"].as_str().unwrap().contains("not found"));
        let err = apply("x x\n", &[e("x", "y")], true).unwrap_err();
        assert_eq!(err.data["field"], "edits[0].oldText");
        assert!(err.data["reason"].as_str().unwrap().contains("occurs 2 times"));
        // Overlapping occurrences are two places too.
        let err = apply("aaa", &[e("aa", "b")], true).unwrap_err();
        assert!(err.data["reason"].as_str().unwrap().contains("occurs 2 times"));
        let err = apply("abc", &[e("", "z")], true).unwrap_err();
        assert!(err.data["reason"].as_str().unwrap().contains("empty"));
        assert_eq!(apply("", &[e("", "new\n")], true).unwrap(), "new\n");
    }

    #[test]
    fn whitespace_is_never_guessed_but_the_near_miss_is_named() {
        let err = apply("fn f() {\n    let x = 1;\n}\n", &[e("let x = 1;\n  }", "")], true).unwrap_err();
        assert!(err.data["reason"].as_str().unwrap().contains("start at line 2"), "{err}");
    }

    #[test]
    fn crlf_files_keep_crlf_and_lf_files_keep_lf() {
        let got = apply("a\r\nb\r\nc\r\n", &[e("a\nb\n", "x\ny\nz\n")], true).unwrap();
        assert_eq!(got, "x\r\ny\r\nz\r\nc\r\n");
        // A one-line oldText matches as is; its replacement still takes the file's endings.
        assert_eq!(apply("a\r\nb\r\n", &[e("b", "b\nb2")], true).unwrap(), "a\r\nb\r\nb2\r\n");
        // `lineEndings: asIs`: the agent's text goes in unchanged.
        assert_eq!(apply("a\r\nb\r\n", &[e("b", "b\nb2")], false).unwrap(), "a\r\nb\nb2\r\n");
        assert!(apply("a\r\nb\r\n", &[e("a\nb", "")], false).is_err());
        assert_eq!(apply("a\nb\n", &[e("a\nb", "c\nd")], true).unwrap(), "c\nd\n");
    }

    #[test]
    fn the_diff_is_the_reference_form() {
        let d = unified_diff("/p/a.txt", "one\ntwo\nthree\n", "one\n2\nthree\n");
        assert_eq!(
            d,
            "Index: /p/a.txt\n===================================================================\n\
             --- /p/a.txt\toriginal\n+++ /p/a.txt\tmodified\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
        );
        // An empty line of context is a space, as jsdiff writes it (`createTwoFilesPatch`).
        let d = unified_diff("/p", "a\n\nb\nc\n", "a\n\nb\nC\n");
        assert!(d.ends_with("@@ -1,4 +1,4 @@\n a\n \n b\n-c\n+C\n"), "{d}");
        assert_eq!(fenced("a\n"), "```diff\na\n```\n\n");
        assert_eq!(fenced("x ``` y"), "````diff\nx ``` y\n````\n\n");
    }

    fn lines() -> impl Strategy<Value = String> {
        let line = prop::sample::select(vec!["a", "b", "c", "", "  d", "é", "e\r"]);
        (prop::collection::vec(line, 0..12), any::<bool>()).prop_map(|(ls, last_newline)| {
            let mut s = ls.join("\n");
            if !s.is_empty() && last_newline {
                s.push('\n');
            }
            s
        })
    }

    proptest! {
        /// The dry run's diff, applied to the old text, gives the new text.
        #[test]
        fn diff_applies_to_the_old_text(old in lines(), new in lines()) {
            let d = unified_diff("/p/f", &old, &new);
            let body = d.split_once('\n').unwrap().1.split_once('\n').unwrap().1;
            let patch = diffy::Patch::from_str(body).unwrap();
            prop_assert_eq!(diffy::apply(&old, &patch).unwrap(), new);
        }

        /// An edit replaces exactly its one occurrence and leaves every other byte alone.
        #[test]
        fn an_edit_changes_only_its_span(before in lines(), after in lines(), new in "[a-z\n]{0,8}") {
            let text = format!("{before}<<mark>>{after}");
            let got = apply(&text, &[e("<<mark>>", &new)], false).unwrap();
            prop_assert_eq!(got, format!("{before}{new}{after}"));
        }
    }
}
