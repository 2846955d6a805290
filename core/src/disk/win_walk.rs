//! Windows: the walk below a root handle, one component at a time, written against [`System`]
//! (the few NT calls it needs) so that its decisions can be tested on any platform with faked
//! answers, including the ones Wine cannot produce (junctions, cloud-file placeholders).
//!
//! Each component is opened relative to its parent's handle (`NtCreateFile` with
//! `RootDirectory`) and with `FILE_OPEN_REPARSE_POINT`, so Windows opens a symlink, junction or
//! mount point itself instead of what it leads to. Then, on the new handle:
//! - a reparse point that is a *name surrogate* (symlink, junction, mount point: the tags whose
//!   target is another name) is refused: the engine's path is canonical, so one found here
//!   appeared after the check (`symlink_escape`). Other reparse points (OneDrive and other
//!   cloud-file placeholders, deduplicated or compressed files) are files the system serves in
//!   place: they are opened again normally and must be the same file (file id) as the one just
//!   looked at, so a swap in between is refused too. This is the line Rust's std draws between a
//!   symlink and a file.
//! - the handle's final path must be its parent's final path plus one name;
//! - the parent's directory entry for the name, read through a fresh handle of the parent, must
//!   not be a name surrogate and must be the file the handle holds (same file id);
//! - under Wine, a file (not a directory) must be found by its id among the parent's own entries,
//!   looked up without following links ([`System::holds`]).
//!
//! On Windows the later checks only repeat the first. Under Wine they are what holds: Wine opens
//! the name below the directory's own descriptor, but follows a Unix symlink there even with
//! `FILE_OPEN_REPARSE_POINT` and reports no reparse attribute on the handle, and it records a
//! handle's path by resolving the name again after opening it, so a symlink swapped in and out
//! between the two is followed yet leaves an inside path. A directory symlink is listed as a
//! reparse point, and the real entry is another directory than the one opened: either way the
//! open is refused. A symlink to a *file* is listed as the file it leads to (same attributes,
//! same id), so neither the listing nor the handle can tell it from a file; only a lookup by id
//! that does not follow links can, and Wine's open by file id below a directory is one (it
//! searches that directory's entries with `lstat`). A file replaced inside the root between the
//! open and the checks is refused the same way (`symlink_escape`: "the path changed after it was
//! checked"); the request can simply be made again.

use super::Beneath;
use crate::path::{AbsPath, Style};
use crate::storage::{StorageError, StorageErrorKind};

/// `FILE_ATTRIBUTE_DIRECTORY`.
pub(super) const ATTR_DIRECTORY: u32 = 0x10;
/// `FILE_ATTRIBUTE_REPARSE_POINT`.
pub(super) const ATTR_REPARSE_POINT: u32 = 0x400;
/// The name-surrogate bit of a reparse tag (`IsReparseTagNameSurrogate`): symlinks, junctions,
/// mount points and the like, whose meaning is another name.
pub(super) const TAG_NAME_SURROGATE: u32 = 0x2000_0000;

/// What a failed system call means to the walk.
#[cfg_attr(not(windows), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SysKind {
    NotFound,
    NotADirectory,
    IsADirectory,
    Exists,
    PermissionDenied,
    /// The path changed after the engine's check (a reparse point, a handle elsewhere).
    Escape,
    Other,
}

/// A failed system call: its meaning and the system's message.
#[derive(Clone, Debug)]
pub(super) struct SysError {
    pub kind: SysKind,
    pub message: String,
}

impl SysError {
    pub(super) fn new(kind: SysKind, message: impl Into<String>) -> SysError {
        SysError { kind, message: message.into() }
    }

    pub(super) fn escape(why: &str) -> SysError {
        SysError::new(SysKind::Escape, format!("the path changed after it was checked ({why})"))
    }

    /// The engine's error for this failure while doing `action` on `path`.
    pub(super) fn to_storage(&self, action: &str, path: &str) -> StorageError {
        let kind = match self.kind {
            SysKind::NotFound => StorageErrorKind::NotFound,
            SysKind::NotADirectory => StorageErrorKind::NotADirectory,
            SysKind::IsADirectory => StorageErrorKind::IsADirectory,
            SysKind::PermissionDenied => StorageErrorKind::PermissionDenied,
            SysKind::Escape => StorageErrorKind::SymlinkEscape,
            SysKind::Exists | SysKind::Other => StorageErrorKind::Other,
        };
        StorageError::new(kind, format!("{action} {path}: {}", self.message))
    }
}

/// What an open is for; the system layer turns it into access rights, disposition and options.
#[cfg_attr(not(windows), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Open {
    /// An existing directory, to open names below it.
    Dir,
    /// A new directory (fails with [`SysKind::Exists`] if the name is taken).
    MakeDir,
    /// Whatever is there, for reading (a directory too: its kind comes from the handle).
    Read,
    /// Whatever is there, for its attributes only.
    Probe,
    /// An existing file, opened for writing without changing it: asks whether it may be written.
    Writable,
    /// A new file for a write's temporary content (fails with [`SysKind::Exists`] if taken).
    Temp,
    /// Whatever is there, to delete it (something this process made).
    Remove,
}

/// The system calls of the walk. Every open is relative to `dir` and names one component; `dir`
/// is `None` only for a volume's root (`\??\C:\`, `\??\UNC\server\share\`).
pub(super) trait System {
    type Handle;
    /// Opens `name` below `dir`; `follow: false` opens a reparse point itself. An empty `name`
    /// opens `dir` itself again (a new handle of the same directory).
    fn open(&self, dir: Option<&Self::Handle>, name: &str, how: Open, follow: bool) -> Result<Self::Handle, SysError>;
    /// The handle's attributes and, for a reparse point, its tag.
    fn attribute_tag(&self, handle: &Self::Handle) -> Result<(u32, u32), SysError>;
    /// The handle's final path (NT form); only compared with other final paths.
    fn final_path(&self, handle: &Self::Handle) -> Result<String, SysError>;
    /// The file's id on its volume.
    fn file_id(&self, handle: &Self::Handle) -> Result<u64, SysError>;
    /// The directory entry `name` of the open directory `dir`, without opening it: its
    /// attributes, reparse tag (0 if none) and file id; `None` if there is no such entry. Only
    /// the first query of a handle is answered for its own name (Windows documents that the
    /// name given first is kept for the handle's later queries, and Wine keeps it even when the
    /// scan is restarted): [`entry_of`] asks each question on a fresh handle.
    fn entry(&self, dir: &Self::Handle, name: &str) -> Result<Option<(u32, u32, u64)>, SysError>;
    /// Whether an open can follow a link its directory entry does not show: Wine, which follows a
    /// Unix symlink to a file even with `FILE_OPEN_REPARSE_POINT` and lists it as that file.
    /// Never Windows, where the open itself refuses every reparse point it is asked to.
    fn follows_file_links(&self) -> bool;
    /// Whether the file with this id has an entry of its own (not a link to it) in `dir` or
    /// below it; asked only where [`System::follows_file_links`].
    fn holds(&self, dir: &Self::Handle, id: u64) -> Result<bool, SysError>;
    /// Deletes what `handle` holds, through the handle, once it is closed: something this
    /// process just created that turned out not to be where it was asked for.
    fn discard(&self, handle: &Self::Handle);
}

/// An open directory and its final path, the parent of the next step.
#[derive(Debug)]
pub(super) struct Dir<H> {
    pub handle: H,
    pub path: String,
}

/// The NT name of the volume root a Windows path starts from: `\??\C:\` or
/// `\??\UNC\server\share\`. A POSIX path has none: it cannot name a Windows file.
pub(super) fn volume_root(root: &str) -> Result<String, SysError> {
    let p = AbsPath::parse(root).map_err(|why| SysError::new(SysKind::Other, why))?;
    match p.style() {
        Style::Drive => Ok(format!(r"\??\{}", &p.as_str()[..3])),
        Style::Unc => {
            let mut parts = p.as_str()[2..].split('\\');
            let (server, share) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            Ok(format!(r"\??\UNC\{server}\{share}\"))
        }
        Style::Posix => Err(SysError::new(SysKind::Other, "not a Windows path")),
    }
}

/// Opens the volume root of `at` (by its NT name: nothing can be swapped above it).
pub(super) fn open_volume<S: System>(sys: &S, at: &Beneath) -> Result<Dir<S::Handle>, SysError> {
    let handle = sys.open(None, &volume_root(at.root)?, Open::Dir, true)?;
    let path = sys.final_path(&handle)?;
    Ok(Dir { handle, path })
}

/// Opens the root of `at`: its path is canonical, so it is walked from the volume root like any
/// other, refusing a reparse point on the way.
pub(super) fn open_root<S: System>(sys: &S, at: &Beneath) -> Result<Dir<S::Handle>, SysError> {
    let volume = open_volume(sys, at)?;
    walk(sys, volume, &at.root_parts)
}

/// Opens each of `parts` below `dir` as a directory.
pub(super) fn walk<S: System>(sys: &S, dir: Dir<S::Handle>, parts: &[String]) -> Result<Dir<S::Handle>, SysError> {
    let mut current = dir;
    for part in parts {
        current = step(sys, &current, part, Open::Dir)?;
    }
    Ok(current)
}

/// Opens `name` below `dir` for `how`, refusing anything that is not really there: a name
/// surrogate, a handle whose final path is not directly below `dir`, a reparse point swapped
/// between its two opens.
pub(super) fn step<S: System>(
    sys: &S,
    dir: &Dir<S::Handle>,
    name: &str,
    how: Open,
) -> Result<Dir<S::Handle>, SysError> {
    let handle = match sys.open(Some(&dir.handle), name, how, false) {
        Ok(handle) => handle,
        // A directory open of a symlink to a file (Wine follows it) says "not a directory": look
        // at what stands there, as the Unix walk does, so a swap is an escape, not a missing file.
        Err(e) if e.kind == SysKind::NotADirectory && how == Open::Dir => {
            let probe = sys.open(Some(&dir.handle), name, Open::Probe, false).map_err(|_| e.clone())?;
            check(sys, dir, name, Open::Probe, probe)?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    check(sys, dir, name, how, handle)
}

fn check<S: System>(
    sys: &S,
    dir: &Dir<S::Handle>,
    name: &str,
    how: Open,
    handle: S::Handle,
) -> Result<Dir<S::Handle>, SysError> {
    let (attributes, tag) = sys.attribute_tag(&handle)?;
    let handle = if attributes & ATTR_REPARSE_POINT == 0 {
        handle
    } else if tag & TAG_NAME_SURROGATE != 0 {
        return Err(SysError::escape(&format!("{name} is a symlink, junction or mount point (reparse tag {tag:#x})")));
    } else {
        // A placeholder or other in-place reparse point: opened again so the system serves its
        // content, and it must still be the file just looked at.
        let again = sys.open(Some(&dir.handle), name, how, true)?;
        if sys.file_id(&again)? != sys.file_id(&handle)? {
            return Err(SysError::escape(&format!("{name} was replaced while it was opened")));
        }
        again
    };
    let path = sys.final_path(&handle)?;
    if !directly_below(&dir.path, &path) {
        // The parent may have been renamed meanwhile (its handle is still good): ask again once.
        let parent = sys.final_path(&dir.handle)?;
        if !directly_below(&parent, &path) {
            return Err(SysError::escape(&format!("{name} leads to {path}")));
        }
    }
    let id = sys.file_id(&handle)?;
    match entry_of(sys, dir, name)? {
        // A tag of 0 is no tag Windows writes: Wine shows a Unix symlink to a directory so.
        Some((attributes, tag, _))
            if attributes & ATTR_REPARSE_POINT != 0 && (tag == 0 || tag & TAG_NAME_SURROGATE != 0) =>
        {
            return Err(SysError::escape(&format!(
                "{name} is a symlink, junction or mount point (reparse tag {tag:#x})"
            )));
        }
        Some((_, _, listed)) if listed == id => {}
        _ => return Err(SysError::escape(&format!("{name} was replaced while it was opened"))),
    }
    // Under Wine a symlink to a file passes all of the above while it stands there (see the
    // module's note); the file must also be one of the directory's own entries.
    if attributes & ATTR_DIRECTORY == 0 && sys.follows_file_links() && !sys.holds(&dir.handle, id)? {
        return Err(SysError::escape(&format!("{name} led to a file that is not in its directory")));
    }
    Ok(Dir { handle, path })
}

/// The entry `name` of `dir`, read through a new handle of `dir` so that the answer is for this
/// name (see [`System::entry`]).
pub(super) fn entry_of<S: System>(
    sys: &S,
    dir: &Dir<S::Handle>,
    name: &str,
) -> Result<Option<(u32, u32, u64)>, SysError> {
    let fresh = sys.open(Some(&dir.handle), "", Open::Dir, false)?;
    sys.entry(&fresh, name)
}

/// Whether `child` is `parent` plus one name (final paths of the same system: compared exactly).
pub(super) fn directly_below(parent: &str, child: &str) -> bool {
    let Some(rest) = child.strip_prefix(parent) else { return false };
    let name = if parent.ends_with('\\') { rest } else { rest.strip_prefix('\\').unwrap_or("") };
    !name.is_empty() && !name.contains('\\')
}

/// Creates each of `parts` below `dir` as a directory (an existing one is opened and checked).
pub(super) fn create_below<S: System>(
    sys: &S,
    dir: Dir<S::Handle>,
    parts: &[String],
) -> Result<Dir<S::Handle>, SysError> {
    let mut current = dir;
    for part in parts {
        current = match sys.open(Some(&current.handle), part, Open::MakeDir, false) {
            // Made here, so nothing could stand in for it on Windows. Under Wine it is made below
            // the directory's descriptor too, but the path Wine records for it (which its
            // renames and deletions use) is resolved again by name, so a directory swapped
            // meanwhile leaves it a wrong path or none: such a one is removed again.
            Ok(handle) => created(sys, &current, part, handle)?,
            Err(e) if e.kind == SysKind::Exists => step(sys, &current, part, Open::Dir)?,
            Err(e) => return Err(e),
        };
    }
    Ok(current)
}

/// Checks something just created below `dir` (a new directory, a temporary file), deleting it
/// if it is not directly below `dir` (it is empty: nothing else has it yet).
pub(super) fn created<S: System>(
    sys: &S,
    dir: &Dir<S::Handle>,
    name: &str,
    handle: S::Handle,
) -> Result<Dir<S::Handle>, SysError> {
    let path = match sys.final_path(&handle) {
        Ok(path) => path,
        Err(e) => {
            remove_made(sys, dir, name, handle);
            return Err(e);
        }
    };
    if directly_below(&dir.path, &path) {
        return Ok(Dir { handle, path });
    }
    remove_made(sys, dir, name, handle);
    Err(SysError::escape(&format!("{name} was made at {path}")))
}

/// How many times [`remove_made`] deletes what `dir` still lists, a millisecond apart after the
/// first two: a swap that a descheduled swapper holds for a while is outwaited, a lasting one is
/// not (the temporary then stays, hidden and inside the root).
const REMOVE_ATTEMPTS: usize = 64;

/// Deletes something this process made as `name` below `dir` (an empty directory, a temporary
/// file) through its handle, and makes sure it is gone; `true` if it is. Windows deletes what
/// the handle holds. Wine deletes by the path it recorded for the handle, which a directory
/// swapped meanwhile makes wrong or absent, so the thing would stay: while `dir` (read through
/// its handle) still lists `name` as this very file, it is opened again below `dir`, which
/// records its path anew, and deleted through that handle. Anything else standing at `name` is
/// left alone. On Windows the first deletion is the last.
pub(super) fn remove_made<S: System>(sys: &S, dir: &Dir<S::Handle>, name: &str, handle: S::Handle) -> bool {
    let Ok(id) = sys.file_id(&handle) else {
        sys.discard(&handle);
        return false;
    };
    let mut handle = handle;
    let mut attempts = 1;
    loop {
        sys.discard(&handle);
        drop(handle);
        match entry_of(sys, dir, name) {
            Ok(None) => return true,
            Ok(Some((_, _, listed))) if listed == id && attempts < REMOVE_ATTEMPTS => {}
            _ => return false,
        }
        if attempts > 1 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        handle = match sys.open(Some(&dir.handle), name, Open::Remove, false) {
            Ok(again) if sys.file_id(&again).is_ok_and(|again| again == id) => again,
            Err(e) if e.kind == SysKind::NotFound => return true,
            _ => return false,
        };
        attempts += 1;
    }
}

#[cfg(test)]
mod tests {
    //! The walk's decisions on faked system answers: a small in-memory tree where an entry can
    //! be a directory, a file, a name surrogate, an in-place reparse point, or something that a
    //! Wine-like system follows silently.
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    #[derive(Clone, Debug)]
    enum Node {
        Dir,
        File,
        /// A name surrogate with this tag, leading to the node at the given path.
        Reparse(u32, &'static str),
        /// An in-place reparse point (a cloud-file placeholder): a directory or not.
        Placeholder(bool),
        /// Followed silently by every open (a Unix symlink under Wine).
        Followed(&'static str),
        /// Another name of the file at the given path (its id, this name).
        HardLink(&'static str),
        /// Wine's race: the open follows a symlink to the given path, which was swapped back to
        /// the real entry (a directory or not) before Wine recorded the handle's path.
        Raced(&'static str, bool),
        /// Wine's race the other way round: the open follows a symlink to the given directory
        /// and records an inside path, and the entry still shows the link as Wine lists one (a
        /// reparse point with no tag, the target's id).
        RacedLink(&'static str),
        /// Wine's race on a file, once: the open follows a symlink to the given file and records
        /// this path, the entry lists the target's id (as Wine lists a file symlink); right
        /// after that listing the real file is back.
        RacedFileOnce(&'static str),
        /// A Unix symlink to a file as Wine shows it while it stands there: the open follows it
        /// and (swapped back and forth meanwhile) records this path, and the listing shows the
        /// target's attributes and id. Only a lookup that does not follow links sees the link.
        FileLink(&'static str),
    }

    /// A listing's answer: attributes, reparse tag and id of the entry, if there is one.
    type Listed = Option<(u32, u32, u64)>;

    /// Handles are final paths plus the id of what was opened.
    #[derive(Clone, Debug, PartialEq)]
    struct H {
        path: String,
        id: u64,
        reparse: Option<u32>,
        dir: bool,
        /// Which open made it: a listing's name is kept per handle.
        serial: u64,
    }

    struct Fake {
        nodes: RefCell<HashMap<String, Node>>,
        /// Put in place right after the next open: a swap between two system calls.
        swap_after_next_open: RefCell<Option<(String, Node)>>,
        opens: RefCell<Vec<(String, bool)>>,
        discarded: RefCell<Vec<String>>,
        /// Wine (true) or Windows: whether the walk asks [`System::holds`].
        wine: bool,
        serials: RefCell<u64>,
        /// The answer each handle gave to its first listing, kept for its later ones.
        listed: RefCell<HashMap<u64, Listed>>,
    }

    impl Fake {
        fn new(entries: &[(&str, Node)]) -> Fake {
            let mut nodes: HashMap<String, Node> = entries.iter().map(|(p, n)| (p.to_string(), n.clone())).collect();
            nodes.insert(r"\Device\V\".into(), Node::Dir);
            Fake {
                nodes: RefCell::new(nodes),
                swap_after_next_open: RefCell::new(None),
                opens: RefCell::new(Vec::new()),
                discarded: RefCell::new(Vec::new()),
                wine: true,
                serials: RefCell::new(0),
                listed: RefCell::new(HashMap::new()),
            }
        }

        fn windows(mut self) -> Fake {
            self.wine = false;
            self
        }

        /// The id an entry has when looked at without following it (`lstat`).
        fn own_id(path: &str, node: &Node) -> u64 {
            match node {
                Node::HardLink(target) => Self::id(target),
                _ => Self::id(path),
            }
        }

        fn id(path: &str) -> u64 {
            path.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
        }

        fn resolve(&self, path: &str, follow: bool) -> Option<H> {
            let node = self.nodes.borrow().get(path)?.clone();
            let is_dir = |p: &str| matches!(self.nodes.borrow().get(p), Some(Node::Dir));
            match node {
                Node::Dir => Some(H { path: path.into(), id: Self::id(path), reparse: None, dir: true, serial: 0 }),
                Node::File => Some(H { path: path.into(), id: Self::id(path), reparse: None, dir: false, serial: 0 }),
                // An in-place reparse point is the same file opened either way.
                Node::Placeholder(dir) => Some(H {
                    path: path.into(),
                    id: Self::id(path),
                    reparse: (!follow).then_some(CLOUD),
                    dir,
                    serial: 0,
                }),
                // A name surrogate opened itself is the link.
                Node::Reparse(tag, target) if !follow => Some(H {
                    path: path.into(),
                    id: Self::id(path),
                    reparse: Some(tag),
                    dir: is_dir(target),
                    serial: 0,
                }),
                Node::Reparse(_, target) | Node::Followed(target) => self.resolve(target, true),
                Node::HardLink(target) => {
                    Some(H { path: path.into(), id: Self::id(target), reparse: None, dir: false, serial: 0 })
                }
                Node::Raced(target, _)
                | Node::RacedLink(target)
                | Node::RacedFileOnce(target)
                | Node::FileLink(target) => {
                    Some(H { path: path.into(), id: Self::id(target), reparse: None, dir: is_dir(target), serial: 0 })
                }
            }
        }
    }

    impl System for Fake {
        type Handle = H;

        fn open(&self, dir: Option<&H>, name: &str, how: Open, follow: bool) -> Result<H, SysError> {
            let path = match dir {
                None => r"\Device\V\".to_string(),
                Some(d) if name.is_empty() => d.path.clone(),
                Some(d) if d.path.ends_with('\\') => format!("{}{name}", d.path),
                Some(d) => format!(r"{}\{name}", d.path),
            };
            self.opens.borrow_mut().push((path.clone(), follow));
            *self.serials.borrow_mut() += 1;
            let serial = *self.serials.borrow();
            let found = self.resolve(&path, follow).map(|h| H { serial, ..h });
            if let Some((at, node)) = self.swap_after_next_open.borrow_mut().take() {
                self.nodes.borrow_mut().insert(at, node);
            }
            let Some(h) = found else {
                return match how {
                    Open::MakeDir | Open::Temp => {
                        let dir = how == Open::MakeDir;
                        self.nodes.borrow_mut().insert(path.clone(), if dir { Node::Dir } else { Node::File });
                        Ok(H { id: Self::id(&path), path, reparse: None, dir, serial })
                    }
                    _ => Err(SysError::new(SysKind::NotFound, "not found")),
                };
            };
            match how {
                Open::MakeDir | Open::Temp => Err(SysError::new(SysKind::Exists, "exists")),
                Open::Dir if !h.dir => Err(SysError::new(SysKind::NotADirectory, "not a directory")),
                _ => Ok(h),
            }
        }

        fn attribute_tag(&self, h: &H) -> Result<(u32, u32), SysError> {
            let dir = if h.dir { ATTR_DIRECTORY } else { 0 };
            Ok(match h.reparse {
                Some(tag) => (dir | ATTR_REPARSE_POINT, tag),
                None => (dir, 0),
            })
        }

        fn final_path(&self, h: &H) -> Result<String, SysError> {
            Ok(h.path.clone())
        }

        fn file_id(&self, h: &H) -> Result<u64, SysError> {
            Ok(h.id)
        }

        fn discard(&self, h: &H) {
            self.discarded.borrow_mut().push(h.path.clone());
            // Deleted by the handle's recorded path, as Wine does (on Windows it is always right).
            let here = self.nodes.borrow().get(&h.path).map(|node| Self::own_id(&h.path, node));
            if here == Some(h.id) {
                self.nodes.borrow_mut().remove(&h.path);
            }
        }

        fn follows_file_links(&self) -> bool {
            self.wine
        }

        fn holds(&self, dir: &H, id: u64) -> Result<bool, SysError> {
            let below = if dir.path.ends_with('\\') { dir.path.clone() } else { format!(r"{}\", dir.path) };
            Ok(self
                .nodes
                .borrow()
                .iter()
                .any(|(path, node)| path.starts_with(&below) && Self::own_id(path, node) == id))
        }

        fn entry(&self, dir: &H, name: &str) -> Result<Option<(u32, u32, u64)>, SysError> {
            if let Some(first) = self.listed.borrow().get(&dir.serial) {
                return Ok(*first);
            }
            let answer = self.list(dir, name);
            self.listed.borrow_mut().insert(dir.serial, answer);
            Ok(answer)
        }
    }

    impl Fake {
        fn list(&self, dir: &H, name: &str) -> Option<(u32, u32, u64)> {
            let path =
                if dir.path.ends_with('\\') { format!("{}{name}", dir.path) } else { format!(r"{}\{name}", dir.path) };
            let node = self.nodes.borrow().get(&path).cloned();
            // A Wine-like listing shows a Unix symlink as a symlink reparse point.
            node.map(|node| match node {
                Node::Followed(_) => (ATTR_REPARSE_POINT, SYMLINK, 0),
                Node::RacedLink(target) => (ATTR_REPARSE_POINT | ATTR_DIRECTORY, 0, Self::id(target)),
                Node::RacedFileOnce(target) => {
                    // Listed while the link is there; the real file is back right after.
                    self.nodes.borrow_mut().insert(path.clone(), Node::File);
                    (0, 0, Self::id(target))
                }
                Node::Raced(_, dir) => (if dir { ATTR_DIRECTORY } else { 0 }, 0, Self::id(&path)),
                Node::FileLink(target) => (0, 0, Self::id(target)),
                _ => {
                    let h = self.resolve(&path, false).expect("an entry resolves");
                    let dir = if h.dir { ATTR_DIRECTORY } else { 0 };
                    h.reparse.map_or((dir, 0, h.id), |tag| (dir | ATTR_REPARSE_POINT, tag, h.id))
                }
            })
        }
    }

    const JUNCTION: u32 = 0xA000_0003;
    const SYMLINK: u32 = 0xA000_000C;
    const CLOUD: u32 = 0x9000_601A;

    fn beneath(root: &'static str, path: &'static str) -> Beneath<'static> {
        Beneath::new(root, path).unwrap()
    }

    fn open_file(fake: &Fake, at: &Beneath) -> Result<H, SysError> {
        let root = open_root(fake, at)?;
        let (last, middle) = at.rel.split_last().unwrap();
        let dir = walk(fake, root, middle)?;
        step(fake, &dir, last, Open::Read).map(|d| d.handle)
    }

    fn tree(extra: &[(&str, Node)]) -> Fake {
        let mut entries = vec![
            (r"\Device\V\p", Node::Dir),
            (r"\Device\V\p\sub", Node::Dir),
            (r"\Device\V\p\sub\a.txt", Node::File),
            (r"\Device\V\out", Node::Dir),
            (r"\Device\V\out\a.txt", Node::File),
        ];
        entries.extend(extra.iter().cloned());
        Fake::new(&entries)
    }

    #[test]
    fn a_plain_path_is_opened_one_component_at_a_time_below_the_volume() {
        let fake = tree(&[]);
        let h = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap();
        assert_eq!(h.path, r"\Device\V\p\sub\a.txt");
        let opens: Vec<String> = fake.opens.borrow().iter().map(|(p, _)| p.clone()).collect();
        // Each name below the one before it, and each parent again for a fresh look at the
        // name's entry (each_entry_is_read_through_a_fresh_handle_of_its_directory).
        let (v, p, sub) = (r"\Device\V\", r"\Device\V\p", r"\Device\V\p\sub");
        assert_eq!(opens, [v, p, v, sub, p, r"\Device\V\p\sub\a.txt", sub]);
        assert!(fake.opens.borrow()[1..].iter().all(|(_, follow)| !follow), "no reparse point is followed");
    }

    #[test]
    fn a_junction_or_symlink_on_the_way_is_an_escape() {
        for tag in [JUNCTION, SYMLINK] {
            let fake = tree(&[(r"\Device\V\p\sub", Node::Reparse(tag, r"\Device\V\out"))]);
            let e = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err();
            assert_eq!(e.kind, SysKind::Escape, "{tag:#x}: {e:?}");
            assert!(fake.opens.borrow().iter().all(|(p, _)| !p.contains("out")), "nothing outside opened");
        }
    }

    #[test]
    fn a_final_symlink_is_an_escape_and_so_is_one_above_the_root() {
        let fake = tree(&[(r"\Device\V\p\sub\a.txt", Node::Reparse(SYMLINK, r"\Device\V\out\a.txt"))]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err().kind, SysKind::Escape);
        let fake = tree(&[(r"\Device\V\p", Node::Reparse(JUNCTION, r"\Device\V\out"))]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\a.txt")).unwrap_err().kind, SysKind::Escape);
    }

    #[test]
    fn a_silently_followed_link_is_caught_by_its_final_path() {
        // Wine: no reparse attribute, but the handle is elsewhere.
        let fake = tree(&[(r"\Device\V\p\sub", Node::Followed(r"\Device\V\out"))]);
        let e = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err();
        assert_eq!(e.kind, SysKind::Escape, "{e:?}");
        assert!(e.message.contains(r"\Device\V\out"), "{}", e.message);
        let fake = tree(&[(r"\Device\V\p\sub\a.txt", Node::Followed(r"\Device\V\out\a.txt"))]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err().kind, SysKind::Escape);
    }

    #[test]
    fn a_link_followed_then_swapped_back_before_its_path_was_recorded_is_caught_by_the_entry() {
        let fake = tree(&[(r"\Device\V\p\sub", Node::Raced(r"\Device\V\out", true))]);
        let e = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err();
        assert_eq!(e.kind, SysKind::Escape, "{e:?}");
        assert!(e.message.contains("replaced while it was opened"), "{}", e.message);
        let fake = tree(&[(r"\Device\V\p\sub\a.txt", Node::Raced(r"\Device\V\out\a.txt", false))]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err().kind, SysKind::Escape);
    }

    #[test]
    fn a_file_link_listed_as_its_target_is_caught_by_a_lookup_that_does_not_follow_it() {
        // Wine: the open follows the link, the recorded path is inside, the listing shows the
        // target's id. Only the directory's own entries (by id, not following links) tell.
        for link in [Node::FileLink(r"\Device\V\out\a.txt"), Node::RacedFileOnce(r"\Device\V\out\a.txt")] {
            let fake = tree(&[(r"\Device\V\p\sub\a.txt", link.clone())]);
            let e = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err();
            assert_eq!(e.kind, SysKind::Escape, "{link:?}: {e:?}");
            assert!(e.message.contains("not in its directory"), "{}", e.message);
        }
        // The same answers without that lookup pass every other check: the read would be served
        // the outside file (the leak the Wine race found, about one run in seven).
        let fake = tree(&[(r"\Device\V\p\sub\a.txt", Node::FileLink(r"\Device\V\out\a.txt"))]).windows();
        let h = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap();
        assert_eq!(h.id, Fake::id(r"\Device\V\out\a.txt"));
        // A real file, and another name of a file inside the root, are found.
        let fake = tree(&[
            (r"\Device\V\p\sub\b.txt", Node::File),
            (r"\Device\V\p\sub\c.txt", Node::HardLink(r"\Device\V\p\sub\b.txt")),
        ]);
        open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\b.txt")).unwrap();
        open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\c.txt")).unwrap();
    }

    #[test]
    fn each_entry_is_read_through_a_fresh_handle_of_its_directory() {
        let fake = tree(&[(r"\Device\V\p\b.txt", Node::File)]);
        let at = beneath(r"C:\p", r"C:\p\sub");
        let root = open_root(&fake, &at).unwrap();
        // A handle answers later listings for the name it was first asked (Windows documents
        // it; Wine does it even when the scan is restarted).
        assert_eq!(fake.entry(&root.handle, "sub").unwrap(), fake.entry(&root.handle, "b.txt").unwrap());
        let sub = entry_of(&fake, &root, "sub").unwrap().unwrap();
        let b = entry_of(&fake, &root, "b.txt").unwrap().unwrap();
        assert_eq!((sub.0, sub.2), (ATTR_DIRECTORY, Fake::id(r"\Device\V\p\sub")));
        assert_eq!((b.0, b.2), (0, Fake::id(r"\Device\V\p\b.txt")));
        assert_eq!(entry_of(&fake, &root, "none").unwrap(), None);
    }

    #[test]
    fn something_made_is_deleted_again_until_its_directory_no_longer_lists_it() {
        // Wine deletes by the path it recorded for the handle: a wrong one deletes nothing, so
        // the file is opened again below its directory and deleted through that handle.
        let fake = tree(&[(r"\Device\V\p\t.tmp", Node::File)]);
        let dir = open_root(&fake, &beneath(r"C:\p", r"C:\p\t.tmp")).unwrap();
        let recorded_elsewhere = H {
            path: r"\Device\V\out\t.tmp".into(),
            id: Fake::id(r"\Device\V\p\t.tmp"),
            reparse: None,
            dir: false,
            serial: 0,
        };
        assert!(remove_made(&fake, &dir, "t.tmp", recorded_elsewhere));
        assert!(!fake.nodes.borrow().contains_key(r"\Device\V\p\t.tmp"), "the temporary is gone");
        assert_eq!(*fake.discarded.borrow(), [r"\Device\V\out\t.tmp", r"\Device\V\p\t.tmp"]);
        // Something else standing at the name is not deleted.
        let fake = tree(&[(r"\Device\V\p\t.tmp", Node::File)]);
        let dir = open_root(&fake, &beneath(r"C:\p", r"C:\p\t.tmp")).unwrap();
        let other = H { path: r"\Device\V\out\t.tmp".into(), id: 1, reparse: None, dir: false, serial: 0 };
        assert!(!remove_made(&fake, &dir, "t.tmp", other));
        assert!(fake.nodes.borrow().contains_key(r"\Device\V\p\t.tmp"), "not ours: left alone");
    }

    #[test]
    fn a_reparse_point_listed_without_a_tag_is_an_escape() {
        let fake = tree(&[(r"\Device\V\p\sub", Node::RacedLink(r"\Device\V\out"))]);
        let e = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err();
        assert_eq!(e.kind, SysKind::Escape, "{e:?}");
        assert!(e.message.contains("reparse tag 0x0"), "{}", e.message);
    }

    #[test]
    fn something_made_elsewhere_than_asked_is_deleted_through_its_handle() {
        let fake = tree(&[]);
        let dir = open_root(&fake, &beneath(r"C:\p", r"C:\p\x")).unwrap();
        let elsewhere = H { path: r"\Device\V\out\x".into(), id: 1, reparse: None, dir: true, serial: 0 };
        assert_eq!(created(&fake, &dir, "x", elsewhere).unwrap_err().kind, SysKind::Escape);
        assert_eq!(*fake.discarded.borrow(), [r"\Device\V\out\x"]);
        let here = H { path: r"\Device\V\p\x".into(), id: 2, reparse: None, dir: true, serial: 0 };
        assert_eq!(created(&fake, &dir, "x", here).unwrap().path, r"\Device\V\p\x");
        assert_eq!(fake.discarded.borrow().len(), 1, "what is where it was asked for stays");
    }

    #[test]
    fn a_directory_open_of_a_followed_link_to_a_file_is_an_escape_not_a_missing_directory() {
        let fake = tree(&[(r"\Device\V\p\sub", Node::Followed(r"\Device\V\out\a.txt"))]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\a.txt")).unwrap_err().kind, SysKind::Escape);
        // A real file where a directory is expected stays "not a directory".
        let fake = tree(&[(r"\Device\V\p\f", Node::File)]);
        assert_eq!(open_file(&fake, &beneath(r"C:\p", r"C:\p\f\a.txt")).unwrap_err().kind, SysKind::NotADirectory);
    }

    #[test]
    fn an_in_place_reparse_point_is_opened_again_and_served() {
        // A OneDrive folder and file: reparse points, but not name surrogates.
        let fake = tree(&[
            (r"\Device\V\p\sub", Node::Placeholder(true)),
            (r"\Device\V\p\sub\c.txt", Node::Placeholder(false)),
        ]);
        let h = open_file(&fake, &beneath(r"C:\p", r"C:\p\sub\c.txt")).unwrap();
        assert_eq!(h.path, r"\Device\V\p\sub\c.txt");
        assert_eq!(h.reparse, None, "the second open lets the system serve the content");
        let follows = fake.opens.borrow().iter().filter(|(_, follow)| *follow).count();
        // The volume root, the folder and the file.
        assert_eq!(follows, 3, "the volume root and each placeholder: {:?}", fake.opens.borrow());
    }

    #[test]
    fn an_in_place_reparse_point_swapped_between_its_two_opens_is_an_escape() {
        let fake = tree(&[(r"\Device\V\p\sub\c.txt", Node::Placeholder(false))]);
        // The first open of c.txt sees the placeholder; before the second, another name of an
        // outside file stands there: its final path is inside, its id is not the placeholder's.
        let at = beneath(r"C:\p", r"C:\p\sub\c.txt");
        let root = open_root(&fake, &at).unwrap();
        let dir = walk(&fake, root, &at.rel[..1]).unwrap();
        *fake.swap_after_next_open.borrow_mut() =
            Some((r"\Device\V\p\sub\c.txt".into(), Node::HardLink(r"\Device\V\out\a.txt")));
        let e = step(&fake, &dir, "c.txt", Open::Read).unwrap_err();
        assert_eq!(e.kind, SysKind::Escape, "{e:?}");
        assert!(e.message.contains("replaced while it was opened"), "{}", e.message);
    }

    #[test]
    fn directories_are_made_below_the_root_and_links_met_are_escapes() {
        let fake = tree(&[]);
        let at = beneath(r"C:\p", r"C:\p\sub\new\deeper");
        let root = open_root(&fake, &at).unwrap();
        let made = create_below(&fake, root, &at.rel).unwrap();
        assert_eq!(made.path, r"\Device\V\p\sub\new\deeper");
        let fake = tree(&[(r"\Device\V\p\sub", Node::Followed(r"\Device\V\out"))]);
        let root = open_root(&fake, &at).unwrap();
        assert_eq!(create_below(&fake, root, &at.rel).unwrap_err().kind, SysKind::Escape);
        let fake = tree(&[(r"\Device\V\p\sub", Node::Reparse(JUNCTION, r"\Device\V\out"))]);
        let root = open_root(&fake, &at).unwrap();
        assert_eq!(create_below(&fake, root, &at.rel).unwrap_err().kind, SysKind::Escape);
    }

    #[test]
    fn final_paths_compare_by_one_name() {
        assert!(directly_below(r"\Device\V\", r"\Device\V\p"));
        assert!(directly_below(r"\Device\V\p", r"\Device\V\p\a"));
        assert!(!directly_below(r"\Device\V\p", r"\Device\V\p"));
        assert!(!directly_below(r"\Device\V\p", r"\Device\V\p\a\b"));
        assert!(!directly_below(r"\Device\V\p", r"\Device\V\pa"));
        assert!(!directly_below(r"\Device\V\p", r"\Device\V\out"));
    }

    #[test]
    fn volume_roots_are_nt_names() {
        assert_eq!(volume_root(r"C:\Users\me").unwrap(), r"\??\C:\");
        assert_eq!(volume_root(r"\\srv\share\a").unwrap(), r"\??\UNC\srv\share\");
        assert!(volume_root("/home/me").is_err());
    }

    #[test]
    fn errors_keep_their_meaning_for_the_engine() {
        let e = SysError::escape("x").to_storage("open", r"C:\p\a");
        assert_eq!(e.kind, StorageErrorKind::SymlinkEscape);
        assert!(e.message.contains(r"C:\p\a") && e.message.contains("changed after it was checked"), "{}", e.message);
        let e = SysError::new(SysKind::NotFound, "gone").to_storage("open", "x");
        assert_eq!(e.kind, StorageErrorKind::NotFound);
    }
}
