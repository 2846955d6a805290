//! A tool's path checked as strictly as a read (semantics.md §3, §8.2): inside the session's
//! roots by name and by real path, and not denied.

use crate::ask::Channel;
use crate::contain::{self, Target};
use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::state::Shared;

/// The checked target of `path` for `session_id`.
pub(crate) async fn resolve(
    shared: &Shared,
    io: &Channel,
    session_id: &str,
    path: AbsPath,
) -> Result<Target, AcpFsError> {
    let roots = shared.roots(session_id)?;
    let real_root = contain::by_name(shared, io, &roots, &path, false).await?;
    contain::resolve(shared, io, &roots, real_root, path, false).await
}
