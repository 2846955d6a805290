//! `search_files`: the paths below a directory whose relative path matches a glob, one per
//! line (the reference server's form), over [`walk`](super::walk) (semantics.md §10).

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Need, Tool};
use super::walk::{self, Budget, Dir, Kind};
use super::{globs, output, start};
use crate::error::AcpFsError;
use crate::operation::Operation;
use serde_json::json;

pub(crate) const SEARCH_FILES: Tool = Tool {
    name: "search_files",
    title: "Search Files",
    description: "Recursively search for files and directories matching a pattern. \
        The patterns should be glob-style patterns that match paths relative to the searched path. \
        Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to match files in all subdirectories. \
        Returns full paths to all matching items. Great for finding files when you don't know their exact location. \
        Only searches within allowed directories.",
    input: || {
        object_schema(
            json!({"path": {"type": "string"}, "pattern": {"type": "string"},
                   "excludePatterns": {"type": "array", "items": {"type": "string"}, "default": []}}),
            &["path", "pattern"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::List],
    start,
    answer: registry::answer,
};

fn start(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let pattern = globs::glob("pattern", call.string("pattern")?)?.compile_matcher();
    let excludes = globs::set("excludePatterns", &call.strings("excludePatterns")?, globs::as_given)?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let root = walk::open(&shared, &io, &session_id, path).await?;
        let mut budget = Budget::new(&shared);
        let mut found = Vec::new();
        // Depth first in name order: a directory's subtree comes right after its own line.
        let first = walk::kinds(&shared, &io, &root).await?.into_iter();
        let mut stack: Vec<(Dir, String, u64, std::vec::IntoIter<walk::Entry>)> = vec![(root, String::new(), 0, first)];
        while let Some((dir, base, depth, pending)) = stack.last_mut() {
            let Some(e) = pending.next() else {
                stack.pop();
                continue;
            };
            let rel = if base.is_empty() { e.name.clone() } else { format!("{base}/{}", e.name) };
            if !excludes.is_empty() && excludes.is_match(&rel) {
                continue;
            }
            if pattern.is_match(&rel) {
                let shown = dir.shown.join([e.name.as_str()]).as_str().to_owned();
                if !budget.take(shown.len() + 1) {
                    break;
                }
                found.push(shown);
            }
            if e.kind == Kind::Dir {
                if *depth + 1 > budget.max_depth {
                    budget.too_deep += 1;
                    continue;
                }
                let (child, depth) = (dir.child(&e.name), *depth + 1);
                // A directory that cannot be listed (gone since, unreadable) is skipped, as the
                // reference server skips it: a search answers what it found.
                if let Ok(entries) = walk::kinds(&shared, &io, &child).await {
                    stack.push((child, rel, depth, entries.into_iter()));
                }
            }
        }
        let mut text = if found.is_empty() { "No matches found".to_owned() } else { found.join("\n") };
        if let Some(note) = budget.note("Search") {
            text = format!("{text}\n{note}");
        }
        Ok(output::done(output::plain(text), 0))
    })
}
