//! The sans-IO vocabulary: what an operation needs next, and the host's answer.

use crate::ledger::Turn;
use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::{Metadata, StorageError};
use crate::Outcome;
use std::ops::Range;
use std::sync::Arc;

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
    /// Open the file for reading: answered with [`Answer::Opened`].
    Open {
        root: String,
        path: String,
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

/// Bytes a storage answers with: its own, or a range of a buffer it lends (an in-memory file),
/// which the engine reads in place instead of copying it again.
///
/// ```
/// use acp_fs::Bytes;
/// use std::sync::Arc;
/// let file = Arc::new(b"one\ntwo\n".to_vec());
/// let lent = Bytes::lent(file, 4..8);
/// assert_eq!(&*lent, b"two\n");
/// assert_eq!(Bytes::from(b"x".to_vec()).into_vec(), b"x");
/// ```
#[derive(Clone)]
pub struct Bytes(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u8>),
    Lent(Arc<Vec<u8>>, Range<usize>),
}

impl Bytes {
    /// `range` of `buffer`, without a copy; a range past the buffer is cut to it.
    pub fn lent(buffer: Arc<Vec<u8>>, range: Range<usize>) -> Bytes {
        let end = range.end.min(buffer.len());
        let start = range.start.min(end);
        Bytes(Repr::Lent(buffer, start..end))
    }

    /// The bytes as a vector of their own (a copy only when they were lent).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Lent(buffer, range) => buffer[range].to_vec(),
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Lent(buffer, range) => &buffer[range.clone()],
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes(Repr::Owned(v))
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.len())
    }
}

/// The answer to an [`Io`]; each request expects its own variant (or `Err`).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Metadata(Metadata),
    /// The answer to [`Io::Open`]: no file when the path is not a regular file.
    Opened {
        file: Option<FileId>,
        meta: Metadata,
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

/// What an operation wants now.
#[derive(Debug)]
pub enum Step {
    Io(Io),
    Done(Box<Outcome>),
}
