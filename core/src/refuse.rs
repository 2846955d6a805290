//! The refusals that reads, writes and containment share, so that the same failure is
//! answered with the same error whichever request met it.

use crate::error::{AcpFsError, ErrorKind};
use crate::path::AbsPath;
use crate::storage::{StorageError, StorageErrorKind};
use crate::text::NotText;

/// Maps a storage failure on `path` to the answer the agent gets.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn storage_error(e: StorageError, path: &AbsPath) -> AcpFsError {
    let p = path.as_str();
    match e.kind {
        StorageErrorKind::NotFound | StorageErrorKind::NotADirectory => AcpFsError::not_found(p),
        StorageErrorKind::PermissionDenied => AcpFsError::denied(ErrorKind::PermissionDenied, p, e.message),
        StorageErrorKind::SymlinkEscape => AcpFsError::denied(
            ErrorKind::SymlinkEscape,
            p,
            format!("the path changed after it was checked and was refused ({})", e.message),
        ),
        StorageErrorKind::IsADirectory => AcpFsError::denied(ErrorKind::NotAFile, p, "the path is a directory"),
        StorageErrorKind::AlreadyExists => AcpFsError::denied(
            ErrorKind::AlreadyExists,
            p,
            "something is already at this path, and it is never replaced; choose another path",
        ),
        StorageErrorKind::Unsupported | StorageErrorKind::Other => AcpFsError::storage(p, &e.message),
    }
}

/// Content that is not text, read or about to be replaced.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn not_text(e: NotText, requested: &AbsPath) -> AcpFsError {
    match e {
        NotText::Binary => AcpFsError::denied(
            ErrorKind::BinaryFile,
            requested.as_str(),
            "the file has a NUL byte in its first 8 KiB: it is binary, not text",
        ),
        NotText::Invalid => AcpFsError::denied(
            ErrorKind::NotUtf8,
            requested.as_str(),
            "the file is not valid UTF-8 (or UTF-16 with a BOM); it is never decoded lossily",
        ),
    }
}

/// `file_too_large`, with `hint` saying which limit was met and what to do instead.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn too_large(requested: &AbsPath, max: u64, hint: &str) -> AcpFsError {
    AcpFsError::denied(ErrorKind::FileTooLarge, requested.as_str(), format!("{hint} (limit {max} bytes)"))
}
