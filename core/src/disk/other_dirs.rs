//! Platforms without `openat` in std (Windows): listings, moves and new directories by name,
//! as the other opens of `other.rs`. The engine's check holds for a disk nobody moves; a
//! parent swapped for a junction between the check and the call is not refused here
//! (docs/security.md).

use super::{metadata, os_error, Beneath, KeptRoots};
use crate::storage::{DirEntry, StorageError, StorageErrorKind};
use std::fs;
use std::io;
use std::path::Path;

/// The entries of the directory `at`, each described without following it; an entry removed
/// meanwhile, or whose name is not Unicode, is left out.
pub(super) fn list(at: &Beneath, _kept: Option<&KeptRoots>) -> Result<Vec<DirEntry>, StorageError> {
    let dir = Path::new(at.path);
    let mut listed = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| os_error(e, "list", dir))? {
        let entry = entry.map_err(|e| os_error(e, "list", dir))?;
        let Ok(name) = entry.file_name().into_string() else { continue };
        match fs::symlink_metadata(entry.path()) {
            Ok(meta) => listed.push(DirEntry { name, meta: metadata(&meta) }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(os_error(e, "stat an entry of", dir)),
        }
    }
    Ok(listed)
}

/// Moves `from` to `to` after checking that nothing is at `to`: `fs::rename` would replace a
/// file there. Something created at `to` between the check and the move may still be replaced.
pub(super) fn rename(from: &Beneath, to: &Beneath) -> Result<(), StorageError> {
    Beneath::move_ends(from, to)?;
    let (source, target) = (Path::new(from.path), Path::new(to.path));
    fs::symlink_metadata(source).map_err(|e| os_error(e, "move", source))?;
    match fs::symlink_metadata(target) {
        Ok(_) => Err(exists(&format!("move {} to", from.path), to.path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::rename(source, target).map_err(|e| os_error(e, &format!("move {} to", from.path), target))
        }
        Err(e) => Err(os_error(e, "stat", target)),
    }
}

/// Creates the one directory `at`; its parent must exist.
pub(super) fn make_dir(at: &Beneath) -> Result<(), StorageError> {
    fs::create_dir(at.path).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => exists("create directory", at.path),
        _ => os_error(e, "create directory", Path::new(at.path)),
    })
}

fn exists(action: &str, path: &str) -> StorageError {
    StorageError::new(StorageErrorKind::AlreadyExists, format!("{action} {path}: something is already there"))
}
