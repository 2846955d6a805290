//! Platforms that are neither Unix nor Windows (no handle-relative open in std): paths are
//! opened by name. The engine's check still holds for a disk nobody moves; a directory swapped
//! for a link between the check and the open is not refused here (docs/security.md).

use super::{kind_of, metadata, os_error, temp_name, Beneath, DiskStorage, KeptRoots, WriteStep, TEMP_ATTEMPTS};
use crate::storage::{FileKind, Metadata, StorageError, StorageErrorKind};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

pub(super) fn open(at: &Beneath, _kept: Option<&KeptRoots>) -> Result<(Option<File>, Metadata), StorageError> {
    open_path(Path::new(at.path))
}

pub(super) fn open_path(path: &Path) -> Result<(Option<File>, Metadata), StorageError> {
    let meta = fs::symlink_metadata(path).map_err(|e| os_error(e, "stat", path))?;
    let meta = metadata(&meta);
    if meta.kind != FileKind::File {
        return Ok((None, meta));
    }
    let file = File::open(path).map_err(|e| os_error(e, "open", path))?;
    let meta = metadata(&file.metadata().map_err(|e| os_error(e, "stat", path))?);
    Ok(((meta.kind == FileKind::File).then_some(file), meta))
}

pub(super) fn make_dirs(at: &Beneath) -> Result<(), StorageError> {
    fs::create_dir_all(at.path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            // create_dir_all reports a component that exists as something other than a
            // directory (a file, a dangling link) as "already exists".
            StorageError::new(
                StorageErrorKind::NotADirectory,
                format!("create directory {}: a component exists and is not a directory", at.path),
            )
        } else {
            os_error(e, "create directory", Path::new(at.path))
        }
    })
}

pub(super) fn remove_dir(at: &Beneath) -> Result<(), StorageError> {
    fs::remove_dir(at.path).map_err(|e| os_error(e, "remove directory", Path::new(at.path)))
}

pub(super) fn write(disk: &DiskStorage, at: &Beneath, bytes: &[u8]) -> Result<(), StorageError> {
    let target = Path::new(at.path);
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("cannot write to {}", at.path)));
    };
    let name = name.to_string_lossy();
    let mode = match fs::symlink_metadata(target) {
        Ok(meta) if meta.is_dir() => {
            return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("write {}: is a directory", at.path)))
        }
        Ok(meta) if meta.is_file() => {
            // A read-only file stays protected, although a rename needs only the directory.
            OpenOptions::new().write(true).open(target).map(drop).map_err(|e| os_error(e, "open", target))?;
            Some(meta.permissions())
        }
        Ok(_) => None,
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(os_error(e, "stat", target)),
    };
    disk.inject(WriteStep::CreateTemp).map_err(|e| os_error(e, "create a temporary file in", dir))?;
    let mut last = None;
    let mut created = None;
    for _ in 0..TEMP_ATTEMPTS {
        let temp = dir.join(temp_name(&name));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                created = Some((file, temp));
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(os_error(e, "create a temporary file in", dir)),
        }
    }
    let Some((mut file, temp)) = created else {
        let e = last.unwrap_or_else(|| io::Error::other("no attempt made"));
        return Err(os_error(e, "create a temporary file in", dir));
    };
    let filled = (|| {
        disk.inject(WriteStep::SetMode)?;
        if let Some(mode) = &mode {
            file.set_permissions(mode.clone())?;
        }
        disk.inject(WriteStep::WriteTemp)?;
        file.write_all(bytes)?;
        disk.inject(WriteStep::SyncTemp)?;
        file.sync_all()
    })();
    // Closed before any removal or rename: Windows refuses both on an open file.
    drop(file);
    let renamed = filled.and_then(|()| disk.inject(WriteStep::Rename)).and_then(|()| fs::rename(&temp, target));
    if let Err(e) = renamed {
        let _ = fs::remove_file(&temp);
        return Err(StorageError::new(kind_of(&e), format!("write {}: {e}", at.path)));
    }
    Ok(())
}
