//! `read_media_file`: a file's bytes as a base64 image, audio or embedded-resource block, by
//! its extension (the reference server's table), bounded by `maxMediaBytes`.

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Tool};
use super::{output, start, target};
use crate::error::AcpFsError;
use crate::file::{self, ChunkReader};
use crate::operation::Operation;
use crate::path::{AbsPath, Style};
use crate::refuse::{storage_error, too_large};
use base64::Engine;
use serde_json::json;

pub(crate) const READ_MEDIA_FILE: Tool = Tool {
    name: "read_media_file",
    title: "Read Media File",
    description: "Read a file and return it as a base64-encoded content block with its MIME type. \
        Image and audio files are returned as image/audio content; any other file type is \
        returned as an embedded resource. Only works within allowed directories.",
    input: || object_schema(json!({"path": {"type": "string"}}), &["path"]),
    output: Some(|| {
        json!({"type": "object", "required": ["content"], "properties": {"content": {"type": "array", "items": {"anyOf": [
            {"type": "object", "required": ["type", "data", "mimeType"], "properties": {
                "type": {"type": "string", "enum": ["image", "audio"]}, "data": {"type": "string"}, "mimeType": {"type": "string"}}},
            {"type": "object", "required": ["type", "resource"], "properties": {
                "type": {"type": "string", "const": "resource"},
                "resource": {"type": "object", "required": ["uri", "blob"], "properties": {
                    "uri": {"type": "string"}, "mimeType": {"type": "string"}, "blob": {"type": "string"}}}}}
        ]}}}})
    }),
    annotations: Annotations::READ_ONLY,
    needs: &[],
    start,
    answer: registry::answer,
};

/// The reference server's extension table; anything else is `application/octet-stream`.
const MIME_TYPES: [(&str, &str); 11] = [
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("svg", "image/svg+xml"),
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("flac", "audio/flac"),
];

fn mime_type(path: &AbsPath) -> &'static str {
    let ext = path.file_name().and_then(|n| n.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase());
    MIME_TYPES.iter().find(|(e, _)| ext.as_deref() == Some(*e)).map_or("application/octet-stream", |(_, m)| m)
}

fn start(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let max = shared.policy.options.max_media_bytes;
        let target = target::resolve(&shared, &io, &session_id, path).await?;
        let requested = &target.requested;
        let refuse = || too_large(requested, max, "the file is larger than maxMediaBytes");
        let fail = |e| storage_error(e, requested);
        let mut bytes = Vec::new();
        if shared.caps.ranged_reads {
            let opened = file::open(&io, &target, true).await.map_err(fail)?;
            file::check(&shared, &opened.meta, requested)?;
            if opened.meta.size > max {
                return Err(refuse());
            }
            let mut reader = ChunkReader::new(&io, opened, requested);
            while !reader.eof {
                bytes.extend_from_slice(&reader.next().await?);
                // The size was checked; a file that grew since is held to the bound too.
                if bytes.len() as u64 > max {
                    return Err(refuse());
                }
            }
        } else {
            if shared.caps.stat {
                let meta = io.stat(target.real.as_str(), true).await.map_err(fail)?;
                file::check(&shared, &meta, requested)?;
                if meta.size > max {
                    return Err(refuse());
                }
            }
            bytes = io.read_all(target.real.as_str()).await.map_err(fail)?.into_vec();
            if bytes.len() as u64 > max {
                return Err(refuse());
            }
        }
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let mime = mime_type(requested);
        let item = match mime.split('/').next() {
            Some(kind @ ("image" | "audio")) => json!({"type": kind, "data": data, "mimeType": mime}),
            _ => json!({"type": "resource", "resource": {"uri": file_uri(requested), "mimeType": mime, "blob": data}}),
        };
        let result = json!({"content": [item.clone()], "structuredContent": {"content": [item]}, "isError": false});
        Ok(output::done(result, bytes.len() as u64))
    })
}

/// A `file:` URI for `path`, percent-encoding what a URI path may not hold (as Node's
/// `pathToFileURL` does for the reference server).
pub(crate) fn file_uri(path: &AbsPath) -> String {
    let (prefix, rest) = match path.style() {
        Style::Posix => ("file://", path.as_str().to_owned()),
        Style::Drive => ("file:///", path.as_str().replace('\\', "/")),
        Style::Unc => ("file:", path.as_str().replace('\\', "/")),
    };
    let mut out = String::from(prefix);
    for b in rest.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' | b':' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_types() {
        let p = AbsPath::parse("/p/a b#.png").unwrap();
        assert_eq!(file_uri(&p), "file:///p/a%20b%23.png");
        assert_eq!(mime_type(&p), "image/png");
        assert_eq!(file_uri(&AbsPath::parse("C:\\x\\é.bin").unwrap()), "file:///C:/x/%C3%A9.bin");
        assert_eq!(mime_type(&AbsPath::parse("/p/A.JPG").unwrap()), "image/jpeg");
        assert_eq!(mime_type(&AbsPath::parse("/p/a.pdf").unwrap()), "application/octet-stream");
    }
}
