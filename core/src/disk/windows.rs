//! Windows: every open resolves below a handle of the root, one component at a time, and refuses
//! a symlink, junction or mount point on the way (`win_walk`), so a directory swapped for one
//! after the engine's check is refused, not followed. Writes create the temporary file inside the
//! parent's handle and rename it there through the handle (`FileRenameInformation` with
//! `RootDirectory`); a failed write deletes the temporary through its handle and makes sure it
//! is gone (`remove_made`). No path is opened by name after the check.

use super::nt::{self, Nt};
use super::win_walk::{
    create_below, created, open_root, open_volume, remove_made, step, walk, Dir, Open, SysError, SysKind, System,
    ATTR_DIRECTORY,
};
use super::{kind_of, temp_name, Beneath, DiskStorage, KeptRoots, WriteStep, TEMP_ATTEMPTS};
use crate::path::{AbsPath, Style};
use crate::storage::{FileKind, Metadata, StorageError, StorageErrorKind};
use std::fs::File;
use std::io::{self, Write};
use std::os::windows::io::OwnedHandle;

pub(super) fn open(at: &Beneath, _kept: Option<&KeptRoots>) -> Result<(Option<File>, Metadata), StorageError> {
    let root = open_root(&Nt, at).map_err(|e| e.to_storage("open the root of", at.path))?;
    let handle = match at.rel.split_last() {
        None => root.handle,
        Some((last, middle)) => {
            let dir = walk(&Nt, root, middle).map_err(|e| e.to_storage("open", at.path))?;
            step(&Nt, &dir, last, Open::Read).map_err(|e| e.to_storage("open", at.path))?.handle
        }
    };
    described(handle, at.path)
}

/// The metadata of an open handle, and the handle as a file if it is one.
fn described(handle: OwnedHandle, path: &str) -> Result<(Option<File>, Metadata), StorageError> {
    let info = nt::info(&handle).map_err(|e| e.to_storage("stat", path))?;
    if info.attributes & ATTR_DIRECTORY != 0 {
        return Ok((None, Metadata::new(FileKind::Directory, 0)));
    }
    // Windows times count 100 ns ticks from 1601; the engine's count nanoseconds from 1970.
    const UNIX_EPOCH_TICKS: u64 = 116_444_736_000_000_000;
    let modified = info.modified.checked_sub(UNIX_EPOCH_TICKS).and_then(|t| t.checked_mul(100));
    let meta = Metadata { links: info.links, modified, ..Metadata::new(FileKind::File, info.size) };
    Ok((Some(File::from(handle)), meta))
}

/// A whole-file read by path (storages without ranged reads only; the engine never asks this of
/// a disk): walked from the volume root like any other open.
pub(super) fn open_path(path: &std::path::Path) -> Result<(Option<File>, Metadata), StorageError> {
    let shown = path.display().to_string();
    let refuse = |why: &str| StorageError::new(StorageErrorKind::Other, format!("open {shown}: {why}"));
    let text = path.to_str().ok_or_else(|| refuse("the path is not valid UTF-8"))?;
    let normal = AbsPath::parse(text).map_err(refuse)?;
    let volume = match normal.style() {
        Style::Drive => normal.as_str()[..3].to_owned(),
        Style::Unc => normal.as_str().splitn(5, '\\').take(4).collect::<Vec<_>>().join("\\"),
        Style::Posix => return Err(refuse("not a Windows path")),
    };
    let at = Beneath::new(&volume, normal.as_str())?;
    open(&at, None)
}

pub(super) fn make_dirs(at: &Beneath) -> Result<(), StorageError> {
    let root = match open_root(&Nt, at) {
        Ok(root) => root,
        // A root that does not exist yet may still receive new files (semantics.md §8): its own
        // path is canonical too, so it is made the same careful way from the volume root.
        Err(e) if e.kind == SysKind::NotFound => open_volume(&Nt, at)
            .and_then(|volume| create_below(&Nt, volume, &at.root_parts))
            .map_err(|e| e.to_storage("create directory", at.root))?,
        Err(e) => return Err(e.to_storage("open the root of", at.path)),
    };
    create_below(&Nt, root, &at.rel).map(drop).map_err(|e| e.to_storage("create directory", at.path))
}

pub(super) fn write(disk: &DiskStorage, at: &Beneath, bytes: &[u8]) -> Result<(), StorageError> {
    let path = at.path;
    let (name, parent) = at.rel.split_last().expect("the caller refuses the root itself");
    let root = open_root(&Nt, at).map_err(|e| e.to_storage("open the root of", path))?;
    let dir = walk(&Nt, root, parent).map_err(|e| e.to_storage("open the directory of", path))?;
    match step(&Nt, &dir, name, Open::Probe) {
        Ok(found) => {
            let info = nt::info(&found.handle).map_err(|e| e.to_storage("stat", path))?;
            if info.attributes & ATTR_DIRECTORY != 0 {
                return Err(StorageError::new(StorageErrorKind::IsADirectory, format!("write {path}: is a directory")));
            }
            // A rename needs only the directory's permission: a read-only file must stay
            // protected. Opening it for writing without truncation changes nothing and asks the
            // system exactly that.
            step(&Nt, &dir, name, Open::Writable).map_err(|e| e.to_storage("open", path))?;
        }
        // Nothing there, or a symlink (junction, or a link Wine follows): the rename replaces
        // the link itself, never what it leads to.
        Err(e) if matches!(e.kind, SysKind::NotFound | SysKind::Escape) => {}
        Err(e) => return Err(e.to_storage("open", path)),
    }

    let io_error =
        |e: io::Error, what: &str| StorageError::new(kind_of(&e), format!("{what} the temporary file of {path}: {e}"));
    disk.inject(WriteStep::CreateTemp).map_err(|e| io_error(e, "create"))?;
    let (temp_name, temp) = create_temp(&dir, name).map_err(|e| e.to_storage("create a temporary file for", path))?;
    let mut file = File::from(temp);
    let done = fill(disk, &mut file, bytes)
        .map_err(|(what, e)| io_error(e, what))
        .and_then(|()| disk.inject(WriteStep::Rename).map_err(|e| io_error(e, "rename into")))
        .and_then(|()| {
            nt::rename(&file, &dir.handle, name).map_err(|e| e.to_storage("rename the temporary file to", path))
        });
    if done.is_err() {
        // Best effort: the write already failed with the error that matters.
        remove_made(&Nt, &dir, &temp_name, OwnedHandle::from(file));
    }
    done
}

/// Everything between creating the temporary file and renaming it.
fn fill(disk: &DiskStorage, file: &mut File, bytes: &[u8]) -> Result<(), (&'static str, io::Error)> {
    // Nothing to carry over: the only permission Windows' std knows is the read-only flag, and
    // a read-only target was refused above.
    disk.inject(WriteStep::SetMode).map_err(|e| ("set the mode of", e))?;
    disk.inject(WriteStep::WriteTemp).map_err(|e| ("write", e))?;
    file.write_all(bytes).map_err(|e| ("write", e))?;
    disk.inject(WriteStep::SyncTemp).map_err(|e| ("sync", e))?;
    file.sync_all().map_err(|e| ("sync", e))
}

/// A new temporary file directly below `dir`, and its name (checked: under Wine a handle's path
/// is resolved again after the open, so a directory swapped meanwhile leaves it no usable path).
fn create_temp(dir: &Dir<OwnedHandle>, name: &str) -> Result<(String, OwnedHandle), SysError> {
    let mut last = SysError::new(SysKind::Exists, "no attempt made");
    for _ in 0..TEMP_ATTEMPTS {
        let temp = temp_name(name);
        match Nt.open(Some(&dir.handle), &temp, Open::Temp, false) {
            Ok(handle) => return created(&Nt, dir, &temp, handle).map(|made| (temp, made.handle)),
            Err(e) if e.kind == SysKind::Exists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

// Taking back the directories of a failed write: through the walk, with the listings and moves.
pub(super) use super::dirs::remove_dir;
