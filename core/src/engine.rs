//! The engine handle: options, sessions and their roots, open documents.

use crate::error::AcpFsError;
use crate::index::LineIndex;
use crate::ledger::{self, Ledgers, Limits, Seen, Turns};
use crate::operation::Operation;
use crate::options::{Options, Policy};
use crate::params::Echo;
use crate::path::AbsPath;
use crate::protocol::{FileSystemCapability, READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::storage::StorageCaps;
use crate::{read, write};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

pub(crate) struct Shared {
    pub policy: Policy,
    pub caps: StorageCaps,
    sessions: RwLock<HashMap<String, Arc<[AbsPath]>>>,
    documents: RwLock<HashMap<String, Document>>,
    /// Versions for documents: every open, update, reload and write gets a new one.
    document_clock: AtomicU64,
    /// Remembered line starts per file (semantics.md §8 "Line index").
    line_index: Mutex<LineIndex>,
    /// What each session's agent saw of each file (semantics.md §9).
    pub ledgers: Ledgers,
    /// One write at a time per real path (semantics.md §9).
    pub turns: Arc<Turns>,
}

/// An open document: its text, its version, and whether it matches storage (the host said it
/// was saved or reloaded, and nobody typed since).
#[derive(Clone)]
pub(crate) struct Document {
    pub text: Arc<str>,
    pub version: u64,
    pub clean: bool,
}

/// The acp-fs engine for one storage: cheap to clone, shareable across threads.
///
/// ```
/// use acp_fs::{AcpFs, Options, MemoryStorage, Storage, DefaultHost};
/// let disk = MemoryStorage::new();
/// let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
/// fs.open_session("s1", "/project", &[]).unwrap();
/// let out = acp_fs::run(fs.write_text_file(serde_json::json!({
///     "sessionId": "s1", "path": "/project/new/a.txt", "content": "hi\n"})), &disk, &DefaultHost);
/// assert_eq!(out.result.unwrap().to_json(), serde_json::json!({}));
/// assert_eq!(out.change.unwrap().created, true);
/// assert_eq!(disk.get("/project/new/a.txt").unwrap(), b"hi\n");
/// ```
#[derive(Clone)]
pub struct AcpFs {
    pub(crate) shared: Arc<Shared>,
}

impl AcpFs {
    /// An engine over a storage that can do `caps`. Fails on a bad option (`-32602`, field
    /// named).
    pub fn new(options: Options, caps: StorageCaps) -> Result<AcpFs, AcpFsError> {
        let policy = Policy::new(options)?;
        let shared = Shared {
            policy,
            caps,
            sessions: RwLock::default(),
            documents: RwLock::default(),
            line_index: Mutex::default(),
            document_clock: AtomicU64::new(0),
            ledgers: Ledgers::default(),
            turns: Arc::default(),
        };
        Ok(AcpFs { shared: Arc::new(shared) })
    }

    pub fn options(&self) -> &Options {
        &self.shared.policy.options
    }

    /// Registers a session's root set: `cwd`, the additional directories, and the host's
    /// `extraRoots`. Reopening replaces the set (ACP `session/load` resends it whole).
    pub fn open_session(
        &self,
        session_id: &str,
        cwd: &str,
        additional_directories: &[String],
    ) -> Result<(), AcpFsError> {
        let mut roots = vec![AbsPath::parse(cwd).map_err(|why| AcpFsError::invalid_params("cwd", why))?];
        for (i, dir) in additional_directories.iter().enumerate() {
            let root = AbsPath::parse(dir)
                .map_err(|why| AcpFsError::invalid_params(&format!("additionalDirectories[{i}]"), why))?;
            roots.push(root);
        }
        roots.extend(self.shared.policy.extra_roots.iter().cloned());
        write_lock(&self.shared.sessions).insert(session_id.to_owned(), roots.into());
        Ok(())
    }

    /// Forgets the session: its roots and its read ledger (semantics.md §9).
    pub fn close_session(&self, session_id: &str) {
        write_lock(&self.shared.sessions).remove(session_id);
        self.shared.ledgers.drop_session(session_id);
    }

    /// Registers (or replaces) an open document's unsaved text: reads prefer it, writes to it
    /// go through the host's choice. Every call gives the document a new version (see
    /// [`AcpFs::document_version`]); the buffer counts as unsaved until the host says
    /// [`AcpFs::document_saved`] or [`AcpFs::document_reloaded`].
    pub fn open_document(&self, path: &str, text: &str) -> Result<(), AcpFsError> {
        self.put_document(path, text, false).map(|_| ())
    }

    /// The buffer was reloaded from storage with `text` (or opened from it): it matches the
    /// file, so a change on disk since the agent read it is judged on the disk (§9).
    pub fn document_reloaded(&self, path: &str, text: &str) -> Result<(), AcpFsError> {
        self.put_document(path, text, true).map(|_| ())
    }

    /// The buffer was saved: storage now holds its text. False when it is not open.
    pub fn document_saved(&self, path: &str) -> bool {
        let Ok(path) = AbsPath::parse(path) else { return false };
        match write_lock(&self.shared.documents).get_mut(path.as_str()) {
            Some(doc) => {
                doc.clean = true;
                true
            }
            None => false,
        }
    }

    /// The open document's version: it changes on every open, update, reload and write.
    pub fn document_version(&self, path: &str) -> Option<u64> {
        let path = AbsPath::parse(path).ok()?;
        read_lock(&self.shared.documents).get(path.as_str()).map(|d| d.version)
    }

    fn put_document(&self, path: &str, text: &str, clean: bool) -> Result<u64, AcpFsError> {
        let path = AbsPath::parse(path).map_err(|why| AcpFsError::invalid_params("path", why))?;
        Ok(self.shared.put_document(&path, text, clean))
    }

    /// `(files, bytes)` the session's read ledger holds (bounded by `ledgerSessionBytes`).
    pub fn ledger_usage(&self, session_id: &str) -> (usize, usize) {
        self.shared.ledgers.usage(session_id)
    }

    pub fn close_document(&self, path: &str) {
        if let Ok(path) = AbsPath::parse(path) {
            write_lock(&self.shared.documents).remove(path.as_str());
        }
    }

    /// The open document's current text.
    pub fn document(&self, path: &str) -> Option<String> {
        let path = AbsPath::parse(path).ok()?;
        self.shared.document(&path).map(|d| d.text.to_string())
    }

    /// The effective root set of a session (its own, or the default policy's), normalized.
    pub fn roots(&self, session_id: &str) -> Result<Vec<String>, AcpFsError> {
        Ok(self.shared.roots(session_id)?.iter().map(|r| r.as_str().to_owned()).collect())
    }

    /// Memory the line index holds now (at most option `lineIndexBytes`).
    pub fn line_index_bytes(&self) -> u64 {
        self.shared.line_index().bytes()
    }

    /// `clientCapabilities.fs`: only what is wired (a write-less storage or `readOnly` says
    /// `writeTextFile: false`).
    pub fn capabilities(&self) -> FileSystemCapability {
        FileSystemCapability { read_text_file: true, write_text_file: self.shared.can_write() }
    }

    /// Starts an `fs/read_text_file` request; `params` is the JSON-RPC params value.
    pub fn read_text_file(&self, params: Value) -> Operation {
        let shared = self.shared.clone();
        Operation::new("read", Echo::of(&params), move |channel| Box::pin(read::run(shared, params, channel)))
    }

    /// Starts an `fs/write_text_file` request.
    pub fn write_text_file(&self, params: Value) -> Operation {
        let shared = self.shared.clone();
        Operation::new("write", Echo::of(&params), move |channel| Box::pin(write::run(shared, params, channel)))
    }

    /// An fs request whose params could not be decoded (see `dispatch::decode_params`): it
    /// fails like any params error, after the capability check that comes first (§8), and is
    /// run like any request so hosts get its audit event.
    pub(crate) fn refused(&self, method: &str, error: AcpFsError) -> Option<Operation> {
        let (op, writing) = match method {
            READ_TEXT_FILE => ("read", false),
            WRITE_TEXT_FILE => ("write", true),
            _ => return None,
        };
        let shared = self.shared.clone();
        Some(Operation::new(op, Echo::default(), move |_| {
            Box::pin(async move {
                Err(if writing && !shared.can_write() { AcpFsError::method_not_found(WRITE_TEXT_FILE) } else { error })
            })
        }))
    }

    /// Starts the request for `method`, or `None` if it is not an fs method.
    pub fn request(&self, method: &str, params: Value) -> Option<Operation> {
        match method {
            READ_TEXT_FILE => Some(self.read_text_file(params)),
            WRITE_TEXT_FILE => Some(self.write_text_file(params)),
            _ => None,
        }
    }
}

impl Shared {
    pub fn can_write(&self) -> bool {
        self.caps.write && !self.policy.options.read_only
    }

    /// The session's root set, or the default policy's.
    pub fn roots(&self, session_id: &str) -> Result<Arc<[AbsPath]>, AcpFsError> {
        if let Some(roots) = read_lock(&self.sessions).get(session_id) {
            return Ok(roots.clone());
        }
        match &self.policy.default_roots {
            Some(roots) => Ok(roots.iter().chain(&self.policy.extra_roots).cloned().collect()),
            None => Err(AcpFsError::invalid_params("sessionId", "unknown sessionId")),
        }
    }

    pub fn document(&self, path: &AbsPath) -> Option<Document> {
        read_lock(&self.documents).get(path.as_str()).cloned()
    }

    /// Every open document, by the name the host opened it under.
    pub fn documents(&self) -> Vec<(AbsPath, Document)> {
        read_lock(&self.documents).iter().filter_map(|(k, v)| Some((AbsPath::parse(k).ok()?, v.clone()))).collect()
    }

    pub fn line_index(&self) -> MutexGuard<'_, LineIndex> {
        self.line_index.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets a document's text with a new version; `clean`: it matches storage.
    pub fn put_document(&self, path: &AbsPath, text: &str, clean: bool) -> u64 {
        let version = self.document_clock.fetch_add(1, Ordering::Relaxed) + 1;
        let doc = Document { text: Arc::from(text), version, clean };
        write_lock(&self.documents).insert(path.as_str().to_owned(), doc);
        version
    }

    /// Remembers what the session's agent now knows of the file at `real`.
    pub fn remember(&self, session_id: &str, real: &AbsPath, seen: Seen, document: Option<u64>) {
        let opts = &self.policy.options;
        let limits = Limits {
            file: usize::try_from(opts.ledger_file_bytes).unwrap_or(usize::MAX),
            session: usize::try_from(opts.ledger_session_bytes).unwrap_or(usize::MAX),
        };
        let opened = read_lock(&self.sessions).contains_key(session_id);
        self.ledgers.record(session_id, opened, ledger::key(real), seen, document, limits);
    }
}

// Poisoning only follows a panic in another thread while it held the lock; the maps are
// still consistent (every write is a single insert/remove), so carry on.
fn read_lock<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

fn write_lock<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}
