//! The sans-IO vocabulary: what an operation needs next, and the host's answer.

use crate::bytes::Bytes;
use crate::ledger::Turn;
use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::{DirEntry, Metadata, StorageError};

/// An open file of one operation, numbered by the driver in the order it opened them. The
/// driver closes every file of an operation when the operation ends.
pub type FileId = u32;

/// One I/O request from an operation. Paths are normalized (and, after containment is
/// checked, resolved) absolute paths; `root` is the (resolved) session root the path was
/// checked against, for storages that resolve relative to it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "camelCase")]
#[allow(missing_docs)] // members documented on each variant: field docs would change npm/types/host.d.ts
#[non_exhaustive]
pub enum Io {
    /// The metadata of `path` ([`Answer::Metadata`]); `follow: false` describes a symlink
    /// itself (lstat).
    Stat { path: String, follow: bool },
    /// The canonical form of `path`, every symlink resolved ([`Answer::Path`]).
    RealPath { path: String },
    /// The whole file at `path`, for storages without ranged reads ([`Answer::Bytes`]).
    ReadAll { path: String },
    /// Open the file at `path` below `root` for reading: answered with [`Answer::Opened`]. The
    /// answer may carry up to `head` bytes read from the start of the file it opened (fewer
    /// only where the file ends): they are the first chunk, so a small file needs no `ReadAt`
    /// at all. 0: no head wanted (the engine asks for one on every read; a storage may always
    /// send none).
    Open { root: String, path: String, head: usize },
    /// Up to `len` bytes at `offset` of a `file` this operation opened ([`Answer::Bytes`]).
    ReadAt {
        file: FileId,
        offset: u64,
        #[serde(rename = "length")]
        #[cfg_attr(feature = "ts", ts(rename = "length"))]
        len: usize,
    },
    /// Close `file`, which this operation opened and will not read again ([`Answer::Done`]). The
    /// driver closes every file of an operation when it ends anyway; an operation that reads
    /// many files one after another (a search) closes each as it is done with it, so it never
    /// holds more than one open. Closing a file already closed does nothing.
    Close { file: FileId },
    /// Create the directory `path` and its missing parents, below `root` ([`Answer::Done`]).
    MakeDirs { root: String, path: String },
    /// Create or replace the file at `path` below `root` with `bytes`, atomically
    /// ([`Answer::Done`]). The bytes travel beside the request (`HostStep::Io::bytes`), not
    /// inside it.
    Write {
        root: String,
        path: String,
        #[serde(skip)]
        #[cfg_attr(feature = "ts", ts(skip))]
        bytes: Vec<u8>,
    },
    /// Ask the host to approve the `change`; may take as long as a person needs
    /// ([`Answer::Approved`]).
    Approve { change: ChangeRecord },
    /// A write waits for its turn on `path` (another write to the same real path is in
    /// progress): answer [`Answer::Done`] once [`Turn::wait`] / [`Turn::ready`] of `turn`
    /// return, or, for a driver that cannot reach the `Turn`, after another operation of the
    /// engine ended (the operation asks again if its turn has not come).
    Wait {
        path: String,
        #[serde(skip)]
        #[cfg_attr(feature = "ts", ts(skip))]
        turn: Turn,
    },
    /// A write of `text` targets the open document at `path`: ask the host what to do with it
    /// ([`Answer::Document`]).
    WriteDocument { path: String, text: String },
    /// The entries of the directory at `path` below `root` ([`Answer::Entries`]). `kinds`: only
    /// each entry's kind is needed ([`Storage::list_kinds`](crate::Storage::list_kinds)); a
    /// host that lists through the protocol always describes entries in full.
    List {
        root: String,
        path: String,
        #[serde(skip)]
        #[cfg_attr(feature = "ts", ts(skip))]
        kinds: bool,
    },
    /// Move `from` to `to` below `root`, never replacing what is at `to` ([`Answer::Done`]).
    Rename { root: String, from: String, to: String },
    /// Create the one directory `path` below `root` ([`Answer::Done`]).
    MakeDir { root: String, path: String },
    /// Remove the empty directory `path` below `root` ([`Answer::Done`]): a write that failed
    /// takes back the directories it created for its file.
    RemoveDir { root: String, path: String },
    /// Merge a stale write ([`Answer::Merged`]): what [`merge::merge`](crate::merge::merge)
    /// answers for `base` (what the agent read), `current` (what is there now) and `ours` (the
    /// agent's content). Asked only by a build without the `merge` feature (the fs/* wasm
    /// module), whose host answers it with the merge module; a host that could not load it
    /// answers with its error, and the write fails with it.
    Merge { base: String, current: String, ours: String },
}

impl Io {
    /// Whether performing it changes files or an open buffer. Once such an io has started, the
    /// request runs to its end: a request reported cancelled has changed nothing (semantics.md §6).
    pub fn changes(&self) -> bool {
        matches!(
            self,
            Io::MakeDirs { .. }
                | Io::Write { .. }
                | Io::WriteDocument { .. }
                | Io::Rename { .. }
                | Io::MakeDir { .. }
                | Io::RemoveDir { .. }
        )
    }
}

/// The answer to an [`Io`]; each request expects its own variant (or `Err`). Any other
/// variant is a driver's mistake, and ends the request with an `internal` error.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// What [`Io::Stat`] found.
    Metadata(Metadata),
    /// The answer to [`Io::Open`].
    Opened {
        /// The driver's number for the file it opened; `None` when the path is not a regular
        /// file (nothing was opened, and `meta` says what is there).
        file: Option<FileId>,
        /// What the open found.
        meta: Metadata,
        /// The first bytes of the file opened, when the storage read them with the open (up to
        /// the `head` asked for; fewer only where the file ends).
        head: Option<Bytes>,
    },
    /// The canonical path [`Io::RealPath`] asked for.
    Path(String),
    /// The bytes [`Io::ReadAll`] or [`Io::ReadAt`] asked for.
    Bytes(Bytes),
    /// [`Io::MakeDirs`], [`Io::Write`] or [`Io::Wait`] is done.
    Done,
    /// The host's decision on [`Io::Approve`].
    Approved(bool),
    /// The host's choice for [`Io::WriteDocument`].
    Document(DocumentWrite),
    /// What [`Io::List`] found.
    Entries(Vec<DirEntry>),
    /// The merged text [`Io::Merge`] asked for; `None` where the edits overlap.
    Merged(Option<String>),
    /// The storage failed; the operation turns it into the request's error.
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
impl From<Vec<DirEntry>> for Answer {
    fn from(e: Vec<DirEntry>) -> Answer {
        Answer::Entries(e)
    }
}
impl From<()> for Answer {
    fn from(_: ()) -> Answer {
        Answer::Done
    }
}
