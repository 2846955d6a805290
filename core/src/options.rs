//! Engine options (semantics.md; the same names as the JS options object).

use crate::deny::DenyList;
use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::settings::{self, boolean, byte_count, optional, strings, variant};
use serde_json::Value;
use std::sync::Arc;

/// What a start line past the last row answers (semantics.md §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename_all = "camelCase"))]
#[non_exhaustive]
pub enum PastEnd {
    /// `-32602` "Attempting to read beyond the end of the file, line L" (Zed-compatible).
    #[default]
    Error,
    /// `""`.
    Empty,
}

/// How a write treats line endings (semantics.md §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename_all = "camelCase"))]
#[non_exhaustive]
pub enum LineEndings {
    /// An existing CRLF file stays CRLF when the new content has no `\r`.
    #[default]
    Preserve,
    /// Bytes are written exactly as sent.
    AsIs,
}

/// What a write does to a file that changed since the session's agent read it (semantics.md §9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename_all = "camelCase"))]
#[non_exhaustive]
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

/// The engine's options: the camelCase JSON the JS packages take (`new AcpFs(options)`), or
/// field by field in Rust. Every option may be left out (its default); an unknown key is refused
/// (`-32602` naming it). The table of them all: `docs/options.md`.
// TypeScript (`EngineOptions`, generated into npm/types/api.d.ts by typegen.rs): each field is
// optional (`as = "Option<_>"` for those that are not `Option`s), because `from_json` fills
// what the object leaves out with the default.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EngineOptions", rename_all = "camelCase", optional_fields))]
pub struct Options {
    /// A start line past the end: `'error'` (default, Zed-compatible `-32602`) or `'empty'` (`""`).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", inline))]
    pub past_end: PastEnd,
    /// Malformed optional fields (`line`, `limit`, `_meta`) count as absent instead of `-32602`.
    /// Default false.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub lenient_params: bool,
    /// `'preserve'` (default) keeps an existing CRLF file CRLF when the new content has no `\r`;
    /// `'asIs'` writes bytes as sent.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", inline))]
    pub line_endings: LineEndings,
    /// Writes create missing parent directories inside the roots. Default true.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub create_parents: bool,
    /// Deny rules (semantics.md §8): globs on file names, `dir/` for directories, `write:` for
    /// write-only rules. Default `[".env*", "*.pem", "*.key", "id_rsa*", "write:.git/"]`;
    /// `false` or `[]` turns it off.
    #[cfg_attr(feature = "ts", ts(as = "Option<DenyRules>", inline))]
    pub deny: Vec<String>,
    /// Only files with these extensions (no dot, any case) are served. Default: any.
    pub allow_extensions: Option<Vec<String>>,
    /// Whole-file reads larger than this are `file_too_large` (windows of larger files are
    /// served). Default 10 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_read_bytes: u64,
    /// Writes of more content than this are refused. Default 10 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_write_bytes: u64,
    /// Reads outside the roots answer `-32002`, as Zed does. Default false.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub zed_compat: bool,
    /// Refuse `fs/write_text_file` (`-32601`) and advertise `writeTextFile: false`. Default false.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub read_only: bool,
    /// Roots for sessions the host never opened (one default policy); absent = such sessions
    /// are unknown (`-32602`).
    pub roots: Option<Vec<String>>,
    /// Host roots added to every session's root set.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub extra_roots: Vec<String>,
    /// Refuse regular files with more than one hard link, for reads and writes (`hard_link`):
    /// another name of the same file may lie outside the roots (semantics.md §8.2). Default
    /// true; turn it off for trees that hard-link on purpose (pnpm's `node_modules`). Storages
    /// without hard links report one link, so this only bites on real disks.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub refuse_hardlinks: bool,
    /// Memory the line index may hold for all files together (semantics.md §8 "Line index"):
    /// windows deep in a file paged before start at the nearest remembered line; the least
    /// recently used files are forgotten first. Default 16 MiB; 0 turns it off.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub line_index_bytes: u64,
    /// A write to a file that changed since the session's agent read it (semantics.md §9):
    /// `'merge'` (default: a three-way merge, `stale_write` on overlap), `'reject'`
    /// (`stale_write` on any change) or `'overwrite'`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", inline))]
    pub on_conflict: OnConflict,
    /// The read ledger keeps a whole-file read's text up to this size (a digest past it).
    /// Default 1 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub ledger_file_bytes: u64,
    /// Each session's read ledger stays under this many bytes (least recently used out first).
    /// Default 16 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub ledger_session_bytes: u64,
    /// MCP listings, trees and searches stop after this many entries (or matches), with a note
    /// the model can read (semantics.md §10). Default 10000.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_list_entries: u64,
    /// MCP trees and searches descend at most this many directories below the path asked for.
    /// Default 32.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_list_depth: u64,
    /// An MCP tool's text answer (a listing, a tree, a search, several files) stops growing at
    /// this many bytes, with a note. Default 1 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_tool_output_bytes: u64,
    /// `read_media_file` refuses files larger than this (`file_too_large`). Default 10 MiB.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>"))]
    pub max_media_bytes: u64,
}

/// The default deny list (semantics.md §3).
pub const DEFAULT_DENY: [&str; 5] = [".env*", "*.pem", "*.key", "id_rsa*", "write:.git/"];

impl Default for Options {
    #[cfg_attr(acp_fs_small, optimize(size))]
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
            max_list_entries: 10_000,
            max_list_depth: 32,
            max_tool_output_bytes: 1024 * 1024,
            max_media_bytes: 10 * 1024 * 1024,
        }
    }
}

impl Options {
    /// Options from the JS-style object (`null` = every default). A bad value or an unknown key
    /// (a misspelt option would otherwise be silently ignored) is `-32602` naming the option; the
    /// JS packages take their host-only options (callbacks, storage) out before they get here.
    ///
    /// ```
    /// use acp_fs::Options;
    /// let o = Options::from_json(&serde_json::json!({ "pastEnd": "empty", "deny": false })).unwrap();
    /// assert_eq!(o.past_end, acp_fs::PastEnd::Empty);
    /// assert!(o.deny.is_empty());
    /// assert_eq!(Options::default().max_read_bytes, 10 * 1024 * 1024);
    /// let bad = Options::from_json(&serde_json::json!({ "readOnly": true, "maxReadBytes": -1 })).unwrap_err();
    /// assert_eq!(bad.data["field"], "maxReadBytes");
    /// let misspelt = Options::from_json(&serde_json::json!({ "maxReadByte": 1 })).unwrap_err();
    /// assert_eq!(misspelt.data["field"], "maxReadByte");
    /// ```
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn from_json(value: &serde_json::Value) -> Result<Options, AcpFsError> {
        let mut o = Options::default();
        settings::members(value, "options", "struct Options", &mut |name, v| {
            match name {
                "pastEnd" => {
                    o.past_end = match variant(v, &["error", "empty"])? {
                        0 => PastEnd::Error,
                        _ => PastEnd::Empty,
                    }
                }
                "lenientParams" => o.lenient_params = boolean(v)?,
                "lineEndings" => {
                    o.line_endings = match variant(v, &["preserve", "asIs"])? {
                        0 => LineEndings::Preserve,
                        _ => LineEndings::AsIs,
                    }
                }
                "createParents" => o.create_parents = boolean(v)?,
                "deny" => o.deny = deny_rules(v)?,
                "allowExtensions" => o.allow_extensions = optional(v, strings)?,
                "maxReadBytes" => o.max_read_bytes = byte_count(v)?,
                "maxWriteBytes" => o.max_write_bytes = byte_count(v)?,
                "zedCompat" => o.zed_compat = boolean(v)?,
                "readOnly" => o.read_only = boolean(v)?,
                "roots" => o.roots = optional(v, strings)?,
                "extraRoots" => o.extra_roots = strings(v)?,
                "refuseHardlinks" => o.refuse_hardlinks = boolean(v)?,
                "lineIndexBytes" => o.line_index_bytes = byte_count(v)?,
                "onConflict" => {
                    o.on_conflict = match variant(v, &["merge", "reject", "overwrite"])? {
                        0 => OnConflict::Merge,
                        1 => OnConflict::Reject,
                        _ => OnConflict::Overwrite,
                    }
                }
                "ledgerFileBytes" => o.ledger_file_bytes = byte_count(v)?,
                "ledgerSessionBytes" => o.ledger_session_bytes = byte_count(v)?,
                "maxListEntries" => o.max_list_entries = byte_count(v)?,
                "maxListDepth" => o.max_list_depth = byte_count(v)?,
                "maxToolOutputBytes" => o.max_tool_output_bytes = byte_count(v)?,
                "maxMediaBytes" => o.max_media_bytes = byte_count(v)?,
                _ => return Err(settings::unknown(name, &OPTION_NAMES)),
            }
            Ok(())
        })?;
        Ok(o)
    }
}

/// The options' JSON names, in the order an unknown key's message lists them.
const OPTION_NAMES: [&str; 21] = [
    "pastEnd",
    "lenientParams",
    "lineEndings",
    "createParents",
    "deny",
    "allowExtensions",
    "maxReadBytes",
    "maxWriteBytes",
    "zedCompat",
    "readOnly",
    "roots",
    "extraRoots",
    "refuseHardlinks",
    "lineIndexBytes",
    "onConflict",
    "ledgerFileBytes",
    "ledgerSessionBytes",
    "maxListEntries",
    "maxListDepth",
    "maxToolOutputBytes",
    "maxMediaBytes",
];

/// An agent whose known deviation from ACP a session may be told to work around
/// (semantics.md §8 "Agent quirks"; the table of agents: `docs/agents.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[non_exhaustive]
pub enum KnownAgent {
    /// Google's Gemini CLI (`@google/gemini-cli`, checked with 0.61.0). Its `write_file` and
    /// `replace` tools read a file through the client before writing it, and only an error
    /// whose text says "not found" lets them create it; its ACP connection hands them the
    /// JSON-RPC error as a plain object, whose text is `[object Object]`. A whole-file read of
    /// a missing file therefore answers `""` in its sessions.
    #[cfg_attr(feature = "ts", ts(rename = "gemini-cli"))]
    GeminiCli,
}

/// What a session is opened with besides its roots: the camelCase JSON the JS packages take
/// in `openSession(id, {cwd, additionalDirectories, ...})` after the roots. Every field may be
/// left out; an unknown key or value is refused (`-32602` naming the key).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename_all = "camelCase", optional_fields))]
pub struct SessionOptions {
    /// The agent on the other end of the session, when it is one whose known bug the session
    /// works around (`'gemini-cli'`). Default: none, every request is answered by the contract.
    pub agent: Option<KnownAgent>,
}

impl SessionOptions {
    /// Session options from the JS-style object (`null` = every default). A bad value or an
    /// unknown key is `-32602` naming the key (`"session"` when it is not an object).
    ///
    /// ```
    /// use acp_fs::{KnownAgent, SessionOptions};
    /// let gemini = SessionOptions::from_json(&serde_json::json!({ "agent": "gemini-cli" })).unwrap();
    /// assert_eq!(gemini.agent, Some(KnownAgent::GeminiCli));
    /// assert_eq!(SessionOptions::from_json(&serde_json::Value::Null).unwrap().agent, None);
    /// let unknown = SessionOptions::from_json(&serde_json::json!({ "agent": "gemini" })).unwrap_err();
    /// assert_eq!(unknown.data["field"], "agent");
    /// let misspelt = SessionOptions::from_json(&serde_json::json!({ "agnet": "gemini-cli" })).unwrap_err();
    /// assert_eq!(misspelt.data["field"], "agnet");
    /// ```
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn from_json(value: &serde_json::Value) -> Result<SessionOptions, AcpFsError> {
        let mut session = SessionOptions::default();
        settings::members(value, "session", "struct SessionOptions", &mut |name, v| {
            match name {
                // One variant: `variant` refuses every other name.
                "agent" => session.agent = optional(v, |v| variant(v, &["gemini-cli"]).map(|_| KnownAgent::GeminiCli))?,
                _ => return Err(settings::unknown(name, &["agent"])),
            }
            Ok(())
        })?;
        Ok(session)
    }
}

// Through serde too, so a host can keep the engine's options inside its own settings type: the
// rules and messages are `from_json`'s, and a build that never deserializes them carries none of it.
/// ```
/// let o: acp_fs::Options = serde_json::from_str(r#"{ "maxReadBytes": 1024 }"#).unwrap();
/// assert_eq!(o.max_read_bytes, 1024);
/// let bad = serde_json::from_str::<acp_fs::Options>(r#"{ "maxReadByte": 1 }"#).unwrap_err();
/// assert!(bad.to_string().contains("maxReadByte"));
/// ```
impl<'de> serde::Deserialize<'de> for Options {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Options::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// ```
/// let s: acp_fs::SessionOptions = serde_json::from_str(r#"{ "agent": "gemini-cli" }"#).unwrap();
/// assert_eq!(s.agent, Some(acp_fs::KnownAgent::GeminiCli));
/// ```
impl<'de> serde::Deserialize<'de> for SessionOptions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        SessionOptions::from_json(&value).map_err(serde::de::Error::custom)
    }
}

/// What `deny` takes: a list of rules, or `true`/`false` for the default list or none.
#[cfg(feature = "ts")]
#[derive(ts_rs::TS)]
#[ts(untagged)]
#[allow(dead_code)] // the TypeScript of `deny` only
enum DenyRules {
    Toggle(bool),
    List(Vec<String>),
}

#[cfg_attr(acp_fs_small, optimize(size))]
fn deny_rules(value: &Value) -> Result<Vec<String>, settings::Error> {
    match value {
        Value::Bool(true) => Ok(Options::default().deny),
        Value::Bool(false) => Ok(Vec::new()),
        list => strings(list).map_err(|_| "data did not match any variant of untagged enum DenyRules".to_owned()),
    }
}

/// Options checked and compiled once, when the engine is built.
#[derive(Debug)]
pub(crate) struct Policy {
    pub options: Options,
    pub deny: DenyList,
    /// The roots of a session the host never opened (a default policy): `roots`, then
    /// `extraRoots`. Made once: every request of such a session shares them.
    pub default_roots: Option<Arc<[AbsPath]>>,
    pub extra_roots: Vec<AbsPath>,
}

impl Policy {
    #[cfg_attr(acp_fs_small, optimize(size))]
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
        let default_roots = default_roots.map(|roots| roots.into_iter().chain(extra_roots.iter().cloned()).collect());
        let deny = DenyList::new(&options.deny, options.allow_extensions.as_deref());
        Ok(Policy { options, deny, default_roots, extra_roots })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_key_is_refused_by_name() {
        // A misspelt option used to be ignored, leaving the default in force without a word.
        for given in [json!({ "maxReadByte": 1 }), json!({ "readOnly": true, "maxReadByte": 1, "zedCompat": true })] {
            let e = Options::from_json(&given).unwrap_err();
            assert_eq!((e.code, e.data["field"].as_str()), (crate::codes::INVALID_PARAMS, Some("maxReadByte")));
            let reason = e.data["reason"].as_str().unwrap();
            assert!(
                reason.starts_with("unknown field `maxReadByte`, expected one of") && reason.contains("`maxReadBytes`"),
                "{reason}"
            );
            assert_eq!(e.message, format!("Invalid params: maxReadByte: {reason}"));
        }
        // The JS packages strip these before the engine sees them: here they are unknown too.
        let e = Options::from_json(&json!({ "approveWrite": {} })).unwrap_err();
        assert_eq!(e.data["field"], "approveWrite");
        // The first wrong key in the object's order is the one named, value or name.
        let e = Options::from_json(&json!({ "maxReadBytes": -1, "maxReadByte": 1 })).unwrap_err();
        assert_eq!(e.data["field"], "maxReadBytes");
        assert!(Options::from_json(&json!({ "maxReadBytes": 1, "deny": true, "roots": null })).is_ok());
    }

    #[test]
    fn byte_counts_are_whole_numbers_however_they_crossed() {
        // napi hands JS numbers past 2^31 over as floats; wasm as integers up to 2^53.
        for (given, want) in [(json!(5_000_000_000u64), 5_000_000_000), (json!(5e9), 5_000_000_000), (json!(0.0), 0)] {
            let options = Options::from_json(&json!({ "maxReadBytes": given, "ledgerFileBytes": given })).unwrap();
            assert_eq!((options.max_read_bytes, options.ledger_file_bytes), (want, want));
        }
        // The largest float below 2^64 is 2^64 - 2048.
        let largest = Options::from_json(&json!({"lineIndexBytes": 1.844_674_407_370_955e19})).unwrap();
        assert_eq!(largest.line_index_bytes, u64::MAX - 2047);
        for (given, says) in [
            (json!(1.5), "invalid type: floating point `1.5`, expected u64"),
            (json!(-1), "invalid value: integer `-1`, expected u64"),
            (json!(-1.0), "invalid type: floating point `-1.0`, expected u64"),
            (json!(1.8446744073709552e19), "invalid type: floating point `1.8446744073709552e+19`, expected u64"),
            (json!("lots"), "invalid type: string \"lots\", expected u64"),
        ] {
            let e = Options::from_json(&json!({ "maxWriteBytes": given })).unwrap_err();
            assert_eq!((e.data["field"].as_str(), e.data["reason"].as_str()), (Some("maxWriteBytes"), Some(says)));
        }
    }

    #[test]
    fn bad_values_are_refused_in_serdes_words() {
        // The wording serde's derive gave when it read these objects (settings.rs keeps it).
        for (given, field, says) in [
            (json!({ "pastEnd": "later" }), "pastEnd", "unknown variant `later`, expected `error` or `empty`"),
            (json!({ "onConflict": 1 }), "onConflict", "invalid type: integer `1`, expected string or map"),
            (json!({ "onConflict": { "merge": 1 } }), "onConflict", "invalid type: integer `1`, expected unit"),
            (json!({ "lineEndings": {} }), "lineEndings", "invalid value: map, expected map with a single key"),
            (json!({ "readOnly": "yes" }), "readOnly", "invalid type: string \"yes\", expected a boolean"),
            (json!({ "extraRoots": null }), "extraRoots", "invalid type: null, expected a sequence"),
            (json!({ "roots": ["/a", 2] }), "roots", "invalid type: integer `2`, expected a string"),
            (json!({ "deny": "*.env" }), "deny", "data did not match any variant of untagged enum DenyRules"),
            (json!(42), "options", "invalid type: integer `42`, expected struct Options"),
        ] {
            let e = Options::from_json(&given).unwrap_err();
            assert_eq!((e.data["field"].as_str(), e.data["reason"].as_str()), (Some(field), Some(says)), "{given}");
        }
        let e = SessionOptions::from_json(&json!({ "agent": "gemini" })).unwrap_err();
        assert_eq!(e.data["reason"], "unknown variant `gemini`, expected `gemini-cli`");
        let e = SessionOptions::from_json(&json!({ "agnet": null })).unwrap_err();
        assert_eq!(e.data["reason"], "unknown field `agnet`, expected `agent`");
        // The object form of a unit variant, and `null` for an optional list, are taken.
        let o = Options::from_json(&json!({ "onConflict": { "reject": null }, "roots": null, "deny": ["x"] })).unwrap();
        assert_eq!((o.on_conflict, o.roots, o.deny), (OnConflict::Reject, None, vec!["x".to_owned()]));
    }
}
