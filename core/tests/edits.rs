//! Edits that never clobber (semantics.md §9): merge properties, the ledger's bound, and the
//! per-path queue under the blocking `run` driver with real threads.

use acp_fs::{AcpFs, ChangeRecord, DefaultHost, DocumentWrite, Host, MemoryStorage, Options, Storage};
use proptest::prelude::*;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

fn engine(storage: &MemoryStorage, options: serde_json::Value) -> AcpFs {
    let fs = AcpFs::new(Options::from_json(&options).unwrap(), storage.caps()).unwrap();
    fs.open_session("s", "/p", &[]).unwrap();
    fs
}

fn read(fs: &AcpFs, storage: &MemoryStorage, path: &str) -> acp_fs::Outcome {
    acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": path})), storage, &DefaultHost)
}

fn write(fs: &AcpFs, storage: &MemoryStorage, path: &str, content: &str) -> acp_fs::Outcome {
    acp_fs::run(fs.write_text_file(json!({"sessionId": "s", "path": path, "content": content})), storage, &DefaultHost)
}

fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

proptest! {
    /// Edits on lines at least one unchanged line apart always merge, and keep both.
    #[test]
    fn non_overlapping_edits_keep_both(n in 4usize..40, a in 0usize..40, gap in 2usize..40, user in "[a-z]{1,8}", agent in "[A-Z]{1,8}") {
        let a = a % (n - 2);
        let b = (a + gap).min(n - 1);
        prop_assume!(b >= a + 2);
        let base: Vec<String> = (0..n).map(|i| format!("line {i}")).collect();
        let (mut theirs, mut ours) = (base.clone(), base.clone());
        theirs[a] = user.clone();
        ours[b] = agent.clone();
        let storage = MemoryStorage::new();
        storage.put("/p/f.txt", text(&base));
        let fs = engine(&storage, json!({}));
        read(&fs, &storage, "/p/f.txt").result.unwrap();
        storage.put("/p/f.txt", text(&theirs));
        let out = write(&fs, &storage, "/p/f.txt", &text(&ours));
        prop_assert!(out.result.is_ok(), "{:?}", out.result);
        let mut both = base.clone();
        both[a] = user;
        both[b] = agent;
        prop_assert_eq!(storage.get("/p/f.txt").unwrap(), text(&both).into_bytes());
        prop_assert!(out.change.unwrap().merged);
    }

    /// Two different edits of the same line never merge: nothing is written, the record is none.
    #[test]
    fn conflicting_merge_never_writes(n in 1usize..30, at in 0usize..30, user in "[a-z]{1,8}", agent in "[A-Z]{1,8}", doc in any::<bool>()) {
        let at = at % n;
        let base: Vec<String> = (0..n).map(|i| format!("line {i}")).collect();
        let (mut theirs, mut ours) = (base.clone(), base.clone());
        theirs[at] = user;
        ours[at] = agent;
        let storage = MemoryStorage::new();
        storage.put("/p/f.txt", text(&base));
        let fs = engine(&storage, json!({}));
        read(&fs, &storage, "/p/f.txt").result.unwrap();
        if doc {
            fs.open_document("/p/f.txt", &text(&theirs)).unwrap();
        } else {
            storage.put("/p/f.txt", text(&theirs));
        }
        let out = write(&fs, &storage, "/p/f.txt", &text(&ours));
        prop_assert_eq!(out.result.unwrap_err().data["errorKind"].clone(), json!("stale_write"));
        prop_assert!(out.change.is_none());
        let want = if doc { text(&base) } else { text(&theirs) };
        prop_assert_eq!(storage.get("/p/f.txt").unwrap(), want.into_bytes());
        if doc {
            prop_assert_eq!(fs.document("/p/f.txt").unwrap(), text(&theirs));
        }
    }
}

#[test]
fn the_ledger_stays_under_its_bound_over_ten_thousand_files() {
    let storage = MemoryStorage::new();
    for i in 0..10_000 {
        storage.put(&format!("/p/f{i}.txt"), format!("file {i}\n").repeat(20));
    }
    for bound in [64 * 1024u64, 16 * 1024 * 1024] {
        let fs = engine(&storage, json!({"ledgerSessionBytes": bound}));
        for i in 0..10_000 {
            read(&fs, &storage, &format!("/p/f{i}.txt")).result.unwrap();
            let (_, bytes) = fs.ledger_usage("s");
            assert!(bytes as u64 <= bound, "{bytes} > {bound} after {i} files");
        }
        let (files, _) = fs.ledger_usage("s");
        if bound == 64 * 1024 {
            assert!(files < 10_000, "least recently used files were dropped");
        } else {
            assert_eq!(files, 10_000);
        }
        fs.close_session("s");
        assert_eq!(fs.ledger_usage("s"), (0, 0), "closing the session drops its ledger");
    }
}

#[test]
fn a_file_larger_than_the_per_file_bound_keeps_a_digest() {
    let storage = MemoryStorage::new();
    storage.put("/p/big.txt", "x\n".repeat(1000));
    let fs = engine(&storage, json!({"ledgerFileBytes": 100}));
    read(&fs, &storage, "/p/big.txt").result.unwrap();
    assert!(fs.ledger_usage("s").1 < 1000, "no text kept");
    // Unchanged: written. Changed: cannot be merged without a base.
    assert!(write(&fs, &storage, "/p/big.txt", "y\n").result.is_ok());
    read(&fs, &storage, "/p/big.txt").result.unwrap();
    storage.put("/p/big.txt", "z\n".repeat(1000));
    let fs2 = engine(&storage, json!({"ledgerFileBytes": 100}));
    read(&fs2, &storage, "/p/big.txt").result.unwrap();
    storage.put("/p/big.txt", "w\n".repeat(1000));
    let e = write(&fs2, &storage, "/p/big.txt", "v\n").result.unwrap_err();
    assert_eq!(e.data["errorKind"], "stale_write");
}

/// Approves slowly and records what each approval showed.
struct SlowHost(std::sync::Mutex<Vec<ChangeRecord>>);

impl Host for SlowHost {
    fn approve(&self, change: &ChangeRecord) -> bool {
        std::thread::sleep(Duration::from_millis(50));
        self.0.lock().unwrap().push(change.clone());
        true
    }
    fn write_document(&self, _: &str, _: &str) -> DocumentWrite {
        DocumentWrite::Buffer
    }
}

#[test]
fn threads_running_writes_to_one_file_take_turns() {
    let storage = Arc::new(MemoryStorage::new());
    let base = "a\nb\nc\nd\ne\nf\ng\nh\n";
    storage.put("/p/f.txt", base);
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    let host = Arc::new(SlowHost(Default::default()));
    let n = 4;
    for i in 0..n {
        fs.open_session(&format!("s{i}"), "/p", &[]).unwrap();
        let out = acp_fs::run(
            fs.read_text_file(json!({"sessionId": format!("s{i}"), "path": "/p/f.txt"})),
            &*storage,
            &DefaultHost,
        );
        out.result.unwrap();
    }
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (fs, storage, host) = (fs.clone(), storage.clone(), host.clone());
            std::thread::spawn(move || {
                // Each session edits its own line (lines 0, 2, 4, 6: never adjacent).
                let mut lines: Vec<String> = base.lines().map(str::to_owned).collect();
                lines[2 * i] = format!("edit {i}");
                let content: String = lines.iter().map(|l| format!("{l}\n")).collect();
                let params = json!({"sessionId": format!("s{i}"), "path": "/p/f.txt", "content": content});
                acp_fs::run(fs.write_text_file(params), &*storage, &*host)
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap().result.is_ok());
    }
    let got = String::from_utf8(storage.get("/p/f.txt").unwrap()).unwrap();
    assert_eq!(got, "edit 0\nb\nedit 1\nd\nedit 2\nf\nedit 3\nh\n");
    // Each approval showed the text that was really there: the previous write's result.
    let shown = host.0.lock().unwrap();
    for pair in shown.windows(2) {
        assert_eq!(pair[1].old_text.as_deref(), Some(pair[0].new_text.as_str()));
    }
}

/// A build without the `merge` feature (the fs/* wasm module's) asks its host for a merge; the
/// Rust drivers of such a build have none to answer with, so a write that would merge fails
/// saying so, not as edits that overlap, and writes nothing. `./dev` runs this test without the
/// default features.
#[cfg(not(feature = "merge"))]
#[test]
fn without_the_merge_feature_a_stale_write_fails_saying_so() {
    let storage = MemoryStorage::new();
    storage.put("/p/f.txt", "a\nb\nc\n");
    let fs = engine(&storage, json!({}));
    read(&fs, &storage, "/p/f.txt").result.unwrap();
    storage.put("/p/f.txt", "A\nb\nc\n");
    let out = write(&fs, &storage, "/p/f.txt", "a\nb\nC\n");
    let e = out.result.unwrap_err();
    assert_eq!(e.data["errorKind"], "storage_error");
    assert!(
        e.message.contains("the three-way merge could not be run (this build of acp-fs has no three-way merge"),
        "{}",
        e.message
    );
    assert!(out.change.is_none());
    assert_eq!(storage.get("/p/f.txt").unwrap(), b"A\nb\nc\n");
}
