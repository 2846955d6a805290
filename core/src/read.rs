//! `fs/read_text_file` (semantics.md §2–§4).

use crate::ask::{Channel, Opened};
use crate::contain::{self, Access, Target};
use crate::error::AcpFsError;
use crate::file::{self, ChunkReader, MAX_CHUNK};
use crate::freshness::{self, Evidence};
use crate::index::Identity;
use crate::ledger::Seen;
use crate::operation::Done;
use crate::options::{KnownAgent, PastEnd};
use crate::params::{self, Params};
use crate::path::AbsPath;
use crate::protocol::{ReadTextFileResponse, Response};
use crate::refuse::{not_text, storage_error, too_large};
use crate::state::Shared;
use crate::storage::{Metadata, StorageError, StorageErrorKind};
use crate::text::{self, Encoding, NotText, SNIFF_BYTES};
use crate::window::{Checkpoint, Window, WindowError};
use std::sync::Arc;

/// Who asks: an ACP agent (`fs/read_text_file`) or a model through the MCP tool. A session's
/// agent quirk (semantics.md §8 "Agent quirks") is for the agent's own code, never the model's.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
pub(crate) enum Asker {
    Acp,
    Mcp,
}

/// What the storage gave: the window (or why it cannot be cut), or no file at the path.
enum Found {
    Text(Result<String, WindowError>),
    Missing,
}

/// The storage's failure to reach the file, with "no file there" kept apart
/// ([`Found::Missing`]): nothing at the path, or a regular file where a parent should be (what
/// `storage_error` answers `-32002` for).
fn reached<T>(answer: Result<T, StorageError>, requested: &AbsPath) -> Result<Result<T, Found>, AcpFsError> {
    match answer {
        Ok(value) => Ok(Ok(value)),
        Err(e) if matches!(e.kind, StorageErrorKind::NotFound | StorageErrorKind::NotADirectory) => {
            Ok(Err(Found::Missing))
        }
        Err(e) => Err(storage_error(e, requested)),
    }
}

pub(crate) async fn run(shared: Arc<Shared>, params: Params, io: Channel, asker: Asker) -> Result<Done, AcpFsError> {
    let opts = &shared.policy.options;
    let p = params::read(params, opts.lenient_params)?;
    let roots = shared.roots(&p.session_id)?;
    let real_root = contain::by_name(&shared, &io, &roots, &p.path, Access::Read).await?;
    let target = contain::resolve(&shared, &io, &roots, real_root, p.path, Access::Read).await?;
    let window = Window::new(u64::from(p.line), p.limit.map(u64::from), opts.max_read_bytes);
    // What the agent will have seen, for the read ledger (semantics.md §9).
    let (whole_file, mut seen, mut document) = (window.is_whole_file(), None, None);

    // Reads prefer what the user sees: a buffer with unsaved edits, under whichever name it was
    // opened. A clean buffer only mirrors the storage, which is read instead (freshness.rs).
    let open = contain::document(&shared, &io, &target).await;
    let content = match &open {
        Some((_, doc)) if !doc.clean => {
            let mut window = window;
            // A whole-file read remembers the text itself (below): no digest to compute.
            seen = (!whole_file).then(|| Seen::digest(doc.text.as_bytes()));
            document = Some(doc.version);
            Found::Text(window.feed(doc.text.as_bytes()).and_then(|()| window.finish()))
        }
        _ if shared.caps.ranged_reads => stream(&shared, &io, &target, window, &mut seen).await?,
        _ => whole(&shared, &io, &target, window, &mut seen).await?,
    };
    let content = match content {
        Found::Text(content) => content,
        Found::Missing => return missing(&shared, &p.session_id, asker, whole_file, &target.requested),
    };
    let stale = match &open {
        Some((name, doc)) if doc.clean => {
            let identity = seen.as_ref().and_then(Seen::version);
            let evidence = match &content {
                Ok(text) if whole_file => Evidence::Whole(Some(text), identity),
                _ => Evidence::Window(identity),
            };
            freshness::check(&shared, name, doc, evidence)
        }
        _ => None,
    };
    let content = match content {
        Ok(text) => text,
        Err(WindowError::PastEnd { .. }) if opts.past_end == PastEnd::Empty => String::new(),
        Err(e) => return Err(window_error(e, &target.requested, opts.max_read_bytes)),
    };
    let seen = if whole_file { Some(Seen::Text(Arc::from(content.as_str()))) } else { seen };
    if let Some(seen) = seen {
        shared.remember(&p.session_id, &target.real, seen, document);
    }
    let bytes = content.len() as u64;
    Ok(Done { response: Response::Read(ReadTextFileResponse { content, meta: None }), change: None, bytes, stale })
}

/// No file at the path: `-32002`. Gemini CLI's sessions get `""` for a whole-file read instead:
/// the only answer its pre-read takes as "nothing there yet" (semantics.md §8 "Agent quirks").
/// Nothing goes into the read ledger: the agent saw no file, so its write is a creation.
fn missing(
    shared: &Shared,
    session_id: &str,
    asker: Asker,
    whole_file: bool,
    requested: &AbsPath,
) -> Result<Done, AcpFsError> {
    if asker == Asker::Acp && whole_file && shared.agent(session_id) == Some(KnownAgent::GeminiCli) {
        let response = Response::Read(ReadTextFileResponse { content: String::new(), meta: None });
        return Ok(Done { response, change: None, bytes: 0, stale: None });
    }
    Err(AcpFsError::not_found(requested.as_str()))
}

/// A whole-file read of a file that cannot fit is refused before a byte is read (the 3 bytes
/// allow for a UTF-8 BOM, which is not content).
fn fits(window: &Window, size: u64, max: u64, requested: &AbsPath) -> Result<(), AcpFsError> {
    if window.is_whole_file() && size > max.saturating_add(3) {
        return Err(too_large(
            requested,
            max,
            "the file is larger than maxReadBytes; read it in windows with line and limit",
        ));
    }
    Ok(())
}

/// Storages without ranged reads: stat (when they can), then the whole file.
async fn whole(
    shared: &Shared,
    io: &Channel,
    target: &Target,
    mut window: Window,
    seen: &mut Option<Seen>,
) -> Result<Found, AcpFsError> {
    let max = shared.policy.options.max_read_bytes;
    let path = target.real.as_str();
    let mut stat = None;
    if shared.caps.stat {
        let meta = match reached(io.stat(path, true).await, &target.requested)? {
            Ok(meta) => meta,
            Err(missing) => return Ok(missing),
        };
        file::check(shared, &meta, &target.requested)?;
        fits(&window, meta.size, max, &target.requested)?;
        stat = Some(meta);
    }
    let bytes = match reached(io.read_all(path).await, &target.requested)? {
        Ok(bytes) => bytes,
        Err(missing) => return Ok(missing),
    };
    // The same size-first order as a storage that can stat (semantics.md §8.1).
    fits(&window, bytes.len() as u64, max, &target.requested)?;
    let encoding = sniff(&bytes, &target.requested)?;
    if !encoding.is_utf8() {
        // The size is the bytes' own: a file that grew between the stat and the read is
        // another version than the one the stat named.
        let mut meta = stat.unwrap_or(Metadata::new(crate::storage::FileKind::File, 0));
        meta.size = bytes.len() as u64;
        *seen = Some(Seen::identity(&meta));
        return utf16(&bytes, encoding, max, &target.requested, window).map(Found::Text);
    }
    // A window remembers the digest of the whole file; a whole-file read, the text itself (run:
    // the digest, a hash of every byte, would be thrown away).
    if !window.is_whole_file() {
        *seen = Some(Seen::digest(&bytes[encoding.bom_len()..]));
    }
    Ok(Found::Text(window.feed(&bytes[encoding.bom_len()..]).and_then(|()| window.finish())))
}

/// Storages with ranged reads: one open file, the head first (the encoding and the NUL test
/// need it), then chunks until the window is complete.
async fn stream(
    shared: &Shared,
    io: &Channel,
    target: &Target,
    window: Window,
    seen: &mut Option<Seen>,
) -> Result<Found, AcpFsError> {
    match reached(file::open(io, target, true).await, &target.requested)? {
        Ok(opened) => opened_window(shared, io, target, opened, window, seen).await.map(Found::Text),
        Err(missing) => Ok(missing),
    }
}

/// [`stream`] once the file is open.
async fn opened_window(
    shared: &Shared,
    io: &Channel,
    target: &Target,
    opened: Opened,
    window: Window,
    seen: &mut Option<Seen>,
) -> Result<Result<String, WindowError>, AcpFsError> {
    let max = shared.policy.options.max_read_bytes;
    let requested = &target.requested;
    let key = target.real.as_str();
    let meta = opened.meta;
    *seen = Some(Seen::identity(&meta));
    file::check(shared, &meta, requested)?;
    fits(&window, meta.size, max, requested)?;

    // The line index (semantics.md §8 "Line index"): a version of this file scanned before
    // (so sniffed as UTF-8 text then) starts at the nearest remembered row: one read there.
    let bound = shared.policy.options.line_index_bytes;
    let identity = Identity::of(&meta).filter(|_| bound > 0);
    // A file the storage sent whole with the open is scanned from there: no read is saved by
    // starting further in.
    let whole = opened.head.as_ref().is_some_and(|head| meta.size > 0 && head.len() as u64 == meta.size);
    let start = identity.filter(|_| !whole).and_then(|id| shared.line_index().start(key, id, window.line()));
    if let (Some(start), Some(identity)) = (start, identity) {
        let mut window = window.restart(start.from);
        let rows = (window.line() - start.from.line).saturating_add(window.limit().unwrap_or(u64::MAX));
        let guess = rows.saturating_mul(start.bytes_per_row.max(1));
        window.reserve(guess.min(MAX_CHUNK as u64));
        let first = usize::try_from(guess.saturating_add(guess / 8).saturating_add(4096)).unwrap_or(usize::MAX);
        let mut reader = ChunkReader::at(io, opened.file, meta.size, requested, start.from.offset, first);
        let scanned = scan(&mut reader, &mut window, None).await?;
        shared.line_index().record(key, identity, start.bom, window.checkpoints(), bound);
        return Ok(scanned.and_then(|()| window.finish()));
    }

    let mut reader = ChunkReader::new(io, opened, requested);
    // The first read (16 KiB) covers the 8 KiB the NUL test needs: it is the head, uncopied.
    let mut head = reader.next().await?.into_vec();
    while head.len() < SNIFF_BYTES && !reader.eof {
        head.extend_from_slice(&reader.next().await?);
    }
    let encoding = sniff(&head, requested)?;
    if !encoding.is_utf8() {
        // UTF-16 is decoded whole; the raw size is capped like a whole read.
        while !reader.eof {
            if head.len() as u64 > utf16_cap(max) {
                return Err(utf16_too_large(requested, max));
            }
            head.extend_from_slice(&reader.next().await?);
        }
        return utf16(&head, encoding, max, requested, window);
    }
    let bom = encoding.bom_len() as u64;
    let mut window = window.restart(Checkpoint { line: 1, offset: bom });
    if window.is_whole_file() {
        // Checked against maxReadBytes above: one buffer of the right size, never regrown.
        window.reserve(meta.size.saturating_sub(bom));
    }
    let scanned = scan(&mut reader, &mut window, Some(&head[encoding.bom_len()..])).await?;
    if let Some(identity) = identity {
        shared.line_index().record(key, identity, bom, window.checkpoints(), bound);
    }
    Ok(scanned.and_then(|()| window.finish()))
}

/// Feeds `first` (if any), then chunks until the window is complete or the file ends.
async fn scan(
    reader: &mut ChunkReader<'_>,
    window: &mut Window,
    first: Option<&[u8]>,
) -> Result<Result<(), WindowError>, AcpFsError> {
    if let Some(first) = first {
        if let Err(e) = window.feed(first) {
            return Ok(Err(e));
        }
    }
    while !window.is_done() && !reader.eof {
        if let Err(e) = window.feed(&reader.next().await?) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

fn sniff(head: &[u8], requested: &AbsPath) -> Result<Encoding, AcpFsError> {
    Encoding::sniff(head).map_err(|e| not_text(e, requested))
}

fn utf16_cap(max: u64) -> u64 {
    max.saturating_mul(2).saturating_add(2)
}

fn utf16_too_large(requested: &AbsPath, max: u64) -> AcpFsError {
    too_large(requested, max, "UTF-16 files are decoded whole and this one exceeds twice maxReadBytes")
}

fn utf16(
    bytes: &[u8],
    encoding: Encoding,
    max: u64,
    requested: &AbsPath,
    mut window: Window,
) -> Result<Result<String, WindowError>, AcpFsError> {
    if bytes.len() as u64 > utf16_cap(max) {
        return Err(utf16_too_large(requested, max));
    }
    let unit = if encoding == Encoding::Utf16Le { u16::from_le_bytes } else { u16::from_be_bytes };
    let text = text::decode_utf16(&bytes[2..], unit).map_err(|e| not_text(e, requested))?;
    Ok(window.feed(text.as_bytes()).and_then(|()| window.finish()))
}

fn window_error(e: WindowError, requested: &AbsPath, max: u64) -> AcpFsError {
    match e {
        WindowError::PastEnd { line, line_count } => AcpFsError::past_end(line, line_count),
        WindowError::NotUtf8 => not_text(NotText::Invalid, requested),
        WindowError::TooLarge => too_large(
            requested,
            max,
            "the requested content is larger than maxReadBytes; ask for fewer lines with line and limit",
        ),
    }
}
