//! Engine options (semantics.md; the same names as the JS options object).

use crate::deny::DenyList;
use crate::error::AcpFsError;
use crate::path::AbsPath;
use serde::{Deserialize, Deserializer};

/// What a start line past the last row answers (semantics.md §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PastEnd {
    /// `-32602` "Attempting to read beyond the end of the file, line L" (Zed-compatible).
    #[default]
    Error,
    /// `""`.
    Empty,
}

/// How a write treats line endings (semantics.md §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LineEndings {
    /// An existing CRLF file stays CRLF when the new content has no `\r`.
    #[default]
    Preserve,
    /// Bytes are written exactly as sent.
    AsIs,
}

/// What a write does to a file that changed since the session's agent read it (semantics.md §9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OnConflict {
    /// A three-way merge of what the agent read, what is there now and the agent's content;
    /// overlapping edits are refused (`stale_write`).
    #[default]
    Merge,
    /// Any change since the read refuses the write (`stale_write`).
    Reject,
    /// The agent's content replaces whatever is there.
    Overwrite,
}

/// Engine options. Deserializes from the camelCase JSON the JS packages take.
///
/// ```
/// use acp_fs::Options;
/// let o = Options::from_json(&serde_json::json!({ "pastEnd": "empty", "deny": false })).unwrap();
/// assert_eq!(o.past_end, acp_fs::PastEnd::Empty);
/// assert!(o.deny.is_empty());
/// assert_eq!(Options::default().max_read_bytes, 10 * 1024 * 1024);
/// let bad = Options::from_json(&serde_json::json!({ "readOnly": true, "maxReadBytes": -1 })).unwrap_err();
/// assert_eq!(bad.data["field"], "maxReadBytes");
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    pub past_end: PastEnd,
    /// Malformed optional fields (`line`, `limit`, `_meta`) count as absent instead of `-32602`.
    pub lenient_params: bool,
    pub line_endings: LineEndings,
    /// Writes create missing parent directories (inside the roots).
    pub create_parents: bool,
    /// Deny rules (semantics.md §8); `false` or `[]` turns the list off.
    #[serde(deserialize_with = "deny_rules")]
    pub deny: Vec<String>,
    /// When set, only files with these extensions (no dot, any case) are served.
    pub allow_extensions: Option<Vec<String>>,
    pub max_read_bytes: u64,
    pub max_write_bytes: u64,
    /// Reads outside the roots answer `-32002`, as Zed does.
    pub zed_compat: bool,
    /// Refuse `fs/write_text_file` (`-32601`) and advertise `writeTextFile: false`.
    pub read_only: bool,
    /// Root set for sessions the host did not open (a default policy); `None` = such sessions
    /// are unknown (`-32602`).
    pub roots: Option<Vec<String>>,
    /// Host roots added to every session's set.
    pub extra_roots: Vec<String>,
    /// Refuse regular files with more than one hard link, for reads and writes: the same file
    /// may also have a name outside the roots (semantics.md §8.2). Storages without hard links
    /// report one link, so this only bites on real disks.
    pub refuse_hardlinks: bool,
    /// Memory the line index may hold, for all files together (semantics.md §8 "Line
    /// index"); the least recently used files are forgotten first. 0 turns it off.
    pub line_index_bytes: u64,
    /// Stale writes (semantics.md §9): `merge` (default), `reject` or `overwrite`.
    pub on_conflict: OnConflict,
    /// The read ledger keeps a whole-file read's text up to this size (a digest beyond it).
    pub ledger_file_bytes: u64,
    /// Each session's read ledger stays under this many bytes (least recently used first out).
    pub ledger_session_bytes: u64,
}

/// The default deny list (semantics.md §3).
pub const DEFAULT_DENY: [&str; 5] = [".env*", "*.pem", "*.key", "id_rsa*", "write:.git/"];

impl Default for Options {
    fn default() -> Self {
        Options {
            past_end: PastEnd::Error,
            lenient_params: false,
            line_endings: LineEndings::Preserve,
            create_parents: true,
            deny: DEFAULT_DENY.iter().map(|s| s.to_string()).collect(),
            allow_extensions: None,
            max_read_bytes: 10 * 1024 * 1024,
            max_write_bytes: 10 * 1024 * 1024,
            zed_compat: false,
            read_only: false,
            roots: None,
            extra_roots: Vec::new(),
            refuse_hardlinks: true,
            line_index_bytes: 16 * 1024 * 1024,
            on_conflict: OnConflict::Merge,
            ledger_file_bytes: 1024 * 1024,
            ledger_session_bytes: 16 * 1024 * 1024,
        }
    }
}

impl Options {
    /// Options from the JS-style object; unknown keys are ignored (the JS packages pass their
    /// callbacks in the same object). A bad value is `-32602` naming the option.
    pub fn from_json(value: &serde_json::Value) -> Result<Options, AcpFsError> {
        if value.is_null() {
            return Ok(Options::default());
        }
        Options::deserialize(value).map_err(|e| {
            // serde names the expected type, not the key: find the option that fails alone.
            let field = value
                .as_object()
                .and_then(|o| o.iter().find(|(k, v)| Options::deserialize(serde_json::json!({ *k: v })).is_err()))
                .map_or("options", |(k, _)| k.as_str());
            AcpFsError::invalid_params(field, e.to_string())
        })
    }
}

fn deny_rules<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Rules {
        Toggle(bool),
        List(Vec<String>),
    }
    Ok(match Rules::deserialize(d)? {
        Rules::Toggle(true) => Options::default().deny,
        Rules::Toggle(false) => Vec::new(),
        Rules::List(list) => list,
    })
}

/// Options checked and compiled once, when the engine is built.
#[derive(Debug)]
pub(crate) struct Policy {
    pub options: Options,
    pub deny: DenyList,
    pub default_roots: Option<Vec<AbsPath>>,
    pub extra_roots: Vec<AbsPath>,
}

impl Policy {
    pub fn new(options: Options) -> Result<Policy, AcpFsError> {
        let parse_all = |field: &str, list: &[String]| -> Result<Vec<AbsPath>, AcpFsError> {
            list.iter()
                .map(|r| AbsPath::parse(r).map_err(|why| AcpFsError::invalid_params(field, format!("{r}: {why}"))))
                .collect()
        };
        let default_roots = match &options.roots {
            Some(list) => Some(parse_all("roots", list)?),
            None => None,
        };
        let extra_roots = parse_all("extraRoots", &options.extra_roots)?;
        let deny = DenyList::new(&options.deny, options.allow_extensions.as_deref());
        Ok(Policy { options, deny, default_roots, extra_roots })
    }
}
