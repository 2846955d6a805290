//! What a 50-line window costs, against the floor and against what hosts usually write.
//!
//! For each text (1 MB, 100 MB) and window position (start, middle, end), in one run:
//! - `engine`: a full `fs/read_text_file` over `MemoryStorage` with ranged reads (params,
//!   session, paths, stat, chunked reads, sniffing, UTF-8 validation, the window);
//! - `window`: the streaming scanner alone, fed the whole text;
//! - `floor`: `memchr` counting the newlines up to the window's end, which any exact answer
//!   must at least do;
//! - `naive`: split the whole text into lines, skip, take, join;
//! - `utf8`, `newline_loop`, `copy`: the parts of the engine's cost, for attributing the
//!   gap between `engine` and `floor` (validation, stopping at every newline, chunk copies);
//! - `blocked_loop`: the newline loop with whole blocks counted in bulk, to show how much of
//!   that gap a different scanning strategy would close.
//!
//! `cargo bench -p acp-fs --bench windows`; results are written up in docs/benchmarks.md.

use acp_fs::window::Window;
use acp_fs::{AcpFs, DefaultHost, MemoryStorage, Options, Storage, MAX_CHUNK};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use std::hint::black_box;
use std::time::Duration;

const PATH: &str = "/project/big.txt";
const LIMIT: u64 = 50;

/// Deterministic text: lines of 20–100 bytes of ASCII words, with a multi-byte character on
/// about one line in forty, so validation cannot take the all-ASCII shortcut everywhere.
fn corpus(size: usize) -> String {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        // xorshift64*: reproducible without a dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let words = ["let", "value", "=", "self.window", "match", "{", "}", "return", "fn", "chunk", "0x7f", "//", "ok"];
    let wide = ["é", "—", "日本", "😀"];
    let mut text = String::with_capacity(size + 128);
    while text.len() < size {
        let target = 20 + (next() % 81) as usize;
        let line_start = text.len();
        if next() % 40 == 0 {
            text.push_str(wide[(next() % wide.len() as u64) as usize]);
        }
        while text.len() - line_start < target {
            text.push_str(words[(next() % words.len() as u64) as usize]);
            text.push(' ');
        }
        text.push('\n');
    }
    text
}

struct Case {
    name: &'static str,
    line: u64,
    /// Byte offset just past the window's last terminator.
    end: usize,
}

fn cases(text: &str) -> Vec<Case> {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    let at = |name, line| {
        let window = Window::slice(text, line, Some(LIMIT)).unwrap();
        let end = window.as_ptr() as usize - text.as_ptr() as usize + window.len();
        Case { name, line, end }
    };
    // The text ends with `\n`, so the last 50 terminated lines start at newlines - 49.
    vec![at("start", 1), at("middle", newlines / 2), at("end", newlines - LIMIT + 1)]
}

fn engine_read(fs: &AcpFs, storage: &MemoryStorage, line: u64) -> String {
    let params = json!({"sessionId": "s", "path": PATH, "line": line, "limit": LIMIT});
    let outcome = acp_fs::run(fs.read_text_file(params), storage, &DefaultHost);
    match outcome.result.map(|r| r.to_json()) {
        Ok(v) => v["content"].as_str().unwrap_or_default().to_owned(),
        Err(e) => panic!("engine read failed: {e}"),
    }
}

fn window(bytes: &[u8], line: u64) -> String {
    let mut w = Window::new(line, Some(LIMIT), u64::MAX);
    w.feed(bytes).and_then(|()| w.finish()).unwrap()
}

/// The pattern found in many hosts: the whole text split into lines first.
fn naive(text: &str, line: u64) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    lines.into_iter().skip(line as usize - 1).take(LIMIT as usize).collect::<Vec<_>>().join("\n")
}

/// Stopping at every newline and counting, as a row-counting scanner must.
fn newline_loop(bytes: &[u8], rows: u64) -> usize {
    let mut seen = 0;
    for i in memchr::memchr_iter(b'\n', bytes) {
        seen += 1;
        if seen == rows {
            return i;
        }
    }
    bytes.len()
}

/// `newline_loop` that skips whole blocks with memchr's vectorized count and stops at
/// individual newlines only in the block holding the last one: a measured sketch of a
/// cheaper scanner, not what the engine does.
fn blocked_loop(bytes: &[u8], rows: u64) -> usize {
    const BLOCK: usize = 8 * 1024;
    let mut seen = 0;
    for (n, block) in bytes.chunks(BLOCK).enumerate() {
        let count = memchr::memchr_iter(b'\n', block).count() as u64;
        if seen + count >= rows {
            return n * BLOCK + newline_loop(block, rows - seen);
        }
        seen += count;
    }
    bytes.len()
}

/// What handing the bytes over in `MAX_CHUNK` pieces costs (a storage read copies them).
fn copy_chunks(bytes: &[u8]) -> usize {
    bytes.chunks(MAX_CHUNK).map(|c| black_box(c.to_vec()).len()).sum()
}

fn bench_text(c: &mut Criterion, label: &str, size: usize, warm_up: Duration, measure: Duration) {
    let text = corpus(size);
    let bytes = text.as_bytes();
    let storage = MemoryStorage::new();
    storage.put(PATH, bytes);
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();

    let cases = cases(&text);
    for case in &cases {
        // Every contender must compute the same window, or the comparison means nothing.
        let expected = Window::slice(&text, case.line, Some(LIMIT)).unwrap();
        assert_eq!(engine_read(&fs, &storage, case.line), expected);
        assert_eq!(window(bytes, case.line), expected);
        assert_eq!(naive(&text, case.line) + "\n", expected);
        assert_eq!(newline_loop(bytes, case.line - 1 + LIMIT) + 1, case.end);
        assert_eq!(blocked_loop(bytes, case.line - 1 + LIMIT) + 1, case.end);
    }

    let mut group = c.benchmark_group(label);
    group.sample_size(10).warm_up_time(warm_up).measurement_time(measure);
    for case in &cases {
        let upto = &bytes[..case.end];
        group.bench_function(BenchmarkId::new("engine", case.name), |b| {
            b.iter(|| engine_read(&fs, &storage, black_box(case.line)))
        });
        group.bench_function(BenchmarkId::new("window", case.name), |b| b.iter(|| window(black_box(bytes), case.line)));
        group.bench_function(BenchmarkId::new("floor", case.name), |b| {
            b.iter(|| memchr::memchr_iter(b'\n', black_box(upto)).count())
        });
        group.bench_function(BenchmarkId::new("naive", case.name), |b| b.iter(|| naive(black_box(&text), case.line)));
        group.bench_function(BenchmarkId::new("utf8", case.name), |b| {
            b.iter(|| std::str::from_utf8(black_box(upto)).is_ok())
        });
        group.bench_function(BenchmarkId::new("newline_loop", case.name), |b| {
            b.iter(|| newline_loop(black_box(upto), case.line - 1 + LIMIT))
        });
        group.bench_function(BenchmarkId::new("blocked_loop", case.name), |b| {
            b.iter(|| blocked_loop(black_box(upto), case.line - 1 + LIMIT))
        });
        group.bench_function(BenchmarkId::new("copy", case.name), |b| b.iter(|| copy_chunks(black_box(upto))));
    }
    group.finish();
}

/// A fresh engine: nothing remembered about any file (a cold line index).
fn cold_engine(storage: &MemoryStorage, options: serde_json::Value) -> AcpFs {
    let fs = AcpFs::new(Options::from_json(&options).unwrap(), storage.caps()).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    fs
}

fn read_content(fs: &AcpFs, storage: &MemoryStorage, params: serde_json::Value) -> Option<String> {
    let outcome = acp_fs::run(fs.read_text_file(params), storage, &DefaultHost);
    outcome.result.ok().map(|r| r.to_json()["content"].as_str().unwrap_or_default().to_owned())
}

/// Paging (semantics.md §8 "Line index"), 100 MB, in one run with its baselines:
/// - `cold_end`: a new engine's 50-line window at the end, against `floor_end` (memchr
///   counting the newlines up to the window's end);
/// - `page_all`: a new engine pages the whole file in 2,000-line windows, first to last,
///   against `whole`: one whole-file read through the same API with maxReadBytes raised.
fn paging(c: &mut Criterion) {
    const PAGE: u64 = 2_000;
    let text = corpus(100 << 20);
    let bytes = text.as_bytes();
    let storage = MemoryStorage::new();
    storage.put(PATH, bytes);
    let raised = json!({"maxReadBytes": 1u64 << 30});
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    let last = newlines - LIMIT + 1;
    let end = cases(&text).pop().unwrap().end;

    let page_all = || {
        let fs = cold_engine(&storage, json!({}));
        let mut total = 0usize;
        let mut line = 1;
        while let Some(content) =
            read_content(&fs, &storage, json!({"sessionId": "s", "path": PATH, "line": line, "limit": PAGE}))
        {
            if content.is_empty() {
                break;
            }
            total += content.len();
            line += PAGE;
        }
        total
    };
    assert_eq!(page_all(), bytes.len());
    let whole = || {
        let fs = cold_engine(&storage, raised.clone());
        read_content(&fs, &storage, json!({"sessionId": "s", "path": PATH})).unwrap().len()
    };
    assert_eq!(whole(), bytes.len());
    let cold_end = || {
        let fs = cold_engine(&storage, json!({}));
        read_content(&fs, &storage, json!({"sessionId": "s", "path": PATH, "line": last, "limit": LIMIT})).unwrap()
    };
    assert_eq!(cold_end(), Window::slice(&text, last, Some(LIMIT)).unwrap());

    let mut group = c.benchmark_group("page100MB");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    group.bench_function("cold_end", |b| b.iter(cold_end));
    group.bench_function("floor_end", |b| b.iter(|| memchr::memchr_iter(b'\n', black_box(&bytes[..end])).count()));
    group.bench_function("page_all", |b| b.iter(page_all));
    group.bench_function("whole", |b| b.iter(whole));
    group.finish();
}

fn windows(c: &mut Criterion) {
    bench_text(c, "1MB", 1 << 20, Duration::from_millis(300), Duration::from_secs(1));
    bench_text(c, "100MB", 100 << 20, Duration::from_millis(500), Duration::from_secs(2));
}

criterion_group!(benches, paging, windows);
criterion_main!(benches);
