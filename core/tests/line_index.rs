//! The line index (semantics.md §8 "Line index"): a window served from a remembered line start
//! is the window computed from scratch, whatever happened to the file in between; a file that
//! changed is never answered from a stale index; the index stays under its memory bound.

use acp_fs::window::Window;
use acp_fs::{AcpFs, DefaultHost, MemoryStorage, Metadata, Options, Storage, StorageCaps, StorageError};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::cell::Cell;
use std::sync::Arc;

const PATH: &str = "/project/a.txt";

/// A memory storage whose times the test sets (`None`: it reports none), to change a file
/// while keeping its size or its times: `mtime` is the modification time anyone may set back,
/// `ctime` the change time only the storage moves.
struct Clocked {
    inner: MemoryStorage,
    mtime: Cell<Option<u64>>,
    ctime: Cell<Option<u64>>,
}

impl Clocked {
    /// Both times read `time`, as on a disk whose file nobody touched with `utimes`.
    fn new(time: Option<u64>) -> Clocked {
        Clocked { inner: MemoryStorage::new(), mtime: Cell::new(time), ctime: Cell::new(time) }
    }

    fn set_time(&self, time: Option<u64>) {
        self.mtime.set(time);
        self.ctime.set(time);
    }

    fn stamp(&self, mut meta: Metadata) -> Metadata {
        meta.modified = self.mtime.get();
        meta.changed = self.ctime.get();
        meta
    }
}

impl Storage for Clocked {
    type File = Arc<Vec<u8>>;

    fn caps(&self) -> StorageCaps {
        self.inner.caps()
    }
    fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        self.inner.stat(path, follow).map(|m| self.stamp(m))
    }
    fn real_path(&self, path: &str) -> Result<String, StorageError> {
        self.inner.real_path(path)
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, StorageError> {
        self.inner.read(path)
    }
    fn open(&self, root: &str, path: &str) -> Result<(Option<Self::File>, Metadata), StorageError> {
        self.inner.open(root, path).map(|(f, m)| (f, self.stamp(m)))
    }
    fn read_at(&self, file: &Self::File, offset: u64, len: usize) -> Result<acp_fs::Bytes, StorageError> {
        self.inner.read_at(file, offset, len)
    }
    fn make_dirs(&self, root: &str, path: &str) -> Result<(), StorageError> {
        self.inner.make_dirs(root, path)
    }
    fn write(&self, root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.inner.write(root, path, bytes)
    }
}

fn engine(options: Value) -> AcpFs {
    let fs = AcpFs::new(Options::from_json(&options).unwrap(), StorageCaps::FULL).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    fs
}

/// The response (content or error) of one read, as JSON.
fn read<S: Storage>(fs: &AcpFs, storage: &S, path: &str, line: u64, limit: Option<u64>) -> Value {
    let params = json!({"sessionId": "s", "path": path, "line": line, "limit": limit});
    match acp_fs::run(fs.read_text_file(params), storage, &DefaultHost).result {
        Ok(r) => r.to_json(),
        Err(e) => json!({"error": e.kind.as_str(), "data": e.data}),
    }
}

fn write<S: Storage>(fs: &AcpFs, storage: &S, text: &str) -> Value {
    let params = json!({"sessionId": "s", "path": PATH, "content": text});
    match acp_fs::run(fs.write_text_file(params), storage, &DefaultHost).result {
        Ok(r) => r.to_json(),
        Err(e) => json!({"error": e.kind.as_str()}),
    }
}

/// What the contract says a window of `text` is.
fn expected(text: &str, line: u64, limit: Option<u64>) -> Value {
    match Window::slice(text, line, limit) {
        Ok(content) => json!({"content": content}),
        Err(_) => Value::Null,
    }
}

/// `rows` rows of varying length, numbered so that rows differ.
fn numbered(rows: usize, width: usize) -> String {
    (0..rows).map(|i| format!("{i:06} {}\n", "x".repeat(i * 7 % width))).collect()
}

#[test]
fn a_deep_window_after_paging_starts_near_its_row() {
    let storage = MemoryStorage::new();
    let text = numbered(40_000, 80); // about 2 MB
    storage.put(PATH, &text);
    let fs = engine(json!({}));
    let last = 40_000 - 100;
    assert_eq!(read(&fs, &storage, PATH, last, Some(50)), expected(&text, last, Some(50)));
    assert!(fs.line_index_bytes() > 0, "the cold scan left checkpoints");
    // The next window starts where the last one ended: it reads about its own bytes.
    let before = storage.bytes_read();
    assert_eq!(read(&fs, &storage, PATH, last + 50, Some(50)), expected(&text, last + 50, Some(50)));
    let cost = storage.bytes_read() - before;
    assert!(cost < 64 * 1024, "a paged window read {cost} bytes");
    // A window between two stride checkpoints reads at most a stride plus its own bytes.
    let before = storage.bytes_read();
    assert_eq!(read(&fs, &storage, PATH, 20_000, Some(10)), expected(&text, 20_000, Some(10)));
    let cost = storage.bytes_read() - before;
    assert!(cost < 256 * 1024, "a window between checkpoints read {cost} bytes");
}

#[test]
fn a_bom_is_not_a_row_offset_error() {
    let storage = MemoryStorage::new();
    let text = numbered(20_000, 60);
    storage.put(PATH, [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat());
    let fs = engine(json!({}));
    for line in [19_000, 19_010, 7_000, 1, 2, 19_999, 20_000, 20_001] {
        assert_eq!(read(&fs, &storage, PATH, line, Some(10)), expected(&text, line, Some(10)), "line {line}");
    }
}

/// The identity changes in one component only: never answered from the old version's index.
#[test]
fn a_changed_file_is_never_answered_from_a_stale_index() {
    let old = numbered(30_000, 50);
    // Same size, rows in different places.
    let mut same_size = numbered(30_000, 50).into_bytes();
    same_size.reverse();
    let same_size = String::from_utf8(same_size).unwrap();
    assert_eq!(old.len(), same_size.len());
    let longer = format!("new first row\n{old}");

    for (new, mtime_after) in [(&same_size, Some(2)), (&longer, Some(1))] {
        let storage = Clocked::new(Some(1));
        storage.inner.put(PATH, &old);
        let fs = engine(json!({}));
        for line in [29_000, 29_050] {
            assert_eq!(read(&fs, &storage, PATH, line, Some(50)), expected(&old, line, Some(50)));
        }
        storage.inner.put(PATH, new);
        storage.set_time(mtime_after);
        for line in [29_050, 29_100, 15_000] {
            assert_eq!(read(&fs, &storage, PATH, line, Some(50)), expected(new, line, Some(50)), "line {line}");
        }
    }
}

#[test]
fn a_write_through_the_engine_drops_the_index_even_with_the_same_identity() {
    let old = numbered(30_000, 50);
    let mut new = numbered(30_000, 50).into_bytes();
    new.reverse();
    let new = String::from_utf8(new).unwrap();
    let storage = Clocked::new(Some(7)); // a clock too coarse to see the write
    storage.inner.put(PATH, &old);
    let fs = engine(json!({"lineEndings": "asIs"}));
    assert_eq!(read(&fs, &storage, PATH, 29_000, Some(50)), expected(&old, 29_000, Some(50)));
    assert_eq!(write(&fs, &storage, &new), json!({}));
    assert_eq!(fs.line_index_bytes(), 0);
    assert_eq!(read(&fs, &storage, PATH, 29_050, Some(50)), expected(&new, 29_050, Some(50)));
}

/// `touch -r`, `cp -p`, `tar x`: new content of the same size with the old modification time
/// put back. Only the change time moved, and that is enough.
#[test]
fn a_modification_time_put_back_is_not_the_old_version() {
    let old = numbered(30_000, 50);
    let mut same_size = old.clone().into_bytes();
    same_size.reverse();
    let same_size = String::from_utf8(same_size).unwrap();
    let storage = Clocked::new(Some(1));
    storage.inner.put(PATH, &old);
    let fs = engine(json!({}));
    for line in [29_000, 29_050] {
        assert_eq!(read(&fs, &storage, PATH, line, Some(50)), expected(&old, line, Some(50)));
    }
    storage.inner.put(PATH, &same_size);
    storage.ctime.set(Some(2));
    for line in [29_050, 29_100, 15_000] {
        assert_eq!(read(&fs, &storage, PATH, line, Some(50)), expected(&same_size, line, Some(50)), "line {line}");
    }
}

/// A storage that reports a modification time but no change time cannot prove a version
/// (anyone may set the modification time back), so it gets no index: slower, never wrong.
#[test]
fn a_storage_without_a_change_time_gets_no_index() {
    let storage = Clocked::new(Some(1));
    storage.ctime.set(None);
    assert_served_without_an_index(&storage);
}

/// Deep windows are right and nothing is remembered for them.
fn assert_served_without_an_index(storage: &Clocked) {
    let text = numbered(30_000, 50);
    storage.inner.put(PATH, &text);
    let fs = engine(json!({}));
    for line in [29_000, 29_050, 100] {
        assert_eq!(read(&fs, storage, PATH, line, Some(50)), expected(&text, line, Some(50)));
    }
    assert_eq!(fs.line_index_bytes(), 0);
}

#[test]
fn a_storage_without_modification_times_gets_no_index() {
    assert_served_without_an_index(&Clocked::new(None));
}

#[test]
fn the_index_stays_under_its_memory_bound() {
    let storage = MemoryStorage::new();
    let text = numbered(30_000, 100); // ~1.6 MB: about 25 stride checkpoints per file
    let bound = 2_000;
    let fs = engine(json!({"lineIndexBytes": bound}));
    for i in 0..20 {
        let path = format!("/project/f{i}.txt");
        storage.put(&path, &text);
        for line in [29_000, 29_050, 10_000] {
            assert_eq!(read(&fs, &storage, &path, line, Some(50)), expected(&text, line, Some(50)));
            assert!(fs.line_index_bytes() <= bound, "{} > {bound}", fs.line_index_bytes());
        }
    }
    assert!(fs.line_index_bytes() > 0, "the most recent files are still indexed");
    // Off: nothing is kept.
    let off = engine(json!({"lineIndexBytes": 0}));
    assert_eq!(read(&off, &storage, "/project/f0.txt", 29_000, Some(5)), expected(&text, 29_000, Some(5)));
    assert_eq!(off.line_index_bytes(), 0);
}

#[derive(Clone, Debug)]
enum Op {
    Read {
        line: u64,
        limit: Option<u64>,
    },
    /// Through the engine (the index must forget the file).
    Write(Vec<u8>),
    /// Behind the engine's back (a new version: the identity changes).
    Put(Vec<u8>),
}

/// Texts with rows of very different lengths, CRLF, lone CR, multi-byte characters, an
/// occasional invalid byte and an occasional BOM, sometimes longer than a checkpoint stride.
fn bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    let row = prop_oneof![
        6 => (0usize..40).prop_map(|n| format!("{}\n", "a".repeat(n)).into_bytes()),
        2 => Just(b"\r\n".to_vec()),
        1 => Just("é日\r".as_bytes().to_vec()),
        1 => Just(b"x\xFF\n".to_vec()),
        1 => (1usize..4000).prop_map(|n| format!("{}\n", "long ".repeat(n)).into_bytes()),
    ];
    (any::<bool>(), prop::collection::vec(row, 0..200), any::<bool>()).prop_map(|(bom, rows, tail)| {
        let mut out = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        for r in rows {
            out.extend_from_slice(&r);
        }
        if tail {
            out.extend_from_slice(b"no terminator");
        }
        out
    })
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u64..260, prop::option::of(0u64..80)).prop_map(|(line, limit)| Op::Read { line, limit }),
        1 => bytes_strategy().prop_map(Op::Write),
        1 => bytes_strategy().prop_map(Op::Put),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Whatever sequence of reads and writes, the engine with an index answers exactly what an
    /// engine without one answers (errors included), over storages with short reads.
    #[test]
    fn windows_from_checkpoints_equal_windows_from_scratch(
        first in bytes_strategy(),
        ops in prop::collection::vec(op_strategy(), 1..24),
        max_read in prop_oneof![Just(usize::MAX), 1usize..5000],
    ) {
        let indexed = MemoryStorage::new().with_max_read(max_read);
        let scratch = MemoryStorage::new();
        indexed.put(PATH, &first);
        scratch.put(PATH, &first);
        let with = engine(json!({"lineEndings": "asIs", "maxReadBytes": 1 << 30}));
        let without = engine(json!({"lineEndings": "asIs", "maxReadBytes": 1 << 30, "lineIndexBytes": 0}));
        for op in ops {
            match op {
                Op::Read { line, limit } => {
                    prop_assert_eq!(read(&with, &indexed, PATH, line, limit), read(&without, &scratch, PATH, line, limit));
                }
                Op::Write(bytes) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    prop_assert_eq!(write(&with, &indexed, &text), write(&without, &scratch, &text));
                }
                Op::Put(bytes) => {
                    indexed.put(PATH, &bytes);
                    scratch.put(PATH, &bytes);
                }
            }
        }
        prop_assert_eq!(indexed.get(PATH), scratch.get(PATH));
    }
}
