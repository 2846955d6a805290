//! `list_directory`, `list_directory_with_sizes` and `directory_tree`, in the reference
//! server's text forms, over [`walk`](super::walk) (semantics.md §10).

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Need, Tool};
use super::walk::{self, Budget, Dir, Entry, Kind};
use super::{globs, output, start};
use crate::error::AcpFsError;
use crate::operation::Operation;
use globset::GlobSet;
use serde_json::{json, Map, Value};

fn path_schema() -> Value {
    object_schema(json!({"path": {"type": "string"}}), &["path"])
}

pub(crate) const LIST_DIRECTORY: Tool = Tool {
    name: "list_directory",
    title: "List Directory",
    description: "Get a detailed listing of all files and directories in a specified path. \
        Results clearly distinguish between files and directories with [FILE] and [DIR] \
        prefixes ([LINK] for a symbolic link, which is never followed). Files open in the editor \
        are listed even before they are saved. This tool is essential for understanding \
        directory structure and finding specific files within a directory. Only works within \
        allowed directories.",
    input: path_schema,
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::List],
    start: start_list,
    answer: registry::answer,
};

pub(crate) const LIST_DIRECTORY_WITH_SIZES: Tool = Tool {
    name: "list_directory_with_sizes",
    title: "List Directory with Sizes",
    description: "Get a detailed listing of all files and directories in a specified path, including sizes. \
        Results clearly distinguish between files and directories with [FILE] and [DIR] \
        prefixes. This tool is useful for understanding directory structure and \
        finding specific files within a directory. Only works within allowed directories.",
    input: || {
        object_schema(
            json!({"path": {"type": "string"},
                   "sortBy": {"type": "string", "enum": ["name", "size"], "default": "name",
                              "description": "Sort entries by name or size"}}),
            &["path"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::List],
    start: start_sizes,
    answer: registry::answer,
};

pub(crate) const DIRECTORY_TREE: Tool = Tool {
    name: "directory_tree",
    title: "Directory Tree",
    description: "Get a recursive tree view of files and directories as a JSON structure. \
        Each entry includes 'name', 'type' (file/directory, or symlink for a link, which is \
        never followed), and 'children' for directories. Files have no children array, while \
        directories always have a children array (which may be empty). The output is formatted \
        with 2-space indentation for readability. Only works within allowed directories.",
    input: || {
        object_schema(
            json!({"path": {"type": "string"},
                   "excludePatterns": {"type": "array", "items": {"type": "string"}, "default": []}}),
            &["path"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::List],
    start: start_tree,
    answer: registry::answer,
};

fn tag(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "[FILE]",
        Kind::Dir => "[DIR]",
        Kind::Link => "[LINK]",
        Kind::Other => "[OTHER]",
    }
}

/// The listing text and the note, if the bounds cut it.
fn finish(mut lines: Vec<String>, budget: &Budget, what: &str) -> Value {
    lines.extend(budget.note(what));
    output::plain(lines.join("\n"))
}

fn start_list(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let dir = walk::open(&shared, &io, &session_id, path).await?;
        let mut budget = Budget::new(&shared);
        let mut lines = Vec::new();
        for e in walk::entries(&shared, &io, &dir).await? {
            let line = format!("{} {}", tag(e.kind), e.name);
            if !budget.take(line.len() + 1) {
                break;
            }
            lines.push(line);
        }
        Ok(output::done(finish(lines, &budget, "Listing"), 0))
    })
}

/// The reference server's `formatSize`, with the unit chosen by exact integer arithmetic and
/// JavaScript's `toFixed(2)` rounding (half up).
pub(crate) fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1u64 << (10 * (unit + 1)) {
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    let d = 1u128 << (10 * unit);
    let hundredths = (u128::from(bytes) * 200 + d) / (2 * d);
    format!("{}.{:02} {}", hundredths / 100, hundredths % 100, UNITS[unit])
}

fn start_sizes(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let by_size = match call.opt_string("sortBy")? {
        None | Some("name") => false,
        Some("size") => true,
        Some(other) => {
            return Err(AcpFsError::invalid_params("sortBy", format!("must be \"name\" or \"size\", not {other:?}")))
        }
    };
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let dir = walk::open(&shared, &io, &session_id, path).await?;
        let mut entries = walk::entries(&shared, &io, &dir).await?;
        if by_size {
            // Largest first; equal sizes stay in name order (the sort is stable).
            entries.sort_by_key(|e| std::cmp::Reverse(if e.kind == Kind::File { e.size } else { 0 }));
        }
        let mut budget = Budget::new(&shared);
        let (mut lines, mut files, mut dirs, mut links, mut total) = (Vec::new(), 0, 0, 0, 0u64);
        for e in &entries {
            let size = match e.kind {
                Kind::File | Kind::Other => format!("{:>10}", format_size(e.size)),
                Kind::Dir | Kind::Link => String::new(),
            };
            let line = format!("{} {:<30} {size}", tag(e.kind), e.name);
            if !budget.take(line.len() + 1) {
                break;
            }
            match e.kind {
                Kind::Dir => dirs += 1,
                Kind::Link => links += 1,
                Kind::File | Kind::Other => {
                    files += 1;
                    total += e.size;
                }
            }
            lines.push(line);
        }
        lines.push(String::new());
        lines.push(match links {
            0 => format!("Total: {files} files, {dirs} directories"),
            _ => format!("Total: {files} files, {dirs} directories, {links} links"),
        });
        lines.push(format!("Combined size: {}", format_size(total)));
        Ok(output::done(finish(lines, &budget, "Listing"), 0))
    })
}

/// One directory being expanded while the tree is built depth-first.
struct Frame {
    dir: Dir,
    /// Its path relative to the tree's root (`""` for the root), `/`-separated.
    rel: String,
    depth: u64,
    pending: std::vec::IntoIter<Entry>,
    nodes: Vec<Value>,
}

fn start_tree(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let excludes = globs::set("excludePatterns", &call.strings("excludePatterns")?, globs::tree_exclude)?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let root = walk::open(&shared, &io, &session_id, path).await?;
        let mut budget = Budget::new(&shared);
        let first = walk::entries(&shared, &io, &root).await?;
        let mut stack =
            vec![Frame { dir: root, rel: String::new(), depth: 0, pending: first.into_iter(), nodes: vec![] }];
        let tree = loop {
            let top = stack.last_mut().expect("the root frame is popped last");
            let Some(entry) = top.pending.next().filter(|_| budget.stopped.is_none()) else {
                let done = stack.pop().expect("a frame is on the stack");
                match stack.last_mut() {
                    Some(parent) => {
                        if let Some(Value::Object(node)) = parent.nodes.last_mut() {
                            node.insert("children".into(), Value::Array(done.nodes));
                        }
                        continue;
                    }
                    None => break done.nodes,
                }
            };
            let rel = if top.rel.is_empty() { entry.name.clone() } else { format!("{}/{}", top.rel, entry.name) };
            if excluded(&excludes, &rel) {
                continue;
            }
            // What the pretty-printed node costs: its name and about four indented lines.
            let indent = 2 + 4 * top.depth as usize;
            if !budget.take(entry.name.len() + 4 * indent + 48) {
                continue;
            }
            let kind = match entry.kind {
                Kind::Dir => "directory",
                Kind::Link => "symlink",
                Kind::File | Kind::Other => "file",
            };
            let mut node = Map::new();
            node.insert("name".into(), entry.name.clone().into());
            node.insert("type".into(), kind.into());
            if entry.kind == Kind::Dir {
                node.insert("children".into(), json!([]));
                top.nodes.push(Value::Object(node));
                if top.depth + 1 > budget.max_depth {
                    budget.too_deep += 1;
                    continue;
                }
                let (dir, depth) = (top.dir.child(&entry.name), top.depth + 1);
                let entries = walk::entries(&shared, &io, &dir).await?;
                stack.push(Frame { dir, rel, depth, pending: entries.into_iter(), nodes: vec![] });
            } else {
                top.nodes.push(Value::Object(node));
            }
        };
        let text = serde_json::to_string_pretty(&tree).unwrap_or_default();
        let note = budget.note("Tree");
        let text = match note {
            Some(note) => format!("{text}\n{note}"),
            None => text,
        };
        Ok(output::done(output::plain(text), 0))
    })
}

fn excluded(set: &GlobSet, rel: &str) -> bool {
    !set.is_empty() && set.is_match(rel)
}

#[cfg(test)]
mod tests {
    use super::format_size;

    #[test]
    fn sizes_as_the_reference_prints_them() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1024), "1.00 KB");
        assert_eq!(format_size(1152), "1.13 KB", "toFixed rounds the exact half up");
        assert_eq!(format_size(1024 * 1024), "1.00 MB");
        assert_eq!(format_size(1536 * 1024 * 1024), "1.50 GB");
        assert_eq!(format_size(5 << 50), "5120.00 TB");
    }
}
