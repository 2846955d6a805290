//! The tools that change files (semantics.md §10.7): `write_file`, `edit_file`,
//! `create_directory` and `move_file`, with the reference server's names, arguments and result
//! texts, and an editor's semantics: every change goes through the engine's write path or
//! `mutate.rs` (containment, the deny list for writes, approval, open documents, change records).

use super::arguments::Call;
use super::edit::{self, Edit};
use super::mutate;
use super::output;
use super::registry::{object_schema, Annotations, Need, Tool};
use crate::error::AcpFsError;
use crate::operation::{Done, Operation};
use crate::params::Echo;
use crate::protocol::Response;
use crate::write::{self, Content, Request};
use serde_json::{json, Map, Value};

pub(crate) const WRITE_FILE: Tool = Tool {
    name: "write_file",
    title: "Write File",
    description: "Create a new file or completely overwrite an existing file with new content, \
        through the editor: the user may be asked to approve the change, an open buffer takes the \
        text, and a file changed since you read it is merged or refused rather than overwritten. \
        Missing parent directories are created. Only works within allowed directories.",
    input: || object_schema(json!({"path": {"type": "string"}, "content": {"type": "string"}}), &["path", "content"]),
    output: Some(output::content_schema),
    annotations: Annotations { read_only: false, destructive: true, idempotent: true },
    needs: &[Need::Write],
    start: |call| {
        let path = call.path("path")?;
        let content = call.string("content")?.to_owned();
        let shown = call.string("path")?.to_owned();
        let request =
            Request { session_id: call.session_id.to_owned(), path, content: Content::Whole(content), dry_run: false };
        Ok(text_write(call, "write", request, move |_| format!("Successfully wrote to {shown}")))
    },
    answer: super::registry::answer,
};

pub(crate) const EDIT_FILE: Tool = Tool {
    name: "edit_file",
    title: "Edit File",
    description: "Make line-based edits to a text file. Each edit replaces exact text (oldText must \
        occur exactly once, whitespace included) with new content; edits apply in order, each to \
        the text the ones before it left, in the file as the editor has it now (unsaved changes \
        included). Line endings and a byte order mark are kept. Returns a git-style diff showing \
        the changes made; dryRun: only the diff, nothing changed. Only works within allowed \
        directories.",
    input: || {
        object_schema(
            json!({
                "path": {"type": "string"},
                "edits": {"type": "array", "items": object_schema(
                    json!({
                        "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
                        "newText": {"type": "string", "description": "Text to replace with"}
                    }),
                    &["oldText", "newText"],
                )},
                "dryRun": {"type": "boolean", "default": false, "description": "Preview changes using git-style diff format"}
            }),
            &["path", "edits"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations { read_only: false, destructive: true, idempotent: false },
    needs: &[Need::Write],
    start: |call| {
        let path = call.path("path")?;
        let edits = edits(call)?;
        let dry_run = call.opt_bool("dryRun")?.unwrap_or(false);
        let request = Request { session_id: call.session_id.to_owned(), path, content: Content::Edits(edits), dry_run };
        let kind = if dry_run { "read" } else { "write" };
        Ok(text_write(call, kind, request, |change| {
            let old = change.old_text.as_deref().unwrap_or("");
            edit::fenced(&edit::unified_diff(&change.path, old, &change.new_text))
        }))
    },
    answer: super::registry::answer,
};

pub(crate) const CREATE_DIRECTORY: Tool = Tool {
    name: "create_directory",
    title: "Create Directory",
    description: "Create a new directory or ensure a directory exists. Can create multiple nested \
        directories in one operation. If the directory already exists, this operation will succeed \
        silently. The user may be asked to approve the new directories. Only works within allowed \
        directories.",
    input: || object_schema(json!({"path": {"type": "string"}}), &["path"]),
    output: Some(output::content_schema),
    annotations: Annotations { read_only: false, destructive: false, idempotent: true },
    needs: &[Need::Write, Need::MakeDir],
    start: |call| {
        let path = call.path("path")?;
        let shown = call.string("path")?.to_owned();
        let session = call.session_id.to_owned();
        let echo = echo(call, path.as_str());
        let shared = call.shared();
        Ok(Operation::new("write", echo, move |io| {
            Box::pin(async move {
                let change = mutate::create_directory(&shared, &io, &session, path).await?;
                let text = format!("Successfully created directory {shown}");
                Ok(Done { bytes: 0, ..changed(output::plain(text), change) })
            })
        }))
    },
    answer: super::registry::answer,
};

pub(crate) const MOVE_FILE: Tool = Tool {
    name: "move_file",
    title: "Move File",
    description: "Move or rename files and directories. Can move files between directories and \
        rename them in a single operation. If the destination exists, the operation will fail \
        (nothing is ever replaced); the destination's directory must exist. An open editor buffer \
        of a moved file follows it. Both source and destination must be within allowed directories.",
    input: || {
        object_schema(
            json!({"source": {"type": "string"}, "destination": {"type": "string"}}),
            &["source", "destination"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations { read_only: false, destructive: true, idempotent: false },
    needs: &[Need::Write, Need::Rename],
    start: |call| {
        let source = call.path("source")?;
        let destination = call.path("destination")?;
        let text = format!("Successfully moved {} to {}", call.string("source")?, call.string("destination")?);
        let session = call.session_id.to_owned();
        let echo = echo(call, source.as_str());
        let shared = call.shared();
        Ok(Operation::new("write", echo, move |io| {
            Box::pin(async move {
                let moved = mutate::move_entry(&shared, &io, &session, source, destination).await?;
                // The model learns where the buffers it may read went (the host, from the record).
                let mut text = text;
                for (from, to) in &moved.documents {
                    text.push_str(&format!("\nThe open editor buffer of {from} is now {to}."));
                }
                Ok(Done { bytes: 0, ..changed(output::plain(text), Some(moved.change)) })
            })
        }))
    },
    answer: super::registry::answer,
};

/// A change of a file's text through the write path; `text` makes the tool's text from the
/// change record (what was written, or for a dry run what would be).
fn text_write(
    call: &Call,
    kind: &'static str,
    request: Request,
    text: impl FnOnce(&crate::ChangeRecord) -> String + Send + 'static,
) -> Operation {
    let echo = echo(call, request.path.as_str());
    let shared = call.shared();
    Operation::new(kind, echo, move |io| {
        Box::pin(async move {
            let dry_run = request.dry_run;
            let written = write::commit(&shared, &io, request).await?;
            let result = output::plain(text(&written.change));
            let bytes = if dry_run { 0 } else { written.change.new_text.len() as u64 };
            let change = (!dry_run).then_some(written.change);
            Ok(Done { bytes, stale: written.stale, ..changed(result, change) })
        })
    })
}

fn changed(result: Value, change: Option<crate::ChangeRecord>) -> Done {
    Done { response: Response::Tool(result), change, bytes: 0, stale: None }
}

/// The audit event names the session and the (resolved) path the tool works on.
fn echo(call: &Call, path: &str) -> Echo {
    Echo::named(call.session_id, Some(path))
}

/// `edits`: at least one `{oldText, newText}`, every member named by its index when it is wrong.
fn edits(call: &Call) -> Result<Vec<Edit>, AcpFsError> {
    let items = match call.args.get("edits") {
        None | Some(Value::Null) => return Err(AcpFsError::invalid_params("edits", "required")),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(AcpFsError::invalid_params("edits", "must be an array of {oldText, newText}")),
    };
    if items.is_empty() {
        return Err(AcpFsError::invalid_params("edits", "must hold at least one edit"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let obj: &Map<String, Value> = item.as_object().ok_or_else(|| {
                AcpFsError::invalid_params(&format!("edits[{i}]"), "must be an object {oldText, newText}")
            })?;
            if let Some(extra) = obj.keys().find(|k| !matches!(k.as_str(), "oldText" | "newText")) {
                return Err(AcpFsError::invalid_params(&format!("edits[{i}].{extra}"), "unknown argument"));
            }
            let text = |k: &str| match obj.get(k) {
                Some(Value::String(s)) => Ok(s.clone()),
                None | Some(Value::Null) => Err(AcpFsError::invalid_params(&format!("edits[{i}].{k}"), "required")),
                Some(_) => Err(AcpFsError::invalid_params(&format!("edits[{i}].{k}"), "must be a string")),
            };
            Ok(Edit { old_text: text("oldText")?, new_text: text("newText")? })
        })
        .collect()
}
