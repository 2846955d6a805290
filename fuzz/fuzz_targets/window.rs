//! A file's bytes and a (line, limit) window read through the whole engine, compared with a
//! plain model of the contract (semantics.md §2, §4, §8.1).
//!
//! Input layout: `[flags, pad, line, limit, file bytes...]`
//! - flags bits 0-2: the storage's largest ranged read (short reads cut chunks anywhere):
//!   unlimited, 1, 2, 3, 4, 7, 16, 4096 bytes;
//! - bit 3: option `pastEnd: "empty"`;
//! - bit 4: `line` not given; bit 5: `limit` not given; bit 6: "not given" is `null` rather
//!   than a missing field;
//! - bit 7: a storage that only reads whole files (no stat, no ranged reads);
//! - `pad`: from 0xC0 up, (pad - 0xC0) * 4 filler rows of 64 bytes go before the file bytes
//!   (up to 16 KiB), to push content past the 8 KiB NUL test and across the first chunk's
//!   end; short reads are then 64 times longer (a thousand one-byte reads per input would
//!   make the target too slow to find anything);
//! - `line`, `limit`: one byte each; 255 stands for 4294967295 (the largest allowed).
#![no_main]

use acp_fs::{AcpFs, DefaultHost, ErrorKind, MemoryStorage, Options, Storage, StorageCaps};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

const PATH: &str = "/p/f.txt";

/// What a read may answer.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    Content(Vec<u8>),
    PastEnd { line: u64, line_count: u64 },
    Binary,
    NotUtf8,
}

/// The byte offsets where rows start: 0, then just after every `\n`. A `\r` ends nothing
/// (`\r\n` ends its row at the `\n`), and the text after the last `\n` (maybe empty) is a row.
fn row_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    for (i, b) in text.iter().enumerate() {
        if *b == b'\n' {
            starts.push(i + 1);
        }
    }
    starts
}

/// The window as a byte range of `text`, or the past-end answer.
fn window(text: &[u8], line: u64, limit: Option<u64>) -> Result<(usize, usize), Answer> {
    let starts = row_starts(text);
    let rows = starts.len() as u64;
    let line = line.max(1);
    if line > rows {
        return Err(Answer::PastEnd { line, line_count: rows });
    }
    let start = starts[(line - 1) as usize];
    let end = match limit {
        None => text.len(),
        Some(n) => {
            let after = line - 1 + n; // index of the first row not in the window
            if after < rows {
                starts[after as usize]
            } else {
                text.len()
            }
        }
    };
    Ok((start, end))
}

fn is_utf8(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}

/// Every answer the contract allows for a read of `file`.
fn model(file: &[u8], line: u64, limit: Option<u64>, past_end_empty: bool) -> Vec<Answer> {
    let past_end = |a: Answer| match a {
        Answer::PastEnd { .. } if past_end_empty => Answer::Content(Vec::new()),
        a => a,
    };
    // UTF-16 with a BOM: decoded whole (no NUL test: its text is full of zero bytes).
    let utf16 = match file {
        [0xFF, 0xFE, body @ ..] => Some((body, true)),
        [0xFE, 0xFF, body @ ..] => Some((body, false)),
        _ => None,
    };
    if let Some((body, little)) = utf16 {
        if body.len() % 2 != 0 {
            return vec![Answer::NotUtf8];
        }
        let units = body.chunks(2).map(|c| {
            if little {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        let Ok(text) = char::decode_utf16(units).collect::<Result<String, _>>() else {
            return vec![Answer::NotUtf8];
        };
        let text = text.as_bytes();
        return vec![match window(text, line, limit) {
            Ok((s, e)) => Answer::Content(text[s..e].to_vec()),
            Err(a) => past_end(a),
        }];
    }
    // The NUL test: the first 8 KiB of the file, whatever the window.
    if file[..file.len().min(8 * 1024)].contains(&0) {
        return vec![Answer::Binary];
    }
    let text = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
    match window(text, line, limit) {
        Ok((s, e)) => {
            let answer = Answer::Content(text[s..e].to_vec());
            if !is_utf8(&text[s..e]) {
                // The window's own bytes are always validated.
                vec![Answer::NotUtf8]
            } else if !is_utf8(&text[..s]) {
                // Bytes before the window: validated today, only counted after the planned
                // "count before, validate inside" change. Either answer is the contract's.
                vec![answer, Answer::NotUtf8]
            } else {
                // Bytes after the window are never looked at (streaming).
                vec![answer]
            }
        }
        Err(a) if is_utf8(text) => vec![past_end(a)],
        Err(a) => vec![past_end(a), Answer::NotUtf8],
    }
}

fn got(result: Result<Value, acp_fs::AcpFsError>) -> Answer {
    match result {
        Ok(v) => {
            let content = v["content"].as_str().expect("a read answers {content}");
            Answer::Content(content.as_bytes().to_vec())
        }
        Err(e) => match e.kind {
            ErrorKind::BinaryFile => Answer::Binary,
            ErrorKind::NotUtf8 => Answer::NotUtf8,
            ErrorKind::InvalidParams if e.message.starts_with("Attempting to read beyond the end of the file") => {
                let line = e.data["line"].as_u64().expect("past-end data has line");
                let line_count = e.data["lineCount"].as_u64().expect("past-end data has lineCount");
                assert_eq!(e.data.as_object().map(Map::len), Some(2), "past-end data is exactly {{line, lineCount}}");
                assert_eq!(e.message, format!("Attempting to read beyond the end of the file, line {line}"));
                Answer::PastEnd { line, line_count }
            }
            _ => panic!("an error the contract does not give here: {e:?}"),
        },
    }
}

fn param(byte: u8) -> u64 {
    if byte == 255 {
        u64::from(u32::MAX)
    } else {
        u64::from(byte)
    }
}

fuzz_target!(|data: &[u8]| {
    let [flags, pad, line, limit, bytes @ ..] = data else { return };
    let rows = if *pad >= 0xC0 { usize::from(pad - 0xC0) * 4 } else { 0 };
    let mut max_read = [usize::MAX, 1, 2, 3, 4, 7, 16, 4096][usize::from(flags & 7)];
    if rows > 0 && max_read < 4096 {
        max_read *= 64;
    }
    let past_end_empty = flags & 8 != 0;
    let line = (flags & 16 == 0).then(|| param(*line));
    let limit = (flags & 32 == 0).then(|| param(*limit));
    let absent_as_null = flags & 64 != 0;
    let whole_files_only = flags & 128 != 0;

    let mut file = Vec::new();
    for _ in 0..rows {
        file.extend_from_slice(&[b'.'; 63]);
        file.push(b'\n');
    }
    file.extend_from_slice(bytes);

    let storage = if whole_files_only {
        MemoryStorage::with_caps(StorageCaps::READ_ONLY_MINIMAL)
    } else {
        MemoryStorage::new().with_max_read(max_read)
    };
    storage.put(PATH, &file);
    let options = Options {
        past_end: if past_end_empty { acp_fs::PastEnd::Empty } else { acp_fs::PastEnd::Error },
        ..Options::default()
    };
    let fs = AcpFs::new(options, storage.caps()).unwrap();
    fs.open_session("s", "/p", &[]).unwrap();

    let mut params = json!({ "sessionId": "s", "path": PATH });
    for (name, value) in [("line", line), ("limit", limit)] {
        match value {
            Some(v) => params[name] = json!(v),
            None if absent_as_null => params[name] = Value::Null,
            None => {}
        }
    }
    let outcome = acp_fs::run(fs.read_text_file(params.clone()), &storage, &DefaultHost);
    let answer = got(outcome.result.map(|r| r.to_json()));
    let allowed = model(&file, line.unwrap_or(1), limit, past_end_empty);
    if !allowed.contains(&answer) {
        panic!(
            "the engine and the model disagree\n  params: {params}\n  file: b\"{}\"\n  engine: {answer:?}\n  model: {allowed:?}",
            file.escape_ascii(),
        );
    }
});
