//! The tool registry: what each tool declares (name, schemas, annotations, the storage
//! capabilities it needs) and how it starts. [`TOOLS`] is the one list; `tools/list` and
//! `tools/call` both read it.

use super::arguments::Call;
use super::{changes, find, grep, info, listing, media, output, reads, roots, text_files};
use crate::error::AcpFsError;
use crate::operation::Operation;
use crate::protocol::Response;
use crate::state::Shared;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// One MCP tool.
pub(crate) struct Tool {
    /// The name agents call it by (the reference server's, where it has the tool).
    pub name: &'static str,
    /// `title`: the human-readable name clients show.
    pub title: &'static str,
    /// What the model reads; the session's roots are appended.
    pub description: &'static str,
    /// `inputSchema`. Its `properties` are the only arguments accepted: any other is refused
    /// by name ([`Call::new`]).
    pub input: fn() -> Value,
    /// `outputSchema` of `structuredContent` (`None`: the tool answers text only).
    pub output: Option<fn() -> Value>,
    pub annotations: Annotations,
    /// What the engine and its storage must be able to do for the tool to be offered.
    pub needs: &'static [Need],
    /// Builds the operation from checked arguments; an `Err` is answered as a tool error
    /// without any I/O.
    pub start: fn(&Call) -> Result<Operation, AcpFsError>,
    /// The tool result from the operation's outcome (or the argument error).
    /// Borrowed where the operation's result is the tool result as it stands, so a large answer
    /// is not copied on its way into the reply.
    pub answer: for<'a> fn(&'a Value, Result<&'a Response, &'a AcpFsError>) -> Cow<'a, Value>,
}

/// MCP tool annotations (hints a client may act on: codex-acp asks the user before every
/// call of a tool without `readOnlyHint`).
#[derive(Clone, Copy)]
pub(crate) struct Annotations {
    pub read_only: bool,
    /// Meaningful only for tools that change something.
    pub destructive: bool,
    pub idempotent: bool,
}

impl Annotations {
    /// A tool that changes nothing.
    pub const READ_ONLY: Annotations = Annotations { read_only: true, destructive: false, idempotent: true };

    fn to_json(self) -> Value {
        let mut a = Map::new();
        a.insert("readOnlyHint".into(), self.read_only.into());
        if !self.read_only {
            a.insert("destructiveHint".into(), self.destructive.into());
        }
        a.insert("idempotentHint".into(), self.idempotent.into());
        // Only the session's roots are reached: no outside world.
        a.insert("openWorldHint".into(), false.into());
        Value::Object(a)
    }
}

/// Something a tool needs from the engine or its storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code, reason = "needed by the listing and mutating tools, landing next")]
pub(crate) enum Need {
    /// Writes are wired (a write-capable storage, and not `readOnly`).
    Write,
    /// The storage describes a file (`StorageCaps::stat`).
    Stat,
    /// The storage lists directories (`StorageCaps::list`).
    List,
    /// The storage renames without replacing (`StorageCaps::rename`).
    Rename,
    /// The storage makes one directory (`StorageCaps::make_dir`).
    MakeDir,
}

impl Need {
    /// Why the tool is left out, or `None` when the need is met.
    pub fn unmet(self, shared: &Shared) -> Option<&'static str> {
        match self {
            Need::Write if !shared.can_write() => Some("writes are off (a read-only storage or option readOnly)"),
            Need::Stat if !shared.caps.stat => Some("the storage cannot stat (caps.stat)"),
            Need::List if !shared.caps.list => Some("the storage cannot list directories (caps.list)"),
            Need::Rename if !shared.caps.rename => Some("the storage cannot rename (caps.rename)"),
            Need::MakeDir if !shared.caps.make_dir => Some("the storage cannot make a directory (caps.makeDir)"),
            _ => None,
        }
    }
}

/// Every tool, in `tools/list` order. Registering a tool is adding it here (see the module
/// docs of `mcp`).
pub(crate) const TOOLS: &[&Tool] = &[
    &reads::READ_TEXT_FILE,
    &text_files::WRITE_TEXT_FILE,
    &reads::READ_FILE,
    &media::READ_MEDIA_FILE,
    &reads::READ_MULTIPLE_FILES,
    &changes::WRITE_FILE,
    &changes::EDIT_FILE,
    &changes::CREATE_DIRECTORY,
    &listing::LIST_DIRECTORY,
    &listing::LIST_DIRECTORY_WITH_SIZES,
    &listing::DIRECTORY_TREE,
    &changes::MOVE_FILE,
    &find::SEARCH_FILES,
    &grep::SEARCH_TEXT,
    &info::GET_FILE_INFO,
    &roots::LIST_ALLOWED_DIRECTORIES,
];

impl Tool {
    /// Why this engine cannot offer the tool, or `None` if it can.
    pub fn unavailable(&self, shared: &Shared) -> Option<&'static str> {
        self.needs.iter().find_map(|n| n.unmet(shared))
    }

    /// The `tools/list` entry; `where_` is appended to the description (the roots).
    pub fn definition(&self, where_: &str) -> Value {
        let mut d = Map::new();
        d.insert("name".into(), self.name.into());
        d.insert("title".into(), self.title.into());
        d.insert("description".into(), format!("{}{where_}", self.description).into());
        d.insert("inputSchema".into(), (self.input)());
        if let Some(output) = self.output {
            d.insert("outputSchema".into(), output());
        }
        d.insert("annotations".into(), self.annotations.to_json());
        Value::Object(d)
    }
}

/// The tools `shared` can serve, and those it cannot with the reason.
pub(crate) fn offered(shared: &Shared) -> impl Iterator<Item = &'static Tool> + '_ {
    TOOLS.iter().copied().filter(|t| t.unavailable(shared).is_none())
}

/// A tool's `inputSchema` from its properties and required names (no other argument allowed).
pub(crate) fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The default [`Tool::answer`]: a tool's own result ([`Response::Tool`]) as it is, an error
/// as an `isError` result naming its kind.
pub(crate) fn answer<'a>(args: &'a Value, result: Result<&'a Response, &'a AcpFsError>) -> Cow<'a, Value> {
    match result {
        Ok(Response::Tool(result)) => Cow::Borrowed(result),
        Ok(_) => {
            Cow::Owned(output::error(args, &AcpFsError::internal("the operation answered an fs result to a tool call")))
        }
        Err(e) => Cow::Owned(output::error(args, e)),
    }
}
