//! `fs/write_text_file` (semantics.md §4, §5).

use crate::contain::{self, storage_error, unexpected, Target};
use crate::engine::Shared;
use crate::error::{AcpFsError, ErrorKind};
use crate::file::{self, ChunkReader};
use crate::io::{Answer, Io};
use crate::operation::{Channel, Done};
use crate::options::LineEndings;
use crate::params;
use crate::path::AbsPath;
use crate::protocol::{Response, WriteTextFileResponse, WRITE_TEXT_FILE};
use crate::read::{self, too_large};
use crate::record::{ChangeRecord, DocumentWrite};
use crate::storage::StorageErrorKind;
use crate::text::{self, Encoding};
use serde_json::Value;
use std::sync::Arc;

/// What is at the target before the write.
struct Existing {
    encoding: Encoding,
    text: String,
}

pub(crate) async fn run(shared: Arc<Shared>, params: Value, io: Channel) -> Result<Done, AcpFsError> {
    if !shared.can_write() {
        return Err(AcpFsError::method_not_found(WRITE_TEXT_FILE));
    }
    let opts = &shared.policy.options;
    let p = params::write(&params, opts.lenient_params)?;
    let roots = shared.roots(&p.session_id)?;
    contain::lexical(&shared, &roots, &p.path, true)?;
    if p.content.len() as u64 > opts.max_write_bytes {
        return Err(too_large(&p.path, opts.max_write_bytes, "the content is larger than maxWriteBytes"));
    }
    let target = contain::resolve(&shared, &io, &roots, p.path, true).await?;
    let requested = &target.requested;
    let existing = existing(&shared, &io, &target).await?;
    // The buffer the user sees, under whichever name the host opened it (semantics.md §8.2).
    let document = contain::document(&shared, &io, &target).await;
    let (document_name, document) = match document {
        Some((name, text)) => (Some(name), Some(text)),
        None => (None, None),
    };

    // The text the user sees is what the write replaces: the open buffer first.
    let old_text = document.as_deref().map(str::to_owned).or_else(|| existing.as_ref().map(|e| e.text.clone()));
    let encoding = match &existing {
        Some(e) => e.encoding,
        None if p.content.starts_with('\u{FEFF}') => Encoding::Utf8Bom,
        None => Encoding::Utf8,
    };
    let crlf = opts.line_endings == LineEndings::Preserve
        && old_text.as_deref().is_some_and(text::uses_crlf)
        && !p.content.contains('\r');
    let new_text =
        if crlf { text::to_crlf(text::strip_bom(&p.content)) } else { text::strip_bom(&p.content).to_owned() };
    let created = existing.is_none() && document.is_none();

    let parents_missing = target.missing.map(|m| m > 1);
    if existing.is_none() && !opts.create_parents && parents_missing == Some(true) {
        return Err(AcpFsError::not_found(requested.as_str()));
    }

    let change = ChangeRecord {
        session_id: p.session_id.clone(),
        path: requested.as_str().to_owned(),
        created,
        old_text,
        new_text,
    };
    match io.ask(Io::Approve { change: change.clone() }).await {
        Answer::Approved(true) => {}
        Answer::Approved(false) => {
            return Err(AcpFsError::denied(ErrorKind::UserRejected, requested.as_str(), "the user rejected this write"))
        }
        other => return Err(storage_error(unexpected("approve", &other), requested)),
    }

    if let Some(name) = &document_name {
        let decision =
            io.ask(Io::WriteDocument { path: name.as_str().to_owned(), text: change.new_text.clone() }).await;
        // Only a valid decision touches the buffer: a failed request must change nothing.
        let through = match decision {
            Answer::Document(DocumentWrite::Buffer) => false,
            Answer::Document(DocumentWrite::WriteThrough) => true,
            other => return Err(storage_error(unexpected("write_document", &other), requested)),
        };
        shared.set_document(name, &change.new_text);
        if !through {
            return Ok(done(change));
        }
    }

    if existing.is_none() && opts.create_parents && shared.caps.make_dirs && parents_missing != Some(false) {
        if let Some(parent) = target.real.parent() {
            let asked = Io::MakeDirs { root: target.root.as_str().to_owned(), path: parent.as_str().to_owned() };
            match io.ask(asked).await {
                Answer::Done => {}
                Answer::Err(e) => return Err(write_error(e, requested)),
                other => return Err(storage_error(unexpected("make_dirs", &other), requested)),
            }
        }
    }
    let bytes = text::encode(&change.new_text, encoding);
    let asked = Io::Write { root: target.root.as_str().to_owned(), path: target.real.as_str().to_owned(), bytes };
    let answer = io.ask(asked).await;
    // Whatever the outcome, what the index knows about this file may be stale now (a failed
    // write may still have replaced it). Readers that opened the old version and record after
    // this carry the old identity, which the new version does not match.
    shared.line_index().forget(target.real.as_str());
    match answer {
        Answer::Done => Ok(done(change)),
        Answer::Err(e) => Err(write_error(e, requested)),
        other => Err(storage_error(unexpected("write", &other), requested)),
    }
}

fn done(change: ChangeRecord) -> Done {
    let bytes = change.new_text.len() as u64;
    Done { response: Response::Write(WriteTextFileResponse::default()), change: Some(change), bytes }
}

/// Reads the file a write would replace; `None` when there is none.
async fn existing(shared: &Shared, io: &Channel, target: &Target) -> Result<Option<Existing>, AcpFsError> {
    let max = shared.policy.options.max_read_bytes;
    let requested = &target.requested;
    let too_large = || {
        read::too_large(
            requested,
            max,
            "the existing file is larger than maxReadBytes, so it cannot be replaced safely",
        )
    };
    let bytes = if shared.caps.ranged_reads {
        let (file, meta) = match file::open(io, target).await {
            Ok(opened) => opened,
            Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(write_error(e, requested)),
        };
        file::check(shared, &meta, requested)?;
        if meta.size > max.saturating_add(3) {
            return Err(too_large());
        }
        let mut reader = ChunkReader::new(io, file, meta.size, requested);
        let mut bytes = Vec::new();
        while !reader.eof {
            bytes.extend_from_slice(&reader.next().await?);
            if bytes.len() as u64 > max.saturating_add(3) {
                return Err(too_large());
            }
        }
        bytes
    } else {
        if shared.caps.stat {
            match io.ask(Io::Stat { path: target.real.as_str().to_owned(), follow: true }).await {
                Answer::Metadata(m) => {
                    file::check(shared, &m, requested)?;
                    if m.size > max.saturating_add(3) {
                        return Err(too_large());
                    }
                }
                Answer::Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
                Answer::Err(e) => return Err(write_error(e, requested)),
                other => return Err(storage_error(unexpected("stat", &other), requested)),
            }
        }
        match io.ask(Io::ReadAll { path: target.real.as_str().to_owned() }).await {
            Answer::Bytes(b) => b,
            Answer::Err(e) if e.kind == StorageErrorKind::NotFound => return Ok(None),
            Answer::Err(e) => return Err(write_error(e, requested)),
            other => return Err(storage_error(unexpected("read", &other), requested)),
        }
    };
    if bytes.len() as u64 > max.saturating_add(3) {
        return Err(too_large());
    }
    // Never replace what could not be read as text: the agent cannot have seen it.
    let (encoding, text) = text::decode(&bytes).map_err(|e| read::not_text(e, requested))?;
    Ok(Some(Existing { encoding, text }))
}

/// Like [`storage_error`], but a parent that is a file makes the target "not a file".
fn write_error(e: crate::storage::StorageError, requested: &AbsPath) -> AcpFsError {
    match e.kind {
        StorageErrorKind::NotADirectory => {
            AcpFsError::denied(ErrorKind::NotAFile, requested.as_str(), "a parent of this path is not a directory")
        }
        _ => storage_error(e, requested),
    }
}
