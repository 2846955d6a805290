//! Open documents and the storage behind them (semantics.md §9 "Open documents"): what the
//! vectors cannot say because it depends on a storage that names versions (the memory storage
//! does: its version counter is its change time).

use acp_fs::{AcpFs, DefaultHost, MemoryStorage, Options, Outcome, Storage};
use serde_json::{json, Value};

const PATH: &str = "/project/a.txt";

fn setup(text: &str) -> (AcpFs, MemoryStorage) {
    let storage = MemoryStorage::new();
    storage.put(PATH, text);
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    (fs, storage)
}

fn read(fs: &AcpFs, storage: &MemoryStorage, window: Value) -> Outcome {
    let mut params = json!({"sessionId": "s", "path": PATH});
    params.as_object_mut().unwrap().extend(window.as_object().unwrap().clone());
    acp_fs::run(fs.read_text_file(params), storage, &DefaultHost)
}

fn content(out: &Outcome) -> String {
    out.result.as_ref().unwrap().to_json()["content"].as_str().unwrap().to_owned()
}

/// A whole read saw the clean text in storage; then a terminal changed the file. A window
/// cannot compare texts, but the file's version moved past the one that matched.
#[test]
fn a_window_names_a_clean_document_stale_once_its_version_moved() {
    let (fs, storage) = setup("1\n2\n3\n");
    fs.document_reloaded(PATH, "1\n2\n3\n").unwrap();
    let whole = read(&fs, &storage, json!({}));
    assert_eq!((content(&whole), whole.stale_document), ("1\n2\n3\n".to_owned(), None));
    let window = read(&fs, &storage, json!({"line": 2, "limit": 1}));
    assert_eq!((content(&window), window.stale_document), ("2\n".to_owned(), None), "same version: fresh");
    storage.put(PATH, "1\nTWO\n3\n");
    let window = read(&fs, &storage, json!({"line": 2, "limit": 1}));
    assert_eq!((content(&window), window.stale_document), ("TWO\n".to_owned(), Some(PATH.to_owned())));
}

/// Editing the buffer makes it the user's again: read as typed, never reported stale.
#[test]
fn a_clean_document_the_user_edits_is_the_buffer_again() {
    let (fs, storage) = setup("one\n");
    fs.document_reloaded(PATH, "one\n").unwrap();
    storage.put(PATH, "changed on disk\n");
    fs.open_document(PATH, "typed\n").unwrap();
    let out = read(&fs, &storage, json!({}));
    assert_eq!((content(&out), out.stale_document), ("typed\n".to_owned(), None));
}

/// A path under a root's real path (macOS `/tmp` → `/private/tmp`): the roots are resolved
/// once, by the name check, and the containment check uses that root (semantics.md §8).
#[test]
fn a_path_under_a_roots_real_path_resolves_the_root_once() {
    use acp_fs::{Io, OpenFiles, Step};
    let storage = MemoryStorage::new();
    storage.put("/real/project/a.txt", "real\n");
    storage.symlink("/project", "/real/project");
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    let mut op = fs.read_text_file(json!({"sessionId": "s", "path": "/real/project/a.txt"}));
    let (mut files, mut resolved) = (OpenFiles::default(), Vec::new());
    let mut step = op.start();
    let outcome = loop {
        match step {
            Step::Io(io) => {
                if let Io::RealPath { path } = &io {
                    resolved.push(path.clone());
                }
                step = op.resume(acp_fs::perform(&storage, &DefaultHost, &mut files, io));
            }
            Step::Done(outcome) => break outcome,
        }
    };
    assert_eq!(content(&outcome), "real\n");
    assert_eq!(resolved.iter().filter(|p| p.as_str() == "/project").count(), 1, "real paths asked: {resolved:?}");
}
