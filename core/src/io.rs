//! The sans-IO vocabulary: what an operation needs next, and the host's answer.

use crate::bytes::Bytes;
use crate::ledger::Turn;
use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::{Metadata, StorageError};

/// An open file of one operation, numbered by the driver in the order it opened them. The
/// driver closes every file of an operation when the operation ends.
pub type FileId = u32;

/// One I/O request from an operation. Paths are normalized (and, after containment is
/// checked, resolved) absolute paths; `root` is the (resolved) session root the path was
/// checked against, for storages that resolve relative to it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Io {
    Stat {
        path: String,
        follow: bool,
    },
    RealPath {
        path: String,
    },
    /// The whole file, for storages without ranged reads.
    ReadAll {
        path: String,
    },
    /// Open the file for reading: answered with [`Answer::Opened`]. The answer may carry up to
    /// `head` bytes read from the start of the file it opened (fewer only where the file ends):
    /// they are the first chunk, so a small file needs no `ReadAt` at all. 0: no head wanted
    /// (the engine asks for one on every read; a storage may always send none).
    Open {
        root: String,
        path: String,
        head: usize,
    },
    /// Up to `len` bytes at `offset` of a file this operation opened.
    ReadAt {
        file: FileId,
        offset: u64,
        #[serde(rename = "length")]
        #[cfg_attr(feature = "ts", ts(rename = "length"))]
        len: usize,
    },
    MakeDirs {
        root: String,
        path: String,
    },
    /// The bytes travel beside the request (`HostStep::Io::bytes`), not inside it.
    Write {
        root: String,
        path: String,
        #[serde(skip)]
        #[cfg_attr(feature = "ts", ts(skip))]
        bytes: Vec<u8>,
    },
    /// Ask the host to approve a write; may take as long as a person needs.
    Approve {
        change: ChangeRecord,
    },
    /// A write waits for its turn on `path` (another write to the same real path is in
    /// progress): answer [`Answer::Done`] once [`Turn::wait`] / [`Turn::ready`] return, or,
    /// for a driver that cannot reach the `Turn`, after another operation of the engine ended
    /// (the operation asks again if its turn has not come).
    Wait {
        path: String,
        #[serde(skip)]
        #[cfg_attr(feature = "ts", ts(skip))]
        turn: Turn,
    },
    /// A write targets an open document: ask the host what to do with it.
    WriteDocument {
        path: String,
        text: String,
    },
}

impl Io {
    /// Whether performing it changes files or an open buffer. Once such an io has started, the
    /// request runs to its end: a request reported cancelled has changed nothing (semantics.md §6).
    pub fn changes(&self) -> bool {
        matches!(self, Io::MakeDirs { .. } | Io::Write { .. } | Io::WriteDocument { .. })
    }
}

/// The answer to an [`Io`]; each request expects its own variant (or `Err`).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Metadata(Metadata),
    /// The answer to [`Io::Open`]: no file when the path is not a regular file; `head`, the
    /// first bytes of the file opened, when the storage read them with the open.
    Opened {
        file: Option<FileId>,
        meta: Metadata,
        head: Option<Bytes>,
    },
    Path(String),
    Bytes(Bytes),
    Done,
    Approved(bool),
    Document(DocumentWrite),
    Err(StorageError),
}

impl<T: Into<Answer>> From<Result<T, StorageError>> for Answer {
    fn from(r: Result<T, StorageError>) -> Answer {
        r.map_or_else(Answer::Err, Into::into)
    }
}
impl From<Metadata> for Answer {
    fn from(m: Metadata) -> Answer {
        Answer::Metadata(m)
    }
}
impl From<String> for Answer {
    fn from(p: String) -> Answer {
        Answer::Path(p)
    }
}
impl From<Vec<u8>> for Answer {
    fn from(b: Vec<u8>) -> Answer {
        Answer::Bytes(b.into())
    }
}
impl From<Bytes> for Answer {
    fn from(b: Bytes) -> Answer {
        Answer::Bytes(b)
    }
}
impl From<()> for Answer {
    fn from(_: ()) -> Answer {
        Answer::Done
    }
}
