//! Directories as the listing, tree and search tools see them (semantics.md §10): listed
//! through the storage below the root's handle, denied entries hidden, open documents shown
//! (a dirty buffer's size; a document open for a file not yet on disk listed as a file),
//! symlinks shown as links and never descended, sorted by name, and bounded.

use super::target;
use crate::ask::Channel;
use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::refuse::storage_error;
use crate::state::{Document, Shared};
use crate::storage::FileKind;

/// A directory that passed the checks: the name asked for, its real path and its root.
#[derive(Clone)]
pub(crate) struct Dir {
    /// How answers name what is below it (what the agent asked for, normalized).
    pub shown: AbsPath,
    /// Where the listing goes.
    pub real: AbsPath,
    pub root: AbsPath,
}

impl Dir {
    /// The subdirectory `name` (an entry listed as a directory, not a link: it lies inside).
    pub fn child(&self, name: &str) -> Dir {
        Dir { shown: self.shown.join([name]), real: self.real.join([name]), root: self.root.clone() }
    }
}

/// What a listing shows of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    /// Shown as a link, never followed: its target may lie outside the roots.
    Link,
    /// A FIFO, a socket, a device.
    Other,
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub name: String,
    pub kind: Kind,
    /// The file's size, or its open document's unsaved text's.
    pub size: u64,
    /// An open document with unsaved changes is what the editor shows for this entry.
    pub unsaved: bool,
}

/// The directory at `path`, checked as a read is; anything but a directory is refused.
pub(crate) async fn open(shared: &Shared, io: &Channel, session_id: &str, path: AbsPath) -> Result<Dir, AcpFsError> {
    let target = target::resolve_dir(shared, io, session_id, path).await?;
    if shared.caps.stat {
        let meta = io.stat(target.real.as_str(), true).await.map_err(|e| storage_error(e, &target.requested))?;
        if meta.kind != FileKind::Directory {
            return Err(not_a_directory(&target.requested));
        }
    }
    Ok(Dir { shown: target.requested, real: target.real, root: target.root })
}

pub(crate) fn not_a_directory(path: &AbsPath) -> AcpFsError {
    AcpFsError::invalid_params("path", format!("not a directory: {path}"))
}

/// The entries of `dir`, sorted by name, denied ones left out, open documents shown.
pub(crate) async fn entries(shared: &Shared, io: &Channel, dir: &Dir) -> Result<Vec<Entry>, AcpFsError> {
    let listed = io.list(dir.root.as_str(), dir.real.as_str()).await.map_err(|e| storage_error(e, &dir.shown))?;
    Ok(shown(shared, dir, listed))
}

/// [`entries`] for a listing that shows no sizes (a tree, a search): a file's `size` is 0
/// unless an unsaved buffer gives it one. The storage describes only each entry's kind, which a
/// disk reads from the directory without a stat per entry.
pub(crate) async fn kinds(shared: &Shared, io: &Channel, dir: &Dir) -> Result<Vec<Entry>, AcpFsError> {
    let listed = io.list_kinds(dir.root.as_str(), dir.real.as_str()).await.map_err(|e| storage_error(e, &dir.shown))?;
    Ok(shown(shared, dir, listed))
}

fn shown(shared: &Shared, dir: &Dir, listed: Vec<crate::storage::DirEntry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(listed.len());
    for e in listed {
        let kind = match e.meta.kind {
            FileKind::File => Kind::File,
            FileKind::Directory => Kind::Dir,
            FileKind::Symlink => Kind::Link,
            FileKind::Other => Kind::Other,
        };
        if hidden(shared, &e.name, kind) {
            continue;
        }
        out.push(Entry { name: e.name, kind, size: e.meta.size, unsaved: false });
    }
    // A directory holds each name once: sorted, each is found by a binary search.
    out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    for (name, doc) in documents_in(shared, dir) {
        if hidden(shared, &name, Kind::File) || doc.clean {
            continue;
        }
        match out.binary_search_by(|e| e.name.as_str().cmp(&name)) {
            Ok(i) if out[i].kind == Kind::File => {
                out[i].size = doc.text.len() as u64;
                out[i].unsaved = true;
            }
            // A buffer's name shadowed by a directory or a link on disk: the disk is shown.
            Ok(_) => {}
            Err(i) => {
                let size = doc.text.len() as u64;
                out.insert(i, Entry { name, kind: Kind::File, size, unsaved: true });
            }
        }
    }
    out
}

/// Whether the deny list hides the entry `name` of a listed directory. A listed directory is
/// not hidden itself, by its shown name or its real one (its listing was refused otherwise, or
/// it was hidden in its parent's), so the entry's own name is all that is left to test.
fn hidden(shared: &Shared, name: &str, kind: Kind) -> bool {
    shared.policy.deny.hides_entry(name, kind == Kind::Dir)
}

/// Open documents directly in `dir`, by the name it was asked under or its real name.
pub(crate) fn documents_in(shared: &Shared, dir: &Dir) -> Vec<(String, Document)> {
    shared
        .documents()
        .into_iter()
        .filter_map(|(path, doc)| {
            let parent = path.parent()?;
            let inside = parent.same_as(&dir.shown) || parent.same_as(&dir.real);
            inside.then(|| Some((path.file_name()?.to_owned(), doc))).flatten()
        })
        .collect()
}

/// An open document with unsaved text at `path` (shown or real name), for searches.
pub(crate) fn dirty_document(shared: &Shared, shown: &AbsPath, real: &AbsPath) -> Option<Document> {
    [shown, real].into_iter().find_map(|p| shared.document(p)).filter(|d| !d.clean)
}

/// The running bounds of one listing, tree or search (options `maxListEntries`,
/// `maxListDepth`, `maxToolOutputBytes`), and the note saying which one stopped it.
pub(crate) struct Budget {
    pub max_entries: u64,
    pub max_depth: u64,
    pub max_bytes: u64,
    pub entries: u64,
    pub bytes: u64,
    /// Directories not descended because of the depth bound.
    pub too_deep: u64,
    pub stopped: Option<&'static str>,
}

impl Budget {
    pub fn new(shared: &Shared) -> Budget {
        let o = &shared.policy.options;
        Budget {
            max_entries: o.max_list_entries,
            max_depth: o.max_list_depth,
            max_bytes: o.max_tool_output_bytes,
            entries: 0,
            bytes: 0,
            too_deep: 0,
            stopped: None,
        }
    }

    /// Takes one entry of `bytes` of text; false (and the reason noted) when the answer is full.
    pub fn take(&mut self, bytes: usize) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        if self.entries >= self.max_entries {
            self.stopped = Some("maxListEntries");
            return false;
        }
        if self.bytes + bytes as u64 > self.max_bytes {
            self.stopped = Some("maxToolOutputBytes");
            return false;
        }
        self.entries += 1;
        self.bytes += bytes as u64;
        true
    }

    /// The note for the model when the answer is incomplete, else `None`.
    pub fn note(&self, what: &str) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(limit) = self.stopped {
            let bound = if limit == "maxListEntries" { self.max_entries } else { self.max_bytes };
            parts.push(format!(
                "[{what} truncated after {} entries: it reached {limit} ({bound}). Narrow the path or the pattern.]",
                self.entries
            ));
        }
        if self.too_deep > 0 {
            parts.push(format!(
                "[{} directories deeper than maxListDepth ({}) were not descended; ask for a deeper path.]",
                self.too_deep, self.max_depth
            ));
        }
        (!parts.is_empty()).then(|| parts.join("\n"))
    }
}
