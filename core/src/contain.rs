//! Roots, deny rules and real-path containment (semantics.md §3, §8).

use crate::ask::Channel;
use crate::error::{AcpFsError, ErrorKind};
use crate::path::AbsPath;
use crate::refuse::storage_error;
use crate::state::{Document, Shared};
use crate::storage::{StorageError, StorageErrorKind, Symlinks};

/// A path that passed every check.
pub(crate) struct Target {
    /// What the agent asked for, normalized: used in messages and as the overlay key.
    pub requested: AbsPath,
    /// Where the I/O goes: the resolved path when the storage has symlinks.
    pub real: AbsPath,
    /// The root `real` lies under (resolved when the storage has symlinks): storages that can
    /// open relative to it do, so nothing outside it is reached even if the disk moves.
    pub root: AbsPath,
    /// Trailing components that do not exist yet (0: the file exists; 1: only the file is
    /// missing); `None` when the storage cannot tell (no symlink support, so no resolution).
    pub missing: Option<usize>,
}

/// The checks on the requested name: the roots and the deny list.
///
/// A root is also known by its real path (semantics.md §8): an agent that canonicalized its
/// working directory, as Node's `process.cwd()` does on macOS (`/tmp` is `/private/tmp`), names
/// files under the root's real path. Roots are resolved only when the names disagree, so a
/// request under a root's own name costs no I/O here, and a root that cannot be resolved
/// contains nothing beyond its name. Answers the real root it resolved, if it had to, so that
/// [`resolve`] does not resolve the roots again.
pub(crate) async fn by_name(
    shared: &Shared,
    io: &Channel,
    roots: &[AbsPath],
    path: &AbsPath,
    access: Access,
) -> Result<Option<AbsPath>, AcpFsError> {
    let mut real_root = None;
    let inside = roots.iter().any(|r| path.starts_with(r)) || {
        if shared.caps.symlinks == Symlinks::Resolvable {
            real_root = resolved_root_of(io, roots, path).await;
        }
        real_root.is_some()
    };
    if !inside {
        if shared.policy.options.zed_compat && !access.writes() {
            return Err(AcpFsError::not_found(path.as_str()));
        }
        return Err(AcpFsError::denied(
            ErrorKind::PathOutsideRoots,
            path.as_str(),
            "the path is outside the session's roots (cwd and additional directories)",
        ));
    }
    deny(shared, path, path, access).map(|()| real_root)
}

/// What a request does with its path: the deny list judges each differently, and an entry is
/// resolved without following its last name.
#[derive(Clone, Copy, PartialEq, Eq)]
// Directory, MakeDirectory and Entry are the MCP tools' alone.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) enum Access {
    Read,
    Write,
    /// Listing or searching a directory (MCP tools): `allowExtensions` is for files.
    Directory,
    /// Making a directory (`create_directory`): the write rules, and not `allowExtensions`.
    MakeDirectory,
    /// An end of a move (`move_file`): the write rules, on the entry itself; its parent is
    /// resolved, its last name is not followed (see [`resolve`]).
    Entry,
}

impl Access {
    /// Whether the deny list judges the path by its write rules (a file written, an entry moved).
    fn writes(self) -> bool {
        matches!(self, Access::Write | Access::Entry)
    }
}

fn deny(shared: &Shared, checked: &AbsPath, requested: &AbsPath, access: Access) -> Result<(), AcpFsError> {
    let deny = &shared.policy.deny;
    let refused = match access {
        Access::Directory => deny.check_directory(checked),
        Access::MakeDirectory => deny.check_directory_write(checked),
        Access::Read | Access::Write | Access::Entry => deny.check(checked, access.writes()),
    };
    match refused {
        Some(hint) => Err(AcpFsError::denied(ErrorKind::DeniedByPattern, requested.as_str(), hint)),
        None => Ok(()),
    }
}

/// Resolves `path` through the storage and checks that its real location is inside a root;
/// `real_root` is the root [`by_name`] already resolved, if it did.
///
/// [`Access::Entry`] takes the path as an entry of its directory (the ends of a move): the
/// parent is resolved as a write's is, the last name is not followed, so what is checked is the
/// entry itself and never what a link there points to. Its target's `missing` says whether the
/// parent exists, `Some(0)`, or how many components up to it are missing (the entry itself is
/// for the caller to look at), and the deny list is checked on the real name too. Such a `path`
/// is not a root (the caller refuses that).
pub(crate) async fn resolve(
    shared: &Shared,
    io: &Channel,
    roots: &[AbsPath],
    real_root: Option<AbsPath>,
    path: AbsPath,
    access: Access,
) -> Result<Target, AcpFsError> {
    if access != Access::Entry {
        return resolve_path(shared, io, roots, real_root, path, access).await;
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name().map(str::to_owned)) else {
        return resolve_path(shared, io, roots, real_root, path, Access::Write).await;
    };
    let dir = resolve_path(shared, io, roots, real_root, parent, Access::Write).await?;
    let real = dir.real.join([name.as_str()]);
    if !real.same_as(&path) {
        deny(shared, &real, &path, access)?;
    }
    Ok(Target { requested: path, real, root: dir.root, missing: dir.missing })
}

/// [`resolve`] of the path itself, its last name followed.
async fn resolve_path(
    shared: &Shared,
    io: &Channel,
    roots: &[AbsPath],
    real_root: Option<AbsPath>,
    path: AbsPath,
    access: Access,
) -> Result<Target, AcpFsError> {
    match shared.caps.symlinks {
        Symlinks::None => {
            let root = lexical_root(roots, &path);
            Ok(Target { real: path.clone(), requested: path, root, missing: None })
        }
        Symlinks::Unresolvable => Err(AcpFsError::denied(
            ErrorKind::SymlinkEscape,
            path.as_str(),
            "the storage has symlinks but cannot resolve them, so containment cannot be proven",
        )),
        Symlinks::Resolvable => {
            let (real, missing) = match real_path(io, &path).await {
                Ok(found) => found,
                Err(Resolve::Dangling) => {
                    return Err(AcpFsError::denied(
                        ErrorKind::SymlinkEscape,
                        path.as_str(),
                        "a dangling symlink on the path cannot be proven to stay inside the roots",
                    ))
                }
                Err(Resolve::Storage(e)) => return Err(storage_error(e, &path)),
            };
            // A canonical path lexically under a root is physically under it (every component
            // of a canonical path is a real directory), so roots are resolved only when needed.
            let known = roots.iter().chain(&real_root).find(|r| real.starts_with(r));
            let root = match known {
                Some(root) => root.clone(),
                None => match resolved_root_of(io, roots, &real).await {
                    Some(root) => root,
                    None => {
                        return Err(AcpFsError::denied(
                            ErrorKind::SymlinkEscape,
                            path.as_str(),
                            format!("the path resolves to {real}, outside the session's roots"),
                        ))
                    }
                },
            };
            if !real.same_as(&path) {
                deny(shared, &real, &path, access)?;
            }
            Ok(Target { requested: path, real, root, missing: Some(missing) })
        }
    }
}

/// How many trailing components of `path` do not exist (0: it exists), by stat, for a storage
/// without symlinks, which [`resolve`] does not walk; `None` when the storage fails otherwise
/// than "not found". The same count [`Target::missing`] holds where symlinks are resolved.
pub(crate) async fn missing_by_stat(io: &Channel, path: &AbsPath) -> Option<usize> {
    let mut count = 0;
    let mut at = Some(path.clone());
    while let Some(p) = at {
        match io.stat(p.as_str(), true).await {
            Ok(_) => return Some(count),
            Err(e) if e.kind == StorageErrorKind::NotFound => {
                count += 1;
                at = p.parent();
            }
            Err(_) => return None,
        }
    }
    Some(count)
}

/// The first root whose real path contains `real`, as that real path.
async fn resolved_root_of(io: &Channel, roots: &[AbsPath], real: &AbsPath) -> Option<AbsPath> {
    for root in roots {
        // A root that cannot be resolved contains nothing: fail closed.
        if let Ok((resolved, _)) = real_path(io, root).await {
            if real.starts_with(&resolved) {
                return Some(resolved);
            }
        }
    }
    None
}

/// The root a lexically checked path lies under ([`by_name`] has made sure there is one).
fn lexical_root(roots: &[AbsPath], path: &AbsPath) -> AbsPath {
    roots.iter().find(|r| path.starts_with(r)).unwrap_or(path).clone()
}

/// The open document that shows the target's file, with the name the host opened it under:
/// the requested path, the real path, or another name (a symlink) that resolves to the same
/// real path, so a buffer is found whichever name the agent and the user each used.
pub(crate) async fn document(shared: &Shared, io: &Channel, target: &Target) -> Option<(AbsPath, Document)> {
    for name in [&target.requested, &target.real] {
        if let Some(text) = shared.document(name) {
            return Some((name.clone(), text));
        }
    }
    if shared.caps.symlinks != Symlinks::Resolvable {
        return None;
    }
    for (name, text) in shared.documents() {
        if name.same_as(&target.requested) || name.same_as(&target.real) {
            continue;
        }
        // A document whose file is gone or unreachable names no file on disk: not this one.
        if let Ok(p) = io.real_path(name.as_str()).await {
            if AbsPath::parse(&p).is_ok_and(|p| p.same_as(&target.real)) {
                return Some((name, text));
            }
        }
    }
    None
}

enum Resolve {
    Dangling,
    Storage(StorageError),
}

/// The real path of `path`, or of its nearest existing ancestor joined with the missing rest;
/// also how many trailing components are missing.
async fn real_path(io: &Channel, path: &AbsPath) -> Result<(AbsPath, usize), Resolve> {
    let mut current = path.clone();
    let mut missing: Vec<String> = Vec::new();
    loop {
        match io.real_path(current.as_str()).await {
            Ok(p) => {
                let real = AbsPath::parse(&p).map_err(|why| {
                    Resolve::Storage(StorageError::new(
                        StorageErrorKind::Other,
                        format!("the storage resolved {current} to a path that is not absolute ({why})"),
                    ))
                })?;
                let count = missing.len();
                return Ok((real.join(missing.iter().rev().map(String::as_str)), count));
            }
            Err(e) if is_missing(&e) => {
                // realpath fails both when nothing is there and when a symlink dangles; only
                // lstat tells them apart.
                match io.stat(current.as_str(), false).await {
                    Ok(_) => return Err(Resolve::Dangling),
                    Err(e) if is_missing(&e) => {}
                    Err(e) => return Err(Resolve::Storage(e)),
                }
                match (current.file_name(), current.parent()) {
                    (Some(name), Some(parent)) => {
                        missing.push(name.to_owned());
                        current = parent;
                    }
                    // Not even the file-system root exists: nothing to resolve through.
                    _ => return Ok((path.clone(), missing.len())),
                }
            }
            Err(e) => return Err(Resolve::Storage(e)),
        }
    }
}

fn is_missing(e: &StorageError) -> bool {
    matches!(e.kind, StorageErrorKind::NotFound | StorageErrorKind::NotADirectory)
}
