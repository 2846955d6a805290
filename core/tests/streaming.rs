//! Streaming windows through the whole engine (semantics.md §2 "Cost", §4 `maxReadBytes`, §8
//! "Decoding limits"): a window costs the bytes up to its end plus at most one chunk, never the
//! file, and short or unranged reads give the same answer as slicing the text in memory.

use acp_fs::window::{Window, WindowError};
use acp_fs::{AcpFs, DefaultHost, MemoryStorage, Options, Outcome, Storage, StorageCaps, MAX_CHUNK};
use serde_json::{json, Value};
use std::sync::OnceLock;

const SESSION: &str = "s";
const BIG: &str = "/project/big.txt";

/// The big file: a head of distinct, numbered lines (so a window there can only match if it
/// starts and ends on the right rows) followed by one filler block repeated up to ~200 MB.
/// Building 200 MB line by line is slow in debug builds; repeating a block is a memcpy.
struct BigText {
    bytes: Vec<u8>,
    /// The head's lines, each with its terminator, exactly as written.
    head: Vec<String>,
    filler_lines: Vec<String>,
    /// Newlines in the whole file, so rows are `1..=newlines + 1`.
    newlines: u64,
}

const HEAD_LINES: usize = 2000;
const TARGET_SIZE: usize = 200 * 1024 * 1024;

fn big_text() -> &'static BigText {
    static TEXT: OnceLock<BigText> = OnceLock::new();
    TEXT.get_or_init(|| {
        // Long, uneven lines put line 51 past the first read (FIRST_CHUNK) and line 1000 past
        // several doubled chunks, so the bound is checked across chunk boundaries.
        let head: Vec<String> = (1..=HEAD_LINES).map(|i| numbered_line(i, 200 + (i * 7919) % 3800)).collect();
        let filler_lines: Vec<String> = (0..997).map(|i| numbered_line(i, i % 130)).collect();
        let block = filler_lines.concat();
        let mut bytes = Vec::with_capacity(TARGET_SIZE + block.len());
        for line in &head {
            bytes.extend_from_slice(line.as_bytes());
        }
        let mut blocks = 0u64;
        while bytes.len() < TARGET_SIZE {
            bytes.extend_from_slice(block.as_bytes());
            blocks += 1;
        }
        let newlines = HEAD_LINES as u64 + blocks * filler_lines.len() as u64;
        BigText { bytes, head, filler_lines, newlines }
    })
}

/// A line with its number, `len` padding bytes that include multi-byte characters, and a
/// `\r\n` terminator on every fifth line.
fn numbered_line(i: usize, len: usize) -> String {
    let mut s = format!("{i:07}|");
    let pad = ["abc", "é", "日本", "😀", " x", "\r"];
    let mut k = i;
    while s.len() < len {
        s.push_str(pad[k % pad.len()]);
        k = k.wrapping_mul(31).wrapping_add(7);
    }
    s.push_str(if i % 5 == 0 { "\r\n" } else { "\n" });
    s
}

fn engine(storage: &MemoryStorage, options: Options) -> AcpFs {
    let fs = AcpFs::new(options, storage.caps()).unwrap();
    fs.open_session(SESSION, "/project", &[]).unwrap();
    fs
}

fn big_storage() -> MemoryStorage {
    let storage = MemoryStorage::new();
    storage.put(BIG, &big_text().bytes);
    storage
}

fn read(fs: &AcpFs, storage: &MemoryStorage, params: Value) -> Outcome {
    acp_fs::run(fs.read_text_file(params), storage, &DefaultHost)
}

fn content(outcome: Outcome) -> String {
    let value = outcome.result.expect("read should succeed").to_json();
    value["content"].as_str().expect("content is a string").to_owned()
}

#[test]
fn big_text_is_as_large_as_claimed() {
    let text = big_text();
    assert!(text.bytes.len() >= TARGET_SIZE);
    assert!(text.bytes.len() as u64 > Options::default().max_read_bytes);
}

#[test]
fn first_window_reads_only_up_to_its_end() {
    let text = big_text();
    let storage = big_storage();
    let fs = engine(&storage, Options::default());
    let got = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": 1, "limit": 50})));
    assert_eq!(got, text.head[..50].concat());
    let offset_of_line_51: usize = text.head[..50].iter().map(String::len).sum();
    let read_bytes = storage.bytes_read();
    assert!(
        read_bytes <= (offset_of_line_51 + MAX_CHUNK) as u64,
        "read {read_bytes} bytes for a window ending at {offset_of_line_51}"
    );
    assert!(read_bytes >= offset_of_line_51 as u64, "the window's own bytes must have been read");
}

#[test]
fn middle_window_reads_only_up_to_its_end() {
    let text = big_text();
    let storage = big_storage();
    let fs = engine(&storage, Options::default());
    let got = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": 1000, "limit": 50})));
    assert_eq!(got, text.head[999..1049].concat());
    let window_end: usize = text.head[..1049].iter().map(String::len).sum();
    let read_bytes = storage.bytes_read();
    assert!(
        read_bytes <= (window_end + MAX_CHUNK) as u64,
        "read {read_bytes} bytes for a window ending at {window_end}"
    );
    assert!(read_bytes >= window_end as u64);
}

#[test]
fn window_at_the_end_of_a_file_beyond_max_read_bytes_is_served() {
    let text = big_text();
    let storage = big_storage();
    let fs = engine(&storage, Options::default());
    let filler = &text.filler_lines;
    // The file ends with a whole filler block, so its last 50 terminated lines are the block's.
    let line = text.newlines - 49;
    let got = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": line, "limit": 50})));
    assert_eq!(got, filler[filler.len() - 50..].concat());
    // The row after the final newline exists and is empty (rows are 1..=newlines + 1).
    let last = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": text.newlines + 1})));
    assert_eq!(last, "");
}

#[test]
fn whole_read_of_a_file_beyond_max_read_bytes_is_refused_unread() {
    let text = big_text();
    let storage = big_storage();
    let fs = engine(&storage, Options::default());
    let whole_reads = [
        json!({"sessionId": SESSION, "path": BIG}),
        json!({"sessionId": SESSION, "path": BIG, "line": 1}),
        json!({"sessionId": SESSION, "path": BIG, "line": null, "limit": null}),
        json!({"sessionId": SESSION, "path": BIG, "line": 0}),
    ];
    for params in whole_reads {
        let err = read(&fs, &storage, params.clone()).result.expect_err("a whole read must be refused");
        assert_eq!(err.code, -32603, "{params}");
        assert_eq!(err.data["errorKind"], "file_too_large", "{params}");
        assert_eq!(err.data["path"], BIG);
        assert_eq!(storage.bytes_read(), 0, "refused from its size before reading: {params}");
    }
    let got = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": 1, "limit": 50})));
    assert_eq!(got, text.head[..50].concat());
}

#[test]
fn window_larger_than_max_read_bytes_is_refused() {
    // maxReadBytes bounds every response's content (semantics.md §8), windows included.
    let text = big_text();
    let storage = big_storage();
    let fifty: usize = text.head[..50].iter().map(String::len).sum();
    let options = Options { max_read_bytes: fifty as u64 - 1, ..Options::default() };
    let fs = engine(&storage, options);
    let err =
        read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": 1, "limit": 50})).result.unwrap_err();
    assert_eq!(err.data["errorKind"], "file_too_large");
    let options = Options { max_read_bytes: fifty as u64, ..Options::default() };
    let fs = engine(&storage, options);
    let got = content(read(&fs, &storage, json!({"sessionId": SESSION, "path": BIG, "line": 1, "limit": 50})));
    assert_eq!(got, text.head[..50].concat());
}

/// A small text with every kind of line ending, multi-byte characters that 7-byte reads must
/// cut, a head longer than the 8 KiB sniff, and no final newline.
fn small_text() -> String {
    let mut s = String::new();
    for i in 0..400usize {
        s.push_str(&"é日😀a\r".repeat(i % 9));
        s.push_str(&format!("{i}"));
        s.push_str(match i % 4 {
            0 => "\r\n",
            1 => "\n",
            2 => "\r\r\n",
            _ => "\n\n",
        });
    }
    s.push_str("tail without newline ß");
    s
}

/// The windows every text is read with: each edge of the row range, both sides of it, and
/// limits from 0 to past the end.
fn windows_for(text: &str) -> Vec<(u64, Option<u64>)> {
    let rows = text.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let lines = [0, 1, 2, 3, rows / 2, rows.saturating_sub(1), rows, rows + 1, rows + 7];
    let limits = [None, Some(0), Some(1), Some(2), Some(50), Some(rows), Some(u64::from(u32::MAX))];
    lines.iter().flat_map(|&l| limits.iter().map(move |&n| (l, n))).collect()
}

/// Reads every window of `text` (stored after `prefix`, e.g. a BOM) through `storage` and
/// compares with `Window::slice`.
fn check_against_slice(storage: &MemoryStorage, prefix: &[u8], text: &str) {
    let path = "/project/small.txt";
    storage.put(path, [prefix, text.as_bytes()].concat());
    let fs = engine(storage, Options::default());
    for (line, limit) in windows_for(text) {
        let mut params = json!({"sessionId": SESSION, "path": path, "line": line});
        if let Some(n) = limit {
            params["limit"] = json!(n);
        }
        let got = read(&fs, storage, params.clone()).result.map(|r| r.to_json());
        match Window::slice(text, line, limit) {
            Ok(expected) => assert_eq!(got.unwrap()["content"], expected, "{params} over {text:?}"),
            Err(WindowError::PastEnd { line, line_count }) => {
                let err = got.expect_err("past the end");
                assert_eq!(err.code, -32602, "{params}");
                assert_eq!(err.data, json!({"line": line, "lineCount": line_count}), "{params}");
            }
            Err(e) => panic!("slice of a str cannot fail with {e:?}"),
        }
    }
}

fn texts() -> Vec<String> {
    vec![small_text(), String::new(), "\n".into(), "a\r\nb".into(), "\r".into(), "😀\n😀\n".into()]
}

#[test]
fn short_reads_match_slicing() {
    // One-byte reads cut every character; on the large text, 7 and 3 already cut each kind
    // of multi-byte character at every offset and cost far fewer round trips.
    for text in texts() {
        let sizes: &[usize] = if text.len() > 64 { &[7, 3] } else { &[1, 2, 7] };
        for &n in sizes {
            check_against_slice(&MemoryStorage::new().with_max_read(n), &[], &text);
        }
    }
}

#[test]
fn unranged_reads_match_slicing() {
    // A storage without ranged reads must agree with one that has them (semantics.md §8).
    let caps = StorageCaps { ranged_reads: false, ..StorageCaps::FULL };
    for text in texts() {
        check_against_slice(&MemoryStorage::with_caps(caps), &[], &text);
    }
}

#[test]
fn bom_is_not_content_with_short_reads() {
    // Reads of 2 and 7 bytes end inside the BOM and inside characters right after it.
    for text in texts() {
        let sizes: &[usize] = if text.len() > 64 { &[7] } else { &[2, 7] };
        for &n in sizes {
            check_against_slice(&MemoryStorage::new().with_max_read(n), b"\xEF\xBB\xBF", &text);
        }
    }
}

#[test]
fn invalid_utf8_after_the_window_is_never_read() {
    // A ranged window ending before the bad byte is served; a whole read reaches it and refuses.
    let mut bytes = small_text().into_bytes();
    let good_len = bytes.len();
    bytes.extend_from_slice(b"\n\xFF\xFE bad\n");
    let storage = MemoryStorage::new().with_max_read(7);
    storage.put("/project/mixed.txt", &bytes);
    let fs = engine(&storage, Options::default());
    let text = std::str::from_utf8(&bytes[..good_len]).unwrap();
    let got = content(read(
        &fs,
        &storage,
        json!({"sessionId": SESSION, "path": "/project/mixed.txt", "line": 3, "limit": 40}),
    ));
    assert_eq!(got, Window::slice(text, 3, Some(40)).unwrap());
    let err = read(&fs, &storage, json!({"sessionId": SESSION, "path": "/project/mixed.txt"})).result.unwrap_err();
    assert_eq!(err.data["errorKind"], "not_utf8");
}
