//! An in-memory file system with directories, symlinks and special files, for tests and
//! embedders (containment is testable without a disk).

use crate::bytes::Bytes;
use crate::path::AbsPath;
use crate::storage::{DirEntry, FileKind, Metadata, Storage, StorageCaps, StorageError, StorageErrorKind};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    /// Names that share one `Arc` are hard links to one file; a write replaces the name's
    /// `Arc` (like a rename over it), so an open file keeps the content it was opened with.
    ///
    /// The number is the file's version, from the storage's clock: every write gets a new one
    /// (the modification time the storage reports).
    File(Arc<Vec<u8>>, u64),
    Dir,
    Symlink(String),
    Special,
}

/// Symlink hops before a path is declared a loop (Linux's limit).
const MAX_HOPS: usize = 40;

/// An in-memory storage.
///
/// ```
/// use acp_fs::{MemoryStorage, Storage};
/// let m = MemoryStorage::new();
/// m.put("/p/a.txt", "hi");
/// m.symlink("/p/link", "a.txt");
/// assert_eq!(m.real_path("/p/link").unwrap(), "/p/a.txt");
/// assert_eq!(m.read("/p/link").unwrap(), b"hi");
/// ```
#[derive(Debug)]
pub struct MemoryStorage {
    nodes: Mutex<BTreeMap<String, Node>>,
    caps: StorageCaps,
    /// Largest answer to one ranged read: small values exercise chunk boundaries and short
    /// reads.
    max_read: usize,
    bytes_read: AtomicU64,
    /// Versions for written files: bumped on every `put` and `write`.
    clock: AtomicU64,
}

impl Default for MemoryStorage {
    fn default() -> Self {
        MemoryStorage::new()
    }
}

impl MemoryStorage {
    /// An empty storage that can do everything ([`StorageCaps::FULL`]).
    pub fn new() -> MemoryStorage {
        MemoryStorage::with_caps(StorageCaps::FULL)
    }

    /// A storage that advertises (and only does) `caps`.
    pub fn with_caps(caps: StorageCaps) -> MemoryStorage {
        MemoryStorage {
            nodes: Mutex::default(),
            caps,
            max_read: usize::MAX,
            bytes_read: AtomicU64::new(0),
            clock: AtomicU64::new(0),
        }
    }

    /// Caps every ranged read at `n` bytes (short reads, as some real storages give).
    pub fn with_max_read(mut self, n: usize) -> MemoryStorage {
        self.max_read = n.max(1);
        self
    }

    /// File bytes handed out so far by `read` and `read_range`.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Creates or replaces a file (parents implied).
    pub fn put(&self, path: &str, bytes: impl AsRef<[u8]>) {
        self.insert(path, Node::File(Arc::new(bytes.as_ref().to_vec()), self.tick()));
    }

    /// Makes `path` a hard link to the existing file `existing` (no symlinks followed); false
    /// when `existing` is not a file.
    pub fn hard_link(&self, path: &str, existing: &str) -> bool {
        let Ok(existing) = AbsPath::parse(existing) else { return false };
        let file = match self.lock().get(existing.as_str()) {
            Some(node @ Node::File(..)) => node.clone(),
            _ => return false,
        };
        self.insert(path, file);
        true
    }

    /// Creates a directory (parents implied).
    pub fn mkdir(&self, path: &str) {
        self.insert(path, Node::Dir);
    }

    /// Creates a symlink; a relative target is relative to the link's directory.
    pub fn symlink(&self, path: &str, target: &str) {
        self.insert(path, Node::Symlink(target.to_owned()));
    }

    /// Creates a non-regular file (a FIFO or a device).
    pub fn special(&self, path: &str) {
        self.insert(path, Node::Special);
    }

    /// A file's bytes, without following symlinks.
    pub fn get(&self, path: &str) -> Option<Vec<u8>> {
        let path = AbsPath::parse(path).ok()?;
        match self.lock().get(path.as_str()) {
            Some(Node::File(b, _)) => Some(b.to_vec()),
            _ => None,
        }
    }

    /// Removes the file (or empty name) at `path`, not following a final symlink; false when
    /// nothing was there.
    pub fn remove(&self, path: &str) -> bool {
        AbsPath::parse(path).is_ok_and(|p| self.lock().remove(p.as_str()).is_some())
    }

    /// Whether anything exists at `path` (not following a final symlink).
    pub fn exists(&self, path: &str) -> bool {
        AbsPath::parse(path).is_ok_and(|p| p.is_root() || self.lock().contains_key(p.as_str()))
    }

    /// Every file path with its bytes.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        self.lock()
            .iter()
            .filter_map(|(k, n)| match n {
                Node::File(b, _) => Some((k.clone(), b.to_vec())),
                _ => None,
            })
            .collect()
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Node>> {
        self.nodes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn insert(&self, path: &str, node: Node) {
        let Ok(path) = AbsPath::parse(path) else { return };
        let mut nodes = self.lock();
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !d.is_root() {
                nodes.entry(d.as_str().to_owned()).or_insert(Node::Dir);
            }
            dir = d.parent();
        }
        nodes.insert(path.as_str().to_owned(), node);
    }

    /// Walks `path` component by component, following symlinks (the final one only if
    /// `follow`); returns the canonical path and the kind of node there.
    fn resolve(
        &self,
        nodes: &BTreeMap<String, Node>,
        path: &str,
        follow: bool,
    ) -> Result<(AbsPath, Kind), StorageError> {
        let path = AbsPath::parse(path).map_err(|why| StorageError::new(StorageErrorKind::Other, why))?;
        let mut hops = 0;
        walk(nodes, &path, follow, &mut hops)
    }

    /// Runs `f` on the bytes of the file at `path` (symlinks followed), without copying it.
    fn with_file<R>(&self, path: &str, f: impl FnOnce(&[u8]) -> R) -> Result<R, StorageError> {
        let nodes = self.lock();
        match self.resolve(&nodes, path, true)? {
            (real, Kind::File(_)) => match nodes.get(real.as_str()) {
                Some(Node::File(b, _)) => Ok(f(b)),
                _ => Err(StorageError::not_found(path)),
            },
            (_, Kind::Dir) => Err(StorageError::new(StorageErrorKind::IsADirectory, format!("is a directory: {path}"))),
            _ => Err(StorageError::new(StorageErrorKind::Other, format!("not a regular file: {path}"))),
        }
    }
}

/// What a path names, without the payload (so resolution never copies file contents).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File(u64),
    Dir,
    Symlink(u64),
    Special,
}

impl Kind {
    fn of(node: &Node) -> Kind {
        match node {
            Node::File(b, _) => Kind::File(b.len() as u64),
            Node::Dir => Kind::Dir,
            Node::Symlink(t) => Kind::Symlink(t.len() as u64),
            Node::Special => Kind::Special,
        }
    }
}

fn walk(
    nodes: &BTreeMap<String, Node>,
    path: &AbsPath,
    follow: bool,
    hops: &mut usize,
) -> Result<(AbsPath, Kind), StorageError> {
    let mut current = root_of(path);
    let names: Vec<&str> = path.components().collect();
    let mut kind = Kind::Dir;
    for (i, name) in names.iter().enumerate() {
        if kind != Kind::Dir {
            return Err(StorageError::new(StorageErrorKind::NotADirectory, format!("not a directory: {current}")));
        }
        let next = current.join([*name]);
        let last = i + 1 == names.len();
        match nodes.get(next.as_str()) {
            None => return Err(StorageError::not_found(path.as_str())),
            Some(Node::Symlink(target)) if !last || follow => {
                *hops += 1;
                if *hops > MAX_HOPS {
                    return Err(StorageError::new(
                        StorageErrorKind::Other,
                        format!("too many levels of symbolic links: {path}"),
                    ));
                }
                let base = if is_absolute(target) {
                    target.clone()
                } else {
                    format!("{}{}{}", current, sep_after(&current), target)
                };
                let dest = AbsPath::parse(&base).map_err(|why| StorageError::new(StorageErrorKind::Other, why))?;
                let (resolved, k) = walk(nodes, &dest, true, hops)?;
                current = resolved;
                kind = k;
            }
            Some(n) => {
                current = next;
                kind = Kind::of(n);
            }
        }
    }
    Ok((current, kind))
}

/// What a stat that does not follow `node` finds.
fn meta_of(nodes: &BTreeMap<String, Node>, node: &Node) -> Metadata {
    match node {
        Node::File(bytes, version) => {
            // The version counter only this storage moves: it is the change time too.
            let modified = Some(*version);
            let (size, links) = (bytes.len() as u64, links(nodes, bytes));
            Metadata { kind: FileKind::File, size, links, modified, changed: modified, file_id: None }
        }
        Node::Dir => Metadata::new(FileKind::Directory, 0),
        Node::Symlink(target) => Metadata::new(FileKind::Symlink, target.len() as u64),
        Node::Special => Metadata::new(FileKind::Other, 0),
    }
}

/// The directory `dir` as the disk opens one below a root: every component a directory, a
/// symlink anywhere on the way refused (`SymlinkEscape`, as one swapped in after the check).
fn walk_dirs(nodes: &BTreeMap<String, Node>, dir: &AbsPath) -> Result<(), StorageError> {
    let mut current = root_of(dir);
    for name in dir.components() {
        current = current.join([name]);
        match nodes.get(current.as_str()) {
            Some(Node::Dir) => {}
            None => return Err(StorageError::not_found(dir.as_str())),
            Some(Node::Symlink(_)) => {
                return Err(StorageError::new(
                    StorageErrorKind::SymlinkEscape,
                    format!("a symlink is on the path at {current}"),
                ))
            }
            Some(_) => {
                return Err(StorageError::new(StorageErrorKind::NotADirectory, format!("not a directory: {current}")))
            }
        }
    }
    Ok(())
}

/// The keys strictly below `dir` (its entries and theirs), in order.
fn below<'a>(nodes: &'a BTreeMap<String, Node>, dir: &AbsPath) -> impl Iterator<Item = (&'a String, &'a Node)> {
    let prefix = format!("{dir}{}", sep_after(dir));
    let skip = prefix.len();
    // A root stored as a key of its own ("/") is not below itself.
    nodes.range(prefix.clone()..).take_while(move |(k, _)| k.starts_with(&prefix)).filter(move |(k, _)| k.len() > skip)
}

fn parse(path: &str) -> Result<AbsPath, StorageError> {
    AbsPath::parse(path).map_err(|why| StorageError::new(StorageErrorKind::Other, why))
}

fn already_exists(path: &AbsPath) -> StorageError {
    StorageError::new(StorageErrorKind::AlreadyExists, format!("already exists: {path}"))
}

/// The names of the file `bytes` belongs to.
fn links(nodes: &BTreeMap<String, Node>, bytes: &Arc<Vec<u8>>) -> u64 {
    nodes.values().filter(|n| matches!(n, Node::File(b, _) if Arc::ptr_eq(b, bytes))).count() as u64
}

fn root_of(path: &AbsPath) -> AbsPath {
    let mut root = path.clone();
    while let Some(p) = root.parent() {
        root = p;
    }
    root
}

fn sep_after(dir: &AbsPath) -> &'static str {
    match (dir.is_root() && dir.style() != crate::path::Style::Unc, dir.style().separator()) {
        (true, _) => "",
        (false, '/') => "/",
        _ => "\\",
    }
}

fn is_absolute(target: &str) -> bool {
    AbsPath::parse(target).is_ok()
}

impl Storage for MemoryStorage {
    type File = Arc<Vec<u8>>;

    fn caps(&self) -> StorageCaps {
        self.caps
    }

    fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        let nodes = self.lock();
        let (real, kind) = self.resolve(&nodes, path, follow)?;
        Ok(match (kind, nodes.get(real.as_str())) {
            (Kind::File(_), Some(node)) => meta_of(&nodes, node),
            (Kind::File(size), None) => Metadata::new(FileKind::File, size),
            (Kind::Dir, _) => Metadata::new(FileKind::Directory, 0),
            (Kind::Symlink(size), _) => Metadata::new(FileKind::Symlink, size),
            (Kind::Special, _) => Metadata::new(FileKind::Other, 0),
        })
    }

    fn real_path(&self, path: &str) -> Result<String, StorageError> {
        let nodes = self.lock();
        self.resolve(&nodes, path, true).map(|(p, _)| p.as_str().to_owned())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, StorageError> {
        let bytes = self.with_file(path, <[u8]>::to_vec)?;
        self.bytes_read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    /// Like the disk: the path must be the real path (a symlink anywhere on it is refused, as
    /// one that appeared after the check would be), and the open file keeps its content when
    /// the name is written again.
    fn open(&self, _root: &str, path: &str) -> Result<(Option<Arc<Vec<u8>>>, Metadata), StorageError> {
        let nodes = self.lock();
        let target = AbsPath::parse(path).map_err(|why| StorageError::new(StorageErrorKind::Other, why))?;
        let mut current = root_of(&target);
        for name in target.components() {
            current = current.join([name]);
            match nodes.get(current.as_str()) {
                None => return Err(StorageError::not_found(path)),
                Some(Node::Symlink(_)) => {
                    return Err(StorageError::new(
                        StorageErrorKind::SymlinkEscape,
                        format!("a symlink is on the path at {current}"),
                    ))
                }
                Some(Node::Dir) if current != target => {}
                Some(_) if current != target => {
                    return Err(StorageError::new(
                        StorageErrorKind::NotADirectory,
                        format!("not a directory: {current}"),
                    ))
                }
                Some(Node::File(bytes, version)) => {
                    let meta = Metadata {
                        kind: FileKind::File,
                        size: bytes.len() as u64,
                        links: links(&nodes, bytes),
                        modified: Some(*version),
                        changed: Some(*version),
                        file_id: None,
                    };
                    return Ok((Some(bytes.clone()), meta));
                }
                Some(Node::Dir) => return Ok((None, Metadata::new(FileKind::Directory, 0))),
                Some(_) => return Ok((None, Metadata::new(FileKind::Other, 0))),
            }
        }
        Ok((None, Metadata::new(FileKind::Directory, 0)))
    }

    /// Lends the range of the open file: nothing is copied.
    fn read_at(&self, file: &Arc<Vec<u8>>, offset: u64, len: usize) -> Result<Bytes, StorageError> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(file.len());
        let end = start.saturating_add(len.min(self.max_read)).min(file.len());
        self.bytes_read.fetch_add((end - start) as u64, Ordering::Relaxed);
        Ok(Bytes::lent(file.clone(), start..end))
    }

    fn make_dirs(&self, _root: &str, path: &str) -> Result<(), StorageError> {
        let target = AbsPath::parse(path).map_err(|why| StorageError::new(StorageErrorKind::Other, why))?;
        let mut nodes = self.lock();
        let mut current = root_of(&target);
        for name in target.components() {
            let next = current.join([name]);
            match self.resolve(&nodes, next.as_str(), true) {
                Ok((real, Kind::Dir)) => current = real,
                Ok(_) => {
                    return Err(StorageError::new(StorageErrorKind::NotADirectory, format!("not a directory: {next}")))
                }
                Err(e) if e.kind == StorageErrorKind::NotFound => {
                    if nodes.get(next.as_str()).is_some() {
                        // A dangling symlink: mkdir through it would create its target.
                        return Err(StorageError::new(StorageErrorKind::Other, format!("dangling symlink: {next}")));
                    }
                    nodes.insert(next.as_str().to_owned(), Node::Dir);
                    current = next;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn write(&self, _root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let target = AbsPath::parse(path).map_err(|why| StorageError::new(StorageErrorKind::Other, why))?;
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(StorageError::new(StorageErrorKind::IsADirectory, "cannot write to a root"));
        };
        let mut nodes = self.lock();
        let dir = match self.resolve(&nodes, parent.as_str(), true)? {
            (dir, Kind::Dir) => dir,
            _ => return Err(StorageError::new(StorageErrorKind::NotADirectory, format!("not a directory: {parent}"))),
        };
        let key = dir.join([name]);
        // Like rename(2) over the final component: a symlink there is replaced, not followed.
        match nodes.get(key.as_str()) {
            Some(Node::Dir) => Err(StorageError::new(StorageErrorKind::IsADirectory, format!("is a directory: {key}"))),
            _ => {
                let version = self.tick();
                nodes.insert(key.as_str().to_owned(), Node::File(Arc::new(bytes.to_vec()), version));
                Ok(())
            }
        }
    }

    /// Like the disk: the directory is reached with no symlink on the way, and each entry is
    /// described without following it.
    fn list(&self, _root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        let dir = parse(path)?;
        let nodes = self.lock();
        walk_dirs(&nodes, &dir)?;
        let sep = dir.style().separator();
        let prefix = format!("{dir}{}", sep_after(&dir)).len();
        Ok(below(&nodes, &dir)
            .filter(|(k, _)| !k[prefix..].contains(sep))
            .map(|(k, node)| DirEntry { name: k[prefix..].to_owned(), meta: meta_of(&nodes, node) })
            .collect())
    }

    /// Both parents are reached with no symlink on the way; a symlink at `from` moves as a
    /// link, a directory with everything below it.
    fn rename(&self, _root: &str, from: &str, to: &str) -> Result<(), StorageError> {
        let (source, target) = (parse(from)?, parse(to)?);
        let (Some(from_dir), Some(to_dir)) = (source.parent(), target.parent()) else {
            return Err(StorageError::new(
                StorageErrorKind::Other,
                format!("move {from} to {to}: a root is never moved"),
            ));
        };
        let mut nodes = self.lock();
        walk_dirs(&nodes, &from_dir)?;
        walk_dirs(&nodes, &to_dir)?;
        let Some(node) = nodes.get(source.as_str()) else { return Err(StorageError::not_found(from)) };
        if nodes.contains_key(target.as_str()) {
            return Err(already_exists(&target));
        }
        if *node == Node::Dir && target.starts_with(&source) {
            return Err(StorageError::new(StorageErrorKind::Other, format!("move {from} to {to}: into itself")));
        }
        let moved: Vec<String> = below(&nodes, &source).map(|(k, _)| k.clone()).collect();
        let node = nodes.remove(source.as_str()).expect("looked up above");
        nodes.insert(target.as_str().to_owned(), node);
        let (old, new) = (format!("{source}{}", sep_after(&source)), format!("{target}{}", sep_after(&target)));
        for key in moved {
            let node = nodes.remove(&key).expect("listed above");
            nodes.insert(format!("{new}{}", &key[old.len()..]), node);
        }
        Ok(())
    }

    /// The parent is reached with no symlink on the way; anything at `path` (a dangling link
    /// too) is `AlreadyExists`.
    fn make_dir(&self, _root: &str, path: &str) -> Result<(), StorageError> {
        let target = parse(path)?;
        let Some(parent) = target.parent() else { return Err(already_exists(&target)) };
        let mut nodes = self.lock();
        walk_dirs(&nodes, &parent)?;
        if nodes.contains_key(target.as_str()) {
            return Err(already_exists(&target));
        }
        nodes.insert(target.as_str().to_owned(), Node::Dir);
        Ok(())
    }
}
