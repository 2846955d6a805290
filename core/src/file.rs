//! Opening the checked file and reading it in chunks, all from one open file (semantics.md
//! §8.2): a read never mixes two versions of a file, and what was checked is what is read.

use crate::ask::{Channel, Opened};
use crate::bytes::Bytes;
use crate::contain::Target;
use crate::error::{AcpFsError, ErrorKind};
use crate::io::FileId;
use crate::path::AbsPath;
use crate::refuse::storage_error;
use crate::state::Shared;
use crate::storage::{FileKind, Metadata, StorageError, StorageErrorKind};

/// First ranged read; later reads double up to [`MAX_CHUNK`] so long windows need few round
/// trips while short ones read little.
pub const FIRST_CHUNK: usize = 16 * 1024;
/// The largest ranged read: a bound on how far a request reads past the bytes it needs.
pub const MAX_CHUNK: usize = 1024 * 1024;

/// Opens the target's real path under its root: the open file (none for anything but a
/// regular file), its metadata and, when `head` is true and the storage sends them, its first
/// [`FIRST_CHUNK`] bytes; or the storage's error for the caller to judge.
pub(crate) async fn open(io: &Channel, target: &Target, head: bool) -> Result<Opened, StorageError> {
    let head = if head { FIRST_CHUNK } else { 0 };
    io.open(target.root.as_str(), target.real.as_str(), head).await
}

/// Refuses what is not a regular file, and a hard-linked file under `refuseHardlinks`.
pub(crate) fn check(shared: &Shared, meta: &Metadata, requested: &AbsPath) -> Result<(), AcpFsError> {
    if meta.kind != FileKind::File {
        return Err(not_a_file(requested));
    }
    if meta.links > 1 && shared.policy.options.refuse_hardlinks {
        return Err(AcpFsError::denied(
            ErrorKind::HardLink,
            requested.as_str(),
            format!(
                "the file has {} hard links, so the same file may also be reachable outside the roots; \
                 it is not served (option refuseHardlinks)",
                meta.links
            ),
        ));
    }
    Ok(())
}

pub(crate) fn not_a_file(requested: &AbsPath) -> AcpFsError {
    AcpFsError::denied(ErrorKind::NotAFile, requested.as_str(), "the path is not a regular file")
}

/// Sequential reads of one open file: chunks double from [`FIRST_CHUNK`] to [`MAX_CHUNK`], and
/// the end of the file is an empty read or, when the size is known, reaching it.
pub(crate) struct ChunkReader<'a> {
    io: &'a Channel,
    file: Option<FileId>,
    requested: &'a AbsPath,
    offset: u64,
    chunk: usize,
    known_size: Option<u64>,
    /// The first chunk, sent with the open: served instead of the first read.
    head: Option<Bytes>,
    pub eof: bool,
}

impl<'a> ChunkReader<'a> {
    /// A reader from the start of what `open` gave (its head, if any, is the first chunk).
    /// `size` 0 is not trusted (procfs-like files report 0 and still have content).
    pub fn new(io: &'a Channel, opened: Opened, requested: &'a AbsPath) -> Self {
        let mut reader = ChunkReader::at(io, opened.file, opened.meta.size, requested, 0, FIRST_CHUNK);
        reader.head = opened.head;
        reader
    }

    /// A reader starting at `offset` whose first read asks for `first` bytes (clamped to
    /// [`FIRST_CHUNK`]..=[`MAX_CHUNK`]).
    pub fn at(
        io: &'a Channel,
        file: Option<FileId>,
        size: u64,
        requested: &'a AbsPath,
        offset: u64,
        first: usize,
    ) -> Self {
        let known_size = Some(size).filter(|&s| s > 0);
        ChunkReader {
            io,
            file,
            requested,
            offset,
            chunk: first.clamp(FIRST_CHUNK, MAX_CHUNK),
            eof: known_size.is_some_and(|size| offset >= size),
            known_size,
            head: None,
        }
    }

    pub async fn next(&mut self) -> Result<Bytes, AcpFsError> {
        if let Some(head) = self.head.take() {
            // Read from offset 0 with the open, as the first `read_at` would have been.
            return Ok(self.advance(head));
        }
        let Some(file) = self.file else {
            // A regular file the storage did not open: a driver bug, reported, not panicked.
            self.eof = true;
            let e =
                StorageError::new(StorageErrorKind::Other, "the storage answered a regular file without opening it");
            return Err(storage_error(e, self.requested));
        };
        let bytes =
            self.io.read_at(file, self.offset, self.chunk).await.map_err(|e| storage_error(e, self.requested))?;
        Ok(self.advance(bytes))
    }

    /// Closes the file: nothing more is read from it. A failure to close changes nothing the
    /// reader read (the driver closes what is left when the operation ends).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub async fn close(self) {
        if let Some(file) = self.file {
            let _ = self.io.close(file).await;
        }
    }

    /// Moves past a chunk just read.
    fn advance(&mut self, bytes: Bytes) -> Bytes {
        self.offset += bytes.len() as u64;
        self.eof = bytes.is_empty() || self.known_size.is_some_and(|size| self.offset >= size);
        self.chunk = (self.chunk * 2).min(MAX_CHUNK);
        bytes
    }
}
