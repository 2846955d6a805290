//! The MCP tools that change the tree rather than a file's text (semantics.md §10.7):
//! `create_directory` (one `makeDir` per missing component) and `move_file` (one `rename` that
//! never replaces). Like a write, each passes containment and the deny list for writes, asks
//! the host's approval with a change record of its own kind, and leaves that record for undo.

use crate::ask::Channel;
use crate::contain::{self, Access, Target};
use crate::error::{AcpFsError, ErrorKind};
use crate::ledger;
use crate::path::AbsPath;
use crate::record::{ChangeKind, ChangeRecord};
use crate::refuse::storage_error;
use crate::state::Shared;
use crate::storage::{FileKind, StorageError, StorageErrorKind};

/// `mkdir -p` under the roots: makes each missing directory from the outermost in, one
/// `makeDir` each. `None` when the directory was already there (nothing to approve or undo).
/// The record lists the directories this request made (`createdDirs`), as the agent named
/// them; undo removes exactly those, innermost first.
pub(crate) async fn create_directory(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    path: AbsPath,
) -> Result<Option<ChangeRecord>, AcpFsError> {
    let roots = shared.roots(session_id)?;
    let real_root = contain::by_name(shared, io, &roots, &path, Access::MakeDirectory).await?;
    let mut target = contain::resolve(shared, io, &roots, real_root, path, Access::MakeDirectory).await?;
    if target.missing.is_none() && shared.caps.stat {
        target.missing = contain::missing_by_stat(io, &target.real).await;
    }
    let requested = &target.requested;
    if target.missing == Some(0) {
        return match kind_at(shared, io, &target.real).await {
            Ok(None | Some(FileKind::Directory)) => Ok(None),
            Ok(Some(_)) => Err(not_a_directory(requested, requested)),
            Err(e) => Err(storage_error(e, requested)),
        };
    }
    // Every directory from just below the root to the target, outermost first, beside the
    // name the agent gave it; the missing tail is what gets made (all of them when the storage
    // cannot tell what exists: those already there are answered `AlreadyExists`).
    let mut chain: Vec<(AbsPath, AbsPath)> = std::iter::successors(Some(target.real.clone()), AbsPath::parent)
        .zip(std::iter::successors(Some(requested.clone()), AbsPath::parent))
        .take_while(|(real, _)| real.starts_with(&target.root) && !real.same_as(&target.root))
        .collect();
    chain.reverse();
    if let Some(missing) = target.missing {
        chain.drain(..chain.len().saturating_sub(missing));
    }
    let names = |dirs: &[&(AbsPath, AbsPath)]| dirs.iter().map(|(_, name)| name.as_str().to_owned()).collect();
    let mut change = ChangeRecord {
        session_id: session_id.to_owned(),
        path: requested.as_str().to_owned(),
        created: true,
        old_text: None,
        new_text: String::new(),
        merged: false,
        kind: ChangeKind::MakeDir,
        from: None,
        created_dirs: names(&chain.iter().collect::<Vec<_>>()),
    };
    if !io.approve(change.clone()).await.map_err(|e| storage_error(e, requested))? {
        return Err(rejected(requested, "the user rejected creating this directory"));
    }
    let mut made = Vec::new();
    for entry in &chain {
        let (real, name) = entry;
        match io.make_dir(target.root.as_str(), real.as_str()).await {
            Ok(()) => made.push(entry),
            // Made by someone else meanwhile (or the storage could not tell us before): fine
            // if it is a directory, and not ours to undo.
            Err(e) if e.kind == StorageErrorKind::AlreadyExists => match kind_at(shared, io, real).await {
                Ok(None | Some(FileKind::Directory)) => {}
                Ok(Some(_)) => return Err(midway(not_a_directory(requested, name), &made)),
                Err(e) => return Err(midway(storage_error(e, requested), &made)),
            },
            Err(e) if e.kind == StorageErrorKind::NotADirectory => {
                return Err(midway(not_a_directory(requested, name), &made))
            }
            Err(e) => return Err(midway(storage_error(e, requested), &made)),
        }
    }
    if made.is_empty() {
        return Ok(None);
    }
    change.created_dirs = names(&made);
    Ok(Some(change))
}

/// What a move did: its record, and the open documents that now have the new name.
pub(crate) struct Moved {
    pub change: ChangeRecord,
    /// `(old name, new name)` of each open document the move carried along.
    pub documents: Vec<(String, String)>,
}

/// Renames `source` to `destination` inside one root, never replacing what is there. Both
/// ends are checked as entries of their directories (a last symlink is not followed, and a
/// symlink source is refused); an open
/// document at the source, or below a moved directory, follows to its new name with its
/// unsaved text (as an editor's tab follows a rename).
pub(crate) async fn move_entry(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    source: AbsPath,
    destination: AbsPath,
) -> Result<Moved, AcpFsError> {
    let roots = shared.roots(session_id)?;
    for (path, field) in [(&source, "source"), (&destination, "destination")] {
        if roots.iter().any(|r| r.same_as(path)) {
            return Err(AcpFsError::invalid_params(
                field,
                "is a root of the session; a root is never moved or replaced",
            ));
        }
    }
    let source_root = contain::by_name(shared, io, &roots, &source, Access::Entry).await?;
    let destination_root = contain::by_name(shared, io, &roots, &destination, Access::Entry).await?;
    let mut from = contain::resolve(shared, io, &roots, source_root, source, Access::Entry).await?;
    let mut to = contain::resolve(shared, io, &roots, destination_root, destination, Access::Entry).await?;
    // Whether each end's directory exists, on a storage whose containment did not walk the path.
    for end in [&mut from, &mut to] {
        if let (None, true, Some(dir)) = (end.missing, shared.caps.stat, end.real.parent()) {
            end.missing = contain::missing_by_stat(io, &dir).await;
        }
    }
    if to.real.starts_with(&from.real) {
        let why = match to.real.same_as(&from.real) {
            true => "is the source itself",
            false => "is inside the source: a directory cannot be moved into itself",
        };
        return Err(AcpFsError::invalid_params("destination", why));
    }
    // One storage call names one root; nested roots share the outer one.
    let root = if to.root.starts_with(&from.root) {
        from.root.clone()
    } else if from.root.starts_with(&to.root) {
        to.root.clone()
    } else {
        return Err(AcpFsError::invalid_params(
            "destination",
            format!(
                "is under another root ({}) than the source ({}); a move stays inside one root",
                to.root, from.root
            ),
        ));
    };
    if from.missing.is_some_and(|m| m > 0) {
        return Err(AcpFsError::not_found(from.requested.as_str()));
    }
    if to.missing.is_some_and(|m| m > 0) {
        // The destination's directory must exist (create_directory makes it): a move that made
        // directories on its way would be two changes in one.
        let parent = to.requested.parent().unwrap_or_else(|| to.requested.clone());
        return Err(AcpFsError::not_found(parent.as_str()));
    }
    let tickets = shared.turns.enter_all([ledger::key(&from.real), ledger::key(&to.real)]);
    for ticket in &tickets {
        while !ticket.ready() {
            io.wait(from.real.as_str(), ticket.waiter()).await.map_err(|e| storage_error(e, &from.requested))?;
        }
    }
    // Looked at in the turn, so that no write of ours comes in between; the storage's
    // no-replace rename still has the last word against everyone else.
    match kind_at(shared, io, &from.real).await {
        // Some storages rename what a link points to instead of the link (memfs 4 does), which
        // would pull a file from outside the roots in: a link is not moved on any storage.
        Ok(Some(FileKind::Symlink)) => {
            return Err(AcpFsError::denied(
                ErrorKind::NotAFile,
                from.requested.as_str(),
                "the source is a symlink, and symlinks are not moved (some storages would move what it points to); \
                 move the file it points to, or make a new link",
            ))
        }
        Ok(Some(_)) => {}
        Ok(None) if !shared.caps.stat => {}
        Ok(None) => return Err(AcpFsError::not_found(from.requested.as_str())),
        Err(e) => return Err(move_error(e, &from, &to)),
    }
    if let Ok(Some(_)) = kind_at(shared, io, &to.real).await {
        return Err(move_error(StorageError::new(StorageErrorKind::AlreadyExists, ""), &from, &to));
    }
    let change = ChangeRecord {
        session_id: session_id.to_owned(),
        path: to.requested.as_str().to_owned(),
        created: false,
        old_text: None,
        new_text: String::new(),
        merged: false,
        kind: ChangeKind::Move,
        from: Some(from.requested.as_str().to_owned()),
        created_dirs: Vec::new(),
    };
    if !io.approve(change.clone()).await.map_err(|e| storage_error(e, &from.requested))? {
        return Err(rejected(&from.requested, "the user rejected this move"));
    }
    let renamed = io.rename(root.as_str(), from.real.as_str(), to.real.as_str()).await;
    {
        let mut index = shared.line_index();
        index.forget(from.real.as_str());
        index.forget(to.real.as_str());
    }
    renamed.map_err(|e| move_error(e, &from, &to))?;
    let mut documents = shared.move_documents(&from.requested, &to.requested);
    if !from.real.same_as(&from.requested) {
        documents.extend(shared.move_documents(&from.real, &to.real));
    }
    drop(tickets);
    let documents = documents.into_iter().map(|(a, b)| (a.as_str().to_owned(), b.as_str().to_owned())).collect();
    Ok(Moved { change, documents })
}

/// What is at `real` without following a last symlink; `None` when nothing is, or when the
/// storage cannot stat (the storage call that follows then has the last word).
async fn kind_at(shared: &Shared, io: &Channel, real: &AbsPath) -> Result<Option<FileKind>, StorageError> {
    if !shared.caps.stat {
        return Ok(None);
    }
    match io.stat(real.as_str(), false).await {
        Ok(meta) => Ok(Some(meta.kind)),
        Err(e) if e.kind == StorageErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A storage error of a move, named for the end it is about.
fn move_error(e: StorageError, from: &Target, to: &Target) -> AcpFsError {
    match e.kind {
        StorageErrorKind::AlreadyExists => AcpFsError::denied(
            ErrorKind::AlreadyExists,
            to.requested.as_str(),
            "the destination exists, and a move never replaces anything; move it away or choose another name",
        ),
        StorageErrorKind::NotFound => AcpFsError::not_found(from.requested.as_str()),
        _ => storage_error(e, &from.requested),
    }
}

fn not_a_directory(requested: &AbsPath, at: &AbsPath) -> AcpFsError {
    AcpFsError::denied(ErrorKind::NotAFile, requested.as_str(), format!("{at} exists and is not a directory"))
}

fn rejected(requested: &AbsPath, hint: &str) -> AcpFsError {
    AcpFsError::denied(ErrorKind::UserRejected, requested.as_str(), hint)
}

/// An error after some directories were made: they stay (a change that started is not rolled
/// back, semantics.md §6), and the error names them so the agent and the host know.
fn midway(mut e: AcpFsError, made: &[&(AbsPath, AbsPath)]) -> AcpFsError {
    if made.is_empty() {
        return e;
    }
    let list: Vec<&str> = made.iter().map(|(_, name)| name.as_str()).collect();
    let note = format!(" (made before the failure, and left in place: {})", list.join(", "));
    e.message.push_str(&note);
    if let Some(hint) = e.data.get_mut("hint") {
        if let Some(h) = hint.as_str() {
            *hint = format!("{h}{note}").into();
        }
    }
    e
}
