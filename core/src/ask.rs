//! The operation's side of the I/O hand-off: one typed method per kind of [`Io`], and the one
//! place that judges whether the driver's answer fits what was asked.
//!
//! Request logic never sees an [`Answer`]: a wrong one (a driver bug) comes back as the same
//! storage error whichever request met it, instead of each call site deciding what it means.

use crate::bytes::Bytes;
use crate::io::{Answer, FileId, Io};
use crate::ledger::Turn;
use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::{DirEntry, FileKind, Metadata, StorageError, StorageErrorKind};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

#[derive(Default)]
struct Slot {
    io: Option<Io>,
    answer: Option<Answer>,
    /// The driver takes read-ahead plans ([`Channel::accepts_plans`]).
    #[cfg(feature = "mcp")]
    plans: bool,
    /// The last plan the operation made and the driver has not taken yet.
    #[cfg(feature = "mcp")]
    plan: Option<ReadAhead>,
}

/// Files an operation will open next, in this order, each with `head` bytes asked for (a
/// search's files of one directory): advice a driver may use to open and read them early, on
/// another thread, while the operation works on the ones before. Not an [`Io`]: nothing waits
/// for it and a driver may ignore it; every file is still asked for with its own `Open`,
/// which is what the operation reads. Only the MCP tools make plans (`search_text`): a build
/// without them carries none of this.
#[cfg(feature = "mcp")]
#[derive(Clone, Debug, PartialEq)]
pub struct ReadAhead {
    /// The root every path is below (as its `Open` names it).
    pub root: String,
    /// The files' real paths, in the order they will be opened.
    pub paths: Vec<String>,
    /// The head each `Open` will ask for.
    pub head: usize,
}

/// The operation's side of the I/O hand-off.
#[derive(Clone, Default)]
pub(crate) struct Channel(Arc<Mutex<Slot>>);

/// What an `open` gave: the file (none for anything but a regular file), its metadata, and the
/// first bytes when the storage sent them with the answer.
pub(crate) struct Opened {
    pub file: Option<FileId>,
    pub meta: Metadata,
    pub head: Option<Bytes>,
}

/// What a request makes of an answer: its result, or `Err` handing the answer back when it does
/// not belong to the request.
type Fit<T> = Result<T, Answer>;

impl Channel {
    /// The file's metadata; `follow`: through a final symlink.
    pub fn stat(&self, path: &str, follow: bool) -> Asked<'_, Metadata> {
        let io = Io::Stat { path: path.to_owned(), follow };
        self.ask_storage(io, |answer, _| match answer {
            Answer::Metadata(meta) => Ok(meta),
            other => Err(other),
        })
    }

    /// The path with every symlink resolved, as the storage spells it.
    pub fn real_path(&self, path: &str) -> Asked<'_, String> {
        self.ask_storage(Io::RealPath { path: path.to_owned() }, |answer, _| match answer {
            Answer::Path(real) => Ok(real),
            other => Err(other),
        })
    }

    /// The whole file.
    pub fn read_all(&self, path: &str) -> Asked<'_, Bytes> {
        self.ask_storage(Io::ReadAll { path: path.to_owned() }, |answer, _| match answer {
            Answer::Bytes(bytes) => Ok(bytes),
            other => Err(other),
        })
    }

    /// Opens `path` under `root`: the open file (none for anything but a regular file), its
    /// metadata, and up to `head` bytes from its start if the storage sent them. Head bytes
    /// without an open file, or more than asked for, are a wrong answer.
    pub fn open(&self, root: &str, path: &str, head: usize) -> Asked<'_, Opened> {
        let io = Io::Open { root: root.to_owned(), path: path.to_owned(), head };
        self.ask_storage_within(io, head, |answer, head| match answer {
            Answer::Opened { file, meta, head: bytes }
                if bytes.as_ref().is_none_or(|b| file.is_some() && b.len() <= head) =>
            {
                Ok(Opened { file, meta, head: bytes })
            }
            // A storage that would not open a non-regular file may answer with its metadata alone.
            Answer::Metadata(meta) if meta.kind != FileKind::File => Ok(Opened { file: None, meta, head: None }),
            other => Err(other),
        })
    }

    /// Up to `len` bytes at `offset` of an open file; more than asked for is a wrong answer.
    pub fn read_at(&self, file: FileId, offset: u64, len: usize) -> Asked<'_, Bytes> {
        self.ask_storage_within(Io::ReadAt { file, offset, len }, len, |answer, len| match answer {
            Answer::Bytes(bytes) if bytes.len() <= len => Ok(bytes),
            other => Err(other),
        })
    }

    /// Creates `path` and its missing parents under `root`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn make_dirs(&self, root: &str, path: &str) -> Asked<'_, ()> {
        let io = Io::MakeDirs { root: root.to_owned(), path: path.to_owned() };
        self.ask_storage(io, done)
    }

    /// Replaces (or creates) the file at `path` under `root` with `bytes`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn write(&self, root: &str, path: &str, bytes: Vec<u8>) -> Asked<'_, ()> {
        let io = Io::Write { root: root.to_owned(), path: path.to_owned(), bytes };
        self.ask_storage(io, done)
    }

    /// Closes `file`: this operation will not read it again.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn close(&self, file: FileId) -> Asked<'_, ()> {
        self.ask_storage(Io::Close { file }, done)
    }

    /// The entries of the directory `path` under `root`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn list(&self, root: &str, path: &str) -> Asked<'_, Vec<DirEntry>> {
        self.list_as(root, path, false)
    }

    /// [`list`](Self::list) where only each entry's kind is needed (a tree, a search).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn list_kinds(&self, root: &str, path: &str) -> Asked<'_, Vec<DirEntry>> {
        self.list_as(root, path, true)
    }

    fn list_as(&self, root: &str, path: &str, kinds: bool) -> Asked<'_, Vec<DirEntry>> {
        self.ask_storage(Io::List { root: root.to_owned(), path: path.to_owned(), kinds }, |answer, _| match answer {
            Answer::Entries(entries) => Ok(entries),
            other => Err(other),
        })
    }

    /// Moves `from` to `to` under `root`, never replacing what is at `to`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn rename(&self, root: &str, from: &str, to: &str) -> Asked<'_, ()> {
        let io = Io::Rename { root: root.to_owned(), from: from.to_owned(), to: to.to_owned() };
        self.ask_storage(io, done)
    }

    /// Creates the one directory `path` under `root`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn make_dir(&self, root: &str, path: &str) -> Asked<'_, ()> {
        let io = Io::MakeDir { root: root.to_owned(), path: path.to_owned() };
        self.ask_storage(io, done)
    }

    /// Removes the empty directory `path` under `root`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn remove_dir(&self, root: &str, path: &str) -> Asked<'_, ()> {
        let io = Io::RemoveDir { root: root.to_owned(), path: path.to_owned() };
        self.ask_storage(io, done)
    }

    /// The three-way merge of a stale write ([`merge`](crate::merge::merge)), built in.
    #[cfg(feature = "merge")]
    pub fn merge(
        &self,
        base: &str,
        current: &str,
        ours: &str,
    ) -> std::future::Ready<Result<Option<String>, StorageError>> {
        std::future::ready(Ok(crate::merge::merge(base, current, ours)))
    }

    /// The three-way merge of a stale write, from the host: a build without the `merge` feature.
    /// The host may fail to run it (its merge module would not load: a page offline), and
    /// answer with its error.
    #[cfg(not(feature = "merge"))]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn merge(&self, base: &str, current: &str, ours: &str) -> Asked<'_, Option<String>> {
        let io = Io::Merge { base: base.to_owned(), current: current.to_owned(), ours: ours.to_owned() };
        self.ask_storage(io, |answer, _| match answer {
            Answer::Merged(merged) => Ok(merged),
            other => Err(other),
        })
    }

    // Approvals, document decisions and turns come from the host, not from storage: they go
    // through `ask`, which takes no error answer.

    /// Whether the host approves `change`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn approve(&self, change: ChangeRecord) -> Asked<'_, bool> {
        self.ask(Io::Approve { change }, |answer, _| match answer {
            Answer::Approved(approved) => Ok(approved),
            other => Err(other),
        })
    }

    /// What the host does with a write of `text` to the open document `path`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn write_document(&self, path: &str, text: String) -> Asked<'_, DocumentWrite> {
        self.ask(Io::WriteDocument { path: path.to_owned(), text }, |answer, _| match answer {
            Answer::Document(decision) => Ok(decision),
            other => Err(other),
        })
    }

    /// Returns once the driver has waited on `turn` (the turn may still not have come: ask
    /// the ticket).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn wait(&self, path: &str, turn: Turn) -> Asked<'_, ()> {
        self.ask(Io::Wait { path: path.to_owned(), turn }, done)
    }

    /// Whether the driver takes read-ahead plans: only then is one worth making.
    #[cfg(feature = "mcp")]
    pub fn takes_plans(&self) -> bool {
        self.slot().plans
    }

    /// Announces the files this operation opens next, after those it announced before (a plan
    /// the driver has not taken yet grows by them; one of another root or head replaces it).
    #[cfg(feature = "mcp")]
    pub fn plan(&self, plan: ReadAhead) {
        let mut slot = self.slot();
        match slot.plan.as_mut() {
            Some(held) if held.root == plan.root && held.head == plan.head => held.paths.extend(plan.paths),
            _ => slot.plan = Some(plan),
        }
    }

    /// The driver side: it takes read-ahead plans from now on.
    #[cfg(all(feature = "mcp", feature = "disk"))]
    pub fn accepts_plans(&self) {
        self.slot().plans = true;
    }

    /// The driver side: the plan made since the last one taken, once.
    #[cfg(all(feature = "mcp", feature = "disk"))]
    pub fn take_plan(&self) -> Option<ReadAhead> {
        self.slot().plan.take()
    }

    /// The driver side: the I/O the operation asked for last, once.
    pub fn take_io(&self) -> Option<Io> {
        self.slot().io.take()
    }

    /// The driver side: hands in the answer to the last I/O.
    pub fn answer(&self, answer: Answer) {
        self.slot().answer = Some(answer);
    }

    /// Suspends the operation until the driver answers `io`, then lets `fit` judge the answer;
    /// one that does not fit is reported here, for every kind of request alike.
    fn ask<T>(&self, io: Io, fit: fn(Answer, usize) -> Fit<T>) -> Asked<'_, T> {
        Asked { what: name(&io), ask: Ask { channel: self, io: Some(io) }, storage: false, limit: 0, fit }
    }

    /// [`Channel::ask`] for storage I/O, which the storage's own error also answers. Host I/O
    /// (approvals, document decisions, turns) takes only its own answer: an error is as wrong
    /// there as any other.
    fn ask_storage<T>(&self, io: Io, fit: fn(Answer, usize) -> Fit<T>) -> Asked<'_, T> {
        self.ask_storage_within(io, 0, fit)
    }

    /// [`Channel::ask_storage`] whose `fit` is also given `limit` (how many bytes were asked for).
    fn ask_storage_within<T>(&self, io: Io, limit: usize, fit: fn(Answer, usize) -> Fit<T>) -> Asked<'_, T> {
        Asked { what: name(&io), ask: Ask { channel: self, io: Some(io) }, storage: true, limit, fit }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        // A poisoned lock means a panic mid-step; the slot's data is still coherent.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The answer to an I/O that only succeeds (a storage's may also fail, see `ask_storage`).
fn done(answer: Answer, _: usize) -> Fit<()> {
    match answer {
        Answer::Done => Ok(()),
        other => Err(other),
    }
}

/// How the report of a wrong answer names what was asked. The words reach the host in the
/// error's message, so they stay what they were ("read" is a whole-file read).
fn name(io: &Io) -> &'static str {
    match io {
        Io::Stat { .. } => "stat",
        Io::RealPath { .. } => "real_path",
        Io::ReadAll { .. } => "read",
        Io::Open { .. } => "open",
        Io::ReadAt { .. } => "read_at",
        Io::Close { .. } => "close",
        Io::MakeDirs { .. } => "make_dirs",
        Io::Write { .. } => "write",
        Io::Approve { .. } => "approve",
        Io::Wait { .. } => "wait",
        Io::WriteDocument { .. } => "write_document",
        Io::List { .. } => "list",
        Io::Rename { .. } => "rename",
        Io::MakeDir { .. } => "make_dir",
        Io::RemoveDir { .. } => "remove_dir",
        Io::Merge { .. } => "merge",
    }
}

/// A driver answered with the wrong kind of value: a bug in the driver, reported, not panicked.
/// The report names the kind of answer, never its contents: bytes may be a whole file.
#[cfg_attr(acp_fs_small, optimize(size))]
fn unexpected(what: &str, answer: &Answer) -> StorageError {
    let kind = match answer {
        Answer::Metadata(_) => "metadata".to_owned(),
        Answer::Opened { .. } => "an opened file".to_owned(),
        Answer::Path(_) => "a path".to_owned(),
        Answer::Bytes(bytes) => format!("{} bytes", bytes.len()),
        Answer::Done => "done".to_owned(),
        Answer::Approved(_) => "an approval".to_owned(),
        Answer::Document(_) => "a document decision".to_owned(),
        Answer::Entries(entries) => format!("{} directory entries", entries.len()),
        Answer::Merged(_) => "a merge".to_owned(),
        Answer::Err(_) => "an error".to_owned(),
    };
    StorageError::new(StorageErrorKind::Other, format!("driver answered {what} with {kind}"))
}

struct Ask<'a> {
    channel: &'a Channel,
    io: Option<Io>,
}

impl Future for Ask<'_> {
    type Output = Answer;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Answer> {
        if let Some(io) = self.io.take() {
            self.channel.slot().io = Some(io);
            return Poll::Pending;
        }
        match self.channel.slot().answer.take() {
            Some(answer) => Poll::Ready(answer),
            None => Poll::Pending,
        }
    }
}

/// One I/O of a [`Channel`] method, asked and its answer judged: a plain future rather than
/// three nested `async fn`s (method, `ask_storage`, `ask`) with a closure each, whose state
/// machines and drop glue were compiled again into every request that awaits an I/O (the fs/*
/// wasm module's size). Its `poll` is generic over the answer's type alone.
#[must_use = "an I/O is asked only when awaited"]
pub(crate) struct Asked<'a, T> {
    ask: Ask<'a>,
    /// What was asked, as a wrong answer's report names it ([`name`]).
    what: &'static str,
    /// A storage I/O: the storage's own error answers it too.
    storage: bool,
    /// What `fit` is also given: how many bytes were asked for, where that bounds the answer.
    limit: usize,
    fit: fn(Answer, usize) -> Fit<T>,
}

impl<T> Future for Asked<'_, T> {
    type Output = Result<T, StorageError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let answer = std::task::ready!(answer(&mut this.ask, this.storage, cx));
        Poll::Ready(
            answer.and_then(|answer| (this.fit)(answer, this.limit).map_err(|other| unexpected(this.what, &other))),
        )
    }
}

/// The answer to `ask` once the driver gave it, a storage's error (`storage`) taken as its own:
/// [`Asked::poll`]'s part that is the same for every answer's type, compiled once.
fn answer(ask: &mut Ask<'_>, storage: bool, cx: &mut Context<'_>) -> Poll<Result<Answer, StorageError>> {
    Pin::new(ask).poll(cx).map(|answer| match answer {
        Answer::Err(e) if storage => Err(e),
        answer => Ok(answer),
    })
}
