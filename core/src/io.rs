//! The sans-IO vocabulary: what an operation needs next, and the host's answer.

use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::{Metadata, StorageError};
use crate::Outcome;

/// One I/O request from an operation. Paths are normalized (and, after containment is
/// checked, resolved) absolute paths.
#[derive(Clone, Debug, PartialEq)]
pub enum Io {
    Stat {
        path: String,
        follow: bool,
    },
    RealPath {
        path: String,
    },
    ReadAll {
        path: String,
    },
    ReadRange {
        path: String,
        offset: u64,
        len: usize,
    },
    MakeDirs {
        path: String,
    },
    Write {
        path: String,
        bytes: Vec<u8>,
    },
    /// Ask the host to approve a write; may take as long as a person needs.
    Approve {
        change: ChangeRecord,
    },
    /// A write targets an open document: ask the host what to do with it.
    WriteDocument {
        path: String,
        text: String,
    },
}

/// The answer to an [`Io`]; each request expects its own variant (or `Err`).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Metadata(Metadata),
    Path(String),
    Bytes(Vec<u8>),
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
