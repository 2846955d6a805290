//! `list_directory`, `list_directory_with_sizes` and `directory_tree`, in the reference
//! server's text forms, over [`walk`](super::walk) (semantics.md §10).

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Need, Tool};
use super::walk::{self, Budget, Dir, Entry, Kind};
use super::{globs, output, start};
use crate::error::AcpFsError;
use crate::operation::Operation;
use globset::GlobSet;
use serde_json::{json, Value};

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
        for e in walk::kinds(&shared, &io, &dir).await? {
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

/// One directory being expanded while the tree is written depth-first.
struct Frame {
    dir: Dir,
    /// Its path relative to the tree's root (`""` for the root), `/`-separated.
    rel: String,
    depth: u64,
    pending: std::vec::IntoIter<Entry>,
    /// Whether a child was written into its `children` array yet.
    written: bool,
}

fn start_tree(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let excludes = globs::set("excludePatterns", &call.strings("excludePatterns")?, globs::tree_exclude)?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let root = walk::open(&shared, &io, &session_id, path).await?;
        let mut budget = Budget::new(&shared);
        let first = walk::kinds(&shared, &io, &root).await?;
        let mut text = TreeText::default();
        let mut stack =
            vec![Frame { dir: root, rel: String::new(), depth: 0, pending: first.into_iter(), written: false }];
        while let Some(top) = stack.last_mut() {
            let Some(entry) = top.pending.next().filter(|_| budget.stopped.is_none()) else {
                let done = stack.pop().expect("a frame is on the stack");
                text.close(done.depth, done.written);
                continue;
            };
            // The relative path is for the excludes alone.
            let rel = match (excludes.is_empty(), top.rel.is_empty()) {
                (true, _) => String::new(),
                (false, true) => entry.name.clone(),
                (false, false) => format!("{}/{}", top.rel, entry.name),
            };
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
            text.open(top.depth, top.written, &entry.name, kind);
            top.written = true;
            if entry.kind != Kind::Dir {
                text.end_node(top.depth);
                continue;
            }
            if top.depth + 1 > budget.max_depth {
                budget.too_deep += 1;
                text.close(top.depth + 1, false);
                continue;
            }
            let (dir, depth) = (top.dir.child(&entry.name), top.depth + 1);
            let entries = walk::kinds(&shared, &io, &dir).await?;
            stack.push(Frame { dir, rel, depth, pending: entries.into_iter(), written: false });
        }
        let mut text = text.finish();
        if let Some(note) = budget.note("Tree") {
            text = format!("{text}\n{note}");
        }
        Ok(output::done(output::plain(text), 0))
    })
}

/// The tree's JSON as `serde_json::to_string_pretty` writes it (2-space indents, keys in the
/// order name, type, children; `[]` for an empty array), written as the walk goes instead of
/// built as values first: a node costs its text and no map. The nodes of the directory at depth
/// `d` (the root's at 0) sit in an array indented `2d` levels; each node's members `2d + 2`.
#[derive(Default)]
struct TreeText {
    out: Vec<u8>,
}

impl TreeText {
    fn indent(&mut self, levels: u64) {
        self.out.extend(std::iter::repeat_n(b' ', 2 * levels as usize));
    }

    /// Starts the node `name` in the array of the directory at `depth` (`after`: a node came
    /// before it there), up to its `type`; a directory's `children` array is left open.
    fn open(&mut self, depth: u64, after: bool, name: &str, kind: &str) {
        if self.out.is_empty() {
            self.out.push(b'[');
        }
        self.out.extend_from_slice(if after { b",\n" } else { b"\n" });
        self.indent(2 * depth + 1);
        self.out.extend_from_slice(b"{\n");
        self.indent(2 * depth + 2);
        self.out.extend_from_slice(b"\"name\": ");
        serde_json::to_writer(&mut self.out, name).expect("a string serializes into a Vec");
        self.out.extend_from_slice(b",\n");
        self.indent(2 * depth + 2);
        self.out.extend_from_slice(b"\"type\": \"");
        self.out.extend_from_slice(kind.as_bytes());
        self.out.push(b'"');
        if kind == "directory" {
            self.out.extend_from_slice(b",\n");
            self.indent(2 * depth + 2);
            self.out.extend_from_slice(b"\"children\": [");
        }
    }

    /// Ends a node of the array of the directory at `depth`.
    fn end_node(&mut self, depth: u64) {
        self.out.push(b'\n');
        self.indent(2 * depth + 1);
        self.out.push(b'}');
    }

    /// Closes the `children` array of the directory at `depth` (`written`: it holds nodes) and
    /// the node that holds it; at depth 0, the tree's own array.
    fn close(&mut self, depth: u64, written: bool) {
        if self.out.is_empty() {
            self.out.push(b'[');
        }
        if written {
            self.out.push(b'\n');
            self.indent(2 * depth);
        }
        self.out.push(b']');
        if depth > 0 {
            self.end_node(depth - 1);
        }
    }

    fn finish(self) -> String {
        // Names are `str`s and the rest is ASCII: the bytes are UTF-8.
        String::from_utf8(self.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

fn excluded(set: &GlobSet, rel: &str) -> bool {
    !set.is_empty() && set.is_match(rel)
}

#[cfg(test)]
mod tests {
    use super::{format_size, TreeText};
    use serde_json::{json, Value};

    /// The tree as values, written the way the walk writes it: (name, children) where
    /// `Some(children)` is a directory.
    fn write(text: &mut TreeText, depth: u64, nodes: &[(&str, Option<Value>)]) {
        for (i, (name, children)) in nodes.iter().enumerate() {
            let kind = if children.is_some() { "directory" } else { "file" };
            text.open(depth, i > 0, name, kind);
            match children {
                None => text.end_node(depth),
                Some(Value::Array(kids)) => {
                    let kids: Vec<(String, Option<Value>)> = kids
                        .iter()
                        .map(|k| (k["name"].as_str().unwrap().to_owned(), k.get("children").cloned()))
                        .collect();
                    let kids: Vec<(&str, Option<Value>)> = kids.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
                    write(text, depth + 1, &kids);
                    text.close(depth + 1, !kids.is_empty());
                }
                Some(_) => unreachable!(),
            }
        }
    }

    #[test]
    fn the_tree_text_is_serde_jsons_pretty_form() {
        let file = |n: &str| json!({"name": n, "type": "file"});
        let dir = |n: &str, c: Vec<Value>| json!({"name": n, "type": "directory", "children": c});
        let trees = [
            json!([]),
            json!([file("a")]),
            json!([dir("empty", vec![]), file("q\"uote\\ \u{1}é")]),
            json!([dir("a", vec![dir("b", vec![file("c"), dir("d", vec![])]), file("e")]), file("f")]),
        ];
        for tree in trees {
            let nodes: Vec<(String, Option<Value>)> = tree
                .as_array()
                .unwrap()
                .iter()
                .map(|k| (k["name"].as_str().unwrap().to_owned(), k.get("children").cloned()))
                .collect();
            let nodes: Vec<(&str, Option<Value>)> = nodes.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
            let mut text = TreeText::default();
            write(&mut text, 0, &nodes);
            text.close(0, !nodes.is_empty());
            assert_eq!(text.finish(), serde_json::to_string_pretty(&tree).unwrap(), "{tree}");
        }
    }

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
