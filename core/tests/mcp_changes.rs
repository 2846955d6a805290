//! The MCP tools that change files (semantics.md §10.7), where the vectors cannot look: what the
//! host is asked to approve, a merged edit keeping the user's lines whatever they are, and the
//! undo a host does from the records.

mod common;
use common::Refuser;

use acp_fs::mcp::McpServer;
use acp_fs::{AcpFs, ChangeKind, ChangeRecord, DefaultHost, Host, MemoryStorage, Options, Storage};
use proptest::prelude::*;
use serde_json::{json, Value};

fn setup() -> (MemoryStorage, AcpFs, McpServer) {
    let storage = MemoryStorage::new();
    storage.put("/p/keep.txt", "k\n");
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("s", "/p", &[]).unwrap();
    let server = McpServer::new(fs.clone(), "s");
    (storage, fs, server)
}

/// The tool result of one call.
fn call(server: &McpServer, storage: &MemoryStorage, host: &impl Host, tool: &str, args: Value) -> Value {
    let message =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}});
    let reply = server.handle(storage, host, &message.to_string()).expect("a call is answered");
    serde_json::from_str::<Value>(&reply).unwrap()["result"].clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn every_change_is_asked_with_a_record_of_its_kind() {
    let (storage, _, server) = setup();
    let host = Refuser::default();
    call(&server, &storage, &host, "create_directory", json!({"path": "/p/a/b"}));
    call(&server, &storage, &host, "move_file", json!({"source": "/p/keep.txt", "destination": "/p/moved.txt"}));
    call(
        &server,
        &storage,
        &host,
        "edit_file",
        json!({"path": "/p/keep.txt", "edits": [{"oldText": "k", "newText": "K"}]}),
    );
    let asked = host.asked.borrow();
    let kinds: Vec<ChangeKind> = asked.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ChangeKind::MakeDir, ChangeKind::Move, ChangeKind::Write]);
    // The approval of a new directory lists what would be made; of a move, both ends.
    assert_eq!(asked[0].created_dirs, ["/p/a", "/p/a/b"]);
    assert_eq!((asked[1].from.as_deref(), asked[1].path.as_str()), (Some("/p/keep.txt"), "/p/moved.txt"));
    assert_eq!((asked[2].old_text.as_deref(), asked[2].new_text.as_str()), (Some("k\n"), "K\n"));
    // Refused, each changed nothing.
    assert!(!storage.exists("/p/a") && !storage.exists("/p/moved.txt"));
    assert_eq!(storage.get("/p/keep.txt").unwrap(), b"k\n");
    // A dry run asks nothing.
    call(
        &server,
        &storage,
        &host,
        "edit_file",
        json!({"path": "/p/keep.txt", "edits": [{"oldText": "k", "newText": "K"}], "dryRun": true}),
    );
    assert_eq!(host.asked.borrow().len(), 3);
}

/// What a host does with the records (semantics.md §10.7 "Undo"), over the same storage API.
fn undo(storage: &MemoryStorage, change: &ChangeRecord) {
    match change.kind {
        ChangeKind::Move => storage.rename("/p", &change.path, change.from.as_deref().unwrap()).unwrap(),
        ChangeKind::Write if change.created => assert!(storage.remove(&change.path)),
        ChangeKind::Write => storage.write("/p", &change.path, change.old_text.as_deref().unwrap().as_bytes()).unwrap(),
        _ => {}
    }
    for dir in change.created_dirs.iter().rev() {
        assert!(storage.remove(dir), "{dir} was made by the change and is empty again");
    }
}

#[test]
fn the_records_are_enough_to_undo_every_change() {
    let (storage, fs, _) = setup();
    let before = storage.files();
    let mut changes = Vec::new();
    let mut run = |tool: &str, args: Value| {
        let message =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}});
        let acp_fs::mcp::McpDispatch::Call(call) = McpServer::new(fs.clone(), "s").dispatch(&message.to_string())
        else {
            panic!("{tool} is a call")
        };
        let (op, _) = call.into_parts();
        let outcome = acp_fs::run(op, &storage, &DefaultHost);
        assert!(outcome.result.is_ok(), "{tool}: {:?}", outcome.result);
        changes.push(outcome.change.expect("each leaves a record"));
    };
    run("write_file", json!({"path": "/p/new/deep/n.txt", "content": "n\n"}));
    run("create_directory", json!({"path": "/p/x/y"}));
    run("move_file", json!({"source": "/p/keep.txt", "destination": "/p/x/y/keep.txt"}));
    run("edit_file", json!({"path": "/p/x/y/keep.txt", "edits": [{"oldText": "k\n", "newText": "K\n"}]}));
    assert_eq!(changes[0].created_dirs, ["/p/new", "/p/new/deep"]);
    for change in changes.iter().rev() {
        undo(&storage, change);
    }
    assert_eq!(storage.files(), before);
    for gone in ["/p/new", "/p/x"] {
        assert!(!storage.exists(gone), "{gone} is undone");
    }
}

#[test]
fn a_moved_open_document_is_read_and_edited_under_its_new_name() {
    let (storage, fs, server) = setup();
    fs.open_document("/p/keep.txt", "typed\n").unwrap();
    let moved =
        call(&server, &storage, &DefaultHost, "move_file", json!({"source": "keep.txt", "destination": "k2.txt"}));
    assert!(text(&moved).contains("buffer of /p/keep.txt is now /p/k2.txt"), "{moved}");
    let read = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/k2.txt"})), &storage, &DefaultHost);
    assert_eq!(read.result.unwrap().to_json()["content"], "typed\n", "the unsaved text went along");
    call(
        &server,
        &storage,
        &DefaultHost,
        "edit_file",
        json!({"path": "/p/k2.txt", "edits": [{"oldText": "typed", "newText": "edited"}]}),
    );
    assert_eq!(fs.document("/p/k2.txt").as_deref(), Some("edited\n"));
    assert_eq!(storage.get("/p/k2.txt").unwrap(), b"k\n", "the buffer took the edit, not the disk");
}

/// Not a vector: a browser's OPFS cannot move a directory (its storage answers ENOTSUP), so the
/// one vector would not hold on every backend. The engine's side is the same on every storage.
#[test]
fn a_directory_moves_with_its_files_and_its_open_documents() {
    let (storage, fs, server) = setup();
    storage.put("/p/d/x.txt", "x\n");
    storage.put("/p/d/e/y.txt", "y\n");
    fs.open_document("/p/d/e/y.txt", "y typed\n").unwrap();
    storage.put("/p/dd.txt", "dd\n");
    fs.open_document("/p/dd.txt", "dd typed\n").unwrap();
    let moved = call(&server, &storage, &DefaultHost, "move_file", json!({"source": "/p/d", "destination": "/p/z"}));
    assert_eq!(
        text(&moved),
        "Successfully moved /p/d to /p/z\nThe open editor buffer of /p/d/e/y.txt is now /p/z/e/y.txt."
    );
    assert_eq!(storage.get("/p/z/x.txt").unwrap(), b"x\n");
    assert_eq!(storage.get("/p/z/e/y.txt").unwrap(), b"y\n");
    assert!(!storage.exists("/p/d"));
    assert_eq!(fs.document("/p/z/e/y.txt").as_deref(), Some("y typed\n"));
    assert_eq!(fs.document("/p/d/e/y.txt"), None);
    // A document whose name only starts like the source's is not below it.
    assert_eq!(fs.document("/p/dd.txt").as_deref(), Some("dd typed\n"));
}

#[test]
fn moves_queued_on_the_same_two_paths_run_one_after_the_other() {
    use acp_fs::{Io, Step};
    let (storage, fs, _) = setup();
    storage.put("/p/b.txt", "b\n");
    let start = |from: &str, to: &str| {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "move_file", "arguments": {"source": from, "destination": to}}});
        let acp_fs::mcp::McpDispatch::Call(call) = McpServer::new(fs.clone(), "s").dispatch(&message.to_string())
        else {
            panic!()
        };
        call.into_parts().0
    };
    // Opposite orders of the same two paths, stepped in turn: the second waits for the first's
    // turns, then moves the file back.
    let mut ops = [start("/p/keep.txt", "/p/c.txt"), start("/p/c.txt", "/p/keep.txt")];
    let mut files: Vec<acp_fs::OpenFiles<_>> = vec![Default::default(), Default::default()];
    let mut steps: Vec<Option<Step>> = ops.iter_mut().map(|op| Some(op.start())).collect();
    let mut done = [false, false];
    for _ in 0..1000 {
        for i in 0..2 {
            match steps[i].take() {
                None => {}
                Some(Step::Done(_)) => done[i] = true,
                Some(Step::Io(Io::Wait { path, turn })) if !turn.is_ready() => {
                    steps[i] = Some(Step::Io(Io::Wait { path, turn }))
                }
                Some(Step::Io(io)) => {
                    steps[i] = Some(ops[i].resume(acp_fs::perform(&storage, &DefaultHost, &mut files[i], io)))
                }
            }
        }
    }
    assert_eq!(done, [true, true]);
    assert_eq!(storage.get("/p/keep.txt").unwrap(), b"k\n", "moved there and back");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The agent read the file, the user then changed its first half, and the agent's edit of
    /// a line in the second half still applies: every line the user wrote is in the result,
    /// with the agent's change, and the record says it was merged.
    #[test]
    fn a_merged_edit_keeps_the_users_lines(
        lines in prop::collection::vec("[a-z]{1,6}", 4..16),
        user in prop::collection::vec("[A-Z ]{0,8}", 1..4),
        pick in any::<prop::sample::Index>(),
    ) {
        let (storage, fs, server) = setup();
        let original: String = lines.iter().enumerate().map(|(i, l)| format!("L{i}:{l}\n")).collect();
        storage.put("/p/f.txt", &original);
        let read = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/f.txt"})), &storage, &DefaultHost);
        prop_assert!(read.result.is_ok());
        let half = lines.len() / 2;
        let user_lines: Vec<String> = user.iter().map(|u| format!("user {u}\n")).collect();
        let mut current: Vec<String> = user_lines.clone();
        current.extend(lines.iter().enumerate().skip(half).map(|(i, l)| format!("L{i}:{l}\n")));
        storage.put("/p/f.txt", current.concat());
        let target = half + pick.index(lines.len() - half);
        let old = format!("L{target}:{}\n", lines[target]);
        let result = call(&server, &storage, &DefaultHost, "edit_file",
            json!({"path": "/p/f.txt", "edits": [{"oldText": old, "newText": "agent\n"}]}));
        prop_assert_eq!(&result["isError"], &json!(false), "{}", result);
        let after = String::from_utf8(storage.get("/p/f.txt").unwrap()).unwrap();
        let want = current.concat().replacen(&old, "agent\n", 1);
        prop_assert_eq!(&after, &want);
        for u in &user_lines {
            prop_assert!(after.contains(u.as_str()));
        }
        // The dry run's diff applies back: the old text patched gives the new one.
        let diff = text(&result);
        let body = diff.trim_start_matches('`').trim_start_matches("diff\n");
        let body = &body[..body.rfind("```").unwrap()];
        let patch = body.splitn(3, '\n').nth(2).unwrap();
        let patch = diffy::Patch::from_str(patch).unwrap();
        prop_assert_eq!(diffy::apply(&current.concat(), &patch).unwrap(), after);
    }
}
