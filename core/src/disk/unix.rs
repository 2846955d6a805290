//! Unix: every open resolves below a handle of the root and refuses a symlink anywhere on the
//! way, so a directory swapped for a symlink after the engine's check is refused, not
//! followed. Linux does it in one `openat2` (`RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`); where
//! that is missing (older kernels, macOS, the BSDs) the path is walked one `openat(O_NOFOLLOW)`
//! at a time. The engine hands over canonical paths, so a symlink on the way can only be one
//! that appeared after the check.

use super::{temp_name, temp_pid, Beneath, DiskStorage, WriteStep, TEMP_ATTEMPTS};
use crate::storage::{FileKind, Metadata, StorageError, StorageErrorKind};
use rustix::fs::{self as rfs, AtFlags, Mode, OFlags, RawMode, CWD};
use rustix::io::Errno;
use std::fs::{File, Permissions};
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};

pub(super) const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW);
/// O_NONBLOCK: opening a FIFO without a writer (or some devices) would block forever; the type
/// is checked on the open handle right after. O_NOCTTY: a terminal never becomes the
/// controlling terminal.
const READ: OFlags =
    OFlags::RDONLY.union(OFlags::NONBLOCK).union(OFlags::NOCTTY).union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW);

pub(super) fn open(at: &Beneath, kept: Option<&KeptRoots>) -> Result<(Option<File>, Metadata), StorageError> {
    let root = root_of(at, kept).map_err(|e| error(e, "open the root of", at.path))?;
    let fd = match open_below(&root, &at.rel, READ) {
        Ok(fd) => fd,
        Err(Errno::NXIO) => return Ok(not_openable()),
        Err(e) => return Err(error(e, "open", at.path)),
    };
    let st = rfs::fstat(&fd).map_err(|e| error(e, "stat", at.path))?;
    let meta = stat_metadata(&st);
    Ok(((meta.kind == FileKind::File).then(|| File::from(fd)), meta))
}

/// Everything the engine uses of a stat: kind, size, links, both times and the file's identity.
#[allow(clippy::unnecessary_cast, reason = "the stat fields' types differ between Unixes")]
pub(super) fn stat_metadata(st: &rfs::Stat) -> Metadata {
    let mut meta = metadata_of(rfs::FileType::from_raw_mode(st.st_mode), st.st_size as u64, st.st_nlink as u64);
    meta.modified = nanos(st.st_mtime as i64, st.st_mtime_nsec as u64);
    meta.changed = nanos(st.st_ctime as i64, st.st_ctime_nsec as u64);
    meta.file_id = Some(super::file_id(st.st_dev as u64, st.st_ino as u64));
    meta
}

/// What a read-only, non-blocking open answered with ENXIO is: a socket, or a device with no
/// driver behind it. Neither is a regular file, so the engine refuses it as `not_a_file`
/// (semantics.md §3), as it does a FIFO, instead of reporting the errno as a storage failure.
fn not_openable() -> (Option<File>, Metadata) {
    (None, Metadata::new(FileKind::Other, 0))
}

/// A time of an fstat, in nanoseconds since the epoch (none before it).
fn nanos(secs: i64, nsec: u64) -> Option<u64> {
    u64::try_from(secs).ok()?.checked_mul(1_000_000_000)?.checked_add(nsec)
}

/// A whole-file read by path, refusing a final symlink (storages without ranged reads only;
/// the engine never asks this of a disk, which reads ranges).
pub(super) fn open_path(path: &std::path::Path) -> Result<(Option<File>, Metadata), StorageError> {
    let shown = path.display().to_string();
    let fd = match rfs::openat(CWD, path, READ, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NXIO) => return Ok(not_openable()),
        Err(e) => return Err(error(e, "open", &shown)),
    };
    let st = rfs::fstat(&fd).map_err(|e| error(e, "stat", &shown))?;
    let meta = metadata_of(rfs::FileType::from_raw_mode(st.st_mode), st.st_size as u64, st.st_nlink as u64);
    Ok(((meta.kind == FileKind::File).then(|| File::from(fd)), meta))
}

pub(super) fn make_dirs(at: &Beneath) -> Result<(), StorageError> {
    let root = match open_root(at) {
        Ok(root) => root,
        // A root that does not exist yet may still receive new files (semantics.md §8): its
        // own path is canonical too, so it is created the same careful way from `/`.
        Err(Errno::NOENT) => {
            let top = rfs::openat(CWD, "/", DIR, Mode::empty()).map_err(|e| error(e, "open", "/"))?;
            create_below(top, &at.root_parts).map_err(|e| error(e, "create directory", at.root))?
        }
        Err(e) => return Err(error(e, "open the root of", at.path)),
    };
    create_below(root, &at.rel).map(drop).map_err(|e| error(e, "create directory", at.path))
}

/// Removes the empty directory `at` (a failed write taking back what it made).
pub(super) fn remove_dir(at: &Beneath) -> Result<(), StorageError> {
    let Some((name, parent)) = at.rel.split_last() else {
        return Err(StorageError::new(StorageErrorKind::PermissionDenied, format!("{} is a root", at.path)));
    };
    let root = open_root(at).map_err(|e| error(e, "open the root of", at.path))?;
    let dir = open_below(&root, parent, DIR).map_err(|e| error(e, "open the directory of", at.path))?;
    rfs::unlinkat(&dir, name.as_str(), AtFlags::REMOVEDIR).map_err(|e| error(e, "remove directory", at.path))
}

/// The regular file a write replaces: its handle (opened for writing, which is the proof that
/// it may be written at all) and what it was.
struct Old {
    fd: OwnedFd,
    st: rfs::Stat,
}

pub(super) fn write(disk: &DiskStorage, at: &Beneath, bytes: &[u8]) -> Result<(), StorageError> {
    let path = at.path;
    let (name, parent) = at.rel.split_last().expect("the caller refuses the root itself");
    let root = open_root(at).map_err(|e| error(e, "open the root of", path))?;
    let dir = open_below(&root, parent, DIR).map_err(|e| error(e, "open the directory of", path))?;
    let old = match rfs::statat(&dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => match rfs::FileType::from_raw_mode(st.st_mode) {
            rfs::FileType::Directory => {
                return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("write {path}: is a directory")))
            }
            rfs::FileType::RegularFile => {
                // A rename needs only the directory's permission: a file that could not be
                // written in place (read-only mode or mount) must stay protected. Opening it for
                // writing without truncation changes nothing and asks the OS exactly that.
                let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
                let fd = rfs::openat(&dir, name.as_str(), flags, Mode::empty()).map_err(|e| error(e, "open", path))?;
                // The stat by name may describe a file swapped in since: the handle's is the one.
                let st = rfs::fstat(&fd).map_err(|e| error(e, "stat", path))?;
                Some(Old { fd, st })
            }
            // A final symlink or special file is replaced by the rename, never written
            // through, so its mode says nothing about the new file.
            _ => None,
        },
        Err(Errno::NOENT) => None,
        Err(e) => return Err(error(e, "stat", path)),
    };
    let mode = old.as_ref().map(|o| o.st.st_mode & 0o7777);
    sweep(&dir);

    disk.inject(WriteStep::CreateTemp).map_err(|e| io_error(e, "create a temporary file for", path))?;
    let (file, temp) = match create_temp(&dir, name, mode) {
        Ok(created) => created,
        // The directory takes no new name but the file itself may be written: an editor saves
        // it in place, and so does this (semantics.md §5 "In place").
        Err(Errno::ACCESS | Errno::PERM) if old.is_some() => {
            return in_place(old.expect("checked"), bytes).map_err(|e| io_error(e, "write in place", path));
        }
        Err(e) => return Err(error(e, "create a temporary file for", path)),
    };
    // The new file is the old one's owner's, as the old one was. Where the process may not give
    // it away (only root may), a rename would hand the file to this process's user: the file is
    // written in place instead, as editors do.
    if let Some(o) = &old {
        if keep_owner(&file, &o.st).is_err() {
            drop(file);
            let _ = rfs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
            return in_place(old.expect("checked"), bytes).map_err(|e| io_error(e, "write in place", path));
        }
        copy_xattrs(&o.fd, &file);
    }
    let filled = fill(disk, file, bytes, mode)
        .and_then(|()| disk.inject(WriteStep::Rename).map_err(|e| ("rename into", e)))
        .and_then(|()| rfs::renameat(&dir, temp.as_str(), &dir, name.as_str()).map_err(|e| ("rename into", e.into())));
    if let Err((what, e)) = filled {
        // Best effort: the write already failed with the error that matters.
        let _ = rfs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
        return Err(io_error(e, &format!("{what} the temporary file of"), path));
    }
    // Makes the rename durable. Not reported: the new content is in place, and an error would
    // tell the agent the write failed when it did not.
    let _ = rfs::fsync(&dir);
    Ok(())
}

/// Gives `file` the owner and group of `st` where they differ; EPERM where the process may not.
fn keep_owner(file: &File, st: &rfs::Stat) -> Result<(), Errno> {
    let now = rfs::fstat(file)?;
    if now.st_uid == st.st_uid && now.st_gid == st.st_gid {
        return Ok(());
    }
    let (uid, gid) = (rfs::Uid::from_raw(st.st_uid), rfs::Gid::from_raw(st.st_gid));
    rfs::fchown(file, Some(uid), Some(gid))
}

/// Copies the extended attributes of `from` (ACLs are among them on Linux) to `to`, each one
/// the process may read and set; one it may not (a `security.` or `trusted.` name, a file
/// system without them) is skipped rather than failing a write the user asked for.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn copy_xattrs(from: &OwnedFd, to: &File) {
    let mut names = vec![0u8; 64 * 1024];
    let Ok(len) = rfs::flistxattr(from, &mut names[..]) else { return };
    let mut value = vec![0u8; 64 * 1024];
    for name in names[..len].split(|b| *b == 0).filter(|n| !n.is_empty()) {
        if let Ok(n) = rfs::fgetxattr(from, name, &mut value[..]) {
            let _ = rfs::fsetxattr(to, name, &value[..n], rfs::XattrFlags::empty());
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn copy_xattrs(_: &OwnedFd, _: &File) {}

/// Writes `bytes` over the old file through its own handle: owner, group, mode, links and
/// attributes stay, as they do when an editor saves in place. What it cannot give is the
/// rename's all-or-nothing: a crash in the middle leaves the file partly written (semantics.md
/// §5). Running out of space does not: on Linux the room is reserved before the first byte,
/// so a full disk refuses the write with the old content untouched.
fn in_place(old: Old, bytes: &[u8]) -> std::io::Result<()> {
    let new_len = bytes.len() as u64;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if new_len > old.st.st_size as u64 {
        match rfs::fallocate(&old.fd, rfs::FallocateFlags::KEEP_SIZE, 0, new_len) {
            // A file system that cannot reserve space still takes the write.
            Ok(()) | Err(Errno::OPNOTSUPP | Errno::NOSYS) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let file = File::from(old.fd);
    std::os::unix::fs::FileExt::write_all_at(&file, bytes, 0)?;
    file.set_len(new_len)?;
    file.sync_all()
}

/// Everything between creating the temporary file and renaming it; the file is closed before
/// the rename.
fn fill(
    disk: &DiskStorage,
    mut file: File,
    bytes: &[u8],
    mode: Option<RawMode>,
) -> Result<(), (&'static str, std::io::Error)> {
    // The mode goes on before the content, so the content of a private file never sits in a
    // temporary file that others may read.
    disk.inject(WriteStep::SetMode).map_err(|e| ("set the mode of", e))?;
    if let Some(mode) = mode {
        // RawMode is u32 on Linux but u16 on macOS and the BSDs.
        #[allow(clippy::useless_conversion)]
        let mode = u32::from(mode);
        file.set_permissions(Permissions::from_mode(mode)).map_err(|e| ("set the mode of", e))?;
    }
    disk.inject(WriteStep::WriteTemp).map_err(|e| ("write", e))?;
    file.write_all(bytes).map_err(|e| ("write", e))?;
    disk.inject(WriteStep::SyncTemp).map_err(|e| ("sync", e))?;
    file.sync_all().map_err(|e| ("sync", e))
}

fn create_temp(dir: &OwnedFd, name: &str, mode: Option<RawMode>) -> Result<(File, String), Errno> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // Born no more permissive than the file it replaces (the umask can only remove bits).
    let born = Mode::from_raw_mode(mode.map_or(0o666, |m| m & 0o777));
    let mut last = Errno::EXIST;
    for _ in 0..TEMP_ATTEMPTS {
        let temp = temp_name(name);
        match rfs::openat(dir, temp.as_str(), flags, born) {
            Ok(fd) => return Ok((File::from(fd), temp)),
            Err(e @ Errno::EXIST) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Removes temporary files that processes which died mid-write left in `dir`; a temporary of a
/// live process (this one included) is its write in progress and stays.
fn sweep(dir: &OwnedFd) {
    let Ok(entries) = rfs::Dir::read_from(dir) else { return };
    let own = std::process::id();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().to_str() else { continue };
        let Some(pid) = temp_pid(name) else { continue };
        let dead = pid != own
            && rustix::process::Pid::from_raw(pid as i32)
                .is_some_and(|pid| rustix::process::test_kill_process(pid) == Err(Errno::SRCH));
        if dead {
            let _ = rfs::unlinkat(dir, name, AtFlags::empty());
        }
    }
}

/// The root handles one disk run keeps (`DiskStorage::for_run`), by the root's path: opened
/// the way [`open_root`] opens one, once per root and run. A handle stays the directory it
/// opened, so what is below it is reached by the same no-symlink walk as with a fresh one.
#[derive(Debug, Default)]
pub(crate) struct KeptRoots(Mutex<Vec<(String, Arc<OwnedFd>)>>);

/// Roots a run keeps at most (a session has a few; a run reads below one or two).
const KEPT_ROOTS: usize = 8;

/// The root's handle: the one the run keeps, or (no run) a fresh one.
pub(super) fn root_of(at: &Beneath, kept: Option<&KeptRoots>) -> Result<Arc<OwnedFd>, Errno> {
    let Some(kept) = kept else { return open_root(at).map(Arc::new) };
    // Poisoning only follows a panic while the list was changed: what is in it is still whole.
    let mut roots = kept.0.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, fd)) = roots.iter().find(|(root, _)| root == at.root) {
        return Ok(fd.clone());
    }
    let fd = Arc::new(open_root(at)?);
    if roots.len() == KEPT_ROOTS {
        roots.remove(0);
    }
    roots.push((at.root.to_owned(), fd.clone()));
    Ok(fd)
}

/// The canonical path of `path` as the kernel resolved it for an `O_PATH` open (read back from
/// `/proc/self/fd`): one walk of the path, where `realpath(3)` asks for every component in
/// turn. `None` when that is not available or the answer is not a plain path (no procfs, a
/// file deleted meanwhile): the caller asks `realpath`, which also words the errors.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) fn real_path(path: &str) -> Option<String> {
    let fd = rfs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let link = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd));
    let real = rfs::readlinkat(CWD, link.as_str(), Vec::new()).ok()?.into_string().ok()?;
    (real.starts_with('/') && !real.ends_with(" (deleted)")).then_some(real)
}

/// Opens the root directory itself; its path is canonical, so no symlink may be on it either.
pub(super) fn open_root(at: &Beneath) -> Result<OwnedFd, Errno> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match openat2(CWD, at.root, DIR, rfs::ResolveFlags::NO_SYMLINKS | rfs::ResolveFlags::NO_MAGICLINKS) {
        Err(Errno::NOSYS) => {}
        done => return done,
    }
    let top = rfs::openat(CWD, "/", DIR, Mode::empty())?;
    open_below(&top, &at.root_parts, DIR)
}

/// Opens `parts` below the directory `dir` with `flags`, never leaving it and never following a
/// symlink; no parts opens `dir` again.
pub(super) fn open_below(dir: &OwnedFd, parts: &[String], flags: OFlags) -> Result<OwnedFd, Errno> {
    open_below_as_named(dir, parts, flags).map_err(|e| if e == Errno::NOTDIR { why_not_dir(dir, parts) } else { e })
}

/// Why a no-follow walk of `parts` below `dir` met something that is not a directory. A
/// directory open of a symlink answers ENOTDIR (O_DIRECTORY is checked before O_NOFOLLOW, in
/// `openat2` too), which would tell the agent "a parent is not a directory" when a directory
/// was swapped for a symlink after the engine's check: that is ELOOP, a symlink escape
/// (semantics.md §8.2). Walked again one handle at a time, so no name is followed.
fn why_not_dir(dir: &OwnedFd, parts: &[String]) -> Errno {
    let mut current: Option<OwnedFd> = None;
    for part in parts {
        let at = current.as_ref().map_or(dir.as_fd(), AsFd::as_fd);
        match rfs::statat(at, part.as_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map(|st| rfs::FileType::from_raw_mode(st.st_mode))
        {
            Ok(rfs::FileType::Symlink) => return Errno::LOOP,
            Ok(rfs::FileType::Directory) => {}
            _ => return Errno::NOTDIR,
        }
        match rfs::openat(at, part.as_str(), DIR, Mode::empty()) {
            Ok(next) => current = Some(next),
            Err(Errno::LOOP) => return Errno::LOOP,
            Err(_) => return Errno::NOTDIR,
        }
    }
    Errno::NOTDIR
}

fn open_below_as_named(dir: &OwnedFd, parts: &[String], flags: OFlags) -> Result<OwnedFd, Errno> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let rel = if parts.is_empty() { ".".to_owned() } else { parts.join("/") };
        let resolve = rfs::ResolveFlags::BENEATH | rfs::ResolveFlags::NO_SYMLINKS | rfs::ResolveFlags::NO_MAGICLINKS;
        match openat2(dir, &rel, flags, resolve) {
            Err(Errno::NOSYS) => {}
            done => return done,
        }
    }
    let Some((last, middle)) = parts.split_last() else { return rfs::openat(dir, ".", flags, Mode::empty()) };
    let mut current: Option<OwnedFd> = None;
    for part in middle {
        let next = rfs::openat(current.as_ref().map_or(dir.as_fd(), AsFd::as_fd), part.as_str(), DIR, Mode::empty())?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir.as_fd(), AsFd::as_fd);
    rfs::openat(at, last.as_str(), flags | OFlags::NOFOLLOW, Mode::empty())
}

/// `openat2`, retried while the kernel reports a concurrent rename (`EAGAIN`: it cannot vouch
/// for the walk); after that the careful walk answers instead.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn openat2<Fd: AsFd>(dir: Fd, path: &str, flags: OFlags, resolve: rfs::ResolveFlags) -> Result<OwnedFd, Errno> {
    for _ in 0..16 {
        match rfs::openat2(dir.as_fd(), path, flags, Mode::empty(), resolve) {
            Err(Errno::AGAIN) => continue,
            done => return done,
        }
    }
    Err(Errno::NOSYS)
}

/// Creates and opens each of `parts` below `dir` as a directory, never following a symlink.
fn create_below(dir: OwnedFd, parts: &[String]) -> Result<OwnedFd, Errno> {
    let mut current = dir;
    for part in parts {
        match rfs::mkdirat(&current, part.as_str(), Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(e),
        }
        current = match rfs::openat(&current, part.as_str(), DIR, Mode::empty()) {
            Ok(next) => next,
            // An existing entry that is not a directory; a symlink here appeared after the check.
            Err(Errno::NOTDIR) => return Err(why_not_dir(&current, std::slice::from_ref(part))),
            Err(e) => return Err(e),
        };
    }
    Ok(current)
}

/// What the engine needs to know of an errno met while opening a checked, canonical path.
pub(super) fn error(e: Errno, action: &str, path: &str) -> StorageError {
    let kind = match e {
        // A symlink (ELOOP; EMLINK on the BSDs) or a way out of the root (EXDEV from
        // RESOLVE_BENEATH) where the checked path had none: the disk moved after the check.
        Errno::LOOP | Errno::MLINK | Errno::XDEV => StorageErrorKind::SymlinkEscape,
        Errno::NOENT => StorageErrorKind::NotFound,
        Errno::NOTDIR => StorageErrorKind::NotADirectory,
        Errno::ISDIR => StorageErrorKind::IsADirectory,
        Errno::ACCESS | Errno::PERM | Errno::ROFS => StorageErrorKind::PermissionDenied,
        _ => StorageErrorKind::Other,
    };
    StorageError::new(kind, format!("{action} {path}: {}", std::io::Error::from(e)))
}

fn io_error(e: std::io::Error, action: &str, path: &str) -> StorageError {
    match e.raw_os_error() {
        Some(raw) => error(Errno::from_raw_os_error(raw), action, path),
        None => StorageError::new(StorageErrorKind::Other, format!("{action} {path}: {e}")),
    }
}

/// What a directory entry's type alone says of it: its kind, no size, time or id.
pub(super) fn kind_metadata(file_type: rfs::FileType) -> Metadata {
    metadata_of(file_type, 0, 1)
}

fn metadata_of(file_type: rfs::FileType, size: u64, links: u64) -> Metadata {
    match file_type {
        rfs::FileType::RegularFile => Metadata { links, ..Metadata::new(FileKind::File, size) },
        rfs::FileType::Directory => Metadata::new(FileKind::Directory, 0),
        rfs::FileType::Symlink => Metadata::new(FileKind::Symlink, size),
        _ => Metadata::new(FileKind::Other, 0),
    }
}
