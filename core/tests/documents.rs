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
