//! The merge module of `@acp-fs/wasm`: the three-way merge of a stale write (semantics.md §9)
//! and nothing else.
//!
//! The fs/* module a web page downloads is built without the engine's `merge` feature: the diff
//! code is 7.8 KB of it gzipped, and only a write to a file that changed since the agent read it
//! needs it. Such a write asks the host (`{op: "merge"}`), and the package's driver answers with
//! this module, fetched the first time (docs/design.md#the-merge-module).
#![forbid(unsafe_code)]

use wasm_bindgen::prelude::*;

/// The merged text of `base` (what the agent read) changed into `current` (what is there now)
/// and into `ours` (the agent's content); `undefined` where the edits overlap.
/// [`acp_fs::merge::merge`], as JS calls it.
#[wasm_bindgen]
pub fn merge(base: &str, current: &str, ours: &str) -> Option<String> {
    acp_fs::merge::merge(base, current, ours)
}

// The modules' allocator (talc; without the fs/* module's free lists, which cost bytes).
use acp_fs_wasm_alloc as _;

#[cfg(test)]
mod tests {
    #[test]
    fn exports_the_engines_merge() {
        assert_eq!(super::merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n").as_deref(), Some("A\nb\nC\n"));
        assert_eq!(super::merge("a\n", "b\n", "c\n"), None);
    }
}
