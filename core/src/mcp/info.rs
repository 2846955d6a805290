//! `get_file_info`: what the storage knows of a file or directory, as `key: value` lines (the
//! reference server's form), with the editor's view of it: an open document's unsaved text
//! is its size.

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Need, Tool};
use super::{output, start, target};
use crate::contain;
use crate::error::{AcpFsError, ErrorKind};
use crate::operation::Operation;
use crate::refuse::storage_error;
use crate::storage::{FileKind, StorageErrorKind};
use serde_json::json;

pub(crate) const GET_FILE_INFO: Tool = Tool {
    name: "get_file_info",
    title: "Get File Info",
    description: "Retrieve detailed metadata about a file or directory. Returns comprehensive \
        information including size, last modified time and type, and whether the file is open \
        in the editor with unsaved changes. This tool is perfect for understanding file \
        characteristics without reading the actual content. Only works within allowed directories.",
    input: || object_schema(json!({"path": {"type": "string"}}), &["path"]),
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::Stat],
    start,
    answer: registry::answer,
};

fn start(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        // A directory is described whatever allowExtensions says; a file is held to it (below).
        let target = target::resolve_dir(&shared, &io, &session_id, path).await?;
        let document = contain::document(&shared, &io, &target).await.map(|(_, d)| d);
        let (kind, mut size, modified) = match io.stat(target.real.as_str(), true).await {
            Ok(meta) => (meta.kind, meta.size, meta.modified),
            // A document open for a file not yet on disk is a file: the editor shows it.
            Err(e) if document.is_some() && matches!(e.kind, StorageErrorKind::NotFound) => (FileKind::File, 0, None),
            Err(e) => return Err(storage_error(e, &target.requested)),
        };
        if kind != FileKind::Directory {
            for checked in [&target.requested, &target.real] {
                if let Some(hint) = shared.policy.deny.check(checked, false) {
                    return Err(AcpFsError::denied(ErrorKind::DeniedByPattern, target.requested.as_str(), hint));
                }
            }
        }
        let unsaved = document.as_ref().is_some_and(|d| !d.clean);
        if let Some(doc) = document.as_ref().filter(|d| !d.clean) {
            size = doc.text.len() as u64;
        }
        let mut lines = vec![format!("size: {size}")];
        if let Some(ns) = modified.filter(|_| !unsaved) {
            lines.push(format!("modified: {}", iso8601(ns)));
        }
        lines.push(format!("isDirectory: {}", kind == FileKind::Directory));
        lines.push(format!("isFile: {}", kind == FileKind::File));
        if document.is_some() {
            lines.push("openInEditor: true".to_owned());
            lines.push(format!("unsavedChanges: {unsaved}"));
        }
        let text = lines.join("\n");
        Ok(output::done(output::plain(text), 0))
    })
}

/// `ns` since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (what JavaScript's `toISOString`
/// writes), by the civil-from-days algorithm (Howard Hinnant's): a date is all the engine
/// needs of a calendar, so no date crate.
pub(crate) fn iso8601(ns: u64) -> String {
    let ms = ns / 1_000_000;
    let (days, ms_of_day) = ((ms / 86_400_000) as i64, ms % 86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_as_javascript_writes_them() {
        assert_eq!(super::iso8601(0), "1970-01-01T00:00:00.000Z");
        // new Date(1709210096789).toISOString() (a leap day)
        assert_eq!(super::iso8601(1_709_210_096_789_000_000), "2024-02-29T12:34:56.789Z");
        assert_eq!(super::iso8601(951_782_400_000_000_000), "2000-02-29T00:00:00.000Z");
    }
}
