//! Unix: listings, moves and new directories, each through a handle of the directory opened
//! below the root's handle with no symlink on the way (as every open in `unix.rs`). A parent
//! swapped for a symlink after the engine's check is refused (`SymlinkEscape`), never followed:
//! nothing outside the root is listed, moved or created.

use super::sys::{error, kind_metadata, open_below, open_root, root_of, stat_metadata, KeptRoots, DIR};
use super::Beneath;
use crate::storage::{DirEntry, StorageError, StorageErrorKind};
use rustix::fs::{self as rfs, AtFlags, Mode};
use rustix::io::Errno;
use std::os::fd::OwnedFd;

/// The entries of the directory `at`, read from its handle and each described by an `fstatat`
/// that does not follow it. An entry removed between the read and its stat is left out (it is
/// gone); an entry whose name is not UTF-8 is left out too, since no engine path can name it.
pub(super) fn list(at: &Beneath, kept: Option<&KeptRoots>) -> Result<Vec<DirEntry>, StorageError> {
    read(at, kept, true)
}

/// [`list`] with kinds only: each entry's kind from the directory itself (`d_type`), stat'ed only
/// where the file system does not say (`DT_UNKNOWN`). The kind is the entry's own (a link is a
/// link), as `lstat` tells it; sizes, times and ids are left out. A tree or a search of 100,000
/// files spares 100,000 `fstatat` calls this way.
pub(super) fn list_kinds(at: &Beneath, kept: Option<&KeptRoots>) -> Result<Vec<DirEntry>, StorageError> {
    read(at, kept, false)
}

fn read(at: &Beneath, kept: Option<&KeptRoots>, described: bool) -> Result<Vec<DirEntry>, StorageError> {
    let root = root_of(at, kept).map_err(|e| error(e, "open the root of", at.path))?;
    let dir = open_below(&root, &at.rel, DIR).map_err(|e| error(e, "open the directory", at.path))?;
    let entries = rfs::Dir::read_from(&dir).map_err(|e| error(e, "list", at.path))?;
    let mut listed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| error(e, "list", at.path))?;
        let name = entry.file_name();
        let Ok(text) = name.to_str() else { continue };
        if text == "." || text == ".." {
            continue;
        }
        let kind = entry.file_type();
        if !described && kind != rfs::FileType::Unknown {
            listed.push(DirEntry { name: text.to_owned(), meta: kind_metadata(kind) });
            continue;
        }
        match rfs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => listed.push(DirEntry { name: text.to_owned(), meta: stat_metadata(&st) }),
            Err(Errno::NOENT) => {}
            Err(e) => return Err(error(e, "stat an entry of", at.path)),
        }
    }
    Ok(listed)
}

/// Moves `from` to `to` (both below the same root), each name reached through its parent's
/// handle; never replaces what is at `to`.
pub(super) fn rename(from: &Beneath, to: &Beneath) -> Result<(), StorageError> {
    let ((from_name, from_parent), (to_name, to_parent)) = Beneath::move_ends(from, to)?;
    let root = open_root(from).map_err(|e| error(e, "open the root of", from.path))?;
    let from_dir = open_below(&root, from_parent, DIR).map_err(|e| error(e, "open the directory of", from.path))?;
    let to_dir = open_below(&root, to_parent, DIR).map_err(|e| error(e, "open the directory of", to.path))?;
    no_replace(&from_dir, from_name, &to_dir, to_name)
        .map_err(|e| exists_error(e, &format!("move {} to", from.path), to.path))?;
    // Makes the move durable; not reported: the move has happened.
    let _ = rfs::fsync(&to_dir);
    let _ = rfs::fsync(&from_dir);
    Ok(())
}

/// `renameat` that fails with EEXIST instead of replacing: `RENAME_NOREPLACE` (`RENAME_EXCL` on
/// Apple systems) where the kernel and the file system have it. Elsewhere a file is moved by
/// `linkat` then `unlinkat` (the link refuses an existing name, atomically); a directory (or a
/// file system without hard links) is moved after a check that nothing is at `to`, and the one
/// thing `renameat` could then replace in the window between is an empty directory that
/// appeared there: a non-empty one or a file it refuses.
fn no_replace(from_dir: &OwnedFd, from: &str, to_dir: &OwnedFd, to: &str) -> Result<(), Errno> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    match rfs::renameat_with(from_dir, from, to_dir, to, rfs::RenameFlags::NOREPLACE) {
        // No such flag here (old kernel, a file system without it): the portable way below.
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {}
        done => return done,
    }
    let st = rfs::statat(from_dir, from, AtFlags::SYMLINK_NOFOLLOW)?;
    if rfs::FileType::from_raw_mode(st.st_mode) != rfs::FileType::Directory {
        match rfs::linkat(from_dir, from, to_dir, to, AtFlags::empty()) {
            Ok(()) => {
                return rfs::unlinkat(from_dir, from, AtFlags::empty()).inspect_err(|_| {
                    // Not moved after all: the new name goes again, the old one stays.
                    let _ = rfs::unlinkat(to_dir, to, AtFlags::empty());
                });
            }
            Err(Errno::EXIST) => return Err(Errno::EXIST),
            Err(_) => {}
        }
    }
    match rfs::statat(to_dir, to, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(_) => Err(Errno::EXIST),
        Err(Errno::NOENT) => rfs::renameat(from_dir, from, to_dir, to),
        Err(e) => Err(e),
    }
}

/// Creates the one directory `at` in its parent, opened below the root; its parent must exist.
pub(super) fn make_dir(at: &Beneath) -> Result<(), StorageError> {
    let root = open_root(at).map_err(|e| error(e, "open the root of", at.path))?;
    let Some((name, parent)) = at.rel.split_last() else {
        return Err(StorageError::new(
            StorageErrorKind::AlreadyExists,
            format!("create directory {}: the root exists", at.path),
        ));
    };
    let dir = open_below(&root, parent, DIR).map_err(|e| error(e, "open the directory of", at.path))?;
    rfs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o777))
        .map_err(|e| exists_error(e, "create directory", at.path))?;
    let _ = rfs::fsync(&dir);
    Ok(())
}

/// [`error`], with "something is already there" (EEXIST; ENOTEMPTY for a directory moved onto a
/// non-empty one) as its own kind: a move or a new directory never replaces.
fn exists_error(e: Errno, action: &str, path: &str) -> StorageError {
    match e {
        Errno::EXIST | Errno::NOTEMPTY => {
            StorageError::new(StorageErrorKind::AlreadyExists, format!("{action} {path}: {}", std::io::Error::from(e)))
        }
        _ => error(e, action, path),
    }
}
