//! The real-disk storage: `std::fs` with canonical paths, no-follow opens and atomic writes.

use crate::storage::{FileKind, Metadata, Storage, StorageCaps, StorageError, StorageErrorKind};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
///   rename would only need the directory's permission.
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
}

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

/// Leftover temporaries of crashed processes can hold a name; a few fresh names get past them.
const TEMP_ATTEMPTS: usize = 16;

/// Bytes of the target's name kept in the temporary's name: with the prefix and suffix it
/// stays under the usual 255-byte name limit however long the target's name is.
const TEMP_NAME_KEEP: usize = 180;

impl DiskStorage {
    /// Every step of an atomic write, for tests that inject a failure at each.
    #[doc(hidden)]
    pub const WRITE_STEPS: [WriteStep; 5] =
        [WriteStep::CreateTemp, WriteStep::SetMode, WriteStep::WriteTemp, WriteStep::SyncTemp, WriteStep::Rename];

    /// The local file system; it holds no state, so one value can serve every thread.
    pub fn new() -> DiskStorage {
        DiskStorage::default()
    }

    /// Makes every write fail at `step` with an injected error, through the same cleanup path
    /// as a real failure there (crash-safety tests without a failing disk).
    #[doc(hidden)]
    pub fn fail_at(mut self, step: WriteStep) -> Self {
        self.fail_at = Some(step);
        self
    }

    fn inject(&self, step: WriteStep) -> io::Result<()> {
        match self.fail_at {
            Some(s) if s == step => Err(io::Error::other(format!("injected failure at {step:?}"))),
            _ => Ok(()),
        }
    }

    /// Everything between creating the temporary file and renaming it.
    fn fill(
        &self,
        file: &mut File,
        bytes: &[u8],
        mode: Option<&fs::Permissions>,
    ) -> Result<(), (&'static str, io::Error)> {
        // The mode goes on before the content, so the content of a private file never sits in
        // a temporary file that others may read.
        self.inject(WriteStep::SetMode).map_err(|e| ("set the mode of", e))?;
        if let Some(mode) = mode {
            file.set_permissions(mode.clone()).map_err(|e| ("set the mode of", e))?;
        }
        self.inject(WriteStep::WriteTemp).map_err(|e| ("write", e))?;
        file.write_all(bytes).map_err(|e| ("write", e))?;
        self.inject(WriteStep::SyncTemp).map_err(|e| ("sync", e))?;
        file.sync_all().map_err(|e| ("sync", e))
    }
}

impl Storage for DiskStorage {
    fn caps(&self) -> StorageCaps {
        StorageCaps::FULL
    }

    fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        let p = Path::new(path);
        let meta = if follow { fs::metadata(p) } else { fs::symlink_metadata(p) };
        let meta = meta.map_err(|e| os_error(e, "stat", p))?;
        let file_type = meta.file_type();
        Ok(if file_type.is_file() {
            Metadata { kind: FileKind::File, size: meta.len() }
        } else if file_type.is_dir() {
            Metadata { kind: FileKind::Directory, size: 0 }
        } else if file_type.is_symlink() {
            Metadata { kind: FileKind::Symlink, size: meta.len() }
        } else {
            Metadata { kind: FileKind::Other, size: 0 }
        })
    }

    fn real_path(&self, path: &str) -> Result<String, StorageError> {
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
        let p = Path::new(path);
        let (mut file, size) = open_regular(p)?;
        let mut bytes = Vec::new();
        // The size is only a hint (the file may change), but a hint too large to allocate is an
        // error, not an abort.
        let hint = usize::try_from(size).unwrap_or(usize::MAX);
        bytes.try_reserve_exact(hint).map_err(|_| {
            StorageError::new(StorageErrorKind::Other, format!("read {path}: {size} bytes do not fit in memory"))
        })?;
        file.read_to_end(&mut bytes).map_err(|e| os_error(e, "read", p))?;
        Ok(bytes)
    }

    fn read_range(&self, path: &str, offset: u64, len: usize) -> Result<Vec<u8>, StorageError> {
        let p = Path::new(path);
        let (file, size) = open_regular(p)?;
        // No file extends past i64::MAX (the largest offset the OS takes): that is the end.
        if offset > i64::MAX as u64 {
            return Ok(Vec::new());
        }
        let available = usize::try_from(size.saturating_sub(offset)).unwrap_or(usize::MAX);
        let mut buf = Vec::new();
        buf.try_reserve_exact(len.min(available)).map_err(|_| {
            StorageError::new(StorageErrorKind::Other, format!("read {path}: {len} bytes do not fit in memory"))
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
            match read_at(&file, &mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(os_error(e, "read", p)),
            }
        }
        buf.truncate(filled);
        Ok(buf)
    }

    fn make_dirs(&self, path: &str) -> Result<(), StorageError> {
        let p = Path::new(path);
        fs::create_dir_all(p).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                // create_dir_all reports a component that exists as something other than a
                // directory (a file, a dangling symlink) as "already exists".
                StorageError::new(
                    StorageErrorKind::NotADirectory,
                    format!("create directory {path}: a component exists and is not a directory"),
                )
            } else {
                os_error(e, "create directory", p)
            }
        })
    }

    fn write(&self, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let target = Path::new(path);
        let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("cannot write to {path}")));
        };
        let name = name.to_string_lossy();
        let mode = match fs::symlink_metadata(target) {
            Ok(meta) if meta.is_dir() => {
                return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("write {path}: is a directory")))
            }
            Ok(meta) if meta.is_file() => {
                check_writable(target)?;
                Some(meta.permissions())
            }
            // A final symlink or special file is replaced by the rename, never written through,
            // so its mode and permissions say nothing about the new file.
            Ok(_) => None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(os_error(e, "stat", target)),
        };

        self.inject(WriteStep::CreateTemp).map_err(|e| os_error(e, "create a temporary file in", dir))?;
        // The file is closed at the end of this block, before any removal or rename: Windows
        // refuses both on an open file.
        let (temp, filled) = {
            let (mut file, temp) = create_temp(dir, &name, mode.as_ref())?;
            let filled = self.fill(&mut file, bytes, mode.as_ref());
            (temp, filled)
        };
        if let Err((what, e)) = filled {
            return Err(os_error(e, &format!("{what} temporary file"), &temp.path));
        }
        self.inject(WriteStep::Rename).map_err(|e| os_error(e, "rename into", target))?;
        fs::rename(&temp.path, target).map_err(|e| os_error(e, "rename into", target))?;
        temp.keep();
        sync_dir(dir);
        Ok(())
    }
}

/// Opens `path` for reading if it is a regular file; also returns its size.
fn open_regular(path: &Path) -> Result<(File, u64), StorageError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO without a writer (or some devices) would block forever;
        // the type is checked on the open handle right after. O_NOFOLLOW: the engine passes a
        // real path, so a final symlink here was swapped in after its check. O_NOCTTY: a
        // terminal never becomes the controlling terminal.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC);
    }
    let file = options.open(path).map_err(|e| open_error(e, path))?;
    let meta = file.metadata().map_err(|e| os_error(e, "stat", path))?;
    if meta.is_dir() {
        return Err(StorageError::new(
            StorageErrorKind::IsADirectory,
            format!("read {}: is a directory", path.display()),
        ));
    }
    if !meta.is_file() {
        return Err(StorageError::new(StorageErrorKind::Other, format!("read {}: not a regular file", path.display())));
    }
    Ok((file, meta.len()))
}

fn open_error(e: io::Error, path: &Path) -> StorageError {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return StorageError::new(
            StorageErrorKind::Other,
            format!("open {}: refused to follow a symlink (or the path loops): {e}", path.display()),
        );
    }
    os_error(e, "open", path)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

// The handle is private to one call, so seeking it is as good as a positioned read.
#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read(buf)
}

/// Refuses to replace a file the caller could not write in place: a rename needs only the
/// directory's permission, and a read-only file (or mount) must stay protected. Opening for
/// writing without truncation changes nothing and asks the OS exactly that question.
fn check_writable(path: &Path) -> Result<(), StorageError> {
    let mut options = OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The file was a regular file a moment ago; if it was swapped for a FIFO or a symlink,
        // fail instead of blocking or following.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC);
    }
    options.open(path).map(drop).map_err(|e| open_error(e, path))
}

/// A temporary file that is removed when dropped, unless it was renamed into place.
struct Temp {
    path: PathBuf,
    kept: bool,
}

impl Temp {
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.kept {
            // Best effort: the write already failed with the error that matters; a temporary
            // that cannot be removed is hidden and named after its process.
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Creates a new, uniquely named temporary file next to the target.
fn create_temp(dir: &Path, name: &str, mode: Option<&fs::Permissions>) -> Result<(File, Temp), StorageError> {
    let mut keep = name.len().min(TEMP_NAME_KEEP);
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    let stem = &name[..keep];
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..TEMP_ATTEMPTS {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{stem}.acp-fs-{pid}-{n}.tmp"));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            // Born no more permissive than the file it replaces (the umask can only remove
            // bits); the exact mode is set next.
            options.mode(mode.mode() & 0o777);
        }
        #[cfg(not(unix))]
        let _ = mode;
        match options.open(&path) {
            Ok(file) => return Ok((file, Temp { path, kept: false })),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(os_error(e, "create a temporary file in", dir)),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::other("no attempt made"));
    Err(os_error(e, "create a temporary file in", dir))
}

/// Makes the rename durable. It is not reported: once the rename happened the new content is
/// in place, and an error would tell the agent the write failed when it did not.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
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
    let kind = match e.kind() {
        io::ErrorKind::NotFound => StorageErrorKind::NotFound,
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => StorageErrorKind::PermissionDenied,
        io::ErrorKind::IsADirectory => StorageErrorKind::IsADirectory,
        io::ErrorKind::NotADirectory => StorageErrorKind::NotADirectory,
        _ => StorageErrorKind::Other,
    };
    StorageError::new(kind, format!("{action} {}: {e}", path.display()))
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

    #[test]
    fn injected_failures_name_their_step() {
        let disk = DiskStorage::new().fail_at(WriteStep::SyncTemp);
        assert!(disk.inject(WriteStep::WriteTemp).is_ok());
        let e = disk.inject(WriteStep::SyncTemp).unwrap_err();
        assert!(e.to_string().contains("SyncTemp"), "{e}");
    }
}
