//! What the engine asks of a host's storage, and the traits drivers run it over.

use crate::bytes::Bytes;
use crate::record::{ChangeRecord, DocumentWrite};

/// What exists at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FileKind {
    /// A regular file: the only kind that is read or replaced.
    File,
    /// A directory.
    Directory,
    /// A symlink (only from a `stat` that does not follow).
    Symlink,
    /// FIFOs, sockets, devices: never opened.
    Other,
}

/// The answer to a stat or an open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// What is there.
    pub kind: FileKind,
    /// The size in bytes (what a whole-file read would return).
    pub size: u64,
    /// Hard links to the file (`nlink`); 1 where the storage has no hard links. A regular file
    /// with more than one is also reachable under a name outside the roots (semantics.md §8.2).
    pub links: u64,
    /// When the file's content last changed, in nanoseconds since the Unix epoch (or any
    /// clock that moves on every change, such as a version counter); `None` where the storage
    /// cannot tell. Anyone may set it back (`touch -r`, `cp -p`, `tar x`), so it names a
    /// version only together with [`Metadata::changed`].
    pub modified: Option<u64>,
    /// When anything about the file last changed, in nanoseconds, from a clock user space
    /// cannot set back: a disk's ctime (`utimes` sets it to now), or a counter only the
    /// storage moves. With the size, `modified` and `file_id` it names one version of the
    /// file (semantics.md §8 "Line index"); a storage that reports none gets no line index,
    /// because nothing it reports proves a remembered line start still holds.
    pub changed: Option<u64>,
    /// Which file this is on the storage (a disk's device and inode, folded into one number);
    /// `None` where the storage cannot tell. A file replaced by rename is another file.
    pub file_id: Option<u64>,
}

/// One entry of a directory listing ([`Storage::list`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name in its directory (one path component, never `.` or `..`).
    pub name: String,
    /// What the entry is, described without following a symlink (lstat): a link is listed as
    /// a link, so nothing outside the roots is described through it.
    pub meta: Metadata,
}

impl Metadata {
    /// Metadata of something with one link (every storage without hard links).
    pub const fn new(kind: FileKind, size: u64) -> Metadata {
        Metadata { kind, size, links: 1, modified: None, changed: None, file_id: None }
    }
}

/// Why a storage call failed, as far as the engine needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StorageErrorKind {
    /// Nothing is at the path: a read answers `-32002`, a write creates the file.
    NotFound,
    /// The storage refused access (`permission_denied`).
    PermissionDenied,
    /// A symlink (or a path outside the root) turned up where the checked, canonical path had
    /// none: something moved after containment was checked.
    SymlinkEscape,
    /// A directory is where a file was expected (`not_a_file`).
    IsADirectory,
    /// A parent of the path is not a directory: for a read the file does not exist.
    NotADirectory,
    /// Something already exists where a directory was to be made or a file moved to: a move
    /// never replaces what is there.
    AlreadyExists,
    /// The storage cannot do this at all (`storage_error`).
    Unsupported,
    /// Any other failure (`storage_error`, with the message).
    Other,
}

/// A storage failure; the host's own error stays with the host (the JS `cause`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageError {
    /// What the engine makes of it.
    pub kind: StorageErrorKind,
    /// The storage's own words, kept in the answer's hint where the kind has one.
    pub message: String,
}

impl StorageError {
    /// An error of `kind` with the storage's message.
    pub fn new(kind: StorageErrorKind, message: impl Into<String>) -> Self {
        StorageError { kind, message: message.into() }
    }

    /// `NotFound` for `path`, worded as the OS words it.
    pub fn not_found(path: &str) -> Self {
        Self::new(StorageErrorKind::NotFound, format!("no such file or directory: {path}"))
    }
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

impl std::error::Error for StorageError {}

/// Whether a storage has symlinks, and whether it can resolve them (semantics.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Symlinks {
    /// No symlinks exist: lexical containment is the whole check.
    None,
    /// `real_path` and `stat(path, follow = false)` work.
    Resolvable,
    /// Symlinks exist but cannot be resolved: every request fails closed.
    Unresolvable,
}

/// What a storage can do; the engine plans its I/O from this: whether it has symlinks, and
/// whether it can `write` files and make directories (`makeDirs`) beside the two below. `list`
/// (directory listings), `rename` (moves) and `makeDir` (one directory, not its parents) are
/// what the MCP file tools need beyond reads and writes: a storage without one gets the tools
/// that need it left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // members documented above: field docs would change npm/types/host.d.ts
pub struct StorageCaps {
    /// `resolvable`: real paths and lstat work. `none`: the storage has no symlinks (lexical
    /// containment is the whole check). `unresolvable`: it has symlinks it cannot resolve, so
    /// every request fails closed.
    pub symlinks: Symlinks,
    /// `stat` works (non-regular files are refused before they are opened, sizes checked).
    pub stat: bool,
    /// `open` and `read_at` work: windows stream instead of reading whole files, and every
    /// range of a request comes from one open file.
    pub ranged_reads: bool,
    pub write: bool,
    pub make_dirs: bool,
    pub list: bool,
    pub rename: bool,
    pub make_dir: bool,
}

impl StorageCaps {
    /// Everything: a real disk or a full virtual file system.
    pub const FULL: StorageCaps = StorageCaps {
        symlinks: Symlinks::Resolvable,
        stat: true,
        ranged_reads: true,
        write: true,
        make_dirs: true,
        list: true,
        rename: true,
        make_dir: true,
    };
    /// The real disk's (`DiskStorage`, the node binding's native disk): everything, on every
    /// platform (listings, moves and single directories included, each below the root's handle).
    pub const DISK: StorageCaps = StorageCaps::FULL;
    /// Only whole-file reads.
    pub const READ_ONLY_MINIMAL: StorageCaps = StorageCaps {
        symlinks: Symlinks::None,
        stat: false,
        ranged_reads: false,
        write: false,
        make_dirs: false,
        list: false,
        rename: false,
        make_dir: false,
    };
}

fn unsupported<T>(what: &str) -> Result<T, StorageError> {
    Err(StorageError::new(StorageErrorKind::Unsupported, format!("storage has no {what}")))
}

/// A synchronous storage. Paths are the engine's normalized absolute paths. Only the methods
/// [`StorageCaps`] advertises are called.
///
/// `open`, `make_dirs` and `write` also get the root the checked path lies under (its real
/// path, when the storage has symlinks): a storage shared with someone who can move things
/// (a real disk) resolves the path relative to that root and refuses a symlink on the way, so
/// what the engine checked is what is touched. Virtual storages may ignore it.
pub trait Storage {
    /// An open regular file: every range of one request is read from the same one.
    type File;

    /// What this storage can do; the engine calls nothing else.
    fn caps(&self) -> StorageCaps;
    /// Metadata; `follow = false` describes a symlink itself (lstat).
    fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        let _ = (path, follow);
        unsupported("stat")
    }
    /// The canonical path (every symlink resolved); `NotFound` when it does not exist.
    fn real_path(&self, path: &str) -> Result<String, StorageError> {
        let _ = path;
        unsupported("real_path")
    }
    /// The whole file (storages without ranged reads).
    fn read(&self, path: &str) -> Result<Vec<u8>, StorageError>;
    /// Opens the file at `path` under `root` for reading, with its metadata. Anything but a
    /// regular file is answered with its metadata and no file (never opened, or closed again).
    fn open(&self, root: &str, path: &str) -> Result<(Option<Self::File>, Metadata), StorageError> {
        let _ = (root, path);
        unsupported("open")
    }
    /// Up to `len` bytes at `offset` of an open file; fewer only at the end (empty = EOF).
    fn read_at(&self, file: &Self::File, offset: u64, len: usize) -> Result<Bytes, StorageError> {
        let _ = (file, offset, len);
        unsupported("read_at")
    }
    /// Creates the directory `path` and its missing parents, below `root`.
    fn make_dirs(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("make_dirs")
    }
    /// Creates or replaces the file at `path` below `root`; a crash must leave the old or the
    /// new content.
    fn write(&self, root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let _ = (root, path, bytes);
        unsupported("write")
    }
    /// The entries of the directory at `path` below `root`, in any order, without `.` and `..`,
    /// each described without following it. A storage shared with someone who can move things
    /// lists through a handle of the directory opened below `root` (no symlink on the way).
    fn list(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        let _ = (root, path);
        unsupported("list")
    }
    /// [`list`](Self::list) for a listing that shows no sizes (a tree, a search): each entry's
    /// [`Metadata::kind`] must be right; its size, links, times and id may be left at
    /// [`Metadata::new`]'s. The default lists in full; a disk reads the kinds from the directory
    /// itself instead of describing every entry.
    fn list_kinds(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        self.list(root, path)
    }
    /// Moves `from` to `to`, both below `root`; `AlreadyExists` when something is at `to`
    /// (never replaced). The parent of `to` exists.
    fn rename(&self, root: &str, from: &str, to: &str) -> Result<(), StorageError> {
        let _ = (root, from, to);
        unsupported("rename")
    }
    /// Creates the one directory `path` below `root` (its parent exists); `AlreadyExists` when
    /// anything is there.
    fn make_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("make_dir")
    }
    /// Removes the directory `path` below `root` if it is empty (and fails, changing nothing,
    /// if it is not). Asked only to take back directories a failed write made; a storage
    /// without it keeps them (semantics.md §5).
    fn remove_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("remove_dir")
    }
}

/// The async twin of [`Storage`], for hosts whose storage is async (OPFS, IndexedDB, a remote
/// FS). No `Send` bound, so it works on single-threaded wasm.
#[allow(async_fn_in_trait)]
pub trait AsyncStorage {
    /// An open regular file, as [`Storage::File`].
    type File;

    /// As [`Storage::caps`].
    fn caps(&self) -> StorageCaps;
    /// As [`Storage::stat`].
    async fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        let _ = (path, follow);
        unsupported("stat")
    }
    /// As [`Storage::real_path`].
    async fn real_path(&self, path: &str) -> Result<String, StorageError> {
        let _ = path;
        unsupported("real_path")
    }
    /// As [`Storage::read`].
    async fn read(&self, path: &str) -> Result<Vec<u8>, StorageError>;
    /// As [`Storage::open`].
    async fn open(&self, root: &str, path: &str) -> Result<(Option<Self::File>, Metadata), StorageError> {
        let _ = (root, path);
        unsupported("open")
    }
    /// As [`Storage::read_at`].
    async fn read_at(&self, file: &Self::File, offset: u64, len: usize) -> Result<Bytes, StorageError> {
        let _ = (file, offset, len);
        unsupported("read_at")
    }
    /// As [`Storage::make_dirs`].
    async fn make_dirs(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("make_dirs")
    }
    /// As [`Storage::write`].
    async fn write(&self, root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let _ = (root, path, bytes);
        unsupported("write")
    }
    /// As [`Storage::list`].
    async fn list(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        let _ = (root, path);
        unsupported("list")
    }
    /// As [`Storage::list_kinds`].
    async fn list_kinds(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        self.list(root, path).await
    }
    /// As [`Storage::rename`].
    async fn rename(&self, root: &str, from: &str, to: &str) -> Result<(), StorageError> {
        let _ = (root, from, to);
        unsupported("rename")
    }
    /// As [`Storage::make_dir`].
    async fn make_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("make_dir")
    }
    /// As [`Storage::remove_dir`].
    async fn remove_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let _ = (root, path);
        unsupported("remove_dir")
    }
}

/// The host's answers to questions that are not about storage: approvals and open documents.
/// The defaults approve every write and apply writes to open documents to the overlay only.
pub trait Host {
    /// Whether the write of `change` may go ahead; `false` refuses it (`user_rejected`).
    fn approve(&self, change: &ChangeRecord) -> bool {
        let _ = change;
        true
    }
    /// What to do with a write of `text` to the document open at `path`: keep it in the
    /// buffer, or write it through to storage as well.
    fn write_document(&self, path: &str, text: &str) -> DocumentWrite {
        let _ = (path, text);
        DocumentWrite::Buffer
    }
}

/// Async twin of [`Host`]: an approval may wait minutes for a person.
#[allow(async_fn_in_trait)]
pub trait AsyncHost {
    /// As [`Host::approve`].
    async fn approve(&self, change: &ChangeRecord) -> bool {
        let _ = change;
        true
    }
    /// As [`Host::write_document`].
    async fn write_document(&self, path: &str, text: &str) -> DocumentWrite {
        let _ = (path, text);
        DocumentWrite::Buffer
    }
}

/// A host that approves everything and keeps writes to open documents in the overlay.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultHost;
impl Host for DefaultHost {}
impl AsyncHost for DefaultHost {}
