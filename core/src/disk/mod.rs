//! The real-disk storage: `std::fs` with canonical paths, no-follow opens and atomic writes.

use crate::bytes::Bytes;
use crate::path::AbsPath;
use crate::storage::{DirEntry, FileKind, Metadata, Storage, StorageCaps, StorageError, StorageErrorKind};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The local file system as an acp-fs [`Storage`] (feature `disk`).
///
/// It does everything ([`StorageCaps::FULL`]) and is careful where a naive `std::fs` storage
/// is not:
/// - reads open the file without following a final symlink and without blocking, then refuse
///   anything that is not a regular file, so a FIFO or device is never read and a symlink
///   swapped in after the engine's containment check is refused rather than followed;
/// - ranged reads are positioned reads, so a window costs the bytes up to its end;
/// - writes are atomic: a temporary file in the same directory is written, given the old
///   file's mode, synced and renamed over the target, so a crash leaves the old or the new
///   content and a failure leaves the old file untouched and no temporary file behind;
/// - a file that is not writable (read-only mode, read-only mount) stays protected, although a
///   rename would only need the directory's permission;
/// - listings, moves and new directories go through a handle of the parent opened below the
///   root, so a parent swapped for a symlink (or a junction) is refused, not followed; a listing
///   describes each entry without following it, and a move never replaces what is there.
///
/// Paths are the engine's absolute paths; after containment is checked they are real paths.
///
/// ```
/// use acp_fs::{AcpFs, DefaultHost, DiskStorage, Options, Storage};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir().unwrap();
/// let project = dir.path().join("project");
/// std::fs::create_dir(&project).unwrap();
/// std::fs::write(project.join("notes.txt"), "one\r\ntwo\r\n").unwrap();
/// let project = project.to_str().unwrap();
///
/// let disk = DiskStorage::new();
/// let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
/// fs.open_session("s", project, &[]).unwrap();
///
/// let path = format!("{project}/notes.txt");
/// let read = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": path, "line": 2})), &disk, &DefaultHost);
/// assert_eq!(read.result.unwrap().to_json(), json!({"content": "two\r\n"}));
///
/// // The file uses CRLF, so LF content is stored with CRLF (semantics.md §4).
/// let write = acp_fs::run(fs.write_text_file(json!({"sessionId": "s", "path": path, "content": "three\n"})), &disk, &DefaultHost);
/// assert!(write.result.is_ok());
/// assert_eq!(std::fs::read(&path).unwrap(), b"three\r\n");
/// ```
#[derive(Clone, Debug, Default)]
pub struct DiskStorage {
    fail_at: Option<WriteStep>,
    /// The root handles of one disk run ([`DiskStorage::for_run`]); none: every open and
    /// listing opens its root anew.
    roots: Option<Arc<KeptRoots>>,
}

/// Unix: the roots' handles a disk run keeps (unix.rs). Elsewhere every open walks from its root
/// anyway, so there is nothing to keep: the disks take it all the same, so `DiskStorage` calls
/// each the same way.
#[cfg(unix)]
use sys::KeptRoots;
#[cfg(not(unix))]
#[derive(Debug, Default)]
pub(super) struct KeptRoots;

#[cfg(unix)]
#[path = "unix.rs"]
mod sys;
#[cfg(windows)]
#[path = "windows.rs"]
mod sys;
#[cfg(not(any(unix, windows)))]
#[path = "other.rs"]
mod sys;
// The Windows walk is plain logic over a few system calls: built for tests everywhere, so its
// decisions are checked on faked answers too (win_walk.rs).
#[cfg(windows)]
#[allow(unsafe_code)]
mod nt;
#[cfg(windows)]
#[allow(unsafe_code)]
mod nt_dirs;
#[cfg(any(windows, test))]
mod win_dirs;
#[cfg(any(windows, test))]
mod win_walk;
// The native disk loop's read-ahead (a search's next files opened on worker threads).
#[cfg(feature = "mcp")]
pub(crate) mod read_ahead;
// Listings, moves and single directories (the MCP file tools' storage), beside the reads and
// writes of `sys`.
#[cfg(unix)]
#[path = "unix_dirs.rs"]
mod dirs;
// Windows: through the handle walk of `win_walk`, as the reads and writes.
#[cfg(windows)]
#[path = "windows_dirs.rs"]
mod dirs;
#[cfg(not(any(unix, windows)))]
#[path = "other_dirs.rs"]
mod dirs;

/// A step of an atomic write, in the order they happen; used to inject failures in tests.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteStep {
    CreateTemp,
    SetMode,
    WriteTemp,
    SyncTemp,
    Rename,
}

/// Source of unique temporary names within this process (the pid separates processes).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The largest read given a buffer of the length asked without a look at the file's size.
const SMALL_READ: usize = 64 * 1024;

/// Leftover temporaries of crashed processes can hold a name; a few fresh names get past them.
const TEMP_ATTEMPTS: usize = 16;

/// Bytes of the target's name kept in the temporary's name: with the prefix and suffix it
/// stays under the usual 255-byte name limit however long the target's name is.
const TEMP_NAME_KEEP: usize = 180;

/// A unique temporary name next to `name`: hidden, named after its process (so a later write
/// can tell a dead process's leftover from a write in progress), and short enough for the
/// usual 255-byte name limit however long `name` is.
fn temp_name(name: &str) -> String {
    let mut keep = name.len().min(TEMP_NAME_KEEP);
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{}.acp-fs-{}-{n}.tmp", &name[..keep], std::process::id())
}

/// The process that made a temporary named by [`temp_name`].
#[cfg_attr(not(unix), allow(dead_code))]
fn temp_pid(name: &str) -> Option<u32> {
    let (_, tail) = name.strip_prefix('.')?.strip_suffix(".tmp")?.rsplit_once(".acp-fs-")?;
    let (pid, n) = tail.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

impl DiskStorage {
    /// Every step of an atomic write, for tests that inject a failure at each.
    #[doc(hidden)]
    pub const WRITE_STEPS: [WriteStep; 5] =
        [WriteStep::CreateTemp, WriteStep::SetMode, WriteStep::WriteTemp, WriteStep::SyncTemp, WriteStep::Rename];

    /// The local file system; it holds no state, so one value can serve every thread.
    pub fn new() -> DiskStorage {
        DiskStorage::default()
    }

    /// The disk for one run of a request (the native disk loop, `HostOperation::run_on_disk`):
    /// each root's handle is opened once, at the run's first read or listing under it, and kept
    /// until the run ends, so each of a search's many opens walks only below the root (the same
    /// no-symlink walk, below the same handle). A run keeps the root it started under: a root
    /// directory moved or replaced meanwhile is not followed to its new place or its successor.
    /// Writes, moves and new directories still open their root anew.
    pub(crate) fn for_run() -> DiskStorage {
        DiskStorage { roots: Some(Arc::default()), ..DiskStorage::default() }
    }

    /// Makes every write fail at `step` with an injected error, through the same cleanup path
    /// as a real failure there (crash-safety tests without a failing disk).
    #[doc(hidden)]
    pub fn fail_at(mut self, step: WriteStep) -> Self {
        self.fail_at = Some(step);
        self
    }

    pub(crate) fn inject(&self, step: WriteStep) -> io::Result<()> {
        match self.fail_at {
            Some(s) if s == step => Err(io::Error::other(format!("injected failure at {step:?}"))),
            _ => Ok(()),
        }
    }
}

impl Storage for DiskStorage {
    type File = File;

    fn caps(&self) -> StorageCaps {
        StorageCaps::DISK
    }

    fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        let p = Path::new(path);
        let meta = if follow { fs::metadata(p) } else { fs::symlink_metadata(p) };
        let meta = meta.map_err(|e| os_error(e, "stat", p))?;
        Ok(metadata(&meta))
    }

    fn real_path(&self, path: &str) -> Result<String, StorageError> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(real) = sys::real_path(path) {
            return Ok(real);
        }
        let p = Path::new(path);
        let real = fs::canonicalize(p).map_err(|e| os_error(e, "resolve", p))?;
        match real.into_os_string().into_string() {
            Ok(real) => Ok(strip_verbatim(real)),
            Err(real) => Err(StorageError::new(
                StorageErrorKind::Other,
                format!("resolve {path}: the real path {} is not valid UTF-8", Path::new(&real).display()),
            )),
        }
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, StorageError> {
        let (file, meta) = sys::open_path(Path::new(path))?;
        let Some(mut file) = file else { return Err(not_regular(path, meta.kind)) };
        let mut bytes = Vec::new();
        // The size is only a hint (the file may change), but a hint too large to allocate is an
        // error, not an abort.
        let hint = usize::try_from(meta.size).unwrap_or(usize::MAX);
        bytes.try_reserve_exact(hint).map_err(|_| {
            StorageError::new(StorageErrorKind::Other, format!("read {path}: {} bytes do not fit in memory", meta.size))
        })?;
        file.read_to_end(&mut bytes).map_err(|e| os_error(e, "read", Path::new(path)))?;
        Ok(bytes)
    }

    fn open(&self, root: &str, path: &str) -> Result<(Option<File>, Metadata), StorageError> {
        let at = Beneath::new(root, path)?;
        sys::open(&at, self.roots.as_deref())
    }

    fn read_at(&self, file: &File, offset: u64, len: usize) -> Result<Bytes, StorageError> {
        // No file extends past i64::MAX (the largest offset the OS takes): that is the end.
        if offset > i64::MAX as u64 {
            return Ok(Vec::new().into());
        }
        // A small read takes its buffer as asked; only a large one is fitted to the file's size
        // first (one fstat), so a chunk past the end allocates nothing it will not fill.
        let available = match len <= SMALL_READ {
            true => len,
            false => {
                let size = file.metadata().map(|m| m.len()).unwrap_or(0);
                usize::try_from(size.saturating_sub(offset)).unwrap_or(usize::MAX)
            }
        };
        let mut buf = Vec::new();
        buf.try_reserve_exact(len.min(available)).map_err(|_| {
            StorageError::new(StorageErrorKind::Other, format!("read: {len} bytes do not fit in memory"))
        })?;
        buf.resize(len.min(available), 0);
        let mut filled = 0;
        loop {
            if filled == buf.len() {
                if filled == len {
                    break;
                }
                // The file grew since it was measured: keep reading, a bounded step at a time,
                // so the answer is short only at the end of the file.
                let step = (len - filled).min(64 * 1024);
                buf.resize(filled + step, 0);
            }
            match read_at(file, &mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(StorageError::new(kind_of(&e), format!("read: {e}"))),
            }
        }
        buf.truncate(filled);
        Ok(buf.into())
    }

    fn make_dirs(&self, root: &str, path: &str) -> Result<(), StorageError> {
        let at = Beneath::new(root, path)?;
        sys::make_dirs(&at)
    }

    fn remove_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        sys::remove_dir(&Beneath::new(root, path)?)
    }

    fn write(&self, root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let at = Beneath::new(root, path)?;
        if at.rel.is_empty() {
            return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("cannot write to {path}")));
        }
        sys::write(self, &at, bytes)
    }

    fn list(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        dirs::list(&Beneath::new(root, path)?, self.roots.as_deref())
    }

    #[cfg(unix)]
    fn list_kinds(&self, root: &str, path: &str) -> Result<Vec<DirEntry>, StorageError> {
        dirs::list_kinds(&Beneath::new(root, path)?, self.roots.as_deref())
    }

    fn rename(&self, root: &str, from: &str, to: &str) -> Result<(), StorageError> {
        dirs::rename(&Beneath::new(root, from)?, &Beneath::new(root, to)?)
    }

    fn make_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        dirs::make_dir(&Beneath::new(root, path)?)
    }
}

/// A path split at the root it must stay under: the engine's checked root and real path.
pub(crate) struct Beneath<'a> {
    pub root: &'a str,
    pub path: &'a str,
    /// The root's own components, for walking to it from the file-system root.
    #[cfg_attr(not(any(unix, windows, test)), allow(dead_code))]
    pub root_parts: Vec<String>,
    /// The components below the root (none: the root itself).
    pub rel: Vec<String>,
}

/// One end of a move: its last name, and its parent's components below the root.
type MoveEnd<'b> = (&'b String, &'b [String]);

impl<'a> Beneath<'a> {
    pub(super) fn new(root: &'a str, path: &'a str) -> Result<Beneath<'a>, StorageError> {
        let outside =
            || StorageError::new(StorageErrorKind::SymlinkEscape, format!("{path} is not below the root {root}"));
        let (Ok(r), Ok(p)) = (AbsPath::parse(root), AbsPath::parse(path)) else { return Err(outside()) };
        // Only normalized paths are taken as they are: anything else did not come from the
        // engine's check.
        if !p.starts_with(&r) || r.as_str() != root || p.as_str() != path {
            return Err(outside());
        }
        let root_parts: Vec<String> = r.components().map(str::to_owned).collect();
        let rel = p.components().skip(root_parts.len()).map(str::to_owned).collect();
        Ok(Beneath { root, path, root_parts, rel })
    }

    /// The two ends of a move, each as its last name and its parent's components below the
    /// root; an error if either is the root (a root is never moved or replaced).
    pub(super) fn move_ends<'b>(
        from: &'b Beneath,
        to: &'b Beneath,
    ) -> Result<(MoveEnd<'b>, MoveEnd<'b>), StorageError> {
        match (from.rel.split_last(), to.rel.split_last()) {
            (Some(from_end), Some(to_end)) => Ok((from_end, to_end)),
            _ => Err(StorageError::new(
                StorageErrorKind::Other,
                format!("move {} to {}: a root is never moved", from.path, to.path),
            )),
        }
    }
}

fn metadata(meta: &fs::Metadata) -> Metadata {
    let file_type = meta.file_type();
    let links = links_of(meta);
    if file_type.is_file() {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| u64::try_from(d.as_nanos()).ok());
        let (changed, file_id) = identity_of(meta);
        Metadata { kind: FileKind::File, size: meta.len(), links, modified, changed, file_id }
    } else if file_type.is_dir() {
        Metadata::new(FileKind::Directory, 0)
    } else if file_type.is_symlink() {
        Metadata::new(FileKind::Symlink, meta.len())
    } else {
        Metadata::new(FileKind::Other, 0)
    }
}

/// The change time and file id of a stat (semantics.md §8 "Line index"). Windows has both
/// (`ChangeTime`, the file index) but std exposes neither without unstable APIs, so a Windows
/// disk reports none and gets no line index: every window is counted from the top, which is
/// slower and always right.
#[cfg(unix)]
fn identity_of(meta: &fs::Metadata) -> (Option<u64>, Option<u64>) {
    use std::os::unix::fs::MetadataExt;
    let changed = u64::try_from(meta.ctime())
        .ok()
        .and_then(|s| s.checked_mul(1_000_000_000)?.checked_add(meta.ctime_nsec() as u64));
    (changed, Some(file_id(meta.dev(), meta.ino())))
}

#[cfg(unix)]
/// A device and an inode folded into one [`Metadata::file_id`](crate::Metadata::file_id). Different pairs can collide
/// only by chance; a collision alone proves nothing, since a version also needs the same size
/// and both times to the nanosecond.
pub(super) fn file_id(device: u64, inode: u64) -> u64 {
    inode ^ device.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(32)
}

#[cfg(not(unix))]
fn identity_of(_: &fs::Metadata) -> (Option<u64>, Option<u64>) {
    (None, None)
}

#[cfg(unix)]
fn links_of(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

// std exposes no link count on other platforms without unstable APIs; one is the safe answer
// there only because writes replace by rename (an outside name keeps its old content).
#[cfg(not(unix))]
fn links_of(_: &fs::Metadata) -> u64 {
    1
}

fn not_regular(path: &str, kind: FileKind) -> StorageError {
    match kind {
        FileKind::Directory => {
            StorageError::new(StorageErrorKind::IsADirectory, format!("read {path}: is a directory"))
        }
        _ => StorageError::new(StorageErrorKind::Other, format!("read {path}: not a regular file")),
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Windows' canonical paths are verbatim (`\\?\C:\…`, `\\?\UNC\…`), which the engine refuses;
/// once a path is canonical the plain form names the same file.
fn strip_verbatim(path: String) -> String {
    if cfg!(windows) {
        plain_form(&path).unwrap_or(path)
    } else {
        path
    }
}

fn plain_form(path: &str) -> Option<String> {
    let rest = path.strip_prefix(r"\\?\")?;
    if let Some(unc) = rest.strip_prefix(r"UNC\") {
        return Some(format!(r"\\{unc}"));
    }
    let drive = rest.as_bytes();
    (drive.len() >= 3 && drive[0].is_ascii_alphabetic() && drive[1] == b':' && drive[2] == b'\\')
        .then(|| rest.to_owned())
}

/// Maps an OS error to what the engine needs to know, keeping the OS message.
fn os_error(e: io::Error, action: &str, path: &Path) -> StorageError {
    StorageError::new(kind_of(&e), format!("{action} {}: {e}", path.display()))
}

fn kind_of(e: &io::Error) -> StorageErrorKind {
    match e.kind() {
        io::ErrorKind::NotFound => StorageErrorKind::NotFound,
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => StorageErrorKind::PermissionDenied,
        io::ErrorKind::IsADirectory => StorageErrorKind::IsADirectory,
        io::ErrorKind::NotADirectory => StorageErrorKind::NotADirectory,
        _ => StorageErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbatim_paths_get_their_plain_form() {
        assert_eq!(plain_form(r"\\?\C:\Users\me").as_deref(), Some(r"C:\Users\me"));
        assert_eq!(plain_form(r"\\?\c:\").as_deref(), Some(r"c:\"));
        assert_eq!(plain_form(r"\\?\UNC\server\share\a").as_deref(), Some(r"\\server\share\a"));
        // A volume GUID path has no plain form: left for the engine to refuse precisely.
        assert_eq!(plain_form(r"\\?\Volume{x}\a"), None);
        assert_eq!(plain_form(r"\\?\C:"), None);
        assert_eq!(plain_form("/home/me"), None);
    }

    /// The one-walk real path answers what `realpath` answers, and leaves what it cannot (a
    /// missing path, a dangling link) to `realpath`, which words the error.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn real_paths_of_one_walk_are_realpaths() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("real")).unwrap();
        std::fs::write(base.join("real/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        std::os::unix::fs::symlink(base.join("real/a.txt"), base.join("file-link")).unwrap();
        std::os::unix::fs::symlink(base.join("gone"), base.join("dangling")).unwrap();
        let disk = DiskStorage::new();
        for p in ["real", "real/a.txt", "link", "link/a.txt", "file-link", "link/../real/a.txt"] {
            let path = base.join(p);
            let want = std::fs::canonicalize(&path).unwrap().to_str().unwrap().to_owned();
            assert_eq!(sys::real_path(path.to_str().unwrap()).as_deref(), Some(want.as_str()), "{p}");
            assert_eq!(disk.real_path(path.to_str().unwrap()).unwrap(), want, "{p}");
        }
        for p in ["missing", "dangling", "link/missing"] {
            let path = base.join(p);
            assert_eq!(sys::real_path(path.to_str().unwrap()), None, "{p}");
            assert_eq!(disk.real_path(path.to_str().unwrap()).unwrap_err().kind, StorageErrorKind::NotFound, "{p}");
        }
    }

    #[test]
    fn injected_failures_name_their_step() {
        let disk = DiskStorage::new().fail_at(WriteStep::SyncTemp);
        assert!(disk.inject(WriteStep::WriteTemp).is_ok());
        let e = disk.inject(WriteStep::SyncTemp).unwrap_err();
        assert!(e.to_string().contains("SyncTemp"), "{e}");
    }
}
