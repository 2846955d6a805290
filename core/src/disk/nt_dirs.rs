//! The Windows system calls of listings, moves and directory removal (windows_dirs.rs): thin
//! wrappers over `windows-sys`, as in `nt.rs`, beside it so that the walk's calls stay as they
//! are. Every open is relative to a directory handle and opens a reparse point itself.
//!
//! Safety, for every block below: pointers passed are to live locals or buffers of the stated
//! length for the duration of the call, handles are borrowed from an `OwnedHandle` that outlives
//! the call, and a handle the system returns is owned exactly once.

use super::nt::{create_at, query_entries, rename_as, reparse_tag, status_error, wide, OBJ_CASE_INSENSITIVE};
use super::win_dirs::RawEntry;
use super::win_walk::{SysError, SysKind};
use std::mem::offset_of;
use std::os::windows::io::OwnedHandle;
use windows_sys::Wdk::Storage::FileSystem::{
    FileRenameInformation, FILE_ID_BOTH_DIR_INFORMATION, FILE_OPEN, FILE_OPEN_REPARSE_POINT,
};
use windows_sys::Win32::Storage::FileSystem::{DELETE, FILE_READ_ATTRIBUTES};

/// Opens the existing `name` below `dir` itself (a reparse point is not followed) for deletion
/// or renaming: `DELETE` and its attributes. `options` adds `FILE_DIRECTORY_FILE` or
/// `FILE_NON_DIRECTORY_FILE` where only one kind will do.
pub(super) fn open_for_delete(dir: &OwnedHandle, name: &str, options: u32) -> Result<OwnedHandle, SysError> {
    let access = DELETE | FILE_READ_ATTRIBUTES;
    create_at(Some(dir), &mut wide(name)?, OBJ_CASE_INSENSITIVE, access, FILE_OPEN, options | FILE_OPEN_REPARSE_POINT)
}

/// Renames the open `file` to `name` in the directory `dir` (resolved from `dir`'s handle),
/// never replacing what is there: `Exists` if the name is taken.
pub(super) fn rename_no_replace(file: &OwnedHandle, dir: &OwnedHandle, name: &str) -> Result<(), SysError> {
    // ReplaceIfExists = FALSE: the system refuses a taken name (STATUS_OBJECT_NAME_COLLISION)
    // atomically, a file or a directory, empty or not.
    rename_as(file, dir, name, FileRenameInformation, 0).map_err(status_error)
}

/// Every entry of the open directory `dir` (`.` and `..` included, as the system lists them).
/// `dir` must not have been queried before with a name mask: the first query's mask stays with
/// the handle.
pub(super) fn read_dir(dir: &OwnedHandle) -> Result<Vec<RawEntry>, SysError> {
    const NAME: usize = offset_of!(FILE_ID_BOTH_DIR_INFORMATION, FileName);
    // 64 KiB a call, as FindNextFile asks; u64s keep each entry's 8-byte fields aligned.
    let mut buf = vec![0u64; 8 * 1024];
    let len = buf.len() * 8;
    let mut out = Vec::new();
    let mut restart = true;
    loop {
        if !query_entries(dir, &mut buf, None, restart)? {
            return Ok(out);
        }
        restart = false;
        let bytes = buf.as_ptr().cast::<u8>();
        let mut at = 0usize;
        loop {
            if at + NAME > len {
                return Err(SysError::new(SysKind::Other, "a directory entry runs past the listing's buffer"));
            }
            // SAFETY: `at` is 8-aligned (the system aligns each entry to 8 bytes) and the
            // entry's fixed part lies inside `buf` (checked above).
            let info = unsafe { &*bytes.add(at).cast::<FILE_ID_BOTH_DIR_INFORMATION>() };
            let chars = info.FileNameLength as usize / 2;
            if at + NAME + chars * 2 > len {
                return Err(SysError::new(SysKind::Other, "a directory entry runs past the listing's buffer"));
            }
            // SAFETY: the name's characters follow the fixed part, inside `buf` (checked above).
            let name = unsafe { std::slice::from_raw_parts(bytes.add(at + NAME).cast::<u16>(), chars) }.to_vec();
            let attributes = info.FileAttributes;
            let tag = reparse_tag(info);
            out.push(RawEntry {
                name,
                attributes,
                tag,
                size: u64::try_from(info.EndOfFile).unwrap_or(0),
                modified: info.LastWriteTime,
            });
            if info.NextEntryOffset == 0 {
                break;
            }
            at += info.NextEntryOffset as usize;
        }
    }
}
