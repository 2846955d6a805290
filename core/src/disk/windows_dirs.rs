//! Windows: listings, moves, single directories and the removal of an empty directory, each
//! through handles that the walk (win_walk.rs) opened below the root's handle, refusing a
//! symlink, junction or mount point on the way (`SymlinkEscape`). The last name is opened or
//! created relative to its parent's handle with `FILE_OPEN_REPARSE_POINT`, and a move names its
//! destination relative to the destination directory's handle (`FileRenameInformation` with
//! `RootDirectory`, never replacing). No path is opened by name after the engine's check.
//!
//! As in the walk, what is opened is checked again against its parent's directory entry and its
//! final path: on Windows that repeats what the open proved; under Wine (which follows a Unix
//! symlink even with `FILE_OPEN_REPARSE_POINT`, and resolves names below a handle by the
//! directory's path) it is what refuses a link swapped in.

use super::nt::{self, Nt};
use super::nt_dirs;
use super::win_dirs::{dir_entry, verify};
use super::win_walk::{created, entry_of, open_root, walk, Open, SysError, SysKind, System};
use super::{Beneath, KeptRoots};
use crate::storage::{DirEntry, StorageError, StorageErrorKind};
use windows_sys::Wdk::Storage::FileSystem::FILE_DIRECTORY_FILE;

/// The entries of the directory `at`, read through its handle opened below the root, each
/// described by its directory entry without opening it: a symlink or junction is listed as a
/// link, never followed. An entry whose name is not valid Unicode is left out (no engine path
/// can name it).
pub(super) fn list(at: &Beneath, _kept: Option<&KeptRoots>) -> Result<Vec<DirEntry>, StorageError> {
    let root = open_root(&Nt, at).map_err(|e| e.to_storage("open the root of", at.path))?;
    // The walk queries a directory's entries only for its children's names, so the handle of the
    // last directory has no name mask yet (the first query's mask stays with a handle).
    let dir = walk(&Nt, root, &at.rel).map_err(|e| e.to_storage("open the directory", at.path))?;
    let raw = nt_dirs::read_dir(&dir.handle).map_err(|e| e.to_storage("list", at.path))?;
    Ok(raw.into_iter().filter_map(dir_entry).collect())
}

/// Moves `from` to `to` (both below the same root), each name reached through its parent's
/// handle; never replaces what is at `to` (`AlreadyExists`). A symlink or junction is moved
/// itself, never what it leads to.
pub(super) fn rename(from: &Beneath, to: &Beneath) -> Result<(), StorageError> {
    let ((from_name, from_parent), (to_name, to_parent)) = Beneath::move_ends(from, to)?;
    // Two opens of the root, not one handle duplicated: a duplicate shares its directory query
    // (and the name mask of the first), and each side's entries are read below.
    let from_dir = open_root(&Nt, from)
        .and_then(|root| walk(&Nt, root, from_parent))
        .map_err(|e| e.to_storage("open the directory of", from.path))?;
    let to_dir = open_root(&Nt, to)
        .and_then(|root| walk(&Nt, root, to_parent))
        .map_err(|e| e.to_storage("open the directory of", to.path))?;
    let moving = nt_dirs::open_for_delete(&from_dir.handle, from_name, 0)
        .and_then(|handle| verify(&Nt, &from_dir, from_name, handle, true))
        .map_err(|e| e.to_storage("move", from.path))?;
    let action = format!("move {} to", from.path);
    nt_dirs::rename_no_replace(&moving, &to_dir.handle, to_name).map_err(|e| exists_error(&e, &action, to.path))?;
    // Under Wine the new name is resolved by the destination directory's path, so a directory
    // swapped for a link meanwhile could take the move elsewhere: it must be listed where it was
    // asked for, or it is moved back (through its handle) and refused.
    let listed = entry_of(&Nt, &to_dir, to_name).and_then(|entry| Ok((entry, Nt.file_id(&moving)?)));
    match listed {
        Ok((Some((_, _, id)), moved)) if id == moved => Ok(()),
        _ => {
            let _ = nt_dirs::rename_no_replace(&moving, &from_dir.handle, from_name);
            Err(SysError::escape(&format!("{to_name} did not arrive in its directory")).to_storage(&action, to.path))
        }
    }
}

/// Creates the one directory `at` in its parent, opened below the root; its parent must exist
/// and nothing may be at `at` (`AlreadyExists`, a dangling link included).
pub(super) fn make_dir(at: &Beneath) -> Result<(), StorageError> {
    let Some((name, parent)) = at.rel.split_last() else {
        return Err(StorageError::new(
            StorageErrorKind::AlreadyExists,
            format!("create directory {}: the root exists", at.path),
        ));
    };
    let dir = open_root(&Nt, at)
        .and_then(|root| walk(&Nt, root, parent))
        .map_err(|e| e.to_storage("open the directory of", at.path))?;
    let handle = Nt
        .open(Some(&dir.handle), name, Open::MakeDir, false)
        .map_err(|e| exists_error(&e, "create directory", at.path))?;
    // Made elsewhere (Wine, a parent swapped meanwhile): deleted again through its handle.
    created(&Nt, &dir, name, handle).map(drop).map_err(|e| e.to_storage("create directory", at.path))
}

/// Removes the empty directory `at` through its own handle, opened below its parent's (a
/// directory that holds anything stays, and so does a link: neither is removed).
pub(super) fn remove_dir(at: &Beneath) -> Result<(), StorageError> {
    let Some((name, parent)) = at.rel.split_last() else {
        return Err(StorageError::new(StorageErrorKind::PermissionDenied, format!("{} is a root", at.path)));
    };
    let dir = open_root(&Nt, at)
        .and_then(|root| walk(&Nt, root, parent))
        .map_err(|e| e.to_storage("open the directory of", at.path))?;
    let handle = nt_dirs::open_for_delete(&dir.handle, name, FILE_DIRECTORY_FILE)
        .and_then(|handle| verify(&Nt, &dir, name, handle, false))
        .map_err(|e| e.to_storage("remove directory", at.path))?;
    // Deleted when its handle closes, below; a directory that is not empty refuses.
    nt::delete_on_close(&handle).map_err(|e| e.to_storage("remove directory", at.path))
}

/// [`SysError::to_storage`], with "something is already there" as its own kind: a move or a new
/// directory never replaces.
fn exists_error(e: &SysError, action: &str, path: &str) -> StorageError {
    match e.kind {
        SysKind::Exists => {
            StorageError::new(StorageErrorKind::AlreadyExists, format!("{action} {path}: {}", e.message))
        }
        _ => e.to_storage(action, path),
    }
}
