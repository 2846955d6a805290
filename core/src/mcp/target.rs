//! A tool's path checked as strictly as a read (semantics.md §3, §8.2): inside the session's
//! roots by name and by real path, and not denied.

use crate::ask::Channel;
use crate::contain::{self, Access, Target};
use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::state::Shared;

/// The checked target of `path` for `session_id`, to read.
pub(crate) async fn resolve(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    path: AbsPath,
) -> Result<Target, AcpFsError> {
    resolve_for(shared, io, session_id, path, Access::Read).await
}

/// [`resolve`] for a directory to list or search (`allowExtensions` is for files).
pub(crate) async fn resolve_dir(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    path: AbsPath,
) -> Result<Target, AcpFsError> {
    resolve_for(shared, io, session_id, path, Access::Directory).await
}

async fn resolve_for(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    path: AbsPath,
    access: Access,
) -> Result<Target, AcpFsError> {
    let roots = shared.roots(session_id)?;
    let real_root = contain::by_name(shared, io, &roots, &path, access).await?;
    contain::resolve(shared, io, &roots, real_root, path, access).await
}
