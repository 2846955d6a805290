//! `fs/write_text_file` (semantics.md §4, §5), and every other change of a file's text: the
//! MCP tools `write_file` and `edit_file` run the same path ([`commit`]), so the ledger, the
//! merge, the turn, approval and open documents (§9) hold for them alike.

// `run`, `commit` and `existing` are each a `fn` that returns an `async move` block rather than an
// `async fn`: the fs/* wasm module optimizes them for size, and `optimize` on an `async fn` stops
// at the wrapper, while on the block it reaches the coroutine's body, where the code is
// (docs/toolchain.md#cold-code-optimized-for-size).
#![allow(clippy::manual_async_fn)]

use crate::ask::Channel;
use crate::contain::{self, Access, Target};
use crate::error::{AcpFsError, ErrorKind};
use crate::file::{self, ChunkReader};
use crate::freshness::{self, Evidence};
use crate::index::Identity;
use crate::ledger::{self, Current, Seen};
#[cfg(feature = "mcp")]
use crate::mcp::edit::{self, Edit};
use crate::operation::Done;
use crate::options::{LineEndings, OnConflict};
use crate::params::{self, Params};
use crate::path::AbsPath;
use crate::protocol::{Response, WriteTextFileResponse, WRITE_TEXT_FILE};
use crate::record::{ChangeKind, ChangeRecord, DocumentWrite};
use crate::refuse::{self, not_text, storage_error, too_large};
use crate::state::Shared;
use crate::storage::{Metadata, StorageError, StorageErrorKind};
use crate::text::{self, Encoding};
use std::future::Future;
use std::sync::Arc;

/// What is at the target before the write.
struct Existing {
    encoding: Encoding,
    text: String,
    /// The storage's metadata, when it gave one.
    meta: Option<Metadata>,
}

pub(crate) fn run(shared: Arc<Shared>, params: Params, io: Channel) -> impl Future<Output = Result<Done, AcpFsError>> {
    #[cfg_attr(acp_fs_small, optimize(size))]
    async move {
        if !shared.can_write() {
            return Err(AcpFsError::method_not_found(WRITE_TEXT_FILE));
        }
        let p = params::write(params, shared.policy.options.lenient_params)?;
        let request =
            Request { session_id: p.session_id, path: p.path, content: Content::Whole(p.content), dry_run: false };
        let written = commit(&shared, &io, request).await?;
        Ok(done(written.change, written.stale))
    }
}

/// What a write puts in place of the file's text.
pub(crate) enum Content {
    /// The whole new text (`fs/write_text_file`, `write_file`).
    Whole(String),
    /// Replacements applied in order to what is there now (`edit_file`): the file must exist.
    #[cfg(feature = "mcp")]
    Edits(Vec<Edit>),
}

impl Content {
    fn is_edits(&self) -> bool {
        match self {
            Content::Whole(_) => false,
            #[cfg(feature = "mcp")]
            Content::Edits(_) => true,
        }
    }
}

/// One change of a file's text, its params already checked.
pub(crate) struct Request {
    pub session_id: String,
    pub path: AbsPath,
    pub content: Content,
    /// Work out the change and stop before approval: nothing is asked, written or remembered
    /// (`edit_file`'s `dryRun`).
    pub dry_run: bool,
}

/// What a write did (or, for a dry run, would do).
pub(crate) struct Written {
    pub change: ChangeRecord,
    /// A clean document found stale on the way (freshness.rs), by its name.
    pub stale: Option<String>,
}

/// Runs one change of a file's text after its params were checked: containment, the turn,
/// what is there now, the ledger and the merge, approval, the open buffer or the storage.
pub(crate) fn commit<'a>(
    shared: &'a Arc<Shared>,
    io: &'a Channel,
    request: Request,
) -> impl Future<Output = Result<Written, AcpFsError>> + 'a {
    #[cfg_attr(acp_fs_small, optimize(size))]
    async move {
        let shared = shared.clone();
        let opts = &shared.policy.options;
        let Request { session_id, path, content, dry_run } = request;
        let roots = shared.roots(&session_id)?;
        let real_root = contain::by_name(&shared, io, &roots, &path, Access::Write).await?;
        #[cfg_attr(not(feature = "mcp"), allow(irrefutable_let_patterns))] // `Edits` is the MCP tools'
        if let Content::Whole(content) = &content {
            if content.len() as u64 > opts.max_write_bytes {
                return Err(too_large(&path, opts.max_write_bytes, "the content is larger than maxWriteBytes"));
            }
        }
        let target = contain::resolve(&shared, io, &roots, real_root, path, Access::Write).await?;
        let requested = &target.requested;

        // One write at a time per real path (semantics.md §9): everything below, from reading what
        // is there to writing, happens in this write's turn; the ticket leaves the queue when the
        // operation ends, however it ends. A dry run writes nothing and, like a read, never waits.
        let ticket = (!dry_run).then(|| shared.turns.enter(ledger::key(&target.real)));
        while let Some(ticket) = ticket.as_ref().filter(|t| !t.ready()) {
            io.wait(target.real.as_str(), ticket.waiter()).await.map_err(|e| storage_error(e, requested))?;
        }

        let existing = existing(&shared, io, &target).await?;
        // The buffer the user sees, under whichever name the host opened it (semantics.md §8.2).
        let document = contain::document(&shared, io, &target).await;
        let (document_name, document) = match document {
            Some((name, doc)) => (Some(name), Some(doc)),
            None => (None, None),
        };
        // A clean buffer only mirrors the storage: what is there now is what the storage holds,
        // and a storage that moved on makes the buffer stale (freshness.rs).
        let stale_document = match (&document_name, &document) {
            (Some(name), Some(doc)) if doc.clean => {
                let version = existing.as_ref().and_then(|e| e.meta).as_ref().and_then(Identity::of);
                freshness::check(
                    &shared,
                    name,
                    doc,
                    Evidence::Whole(existing.as_ref().map(|e| e.text.as_str()), version),
                )
            }
            _ => None,
        };
        // What the agent read of this file in this session; `None`: a blind write.
        let seen = match opts.on_conflict {
            OnConflict::Overwrite => None,
            _ => shared.ledgers.get(&session_id, &ledger::key(&target.real)),
        };

        // The text the user sees is what the write replaces: a buffer with unsaved edits first.
        let unsaved = document.as_ref().filter(|d| !d.clean);
        let old_text = unsaved.map(|d| d.text.to_string()).or_else(|| existing.as_ref().map(|e| e.text.clone()));
        let keep_endings = opts.line_endings == LineEndings::Preserve;
        let (encoding, mut new_text) = match &content {
            Content::Whole(content) => {
                let encoding = match &existing {
                    Some(e) => e.encoding,
                    None if content.starts_with('\u{FEFF}') => Encoding::Utf8Bom,
                    None => Encoding::Utf8,
                };
                let crlf = keep_endings && old_text.as_deref().is_some_and(text::uses_crlf) && !content.contains('\r');
                let text = text::strip_bom(content);
                (encoding, if crlf { text::to_crlf(text) } else { text.to_owned() })
            }
            // An edit applies where its oldText is in the text the user sees now, so it keeps
            // whatever else changed since the agent read the file (semantics.md §10.7).
            #[cfg(feature = "mcp")]
            Content::Edits(edits) => {
                let Some(old) = &old_text else { return Err(AcpFsError::not_found(requested.as_str())) };
                let text = edit::apply(old, edits, keep_endings)?;
                if text.len() as u64 > opts.max_write_bytes {
                    return Err(too_large(
                        requested,
                        opts.max_write_bytes,
                        "the edited text is larger than maxWriteBytes",
                    ));
                }
                (existing.as_ref().map_or(Encoding::Utf8, |e| e.encoding), text)
            }
        };
        let created = existing.is_none() && document.is_none();

        // Stale writes (semantics.md §9): the file changed since the agent read it.
        let mut merged = false;
        if let Some((seen, seen_doc)) = &seen {
            let now = current(document.as_ref(), existing.as_ref());
            if ledger::changed(seen, *seen_doc, &now) && content.is_edits() {
                // An edit needs no merge base: its oldText, found once in the current text, is the
                // anchor. Only `reject` refuses it.
                if opts.on_conflict == OnConflict::Reject {
                    return Err(stale(requested, opts.on_conflict, seen));
                }
                merged = opts.on_conflict == OnConflict::Merge;
            } else if ledger::changed(seen, *seen_doc, &now) {
                let base = match (opts.on_conflict, seen, now.text) {
                    (OnConflict::Merge, Seen::Text(base), Some(now)) => Some((base, now)),
                    _ => None,
                };
                let Some((base, now)) = base else {
                    return Err(stale(requested, opts.on_conflict, seen));
                };
                match io.merge(base, now, &new_text).await.map_err(|e| merge_failed(e, requested))? {
                    Some(text) => {
                        merged = text != new_text;
                        new_text = text;
                    }
                    None => return Err(stale(requested, OnConflict::Merge, seen)),
                }
            }
        }

        // How much of the path is missing: known from the real-path walk, or else (a storage without
        // symlinks) from stats up the path, so that the record can list the parents a write makes.
        let missing = match target.missing {
            None if existing.is_none() && shared.caps.stat => contain::missing_by_stat(io, &target.real).await,
            known => known,
        };
        let parents_missing = missing.map(|m| m > 1);
        if existing.is_none() && !opts.create_parents && parents_missing == Some(true) {
            return Err(AcpFsError::not_found(requested.as_str()));
        }

        // The parents the storage will make, as the agent named them, outermost first; unknown to a
        // storage that cannot resolve paths (`missing` is `None`), which then reports none.
        let make_parents =
            existing.is_none() && opts.create_parents && shared.caps.make_dirs && parents_missing != Some(false);
        let created_dirs: Vec<String> = match missing {
            Some(missing) if make_parents => {
                let mut dirs: Vec<String> = std::iter::successors(requested.parent(), AbsPath::parent)
                    .take(missing.saturating_sub(1))
                    .map(|d| d.as_str().to_owned())
                    .collect();
                dirs.reverse();
                dirs
            }
            _ => Vec::new(),
        };

        let mut change = ChangeRecord {
            session_id: session_id.clone(),
            path: requested.as_str().to_owned(),
            created,
            old_text,
            new_text,
            merged,
            kind: ChangeKind::Write,
            from: None,
            created_dirs: if document_name.is_none() { created_dirs.clone() } else { Vec::new() },
        };
        if dry_run {
            return Ok(Written { change, stale: stale_document });
        }
        if !io.approve(change.clone()).await.map_err(|e| storage_error(e, requested))? {
            return Err(AcpFsError::denied(
                ErrorKind::UserRejected,
                requested.as_str(),
                "the user rejected this write",
            ));
        }
        // An approval may take minutes (and the fs/* wasm module may have had to load its merge
        // module), and no write of acp-fs can come in between (the turn), but the user can type
        // and a formatter can rewrite the disk: what was approved is written only over the text
        // the approval showed.
        if seen.is_some() {
            let moved = match (&document_name, &document) {
                (Some(name), Some(before)) => shared.document(name).is_none_or(|d| d.version != before.version),
                _ => {
                    let again = self::existing(&shared, io, &target).await?;
                    again.map(|e| e.text) != existing.as_ref().map(|e| e.text.clone())
                }
            };
            if moved {
                return Err(AcpFsError::denied(
                    ErrorKind::StaleWrite,
                    requested.as_str(),
                    "the file changed while this write waited (for its approval or its merge); nothing \
                 was written. Read the file again and redo the edit on what it holds now",
                ));
            }
        }
        let remember = |shared: &Shared, change: &ChangeRecord, document: Option<u64>| {
            shared.remember(&session_id, &target.real, Seen::Text(Arc::from(change.new_text.as_str())), document);
        };

        if let Some(name) = &document_name {
            let decision = io.write_document(name.as_str(), change.new_text.clone()).await;
            // Only a valid decision touches the buffer: a failed request must change nothing.
            let through = match decision.map_err(|e| storage_error(e, requested))? {
                DocumentWrite::Buffer => false,
                DocumentWrite::WriteThrough => true,
            };
            let version = shared.put_document(name, &change.new_text, through);
            if !through {
                remember(&shared, &change, Some(version));
                return Ok(Written { change, stale: stale_document });
            }
            change.created_dirs = created_dirs;
        }

        // The directories this write makes for its file, deepest first: a write that fails takes
        // them back, so a failed request leaves no trace (semantics.md §5).
        let mut made: Vec<AbsPath> = Vec::new();
        if make_parents {
            if let Some(parent) = target.real.parent() {
                let count = missing.map_or(0, |m| m.saturating_sub(1));
                made = std::iter::successors(Some(parent.clone()), AbsPath::parent).take(count).collect();
                if let Err(e) = io.make_dirs(target.root.as_str(), parent.as_str()).await {
                    take_back(io, &target.root, &made).await;
                    return Err(write_error(e, requested));
                }
            }
        }
        let bytes = text::encode(&change.new_text, encoding);
        let written = io.write(target.root.as_str(), target.real.as_str(), bytes).await;
        if written.is_err() {
            take_back(io, &target.root, &made).await;
        }
        // Whatever the outcome, what the index knows about this file may be stale now (a failed
        // write may still have replaced it). Readers that opened the old version and record after
        // this carry the old identity, which the new version does not match.
        shared.line_index().forget(target.real.as_str());
        match written {
            Ok(()) => {
                remember(&shared, &change, None);
                drop(ticket);
                Ok(Written { change, stale: stale_document })
            }
            Err(e) => Err(write_error(e, requested)),
        }
    }
}

/// Removes the directories a failed write made, deepest first. Best effort: one that is not
/// empty now (someone put a file there meanwhile) or that the storage cannot remove stays,
/// and so do its parents; the request reports the write's own error either way.
async fn take_back(io: &Channel, root: &AbsPath, made: &[AbsPath]) {
    for dir in made {
        match io.remove_dir(root.as_str(), dir.as_str()).await {
            Ok(()) => {}
            Err(e) if e.kind == StorageErrorKind::NotFound => {}
            Err(_) => return,
        }
    }
}

/// What is there now: a buffer with unsaved edits, or else the storage (a clean buffer only
/// mirrors it). The document's version still counts: what the agent read of it is current
/// while the document has not changed since.
#[cfg_attr(acp_fs_small, optimize(size))]
fn current<'a>(document: Option<&'a crate::state::Document>, existing: Option<&'a Existing>) -> Current<'a> {
    match document {
        Some(doc) if !doc.clean => Current { text: Some(&doc.text), meta: None, document: Some(doc.version) },
        Some(doc) => Current {
            text: existing.map(|e| e.text.as_str()),
            meta: existing.and_then(|e| e.meta),
            document: Some(doc.version),
        },
        None => {
            Current { text: existing.map(|e| e.text.as_str()), meta: existing.and_then(|e| e.meta), document: None }
        }
    }
}

/// `stale_write`: the agent's picture of the file is out of date; nothing was written.
#[cfg_attr(acp_fs_small, optimize(size))]
fn stale(requested: &AbsPath, mode: OnConflict, seen: &Seen) -> AcpFsError {
    let why = match (mode, seen) {
        (OnConflict::Reject, _) => "the file changed since you read it (onConflict: reject)",
        (_, Seen::Text(_)) => "the file changed since you read it and those changes overlap your edit",
        (_, Seen::Digest { .. }) => "the file changed since you read it, and it was too large to keep a merge base",
        (_, Seen::Identity(_)) => "the file changed since you read part of it (a windowed read cannot be merged)",
    };
    AcpFsError::denied(
        ErrorKind::StaleWrite,
        requested.as_str(),
        format!("{why}; nothing was written. Read the file again and redo the edit on what it holds now"),
    )
}

/// The host could not run the merge (a build without it: the merge module would not load). That
/// failure is no fact about the file, whatever its code says (a missing `.wasm` is `ENOENT`), so
/// it is reported as what it is, with the host's words.
#[cfg_attr(acp_fs_small, optimize(size))]
fn merge_failed(e: StorageError, requested: &AbsPath) -> AcpFsError {
    let why = format!("the three-way merge could not be run ({}); nothing was written", e.message);
    storage_error(StorageError::new(StorageErrorKind::Other, why), requested)
}

#[cfg_attr(acp_fs_small, optimize(size))]
fn done(change: ChangeRecord, stale: Option<String>) -> Done {
    let bytes = change.new_text.len() as u64;
    Done { response: Response::Write(WriteTextFileResponse::default()), change: Some(change), bytes, stale }
}

/// Reads the file a write would replace; `None` when there is none.
fn existing<'a>(
    shared: &'a Shared,
    io: &'a Channel,
    target: &'a Target,
) -> impl Future<Output = Result<Option<Existing>, AcpFsError>> + 'a {
    #[cfg_attr(acp_fs_small, optimize(size))]
    async move {
        let max = shared.policy.options.max_read_bytes;
        let requested = &target.requested;
        let too_large = || {
            refuse::too_large(
                requested,
                max,
                "the existing file is larger than maxReadBytes, so it cannot be replaced safely",
            )
        };
        let mut known = None;
        let bytes = if shared.caps.ranged_reads {
            let opened = match file::open(io, target, true).await {
                Ok(opened) => opened,
                Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(write_error(e, requested)),
            };
            let meta = opened.meta;
            file::check(shared, &meta, requested)?;
            if meta.size > max.saturating_add(3) {
                return Err(too_large());
            }
            let mut reader = ChunkReader::new(io, opened, requested);
            let mut bytes = Vec::new();
            while !reader.eof {
                bytes.extend_from_slice(&reader.next().await?);
                if bytes.len() as u64 > max.saturating_add(3) {
                    return Err(too_large());
                }
            }
            known = Some(meta);
            bytes
        } else {
            if shared.caps.stat {
                match io.stat(target.real.as_str(), true).await {
                    Ok(m) => {
                        file::check(shared, &m, requested)?;
                        if m.size > max.saturating_add(3) {
                            return Err(too_large());
                        }
                        known = Some(m);
                    }
                    Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(write_error(e, requested)),
                }
            }
            match io.read_all(target.real.as_str()).await {
                Ok(b) => b.into_vec(),
                Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(write_error(e, requested)),
            }
        };
        if bytes.len() as u64 > max.saturating_add(3) {
            return Err(too_large());
        }
        // Never replace what could not be read as text: the agent cannot have seen it.
        let (encoding, text) = text::decode(&bytes).map_err(|e| not_text(e, requested))?;
        Ok(Some(Existing { encoding, text, meta: known }))
    }
}

/// Like [`storage_error`], but a parent that is a file makes the target "not a file". A wrong
/// answer from the driver is an `Other` storage error, so it reads as it would anywhere else.
#[cfg_attr(acp_fs_small, optimize(size))]
fn write_error(e: crate::storage::StorageError, requested: &AbsPath) -> AcpFsError {
    match e.kind {
        StorageErrorKind::NotADirectory => {
            AcpFsError::denied(ErrorKind::NotAFile, requested.as_str(), "a parent of this path is not a directory")
        }
        _ => storage_error(e, requested),
    }
}
