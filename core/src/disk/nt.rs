//! The Windows system calls of the disk storage: the crate's only `unsafe` code, kept to thin
//! wrappers over `windows-sys` that take and return owned handles and Rust strings.
//!
//! Std has no handle-relative open on Windows, and `cap-std` does not fit: its Windows build
//! opens each component by its full path name (rebuilt from the parent's path), which is the
//! by-name open this storage must not make. `NtCreateFile` with `RootDirectory` is the Windows
//! `openat`.
//!
//! Safety, for every block below: pointers passed are to live locals or buffers of the stated
//! length for the duration of the call, handles are borrowed from an `OwnedHandle` that outlives
//! the call, and a handle the system returns is owned exactly once.

use super::win_walk::{Open, SysError, SysKind, System, ATTR_REPARSE_POINT};
use std::io;
use std::mem::{size_of, zeroed};
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::ptr::{null, null_mut};
use windows_sys::Wdk::Foundation::{
    NtQueryObject, OBJECT_ATTRIBUTES, OBJECT_INFORMATION_CLASS, OBJECT_NAME_INFORMATION,
};
use windows_sys::Wdk::Storage::FileSystem::{
    FileIdBothDirectoryInformation, FileInternalInformation, FileRenameInformation, FileRenameInformationEx,
    NtCreateFile, NtQueryDirectoryFile, NtQueryInformationFile, NtSetInformationFile, FILE_CREATE, FILE_DIRECTORY_FILE,
    FILE_ID_BOTH_DIR_INFORMATION, FILE_INFORMATION_CLASS, FILE_INTERNAL_INFORMATION, FILE_NON_DIRECTORY_FILE,
    FILE_OPEN, FILE_OPEN_BY_FILE_ID, FILE_OPEN_REPARSE_POINT, FILE_RENAME_INFORMATION, FILE_SYNCHRONOUS_IO_NONALERT,
};
use windows_sys::Win32::Foundation::{RtlNtStatusToDosError, HANDLE, NTSTATUS, UNICODE_STRING};
use windows_sys::Win32::Storage::FileSystem::{
    FileAttributeTagInfo, FileDispositionInfo, GetFileInformationByHandle, GetFileInformationByHandleEx,
    SetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, DELETE, FILE_ATTRIBUTE_TAG_INFO, FILE_DISPOSITION_INFO,
    FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_LIST_DIRECTORY, FILE_READ_ATTRIBUTES, FILE_SHARE_DELETE,
    FILE_SHARE_READ, FILE_SHARE_WRITE, FILE_TRAVERSE, FILE_WRITE_DATA, SYNCHRONIZE,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::IO::IO_STATUS_BLOCK;

/// `OBJ_CASE_INSENSITIVE`: names are matched as Win32 matches them.
pub(super) const OBJ_CASE_INSENSITIVE: u32 = 0x40;

/// A directory handle of the walk: opens names below it and reads their entries.
const DIR_ACCESS: u32 = FILE_TRAVERSE | FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES;

/// `ObjectNameInformation` (documented in the WDK, absent from windows-sys' metadata).
const OBJECT_NAME_INFORMATION_CLASS: OBJECT_INFORMATION_CLASS = 1;

/// The real system: `NtCreateFile` relative to a directory handle.
pub(super) struct Nt;

/// Whether this process runs under Wine: its ntdll exports `wine_get_version`, which no Windows
/// ntdll has. Asked once.
fn wine() -> bool {
    static WINE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WINE.get_or_init(|| {
        let ntdll: Vec<u16> = "ntdll.dll".encode_utf16().chain([0]).collect();
        // SAFETY: a NUL-terminated name; ntdll is loaded in every process and never unloaded.
        let module = unsafe { GetModuleHandleW(ntdll.as_ptr()) };
        // SAFETY: as above, with a NUL-terminated export name.
        !module.is_null() && unsafe { GetProcAddress(module, c"wine_get_version".as_ptr().cast()) }.is_some()
    })
}

fn raw(handle: &impl AsRawHandle) -> HANDLE {
    handle.as_raw_handle() as HANDLE
}

/// `name` as the UTF-16 code units a `UNICODE_STRING` holds.
pub(super) fn wide(name: &str) -> Result<Vec<u16>, SysError> {
    let units: Vec<u16> = name.encode_utf16().collect();
    if units.len() * 2 > usize::from(u16::MAX) {
        return Err(SysError::new(SysKind::Other, format!("the name {name} is too long")));
    }
    Ok(units)
}

/// Every open of the storage: `NtCreateFile` of `name` (code units: a name from [`wide`], or a
/// file id's bytes with `FILE_OPEN_BY_FILE_ID`) relative to `dir`, shared for reading, writing
/// and deletion, synchronous. `access`, `disposition` and `options` are the caller's.
pub(super) fn create_at(
    dir: Option<&OwnedHandle>,
    name: &mut [u16],
    object_attributes: u32,
    access: u32,
    disposition: u32,
    options: u32,
) -> Result<OwnedHandle, SysError> {
    let bytes = u16::try_from(name.len() * 2).map_err(|_| SysError::new(SysKind::Other, "the name is too long"))?;
    let object_name = UNICODE_STRING { Length: bytes, MaximumLength: bytes, Buffer: name.as_mut_ptr() };
    let attributes = OBJECT_ATTRIBUTES {
        Length: size_of::<OBJECT_ATTRIBUTES>() as u32,
        RootDirectory: dir.map_or(null_mut(), raw),
        ObjectName: &object_name,
        Attributes: object_attributes,
        SecurityDescriptor: null(),
        SecurityQualityOfService: null(),
    };
    let mut handle: HANDLE = null_mut();
    // SAFETY: a plain-data struct the call fills.
    let mut io_status: IO_STATUS_BLOCK = unsafe { zeroed() };
    // SAFETY: see the module's note; `object_name` and `name` outlive the call; on success
    // `handle` is a new handle owned by nobody else.
    let status = unsafe {
        NtCreateFile(
            &mut handle,
            access | SYNCHRONIZE,
            &attributes,
            &mut io_status,
            null(),
            0,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            disposition,
            options | FILE_SYNCHRONOUS_IO_NONALERT,
            null(),
            0,
        )
    };
    if status < 0 {
        return Err(status_error(status));
    }
    // SAFETY: a fresh handle from NtCreateFile, owned from here on.
    Ok(unsafe { OwnedHandle::from_raw_handle(handle as _) })
}

/// What an NTSTATUS failure means, with the system's message.
pub(super) fn status_error(status: NTSTATUS) -> SysError {
    // Values from ntstatus.h.
    let kind = match status as u32 {
        0xC000_0034 | 0xC000_003A | 0xC000_000F | 0xC000_0056 => SysKind::NotFound,
        0xC000_0103 => SysKind::NotADirectory,
        0xC000_00BA => SysKind::IsADirectory,
        0xC000_0035 => SysKind::Exists,
        0xC000_0022 | 0xC000_00A2 | 0xC000_0121 => SysKind::PermissionDenied,
        // STATUS_STOPPED_ON_SYMLINK, STATUS_REPARSE_POINT_ENCOUNTERED.
        0x8000_002D | 0xC000_050B => SysKind::Escape,
        _ => SysKind::Other,
    };
    // SAFETY: a pure function of its argument.
    let code = unsafe { RtlNtStatusToDosError(status) };
    SysError::new(kind, io::Error::from_raw_os_error(code as i32).to_string())
}

fn last_error() -> SysError {
    let e = io::Error::last_os_error();
    let kind = match e.kind() {
        io::ErrorKind::NotFound => SysKind::NotFound,
        io::ErrorKind::PermissionDenied => SysKind::PermissionDenied,
        _ => SysKind::Other,
    };
    SysError::new(kind, e.to_string())
}

impl System for Nt {
    type Handle = OwnedHandle;

    fn open(&self, dir: Option<&OwnedHandle>, name: &str, how: Open, follow: bool) -> Result<OwnedHandle, SysError> {
        let (access, disposition, options) = match how {
            // Listing: the walk reads the entry of the next name through the directory's handle.
            Open::Dir => (DIR_ACCESS, FILE_OPEN, FILE_DIRECTORY_FILE),
            Open::MakeDir => (DIR_ACCESS | DELETE, FILE_CREATE, FILE_DIRECTORY_FILE),
            Open::Read => (FILE_GENERIC_READ, FILE_OPEN, 0),
            Open::Probe => (FILE_READ_ATTRIBUTES, FILE_OPEN, 0),
            Open::Writable => (FILE_WRITE_DATA | FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_NON_DIRECTORY_FILE),
            Open::Temp => (FILE_GENERIC_WRITE | DELETE, FILE_CREATE, FILE_NON_DIRECTORY_FILE),
            Open::Remove => (DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN, 0),
        };
        let reparse = if follow { 0 } else { FILE_OPEN_REPARSE_POINT };
        create_at(dir, &mut wide(name)?, OBJ_CASE_INSENSITIVE, access, disposition, options | reparse)
    }

    fn attribute_tag(&self, handle: &OwnedHandle) -> Result<(u32, u32), SysError> {
        // SAFETY: a plain-data struct, then a buffer of its own size.
        let mut info: FILE_ATTRIBUTE_TAG_INFO = unsafe { zeroed() };
        let ok = unsafe {
            GetFileInformationByHandleEx(
                raw(handle),
                FileAttributeTagInfo,
                (&mut info as *mut FILE_ATTRIBUTE_TAG_INFO).cast(),
                size_of::<FILE_ATTRIBUTE_TAG_INFO>() as u32,
            )
        };
        if ok == 0 {
            return Err(last_error());
        }
        Ok((info.FileAttributes, info.ReparseTag))
    }

    fn final_path(&self, handle: &OwnedHandle) -> Result<String, SysError> {
        // The object's own name (`\Device\HarddiskVolume3\…`; `\??\C:\…` under Wine), not
        // GetFinalPathNameByHandleW: that maps volumes to drive letters, which costs a mount
        // manager query per call and crashes Wine 8 on a handle whose directory was removed.
        // u64s keep the buffer aligned for the UNICODE_STRING at its start.
        let mut buf = vec![0u64; 128];
        loop {
            let len = (buf.len() * 8) as u32;
            let mut needed = 0u32;
            // SAFETY: `buf` holds `len` bytes.
            let status = unsafe {
                NtQueryObject(raw(handle), OBJECT_NAME_INFORMATION_CLASS, buf.as_mut_ptr().cast(), len, &mut needed)
            };
            // STATUS_INFO_LENGTH_MISMATCH, STATUS_BUFFER_OVERFLOW, STATUS_BUFFER_TOO_SMALL.
            if matches!(status as u32, 0xC000_0004 | 0x8000_0005 | 0xC000_0023) && needed > len {
                buf.resize((needed as usize).div_ceil(8), 0);
                continue;
            }
            if status < 0 {
                return Err(status_error(status));
            }
            // SAFETY: on success the buffer starts with the name's UNICODE_STRING.
            let info = unsafe { &*buf.as_ptr().cast::<OBJECT_NAME_INFORMATION>() };
            // Wine answers with no name at all for a handle whose path it could not resolve
            // again after opening it (the directory was swapped meanwhile).
            if info.Name.Buffer.is_null() || info.Name.Length == 0 {
                return Err(SysError::escape("the handle has no name: its path changed as it was opened"));
            }
            // SAFETY: the name's characters lie inside the buffer.
            let name = unsafe { std::slice::from_raw_parts(info.Name.Buffer, usize::from(info.Name.Length) / 2) };
            return Ok(String::from_utf16_lossy(name));
        }
    }

    fn file_id(&self, handle: &OwnedHandle) -> Result<u64, SysError> {
        // SAFETY: a plain-data struct and a buffer of its own size.
        let mut info: FILE_INTERNAL_INFORMATION = unsafe { zeroed() };
        let mut io_status: IO_STATUS_BLOCK = unsafe { zeroed() };
        let status = unsafe {
            NtQueryInformationFile(
                raw(handle),
                &mut io_status,
                (&mut info as *mut FILE_INTERNAL_INFORMATION).cast(),
                size_of::<FILE_INTERNAL_INFORMATION>() as u32,
                FileInternalInformation,
            )
        };
        if status < 0 {
            return Err(status_error(status));
        }
        Ok(info.IndexNumber as u64)
    }

    fn follows_file_links(&self) -> bool {
        wine()
    }

    fn holds(&self, dir: &OwnedHandle, id: u64) -> Result<bool, SysError> {
        // An open by file id relative to `dir`. Wine finds the id by listing `dir` and the
        // directories below it with `lstat`, which never follows a link: found means an entry
        // of its own. (Windows would find the id anywhere on the volume: it is not asked.) Wine
        // searches breadth first, so a file of `dir` costs one listing of `dir`; an id that is
        // not there costs a search of the whole tree below it, which only a swap causes.
        // The id's eight bytes, as the four code units a UNICODE_STRING of length 8 holds.
        let mut units = [0, 16, 32, 48].map(|shift| (id >> shift) as u16);
        let by_id = FILE_OPEN_BY_FILE_ID | FILE_OPEN_REPARSE_POINT;
        let found = match create_at(Some(dir), &mut units, 0, FILE_READ_ATTRIBUTES, FILE_OPEN, by_id) {
            Ok(found) => found,
            Err(e) if e.kind == SysKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        // What was found is opened again by name; if that name was swapped meanwhile, the
        // handle holds another file, and that is no proof.
        Ok(self.file_id(&found)? == id)
    }

    fn discard(&self, handle: &OwnedHandle) {
        // Best effort: the caller already refuses with the error that matters.
        let _ = delete_on_close(handle);
    }

    fn entry(&self, dir: &OwnedHandle, name: &str) -> Result<Option<(u32, u32, u64)>, SysError> {
        // A name without wildcards matches only itself (the engine's canonical names on Windows
        // hold none; if one did, the id check of the walk still decides).
        let mut wide = wide(name)?;
        // One entry: the header and a name of up to 255 characters fit; u64s align it.
        let mut buf = vec![0u64; 128];
        if !query_entries(dir, &mut buf, Some(&mut wide), true)? {
            return Ok(None);
        }
        // SAFETY: on success the buffer starts with one entry.
        let info = unsafe { &*buf.as_ptr().cast::<FILE_ID_BOTH_DIR_INFORMATION>() };
        let tag = reparse_tag(info);
        Ok(Some((info.FileAttributes, tag, info.FileId as u64)))
    }
}

/// One `NtQueryDirectoryFile` of `dir` into `buf` (`FILE_ID_BOTH_DIR_INFORMATION` entries, the
/// system's layout): with a `mask`, the one entry of that name; without, as many entries as fit,
/// from the start when `restart`. False at the end of the listing, or when no entry has the
/// name: STATUS_NO_MORE_FILES, STATUS_NO_SUCH_FILE.
pub(super) fn query_entries(
    dir: &OwnedHandle,
    buf: &mut [u64],
    mask: Option<&mut [u16]>,
    restart: bool,
) -> Result<bool, SysError> {
    let single = mask.is_some();
    let mask = match mask {
        Some(units) => {
            let bytes =
                u16::try_from(units.len() * 2).map_err(|_| SysError::new(SysKind::Other, "the name is too long"))?;
            Some(UNICODE_STRING { Length: bytes, MaximumLength: bytes, Buffer: units.as_mut_ptr() })
        }
        None => None,
    };
    // SAFETY: a plain-data struct the call fills.
    let mut io_status: IO_STATUS_BLOCK = unsafe { zeroed() };
    // SAFETY: see the module's note; `mask` and its units outlive the call, `buf` holds the
    // length given.
    let status = unsafe {
        NtQueryDirectoryFile(
            raw(dir),
            null_mut(),
            None,
            null(),
            &mut io_status,
            buf.as_mut_ptr().cast(),
            (buf.len() * 8) as u32,
            FileIdBothDirectoryInformation,
            single,
            mask.as_ref().map_or(null(), |m| m as *const UNICODE_STRING),
            restart,
        )
    };
    if matches!(status as u32, 0x8000_0006 | 0xC000_000F) {
        return Ok(false);
    }
    if status < 0 {
        return Err(status_error(status));
    }
    Ok(true)
}

/// The reparse tag of a listed entry: with the reparse-point attribute, `EaSize` holds it.
pub(super) fn reparse_tag(info: &FILE_ID_BOTH_DIR_INFORMATION) -> u32 {
    if info.FileAttributes & ATTR_REPARSE_POINT != 0 {
        info.EaSize
    } else {
        0
    }
}

/// What the storage reports of an open file.
pub(super) struct Info {
    pub attributes: u32,
    pub size: u64,
    pub links: u64,
    /// Last write, in 100 ns ticks since 1601.
    pub modified: u64,
}

pub(super) fn info(handle: &OwnedHandle) -> Result<Info, SysError> {
    // SAFETY: a plain-data struct the call fills.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { zeroed() };
    // SAFETY: as above.
    if unsafe { GetFileInformationByHandle(raw(handle), &mut info) } == 0 {
        return Err(last_error());
    }
    let time = info.ftLastWriteTime;
    Ok(Info {
        attributes: info.dwFileAttributes,
        size: (u64::from(info.nFileSizeHigh) << 32) | u64::from(info.nFileSizeLow),
        links: u64::from(info.nNumberOfLinks),
        modified: (u64::from(time.dwHighDateTime) << 32) | u64::from(time.dwLowDateTime),
    })
}

/// Renames the open file `file` to `name` in the directory `dir`, replacing what is there (a
/// symlink there is replaced, not followed). Resolved from `dir`'s handle, not by path. POSIX
/// semantics first (Windows 10 1709+, NTFS): a target another process holds open (an editor,
/// a concurrent read) is replaced rather than refused; elsewhere the classic rename.
pub(super) fn rename(file: &impl AsRawHandle, dir: &OwnedHandle, name: &str) -> Result<(), SysError> {
    /// FILE_RENAME_REPLACE_IF_EXISTS | FILE_RENAME_POSIX_SEMANTICS.
    const POSIX_REPLACE: u32 = 0x1 | 0x2;
    match rename_as(file, dir, name, FileRenameInformationEx, POSIX_REPLACE) {
        // STATUS_INVALID_INFO_CLASS, STATUS_NOT_IMPLEMENTED, STATUS_INVALID_PARAMETER,
        // STATUS_NOT_SUPPORTED: a system or file system without it (FAT, older Windows, Wine 8).
        Err(status) if matches!(status as u32, 0xC000_0003 | 0xC000_0002 | 0xC000_000D | 0xC000_00BB) => {
            rename_as(file, dir, name, FileRenameInformation, 1).map_err(status_error)
        }
        done => done.map_err(status_error),
    }
}

/// One `NtSetInformationFile` rename; `flags` is `ReplaceIfExists` (a BOOLEAN) for the classic
/// class and the flag word for the `Ex` class, which share the first field.
pub(super) fn rename_as(
    file: &impl AsRawHandle,
    dir: &OwnedHandle,
    name: &str,
    class: FILE_INFORMATION_CLASS,
    flags: u32,
) -> Result<(), NTSTATUS> {
    let wide: Vec<u16> = name.encode_utf16().collect();
    let len = size_of::<FILE_RENAME_INFORMATION>() + wide.len() * 2;
    // u64s keep the buffer aligned for the struct's handle field.
    let mut buf = vec![0u64; len.div_ceil(8)];
    let info = buf.as_mut_ptr().cast::<FILE_RENAME_INFORMATION>();
    // SAFETY: `buf` holds the header and the name after it (the struct's one-character array
    // is where the name starts); `dir` outlives the call.
    let status = unsafe {
        (*info).Anonymous.Flags = flags;
        (*info).RootDirectory = raw(dir);
        (*info).FileNameLength = (wide.len() * 2) as u32;
        std::ptr::copy_nonoverlapping(wide.as_ptr(), (*info).FileName.as_mut_ptr(), wide.len());
        let mut io_status: IO_STATUS_BLOCK = zeroed();
        NtSetInformationFile(raw(file), &mut io_status, info.cast(), len as u32, class)
    };
    if status < 0 {
        return Err(status);
    }
    Ok(())
}

/// Marks the open file for deletion when its last handle closes: removes a temporary file
/// through its handle, never by name.
pub(super) fn delete_on_close(file: &impl AsRawHandle) -> Result<(), SysError> {
    let info = FILE_DISPOSITION_INFO { DeleteFile: true };
    // SAFETY: a local of the stated size.
    let ok = unsafe {
        SetFileInformationByHandle(
            raw(file),
            FileDispositionInfo,
            (&info as *const FILE_DISPOSITION_INFO).cast(),
            size_of::<FILE_DISPOSITION_INFO>() as u32,
        )
    };
    if ok == 0 {
        return Err(last_error());
    }
    Ok(())
}
