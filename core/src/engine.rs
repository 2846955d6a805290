//! The engine handle: options, sessions and their roots, open documents.

use crate::error::AcpFsError;
use crate::operation::Operation;
use crate::options::{Options, Policy, SessionOptions};
use crate::params::{Echo, Params};
use crate::path::AbsPath;
use crate::protocol::{FileSystemCapability, READ_TEXT_FILE, WRITE_TEXT_FILE};
use crate::read::Asker;
use crate::state::Shared;
use crate::storage::StorageCaps;
use crate::{read, write};
use serde_json::Value;
use std::sync::Arc;

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
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn new(options: Options, caps: StorageCaps) -> Result<AcpFs, AcpFsError> {
        let policy = Policy::new(options)?;
        Ok(AcpFs { shared: Arc::new(Shared::new(policy, caps)) })
    }

    /// The options the engine was built with.
    pub fn options(&self) -> &Options {
        &self.shared.policy.options
    }

    /// Registers a session's root set: `cwd`, the additional directories, and the host's
    /// `extraRoots`. Reopening replaces the set (ACP `session/load` resends it whole).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn open_session(
        &self,
        session_id: &str,
        cwd: &str,
        additional_directories: &[String],
    ) -> Result<(), AcpFsError> {
        self.open_session_with(session_id, cwd, additional_directories, &SessionOptions::default())
    }

    /// [`open_session`](Self::open_session) with the session's options: the agent whose known
    /// bug the session works around (semantics.md §8 "Agent quirks"). Reopening replaces them.
    ///
    /// ```
    /// use acp_fs::{AcpFs, DefaultHost, KnownAgent, MemoryStorage, Options, SessionOptions, Storage};
    /// let disk = MemoryStorage::new();
    /// let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
    /// let gemini = SessionOptions { agent: Some(KnownAgent::GeminiCli) };
    /// fs.open_session_with("s1", "/project", &[], &gemini).unwrap();
    /// fs.open_session("s2", "/project", &[]).unwrap();
    /// let read = |s: &str| acp_fs::run(fs.read_text_file(serde_json::json!({
    ///     "sessionId": s, "path": "/project/new.txt"})), &disk, &DefaultHost).result;
    /// assert_eq!(read("s1").unwrap().to_json(), serde_json::json!({"content": ""}));
    /// assert_eq!(read("s2").unwrap_err().code, acp_fs::codes::RESOURCE_NOT_FOUND);
    /// ```
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn open_session_with(
        &self,
        session_id: &str,
        cwd: &str,
        additional_directories: &[String],
        session: &SessionOptions,
    ) -> Result<(), AcpFsError> {
        let mut roots = vec![AbsPath::parse(cwd).map_err(|why| AcpFsError::invalid_params("cwd", why))?];
        for (i, dir) in additional_directories.iter().enumerate() {
            let root = AbsPath::parse(dir)
                .map_err(|why| AcpFsError::invalid_params(&format!("additionalDirectories[{i}]"), why))?;
            roots.push(root);
        }
        roots.extend(self.shared.policy.extra_roots.iter().cloned());
        self.shared.open_session(session_id, roots.into(), session.agent);
        Ok(())
    }

    /// Forgets the session: its roots and its read ledger (semantics.md §9).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn close_session(&self, session_id: &str) {
        self.shared.close_session(session_id);
    }

    /// Registers (or replaces) an open document's unsaved text: reads prefer it, writes to it
    /// go through the host's choice. Every call gives the document a new version (see
    /// [`AcpFs::document_version`]); the buffer counts as unsaved until the host says
    /// [`AcpFs::document_saved`] or [`AcpFs::document_reloaded`].
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn open_document(&self, path: &str, text: &str) -> Result<(), AcpFsError> {
        self.put_document(path, text, false).map(|_| ())
    }

    /// The buffer was reloaded from storage with `text` (or opened from it): it matches the
    /// file, so a change on disk since the agent read it is judged on the disk (§9).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn document_reloaded(&self, path: &str, text: &str) -> Result<(), AcpFsError> {
        self.put_document(path, text, true).map(|_| ())
    }

    /// The buffer was saved: storage now holds its text. False when it is not open.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn document_saved(&self, path: &str) -> bool {
        let Ok(path) = AbsPath::parse(path) else { return false };
        self.shared.mark_clean(&path)
    }

    /// The open document's version: it changes on every open, update, reload and write.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn document_version(&self, path: &str) -> Option<u64> {
        let path = AbsPath::parse(path).ok()?;
        self.shared.document_version(&path)
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    fn put_document(&self, path: &str, text: &str, clean: bool) -> Result<u64, AcpFsError> {
        let path = AbsPath::parse(path).map_err(|why| AcpFsError::invalid_params("path", why))?;
        Ok(self.shared.put_document(&path, text, clean))
    }

    /// `(files, bytes)` the session's read ledger holds (bounded by `ledgerSessionBytes`).
    pub fn ledger_usage(&self, session_id: &str) -> (usize, usize) {
        self.shared.ledgers.usage(session_id)
    }

    /// The buffer at `path` was closed: reads and writes go to storage again (nothing to do
    /// for a path no document is open at).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn close_document(&self, path: &str) {
        if let Ok(path) = AbsPath::parse(path) {
            self.shared.close_document(&path);
        }
    }

    /// The open document's current text.
    #[cfg_attr(acp_fs_small, optimize(size))]
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
        self.read((&params).into(), Asker::Acp)
    }

    fn read(&self, params: Params, asker: Asker) -> Operation {
        let shared = self.shared.clone();
        Operation::new("read", Echo::of(&params), move |channel| Box::pin(read::run(shared, params, channel, asker)))
    }

    /// Starts an `fs/write_text_file` request.
    pub fn write_text_file(&self, params: Value) -> Operation {
        self.write((&params).into())
    }

    fn write(&self, params: Params) -> Operation {
        let shared = self.shared.clone();
        Operation::new("write", Echo::of(&params), move |channel| Box::pin(write::run(shared, params, channel)))
    }

    /// An fs request whose params could not be decoded (see `dispatch::decode_params`): it
    /// fails like any params error, after the capability check that comes first (§8), and is
    /// run like any request so hosts get its audit event.
    #[cfg_attr(acp_fs_small, optimize(size))]
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

    /// [`request`](Self::request) for a model's MCP tool call: a session's agent quirks are for
    /// the agent's own fs requests, never for what the model is told (semantics.md §8).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub(crate) fn tool_request(&self, method: &str, params: Value) -> Option<Operation> {
        match method {
            READ_TEXT_FILE => Some(self.read((&params).into(), Asker::Mcp)),
            _ => self.request(method, params),
        }
    }

    /// Starts the request for `method`, or `None` if it is not an fs method.
    #[must_use = "a request is answered only once it is run to its outcome"]
    pub fn request(&self, method: &str, params: Value) -> Option<Operation> {
        self.start(method, (&params).into())
    }

    /// [`request`](Self::request) with the params in either form (a binding's flat params).
    pub(crate) fn start(&self, method: &str, params: Params) -> Option<Operation> {
        match method {
            READ_TEXT_FILE => Some(self.read(params, Asker::Acp)),
            WRITE_TEXT_FILE => Some(self.write(params)),
            _ => None,
        }
    }
}
