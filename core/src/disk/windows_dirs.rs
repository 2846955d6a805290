//! Windows: listings, moves and single directories are not walked below the root's handle yet
//! (win_walk.rs walks opens, writes and directory creation), and a by-name call after the
//! engine's check is what the walk exists to rule out. So the disk does not offer them there
//! (`StorageCaps::DISK`), and answers a direct call as unsupported.

use super::Beneath;
use crate::storage::{DirEntry, StorageError, StorageErrorKind};

fn not_yet<T>(what: &str, at: &Beneath) -> Result<T, StorageError> {
    Err(StorageError::new(StorageErrorKind::Unsupported, format!("{what} {}: not on Windows yet", at.path)))
}

pub(super) fn list(at: &Beneath) -> Result<Vec<DirEntry>, StorageError> {
    not_yet("list", at)
}

pub(super) fn rename(from: &Beneath, _to: &Beneath) -> Result<(), StorageError> {
    not_yet("move", from)
}

pub(super) fn make_dir(at: &Beneath) -> Result<(), StorageError> {
    not_yet("create directory", at)
}
