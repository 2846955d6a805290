//! `list_allowed_directories`: the session's roots.

use super::arguments::Call;
use super::registry::{object_schema, Annotations, Tool};
use super::{output, start};
use serde_json::json;

pub(crate) const LIST_ALLOWED_DIRECTORIES: Tool = Tool {
    name: "list_allowed_directories",
    title: "List Allowed Directories",
    description: "Returns the list of directories that this server is allowed to access. \
        Subdirectories within these allowed directories are also accessible. \
        Use this to understand which directories and their nested paths are available \
        before trying to access files.",
    input: || object_schema(json!({}), &[]),
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[],
    start: |call: &Call| {
        // The roots as the session named them (cwd first): what every other tool accepts.
        let roots = call.fs.roots(call.session_id)?;
        start::operation(call, "read", |_, _| async move {
            let text = format!("Allowed directories:\n{}", roots.join("\n"));
            let bytes = text.len() as u64;
            Ok(output::done(output::plain(text), bytes))
        })
    },
    answer: super::registry::answer,
};
