//! What one engine holds between requests: its policy, the sessions' roots, the open
//! documents, the line index, the read ledgers and the write turns. Requests read and update
//! it; the public handle (`engine.rs`) only owns it.

use crate::error::AcpFsError;
use crate::index::{Identity, LineIndex};
use crate::ledger::{self, Ledgers, Limits, Seen, Turns};
use crate::options::{KnownAgent, Policy};
use crate::path::AbsPath;
use crate::storage::StorageCaps;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// One engine's state, shared by its handle's clones and every request in flight.
pub(crate) struct Shared {
    pub policy: Policy,
    pub caps: StorageCaps,
    sessions: RwLock<HashMap<String, Session>>,
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

/// An opened session: its root set, and the agent whose known bug it works around, if any.
struct Session {
    roots: Arc<[AbsPath]>,
    agent: Option<KnownAgent>,
}

/// An open document: its text, its version, and whether it matches storage (the host said it
/// was saved or reloaded, and nobody typed since).
#[derive(Clone)]
pub(crate) struct Document {
    pub text: Arc<str>,
    pub version: u64,
    pub clean: bool,
    /// The storage's version at which the clean text was last seen to be what it holds.
    pub verified: Option<Identity>,
}

impl Shared {
    /// No sessions and no documents yet.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn new(policy: Policy, caps: StorageCaps) -> Shared {
        Shared {
            policy,
            caps,
            sessions: RwLock::default(),
            documents: RwLock::default(),
            line_index: Mutex::default(),
            document_clock: AtomicU64::new(0),
            ledgers: Ledgers::default(),
            turns: Arc::default(),
        }
    }

    pub fn can_write(&self) -> bool {
        self.caps.write && !self.policy.options.read_only
    }

    /// Sets (or replaces) a session's root set and agent.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn open_session(&self, session_id: &str, roots: Arc<[AbsPath]>, agent: Option<KnownAgent>) {
        write_lock(&self.sessions).insert(session_id.to_owned(), Session { roots, agent });
    }

    /// The agent the session was opened for (none for a session the host did not open).
    pub fn agent(&self, session_id: &str) -> Option<KnownAgent> {
        read_lock(&self.sessions).get(session_id).and_then(|s| s.agent)
    }

    /// Forgets the session's roots, then its read ledger.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn close_session(&self, session_id: &str) {
        write_lock(&self.sessions).remove(session_id);
        self.ledgers.drop_session(session_id);
    }

    /// The session's root set, or the default policy's.
    pub fn roots(&self, session_id: &str) -> Result<Arc<[AbsPath]>, AcpFsError> {
        if let Some(session) = read_lock(&self.sessions).get(session_id) {
            return Ok(session.roots.clone());
        }
        match &self.policy.default_roots {
            Some(roots) => Ok(roots.clone()),
            None => Err(AcpFsError::invalid_params("sessionId", "unknown sessionId")),
        }
    }

    pub fn document(&self, path: &AbsPath) -> Option<Document> {
        read_lock(&self.documents).get(path.as_str()).cloned()
    }

    /// The open document's version, without copying the document out.
    pub fn document_version(&self, path: &AbsPath) -> Option<u64> {
        read_lock(&self.documents).get(path.as_str()).map(|d| d.version)
    }

    /// Every open document, by the name the host opened it under.
    pub fn documents(&self) -> Vec<(AbsPath, Document)> {
        read_lock(&self.documents).iter().filter_map(|(k, v)| Some((AbsPath::parse(k).ok()?, v.clone()))).collect()
    }

    pub fn line_index(&self) -> MutexGuard<'_, LineIndex> {
        self.line_index.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets a document's text with a new version; `clean`: it matches storage.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn put_document(&self, path: &AbsPath, text: &str, clean: bool) -> u64 {
        let version = self.document_clock.fetch_add(1, Ordering::Relaxed) + 1;
        let doc = Document { text: Arc::from(text), version, clean, verified: None };
        write_lock(&self.documents).insert(path.as_str().to_owned(), doc);
        version
    }

    /// Marks an open document as matching storage (it was saved); false when it is not open.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn mark_clean(&self, path: &AbsPath) -> bool {
        match write_lock(&self.documents).get_mut(path.as_str()) {
            Some(doc) => {
                doc.clean = true;
                doc.verified = None;
                true
            }
            None => false,
        }
    }

    /// Remembers the storage's version at which a clean document (`version`: the document
    /// that was compared) was seen to hold its text.
    pub fn document_verified(&self, path: &AbsPath, version: u64, identity: Option<Identity>) {
        if let Some(doc) =
            write_lock(&self.documents).get_mut(path.as_str()).filter(|d| d.version == version && d.clean)
        {
            doc.verified = identity;
        }
    }

    /// A move of `from` to `to` (a file or a directory): every document open at `from` or
    /// below it now has the name it has after the move, text, version and state unchanged.
    /// Answers the names moved, old and new.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn move_documents(&self, from: &AbsPath, to: &AbsPath) -> Vec<(AbsPath, AbsPath)> {
        let mut docs = write_lock(&self.documents);
        let moving: Vec<AbsPath> =
            docs.keys().filter_map(|k| AbsPath::parse(k).ok()).filter(|k| k.starts_with(from)).collect();
        let mut moved = Vec::new();
        for old in moving {
            let rest = old.as_str()[from.as_str().len()..].trim_start_matches(['/', '\\']);
            let new = if rest.is_empty() { to.clone() } else { to.join(rest.split(['/', '\\'])) };
            if let Some(doc) = docs.remove(old.as_str()) {
                docs.insert(new.as_str().to_owned(), doc);
                moved.push((old, new));
            }
        }
        moved
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn close_document(&self, path: &AbsPath) {
        write_lock(&self.documents).remove(path.as_str());
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
