//! The three-way merge of a stale write (semantics.md §9): the one place that says how the
//! agent's text, the text it read and the text there now are merged.
//!
//! Built in with the `merge` feature. Without it (the fs/* wasm module a web page downloads)
//! a write that needs a merge asks the host with [`Io::Merge`](crate::Io::Merge), and the host
//! answers with this same function from a module of its own (`bindings-wasm/merge`).

/// A three-way merge of line-based edits: `Some(text)` when the agent's edit (`ours`, the
/// `base` it read changed into its content) and the changes made since it read the file
/// (`current`) touch different lines, `None` when they overlap.
///
/// ```
/// let base = "a\nb\nc\n";
/// // The user changed the first line; the agent, the last one.
/// assert_eq!(acp_fs::merge::merge(base, "A\nb\nc\n", "a\nb\nC\n").as_deref(), Some("A\nb\nC\n"));
/// // Both changed the same line: no merge.
/// assert_eq!(acp_fs::merge::merge(base, "a\nB\nc\n", "a\nX\nc\n"), None);
/// ```
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn merge(base: &str, current: &str, ours: &str) -> Option<String> {
    // diffy's arguments are (ancestor, ours, theirs): "ours" is what is there now, so a clean
    // merge keeps its text and applies the agent's edit on top.
    diffy::merge(base, current, ours).ok()
}
