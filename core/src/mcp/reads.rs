//! The reading tools: `read_text_file` (the reference server's `head`/`tail` beside our
//! `line`/`limit`), its deprecated alias `read_file`, and `read_multiple_files`. Every read is
//! the engine's `fs/read_text_file` (semantics.md §2–§4, §9): unsaved buffers, containment,
//! encodings and the read ledger come with it.

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Tool};
use super::{output, start};
use crate::agent;
use crate::error::AcpFsError;
use crate::operation::Operation;
use crate::params::{FlatParams, Scalar};
use crate::path::AbsPath;
use crate::protocol::{self, Response};
use crate::read;
use memchr::memrchr;
use serde_json::{json, Value};
use std::borrow::Cow;

const READ_DESCRIPTION: &str = "Read the complete contents of a file as text, through the editor: an \
    open document's unsaved text is what you get. Returns the exact text, line terminators \
    included. Use 'head' for only the first N lines or 'tail' for only the last N lines, or \
    'line' (1-based) and 'limit' for a window anywhere in the file. Paths are absolute or \
    relative to the session's working directory. Only works within allowed directories.";

pub(crate) const READ_TEXT_FILE: Tool = Tool {
    name: agent::READ_TOOL,
    title: "Read Text File",
    description: READ_DESCRIPTION,
    input: read_schema,
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[],
    start: start_read,
    answer: answer_read,
};

pub(crate) const READ_FILE: Tool = Tool {
    name: "read_file",
    title: "Read File (Deprecated)",
    description: "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
    ..READ_TEXT_FILE
};

pub(crate) const READ_MULTIPLE_FILES: Tool = Tool {
    name: "read_multiple_files",
    title: "Read Multiple Files",
    description: "Read the contents of multiple files simultaneously. This is more efficient than \
        reading files one by one when you need to analyze or compare multiple files. Each file's \
        content is returned with its path as a reference. Failed reads for individual files won't \
        stop the entire operation. Only works within allowed directories.",
    input: || {
        object_schema(
            json!({"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                "description": "Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}}),
            &["paths"],
        )
    },
    output: Some(output::content_schema),
    annotations: Annotations::READ_ONLY,
    needs: &[],
    start: start_multiple,
    answer: registry::answer,
};

fn read_schema() -> Value {
    let count = |what: &str| json!({"type": "integer", "minimum": 0, "description": what});
    let mut schema = agent::read_input_schema();
    let props = &mut schema["properties"];
    props["path"]["description"] = "Path of the file, absolute or relative to the session's working directory.".into();
    props["head"] = count("If provided, returns only the first N lines of the file");
    props["tail"] = count("If provided, returns only the last N lines of the file");
    schema
}

/// `head`/`tail` become a window or a post-cut of a whole read; `line`/`limit` pass through
/// with the fs method's own rules (§2), so the errors name the same fields.
fn start_read(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let (head, tail) = (call.opt_count("head")?, call.opt_count("tail")?);
    let window = ["line", "limit"].into_iter().find(|k| call.args.get(*k).is_some_and(|v| !v.is_null()));
    if head.is_some() && tail.is_some() {
        return Err(AcpFsError::invalid_params("tail", "cannot be given with head (ask for one end)"));
    }
    if let (Some(field), Some(other)) = (head.map(|_| "head").or(tail.map(|_| "tail")), window) {
        return Err(AcpFsError::invalid_params(field, format!("cannot be combined with {other}")));
    }
    let mut params = json!({"sessionId": call.session_id, "path": path.as_str()});
    for k in ["line", "limit"] {
        if let Some(v) = call.args.get(k) {
            params[k] = v.clone();
        }
    }
    if let Some(head) = head {
        // More lines than u32 holds is every line: no file in bounds has that many.
        params["limit"] = head.min(u64::from(u32::MAX)).into();
    }
    // A tool read, not an agent's fs/* read: no agent quirk applies (semantics.md §8).
    call.fs
        .tool_request(protocol::READ_TEXT_FILE, params)
        .ok_or_else(|| AcpFsError::method_not_found(protocol::READ_TEXT_FILE))
}

fn answer_read<'a>(args: &'a Value, result: Result<&'a Response, &'a AcpFsError>) -> Cow<'a, Value> {
    match result {
        Ok(Response::Read(read)) => {
            let content = match args.get("tail").and_then(Value::as_f64) {
                Some(n) => last_lines(&read.content, n as u64).to_owned(),
                None => read.content.clone(),
            };
            Cow::Owned(output::plain(content))
        }
        other => registry::answer(args, other),
    }
}

/// The last `n` lines of `text`, terminators included. A final `\n` ends the last line; it does
/// not start an empty one (the reference server counts that empty line, so its `tail: 1` of a
/// file ending in a newline is empty).
pub(crate) fn last_lines(text: &str, n: u64) -> &str {
    if n == 0 {
        return "";
    }
    let bytes = text.as_bytes();
    let mut start = bytes.len() - usize::from(bytes.last() == Some(&b'\n'));
    let mut left = n;
    while let Some(i) = memrchr(b'\n', &bytes[..start]) {
        left -= 1;
        if left == 0 {
            return &text[i + 1..];
        }
        start = i;
    }
    text
}

fn start_multiple(call: &Call) -> Result<Operation, AcpFsError> {
    let raw = call.strings("paths")?;
    if raw.is_empty() {
        return Err(AcpFsError::invalid_params("paths", "must hold at least one path"));
    }
    let paths: Vec<(String, Result<AbsPath, AcpFsError>)> =
        raw.into_iter().enumerate().map(|(i, p)| (p.clone(), call.resolve(&format!("paths[{i}]"), &p))).collect();
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let max = shared.policy.options.max_tool_output_bytes;
        // One answer string, each part written into it as it comes: no list of parts to join.
        let (mut text, mut used, mut bytes) = (String::new(), 0u64, 0u64);
        let mut parts = Parts(&mut text);
        for (shown, path) in paths {
            // A file is read whole or not at all; once the answer holds maxToolOutputBytes the
            // rest are named, unread, so the model can ask for them again.
            if used >= max {
                parts.push(&format!(
                    "{shown}: Error - not read: this answer reached maxToolOutputBytes ({max} bytes); read it in another call"
                ));
                continue;
            }
            let read = match path {
                Ok(path) => {
                    let mut params = FlatParams::default();
                    params.push("sessionId", Scalar::Text(session_id.clone()));
                    params.push("path", Scalar::Text(path.as_str().to_owned()));
                    read::run(shared.clone(), params.into(), io.clone(), read::Asker::Mcp)
                        .await
                        .map(|done| done.response)
                }
                Err(e) => Err(e),
            };
            let part = match read {
                Ok(Response::Read(r)) => {
                    bytes += r.content.len() as u64;
                    parts.push_all(&[&shown, ":\n", &r.content, "\n"])
                }
                Ok(_) => parts.push(&format!("{shown}: Error - the read answered no text")),
                Err(e) => parts.push(&format!("{shown}: Error - {}", agent::error_text(&shown, &e.to_json_rpc()))),
            };
            used += part as u64;
        }
        Ok(output::done(output::plain(text), bytes))
    })
}

/// The parts of a `read_multiple_files` answer, separated by `---` lines.
struct Parts<'a>(&'a mut String);

impl Parts<'_> {
    /// Writes one part; its length (the separator before it not counted).
    fn push(&mut self, part: &str) -> usize {
        self.push_all(&[part])
    }

    /// Writes one part made of `pieces`; its length (the separator before it not counted).
    fn push_all(&mut self, pieces: &[&str]) -> usize {
        if !self.0.is_empty() {
            self.0.push_str("\n---\n");
        }
        let start = self.0.len();
        for piece in pieces {
            self.0.push_str(piece);
        }
        self.0.len() - start
    }
}

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn tail_counts_lines_as_a_person_does() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(last_lines("a\nb\nc\n", 1), "c\n");
        assert_eq!(last_lines("a\nb\nc", 1), "c");
        assert_eq!(last_lines("a\r\nb\r\n", 1), "b\r\n");
        assert_eq!(last_lines("a\n\n", 1), "\n", "an empty last line is a line");
        assert_eq!(last_lines("a\nb\n", 5), "a\nb\n");
        assert_eq!(last_lines("", 3), "");
        assert_eq!(last_lines("a\n", 0), "");
    }
}
