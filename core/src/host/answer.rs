//! What a driver answers an io with, converted to the engine's [`Answer`]; host error codes
//! and names classified once for every binding.

use crate::io::{Answer, FileId};
use crate::json_text::quoted;
use crate::record::DocumentWrite;
use crate::storage::{DirEntry, FileKind, Metadata, StorageError, StorageErrorKind};
use serde::Deserialize;

/// An answer to an [`Io`](crate::Io), as a driver sends it: one of `{metadata, file?}` (an open may add
/// `bytes: true`, its head beside it), `{path}`, `{bytes: true}` (the bytes beside it),
/// `{done: true}`, `{approved}`, `{document}`, `{entries}` (a listing), `{merged}` (the merged text, or
/// `null` where the edits overlap) or `{error}`. Host error codes and names
/// (`ENOENT`, `NotFoundError`, …) are classified here, once, for every binding.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct HostAnswer {
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<HostError>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub metadata: Option<HostMetadata>,
    /// The driver's number for the file `open` opened; `null` when it opened none.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number | null"))]
    pub file: Option<Option<FileId>>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub path: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
    pub bytes: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional, type = "true"))]
    pub done: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub approved: Option<bool>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub document: Option<DocumentWrite>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub entries: Option<Vec<HostEntry>>,
    /// The merged text `merge` asked for; `null` where the edits overlap.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | null"))]
    pub merged: Option<Option<String>>,
}

/// One entry of a listing: its name and what a stat that does not follow it found.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostEntry {
    pub name: String,
    pub metadata: HostMetadata,
}

impl<'de> Deserialize<'de> for HostAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HostAnswer, D::Error> {
        // serde-wasm-bindgen reads a struct by asking the object for each field it declares (a
        // lookup, and an `in` test for each absent one): 19 crossings into JS for `{bytes: true}`.
        // An answer holds one or two of its ten members, so it is read as a map of those present.
        HostAnswer::deserialize(AsMap(d))
    }
}

/// A deserializer that reads a struct as a map (see [`HostAnswer`]'s `Deserialize`).
struct AsMap<D>(D);

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for AsMap<D> {
    type Error = D::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// A member that is present, even as `null`, is `Some`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A host storage's error: its `code` (Node), `name` (DOMException) and message.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostError {
    #[cfg_attr(feature = "ts", ts(optional))]
    pub code: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message: Option<String>,
}

/// What a stat or an open found. Optional: `links` (Node's `nlink`, 1 when absent),
/// `modifiedMs` (Node's `mtimeMs`, fractional), `changedMs` (Node's `ctimeMs`: the change time,
/// which `utimes` cannot set back) and `fileId` (any string that names the file on its storage,
/// such as `"dev:ino"`). Without `changedMs` the file gets no line index (semantics.md §8).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HostMetadata {
    pub kind: FileKind,
    pub size: f64,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub links: Option<f64>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub modified_ms: Option<f64>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub changed_ms: Option<f64>,
    #[cfg_attr(feature = "ts", ts(optional))]
    pub file_id: Option<String>,
}

impl HostMetadata {
    fn into_metadata(self) -> Result<Metadata, String> {
        let count = |n: f64, what: &str| if n >= 0.0 { Ok(n) } else { Err(format!("metadata.{what} is negative")) };
        Ok(Metadata {
            kind: self.kind,
            size: count(self.size, "size")? as u64,
            links: self.links.map_or(Ok(1.0), |l| count(l, "links"))? as u64,
            modified: self.modified_ms.map(|t| count(t, "modifiedMs")).transpose()?.map(|t| (t * 1e6) as u64),
            changed: self.changed_ms.map(|t| count(t, "changedMs")).transpose()?.map(|t| (t * 1e6) as u64),
            file_id: self.file_id.as_deref().map(fold_id),
        })
    }
}

/// A host's `fileId` string as the engine's number: equal strings give equal numbers (FNV-1a),
/// which is all a file id is compared for.
fn fold_id(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

impl HostAnswer {
    /// A storage error answer (bytes a binding could not take in, say).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn storage_error(message: impl Into<String>) -> HostAnswer {
        HostAnswer {
            error: Some(HostError { message: Some(message.into()), ..HostError::default() }),
            ..HostAnswer::default()
        }
    }

    /// The answer for `len` bytes a binding could not take into the engine's memory (a file
    /// larger than a wasm32 address space): the storage failed to deliver, the engine lives on.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn bytes_do_not_fit(len: u64) -> HostAnswer {
        HostAnswer::storage_error(format!("{len} bytes do not fit in the engine's memory"))
    }

    /// The engine's [`Answer`], or why the answer is malformed.
    pub(super) fn into_answer(self, bytes: Option<Vec<u8>>) -> Result<Answer, String> {
        if let Some(e) = self.error {
            let code = e.code.as_deref().unwrap_or("");
            let kind = classify(code, e.name.as_deref().unwrap_or(""));
            let message = match (e.message.as_deref().unwrap_or(""), code) {
                ("", "") => "storage error".to_owned(),
                (m, "") => m.to_owned(),
                ("", c) => c.to_owned(),
                (m, c) => format!("{c}: {m}"),
            };
            return Ok(Answer::Err(StorageError::new(kind, message)));
        }
        if let Some(m) = self.metadata {
            let meta = m.into_metadata()?;
            let head = match (self.bytes, bytes) {
                (None, _) => None,
                (Some(_), Some(head)) => Some(head.into()),
                (Some(_), None) => return Err("bytes were announced but not sent".into()),
            };
            return Ok(match (self.file, head) {
                (None, None) => Answer::Metadata(meta),
                (None | Some(None), Some(_)) => return Err("bytes came with metadata but no open file".into()),
                (Some(file), head) => Answer::Opened { file, meta, head },
            });
        }
        if let Some(path) = self.path {
            return Ok(Answer::Path(path));
        }
        if self.bytes.is_some() {
            return bytes.map(|b| Answer::Bytes(b.into())).ok_or_else(|| "bytes were announced but not sent".into());
        }
        if self.done.is_some() {
            return Ok(Answer::Done);
        }
        if let Some(approved) = self.approved {
            return Ok(Answer::Approved(approved));
        }
        if let Some(document) = self.document {
            return Ok(Answer::Document(document));
        }
        if let Some(entries) = self.entries {
            let entries = entries.into_iter().map(|e| {
                let name_ok = !e.name.is_empty() && e.name != "." && e.name != ".." && !e.name.contains(['/', '\0']);
                match name_ok {
                    true => Ok(DirEntry { meta: e.metadata.into_metadata()?, name: e.name }),
                    // Quoted as JSON ([`quoted`] says why).
                    false => Err(format!("entries: {} is not a name in a directory", quoted(&e.name))),
                }
            });
            return entries.collect::<Result<_, _>>().map(Answer::Entries);
        }
        if let Some(merged) = self.merged {
            return Ok(Answer::Merged(merged));
        }
        Err("it answers nothing".into())
    }
}

/// Host error codes and names (Node `code`, DOMException `name`, VS Code `FileSystemError`)
/// to the kinds the engine understands.
#[cfg_attr(acp_fs_small, optimize(size))]
pub fn classify(code: &str, name: &str) -> StorageErrorKind {
    match (code, name) {
        ("ERR_ACP_FS_ESCAPE", _) => StorageErrorKind::SymlinkEscape,
        ("ENOENT", _) | (_, "NotFoundError") | ("FileNotFound", _) | (_, "EntryNotFound") => StorageErrorKind::NotFound,
        ("EACCES" | "EPERM" | "EROFS" | "NoPermissions", _) | (_, "NotAllowedError" | "SecurityError") => {
            StorageErrorKind::PermissionDenied
        }
        ("EISDIR" | "FileIsADirectory", _) | (_, "TypeMismatchError") => StorageErrorKind::IsADirectory,
        ("ENOTDIR" | "FileNotADirectory", _) => StorageErrorKind::NotADirectory,
        ("EEXIST" | "ENOTEMPTY" | "FileExists", _) | (_, "InvalidModificationError") => StorageErrorKind::AlreadyExists,
        ("ENOSYS" | "ENOTSUP" | "Unavailable", _) | (_, "NotSupportedError") => StorageErrorKind::Unsupported,
        _ => StorageErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn answer(value: Value, bytes: Option<Vec<u8>>) -> Result<Answer, String> {
        serde_json::from_value::<HostAnswer>(value).map_err(|e| e.to_string())?.into_answer(bytes)
    }

    #[test]
    fn answers_from_their_json() {
        let file = FileKind::File;
        let cases: [(Value, Option<Vec<u8>>, Answer); 13] = [
            (json!({"metadata": {"kind": "file", "size": 3}}), None, Answer::Metadata(Metadata::new(file, 3))),
            (
                json!({"metadata": {"kind": "file", "size": 3, "changedMs": 2.5, "fileId": "7:42"}}),
                None,
                Answer::Metadata(Metadata {
                    changed: Some(2_500_000),
                    file_id: Some(fold_id("7:42")),
                    ..Metadata::new(file, 3)
                }),
            ),
            (
                json!({"metadata": {"kind": "file", "size": 3, "links": 2, "modifiedMs": 1.5}}),
                None,
                Answer::Metadata(Metadata { links: 2, modified: Some(1_500_000), ..Metadata::new(file, 3) }),
            ),
            (
                json!({"file": 4, "metadata": {"kind": "file", "size": 3}}),
                None,
                Answer::Opened { file: Some(4), meta: Metadata::new(file, 3), head: None },
            ),
            (
                json!({"file": 4, "metadata": {"kind": "file", "size": 3}, "bytes": true}),
                Some(b"abc".to_vec()),
                Answer::Opened { file: Some(4), meta: Metadata::new(file, 3), head: Some(b"abc".to_vec().into()) },
            ),
            (
                json!({"file": null, "metadata": {"kind": "directory", "size": 0}}),
                None,
                Answer::Opened { file: None, meta: Metadata::new(FileKind::Directory, 0), head: None },
            ),
            (json!({"path": "/x"}), None, Answer::Path("/x".into())),
            (json!({"bytes": true}), Some(vec![7]), Answer::Bytes(vec![7].into())),
            (json!({"done": true}), None, Answer::Done),
            (json!({"approved": false}), None, Answer::Approved(false)),
            (json!({"document": "writeThrough"}), None, Answer::Document(DocumentWrite::WriteThrough)),
            (json!({"merged": "a\nB\n"}), None, Answer::Merged(Some("a\nB\n".into()))),
            (json!({"merged": null}), None, Answer::Merged(None)),
        ];
        for (value, bytes, want) in cases {
            assert_eq!(answer(value.clone(), bytes).unwrap(), want, "{value}");
        }
        let Answer::Err(e) = answer(json!({"error": {"code": "ENOENT", "message": "gone"}}), None).unwrap() else {
            panic!("an error answer")
        };
        assert_eq!((e.kind, e.message.as_str()), (StorageErrorKind::NotFound, "ENOENT: gone"));
        for bad in [
            json!({"bytes": true}),
            json!({"file": 1, "metadata": {"kind": "file", "size": 3}, "bytes": true}),
            json!(42),
            json!({}),
            json!({"bogus": 1}),
            json!({"path": 5}),
            json!({"merged": 5}),
            json!({"metadata": {"kind": "fifo", "size": 1}}),
            json!({"metadata": {"kind": "file", "size": -1}}),
            json!({"metadata": {"kind": "file"}}),
        ] {
            assert!(answer(bad.clone(), None).is_err(), "{bad} is malformed");
        }
        let listing = json!({"entries": [{"name": "a.txt", "metadata": {"kind": "file", "size": 3}},
                                         {"name": "l", "metadata": {"kind": "symlink", "size": 1}}]});
        assert_eq!(
            answer(listing, None).unwrap(),
            Answer::Entries(vec![
                DirEntry { name: "a.txt".into(), meta: Metadata::new(file, 3) },
                DirEntry { name: "l".into(), meta: Metadata::new(FileKind::Symlink, 1) },
            ])
        );
        // A listing names entries of one directory: never a path, never the directory itself.
        for name in ["", ".", "..", "a/b", "a\0b"] {
            let bad = json!({"entries": [{"name": name, "metadata": {"kind": "file", "size": 0}}]});
            assert!(answer(bad, None).is_err(), "{name:?} is not an entry name");
        }
        // Head bytes only come with a file that was opened.
        let headless = json!({"file": null, "metadata": {"kind": "file", "size": 3}, "bytes": true});
        assert!(answer(headless, Some(b"abc".to_vec())).is_err());
    }

    #[test]
    fn host_error_codes_and_names() {
        for (code, name, kind) in [
            ("ENOENT", "", StorageErrorKind::NotFound),
            ("", "NotFoundError", StorageErrorKind::NotFound),
            ("EACCES", "", StorageErrorKind::PermissionDenied),
            ("", "TypeMismatchError", StorageErrorKind::IsADirectory),
            ("ENOTDIR", "", StorageErrorKind::NotADirectory),
            ("EEXIST", "", StorageErrorKind::AlreadyExists),
            ("", "InvalidModificationError", StorageErrorKind::AlreadyExists),
            ("ERR_ACP_FS_ESCAPE", "", StorageErrorKind::SymlinkEscape),
            ("EIO", "Error", StorageErrorKind::Other),
        ] {
            assert_eq!(classify(code, name), kind, "{code}/{name}");
        }
    }
}
