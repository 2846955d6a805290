//! A tool call's arguments, checked against the tool's `inputSchema` with precise errors: the
//! argument is named in `data.field`, as the fs methods name theirs.

use super::registry::Tool;
use crate::engine::AcpFs;
use crate::error::AcpFsError;
use crate::path::AbsPath;
use crate::state::Shared;
use serde_json::{Map, Value};
use std::sync::Arc;

/// One `tools/call`: the engine, the session it serves, and the arguments (an object whose
/// every member the tool's `inputSchema` declares).
pub(crate) struct Call<'a> {
    pub fs: &'a AcpFs,
    pub session_id: &'a str,
    pub args: &'a Map<String, Value>,
    /// The raw arguments value, for the answer.
    pub raw: &'a Value,
}

#[allow(dead_code, reason = "the getters the file tools use, landing next")]
impl<'a> Call<'a> {
    /// Refuses arguments that are not an object, or that name an argument `tool` does not take.
    pub fn new(fs: &'a AcpFs, session_id: &'a str, tool: &Tool, raw: &'a Value) -> Result<Call<'a>, AcpFsError> {
        let args = raw.as_object().ok_or_else(|| AcpFsError::invalid_params("arguments", "must be an object"))?;
        let schema = (tool.input)();
        let known = schema.get("properties").and_then(Value::as_object);
        if let Some(extra) = args.keys().find(|k| !known.is_some_and(|p| p.contains_key(k.as_str()))) {
            return Err(AcpFsError::invalid_params(extra, "unknown argument"));
        }
        Ok(Call { fs, session_id, args, raw })
    }

    pub fn shared(&self) -> Arc<Shared> {
        self.fs.shared.clone()
    }

    /// A required string argument.
    pub fn string(&self, field: &str) -> Result<&'a str, AcpFsError> {
        self.opt_string(field)?.ok_or_else(|| AcpFsError::invalid_params(field, "required"))
    }

    /// An optional string argument (`null` is absent).
    pub fn opt_string(&self, field: &str) -> Result<Option<&'a str>, AcpFsError> {
        match self.args.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(AcpFsError::invalid_params(field, "must be a string")),
        }
    }

    /// An optional non-negative integer argument (`null` is absent; `2.0` is 2, as JSON
    /// numbers from JavaScript often are).
    pub fn opt_count(&self, field: &str) -> Result<Option<u64>, AcpFsError> {
        match self.args.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                count(v).map(Some).ok_or_else(|| AcpFsError::invalid_params(field, "must be a non-negative integer"))
            }
        }
    }

    /// An optional boolean argument (`null` is absent).
    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, AcpFsError> {
        match self.args.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(AcpFsError::invalid_params(field, "must be a boolean")),
        }
    }

    /// An optional array of strings (`null` or absent: empty); a bad member is named by index.
    pub fn strings(&self, field: &str) -> Result<Vec<String>, AcpFsError> {
        match self.args.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| AcpFsError::invalid_params(&format!("{field}[{i}]"), "must be a string"))
                })
                .collect(),
            Some(_) => Err(AcpFsError::invalid_params(field, "must be an array of strings")),
        }
    }

    /// A path argument, absolute or relative to the session's cwd (its first root), normalized.
    /// `~` is not expanded: an editor's session has no home directory to offer an agent.
    pub fn path(&self, field: &str) -> Result<AbsPath, AcpFsError> {
        let raw = self.string(field)?;
        self.resolve(field, raw)
    }

    /// [`Call::path`] for a path taken from elsewhere (an array member, named by `field`).
    pub fn resolve(&self, field: &str, raw: &str) -> Result<AbsPath, AcpFsError> {
        if raw == "~" || raw.starts_with("~/") || raw.starts_with("~\\") {
            return Err(AcpFsError::invalid_params(
                field,
                "~ is not expanded: give an absolute path or one relative to the session's cwd",
            ));
        }
        if raw.is_empty() {
            return Err(AcpFsError::invalid_params(field, "must not be empty"));
        }
        if let Ok(path) = AbsPath::parse(raw) {
            return Ok(path);
        }
        let roots = self.fs.shared.roots(self.session_id)?;
        let cwd = roots
            .first()
            .ok_or_else(|| AcpFsError::invalid_params(field, "the session has no cwd to resolve against"))?;
        let sep = cwd.style().separator();
        let joined = format!("{}{sep}{raw}", cwd.as_str().trim_end_matches(['/', '\\']));
        AbsPath::parse(&joined).map_err(|why| AcpFsError::invalid_params(field, why))
    }
}

#[allow(dead_code, reason = "the getters the file tools use, landing next")]
fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.007_199_254_740_992e15).map(|f| f as u64)
    })
}
