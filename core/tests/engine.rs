//! Engine behaviour that vectors cannot express: cancellation, audit events, the approval
//! payload, operation misuse, the async driver, sessions and documents.

mod common;
use common::Refuser;

use acp_fs::{
    AcpFs, Answer, AsyncHost, AsyncStorage, ChangeRecord, DefaultHost, Dispatch, DocumentWrite, Host, Io, KnownAgent,
    MemoryStorage, Metadata, Options, SessionOptions, Step, Storage, StorageCaps, StorageError,
};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

fn setup() -> (MemoryStorage, AcpFs) {
    let storage = MemoryStorage::new();
    storage.put("/p/a.txt", "one\ntwo\n");
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("s", "/p", &[]).unwrap();
    (storage, fs)
}

/// Drives a future whose awaits are all immediately ready (our test storages are in memory).
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            return v;
        }
    }
}

#[test]
fn cancel_mid_write_leaves_storage_untouched() {
    let (storage, fs) = setup();
    let mut op = fs.write_text_file(json!({"sessionId": "s", "path": "/p/a.txt", "content": "new"}));
    let mut files = acp_fs::OpenFiles::default();
    let mut step = op.start();
    // Answer every storage question, and cancel when the engine asks for approval.
    let outcome = loop {
        step = match step {
            Step::Io(Io::Approve { .. }) => break op.cancel(),
            Step::Io(io) => op.resume(acp_fs::perform(&storage, &DefaultHost, &mut files, io)),
            Step::Done(_) => panic!("the write finished without asking for approval"),
        };
    };
    let e = outcome.result.unwrap_err();
    assert_eq!((e.code, e.kind.as_str()), (-32800, "cancelled"));
    assert_eq!(outcome.audit.outcome, "cancelled");
    assert_eq!(storage.get("/p/a.txt").unwrap(), b"one\ntwo\n");
    // A cancelled operation stays finished: resuming it reports, it does not panic.
    let Step::Done(again) = op.resume(Answer::Approved(true)) else { panic!("resumed a cancelled op") };
    assert_eq!(again.result.unwrap_err().kind.as_str(), "internal");
}

#[test]
fn wrong_answers_become_errors_not_panics() {
    let (_, fs) = setup();
    let mut op = fs.read_text_file(json!({"sessionId": "s", "path": "/p/a.txt"}));
    let Step::Io(Io::RealPath { .. }) = op.start() else { panic!("first step resolves the path") };
    let Step::Done(outcome) = op.resume(Answer::Approved(true)) else { panic!("a wrong answer must end the op") };
    let e = outcome.result.unwrap_err();
    assert_eq!(e.code, -32603);
    assert_eq!(e.data["errorKind"], "storage_error");
    assert!(e.message.contains("driver answered real_path with an approval"), "{}", e.message);
    // The report names what came, never its contents: the bytes may be a whole file.
    let mut op = fs.read_text_file(json!({"sessionId": "s", "path": "/p/a.txt"}));
    let Step::Io(Io::RealPath { .. }) = op.start() else { panic!("first step resolves the path") };
    let Step::Done(outcome) = op.resume(Answer::Bytes(vec![b'x'; 100_000].into())) else { panic!() };
    let e = outcome.result.unwrap_err();
    assert!(e.message.contains("driver answered real_path with 100000 bytes"), "{}", e.message);
    assert!(e.message.len() < 200, "{}", e.message);
}

#[test]
fn audit_event_describes_the_request() {
    let (storage, fs) = setup();
    let params = json!({"sessionId": "s", "path": "/p/a.txt", "line": 2, "limit": 1,
                        "_meta": {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}});
    let out = acp_fs::run(fs.read_text_file(params), &storage, &DefaultHost);
    let a = &out.audit;
    assert_eq!((a.op, a.outcome, a.bytes), ("read", "ok", 4));
    assert_eq!((a.line, a.limit), (Some(2), Some(1)));
    assert_eq!(a.session_id.as_deref(), Some("s"));
    assert_eq!(a.traceparent.as_deref(), Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assert!(a.duration_ms.is_some_and(|d| d >= 0.0), "the native driver stamps a duration");
    let denied = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/etc/x"})), &storage, &DefaultHost);
    assert_eq!((denied.audit.outcome, denied.audit.error_kind), ("error", Some("path_outside_roots")));
    let json = serde_json::to_value(&denied.audit).unwrap();
    assert_eq!(json["errorKind"], "path_outside_roots");
    assert!(json["durationMs"].is_number());
}

/// The echo takes a number by its value, whatever form its digits took: a raw `3.0` is read as
/// line 3 and echoed as line 3, as the same request from JavaScript (`3`) is. What a binding that
/// reads raw messages in one module and runs them in another hands over (a JavaScript number)
/// can carry no more than the value.
#[test]
fn the_echo_takes_a_raw_number_by_its_value() {
    let (storage, fs) = setup();
    for (line, limit) in [("2", "1"), ("2.0", "1.0"), ("2e0", "10E-1"), ("0.2e1", "1")] {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{{"sessionId":"s","path":"/p/a.txt","line":{line},"limit":{limit}}}}}"#
        );
        let Dispatch::Call(call) = fs.dispatch(&message) else { panic!("{message}") };
        let out = acp_fs::run(call.operation, &storage, &DefaultHost);
        assert_eq!((out.audit.line, out.audit.limit), (Some(2), Some(1)), "{message}");
    }
}

#[test]
fn approval_sees_the_change_and_a_refusal_writes_nothing() {
    let (storage, fs) = setup();
    let host = Refuser::default();
    let out = acp_fs::run(
        fs.write_text_file(json!({"sessionId": "s", "path": "/p/a.txt", "content": "x\n"})),
        &storage,
        &host,
    );
    assert_eq!(out.result.unwrap_err().data["errorKind"], "user_rejected");
    assert_eq!(out.change, None);
    let asked = host.asked.borrow();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].old_text.as_deref(), Some("one\ntwo\n"));
    assert_eq!(asked[0].new_text, "x\n");
    assert_eq!(storage.get("/p/a.txt").unwrap(), b"one\ntwo\n");
}

#[test]
fn documents_overlay_and_write_through() {
    let (storage, fs) = setup();
    fs.open_document("/p/a.txt", "unsaved\n").unwrap();
    let read = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/a.txt"})), &storage, &DefaultHost);
    assert_eq!(read.result.unwrap().to_json()["content"], "unsaved\n");
    struct Through;
    impl Host for Through {
        fn write_document(&self, _: &str, _: &str) -> DocumentWrite {
            DocumentWrite::WriteThrough
        }
    }
    let w = acp_fs::run(
        fs.write_text_file(json!({"sessionId": "s", "path": "/p/a.txt", "content": "agent\n"})),
        &storage,
        &Through,
    );
    assert_eq!(w.change.unwrap().old_text.as_deref(), Some("unsaved\n"));
    assert_eq!(fs.document("/p/a.txt").as_deref(), Some("agent\n"));
    assert_eq!(storage.get("/p/a.txt").unwrap(), b"agent\n");
    fs.close_document("/p/a.txt");
    assert_eq!(fs.document("/p/a.txt"), None);
    assert!(fs.open_document("relative.txt", "x").is_err());
}

#[test]
fn sessions_validate_their_roots() {
    let (_, fs) = setup();
    assert_eq!(fs.open_session("t", "relative", &[]).unwrap_err().data["field"], "cwd");
    let e = fs.open_session("t", "/ok", &["/fine".into(), "C:foo".into()]).unwrap_err();
    assert_eq!(e.data["field"], "additionalDirectories[1]");
    assert!(AcpFs::new(Options::from_json(&json!({"roots": ["rel"]})).unwrap(), StorageCaps::FULL).is_err());
    assert!(Options::from_json(&json!({"maxReadBytes": "big"})).is_err());
    fs.close_session("s");
    let storage = MemoryStorage::new();
    let out = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/a.txt"})), &storage, &DefaultHost);
    assert_eq!(out.result.unwrap_err().data["field"], "sessionId");
}

#[test]
fn agent_quirks_are_for_the_agent_never_for_mcp_tools() {
    // Gemini CLI's pre-read gets "" for a missing file (semantics.md §8 "Agent quirks"); a model
    // calling the MCP tool in the same session must still be told the file is not there.
    let (storage, fs) = setup();
    let gemini = SessionOptions { agent: Some(KnownAgent::GeminiCli) };
    fs.open_session_with("s", "/p", &[], &gemini).unwrap();
    let acp = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/new.txt"})), &storage, &DefaultHost);
    assert_eq!(acp.result.unwrap().to_json(), json!({"content": ""}));
    let server = acp_fs::mcp::McpServer::new(fs.clone(), "s");
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"read_text_file","arguments":{"path":"/p/new.txt"}}}"#;
    let reply: Value = serde_json::from_str(&server.handle(&storage, &DefaultHost, call).unwrap()).unwrap();
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "File not found: /p/new.txt", "{reply}");
    // Reopening the session without the agent ends the quirk.
    fs.open_session("s", "/p", &[]).unwrap();
    let acp = acp_fs::run(fs.read_text_file(json!({"sessionId": "s", "path": "/p/new.txt"})), &storage, &DefaultHost);
    assert_eq!(acp.result.unwrap_err().code, acp_fs::codes::RESOURCE_NOT_FOUND);
}

#[test]
fn capabilities_follow_storage_and_options() {
    let fs = AcpFs::new(Options::default(), StorageCaps::FULL).unwrap();
    assert_eq!(serde_json::to_value(fs.capabilities()).unwrap(), json!({"readTextFile": true, "writeTextFile": true}));
    let ro = AcpFs::new(Options::default(), StorageCaps::READ_ONLY_MINIMAL).unwrap();
    assert!(!ro.capabilities().write_text_file);
    let opt = AcpFs::new(Options::from_json(&json!({"readOnly": true})).unwrap(), StorageCaps::FULL).unwrap();
    assert!(!opt.capabilities().write_text_file);
}

/// An async storage over MemoryStorage, to exercise `run_async` without a runtime.
struct Async(MemoryStorage);
impl AsyncStorage for Async {
    type File = <MemoryStorage as Storage>::File;

    fn caps(&self) -> StorageCaps {
        self.0.caps()
    }
    async fn stat(&self, path: &str, follow: bool) -> Result<Metadata, StorageError> {
        self.0.stat(path, follow)
    }
    async fn real_path(&self, path: &str) -> Result<String, StorageError> {
        self.0.real_path(path)
    }
    async fn read(&self, path: &str) -> Result<Vec<u8>, StorageError> {
        self.0.read(path)
    }
    async fn open(&self, root: &str, path: &str) -> Result<(Option<Self::File>, Metadata), StorageError> {
        self.0.open(root, path)
    }
    async fn read_at(&self, file: &Self::File, offset: u64, len: usize) -> Result<acp_fs::Bytes, StorageError> {
        self.0.read_at(file, offset, len)
    }
    async fn make_dirs(&self, root: &str, path: &str) -> Result<(), StorageError> {
        self.0.make_dirs(root, path)
    }
    async fn write(&self, root: &str, path: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.0.write(root, path, bytes)
    }
    // It advertises MemoryStorage's caps, listings and moves included: it does them too.
    async fn list(&self, root: &str, path: &str) -> Result<Vec<acp_fs::DirEntry>, StorageError> {
        self.0.list(root, path)
    }
    async fn rename(&self, root: &str, from: &str, to: &str) -> Result<(), StorageError> {
        self.0.rename(root, from, to)
    }
    async fn make_dir(&self, root: &str, path: &str) -> Result<(), StorageError> {
        self.0.make_dir(root, path)
    }
}
struct Deny;
impl AsyncHost for Deny {
    async fn approve(&self, _: &ChangeRecord) -> bool {
        false
    }
}

#[test]
fn async_driver_matches_the_sync_one() {
    let (storage, fs) = setup();
    let storage = Async(storage);
    let read = block_on(acp_fs::run_async(
        fs.read_text_file(json!({"sessionId": "s", "path": "/p/a.txt", "line": 2})),
        &storage,
        &DefaultHost,
    ));
    assert_eq!(read.result.unwrap().to_json(), json!({"content": "two\n"}));
    let write = block_on(acp_fs::run_async(
        fs.write_text_file(json!({"sessionId": "s", "path": "/p/n/b.txt", "content": "b"})),
        &storage,
        &DefaultHost,
    ));
    assert_eq!(write.result.unwrap().to_json(), json!({}));
    assert_eq!(storage.0.get("/p/n/b.txt").unwrap(), b"b");
    let refused = block_on(acp_fs::run_async(
        fs.write_text_file(json!({"sessionId": "s", "path": "/p/c.txt", "content": "c"})),
        &storage,
        &Deny,
    ));
    assert_eq!(refused.result.unwrap_err().data["errorKind"], "user_rejected");
    assert!(!storage.0.exists("/p/c.txt"));
}

#[test]
fn dispatch_classifies_and_echoes_ids() {
    let (storage, fs) = setup();
    let reply = fs
        .handle(&storage, &DefaultHost, r#"{"jsonrpc":"2.0","id":"req-1","method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt","limit":1}}"#)
        .unwrap();
    assert_eq!(reply, r#"{"jsonrpc":"2.0","id":"req-1","result":{"content":"one\n"}}"#);
    match fs.dispatch(r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}"#) {
        acp_fs::Dispatch::Cancel(id) => assert_eq!(id, "7"),
        other => panic!("want a cancel, got {other:?}"),
    }
    let big_id = r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}"#;
    let reply = fs.handle(&storage, &DefaultHost, big_id).unwrap();
    assert!(reply.contains(r#""id":123456789012345678901234567890,"#), "{reply}");
}

#[test]
fn mcp_surface_lists_calls_and_denies() {
    use acp_fs::mcp::McpServer;
    let (storage, fs) = setup();
    let server = McpServer::new(fs, "s");
    let ask = |m: &str| -> Value { serde_json::from_str(&server.handle(&storage, &DefaultHost, m).unwrap()).unwrap() };
    let init = ask(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert!(server
        .handle(&storage, &DefaultHost, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .is_none());
    let list = ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names[..2], ["read_text_file", "write_text_file"]);
    assert!(names.contains(&"list_allowed_directories"), "{names:?}");
    for t in tools {
        let read_only = t["annotations"]["readOnlyHint"].as_bool().unwrap();
        let changes = ["write_text_file", "write_file", "edit_file", "create_directory", "move_file"];
        assert_eq!(read_only, !changes.contains(&t["name"].as_str().unwrap()), "{t}");
        assert_eq!(t["annotations"]["openWorldHint"], false);
    }
    assert!(tools[0]["description"].as_str().unwrap().contains("/p"), "roots in the description");
    let write = ask(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/p/new.txt","content":"hi"}}}"#,
    );
    assert_eq!(write["result"]["isError"], false);
    assert_eq!(storage.get("/p/new.txt").unwrap(), b"hi");
    let denied = ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/etc/passwd"}}}"#,
    );
    assert_eq!(denied["result"]["isError"], true);
    assert!(denied["result"]["content"][0]["text"].as_str().unwrap().contains("path_outside_roots"));
    let bad_args = ask(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"~/rel"}}}"#,
    );
    assert_eq!(bad_args["result"]["isError"], true);
    let unknown = ask(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm","arguments":{}}}"#);
    assert_eq!(unknown["error"]["code"], -32602);
    let ro = AcpFs::new(Options::from_json(&json!({"readOnly": true})).unwrap(), storage.caps()).unwrap();
    ro.open_session("s", "/p", &[]).unwrap();
    let ro = McpServer::new(ro, "s");
    assert!(
        ro.tools().iter().all(|t| t["annotations"]["readOnlyHint"] == true),
        "a read-only engine offers no write tool"
    );
    assert!(ro.unavailable().iter().any(|(name, why)| *name == "write_text_file" && why.contains("readOnly")));
}

#[test]
fn a_bad_document_answer_leaves_the_buffer_alone() {
    let (storage, fs) = setup();
    fs.open_document("/p/a.txt", "buffer\n").unwrap();
    let mut op = fs.write_text_file(json!({"sessionId": "s", "path": "/p/a.txt", "content": "agent\n"}));
    let mut files = acp_fs::OpenFiles::default();
    let mut step = op.start();
    let outcome = loop {
        step = match step {
            Step::Io(Io::WriteDocument { .. }) => op.resume(Answer::Approved(true)),
            Step::Io(io) => op.resume(acp_fs::perform(&storage, &DefaultHost, &mut files, io)),
            Step::Done(outcome) => break outcome,
        };
    };
    assert_eq!(outcome.result.unwrap_err().data["errorKind"], "storage_error");
    assert_eq!(fs.document("/p/a.txt").as_deref(), Some("buffer\n"));
    assert_eq!(storage.get("/p/a.txt").unwrap(), b"one\ntwo\n");
}

#[test]
fn a_known_size_ends_the_read_without_an_extra_round_trip() {
    let (storage, fs) = setup();
    storage.put("/p/small.txt", "x\n".repeat(2048));
    let mut op = fs.read_text_file(json!({"sessionId": "s", "path": "/p/small.txt"}));
    let mut reads = 0;
    let mut files = acp_fs::OpenFiles::default();
    let mut step = op.start();
    let outcome = loop {
        step = match step {
            Step::Io(io) => {
                reads += usize::from(matches!(io, Io::ReadAt { .. }));
                op.resume(acp_fs::perform(&storage, &DefaultHost, &mut files, io))
            }
            Step::Done(outcome) => break outcome,
        };
    };
    assert_eq!(outcome.result.unwrap().to_json()["content"].as_str().unwrap().len(), 4096);
    assert_eq!(reads, 1, "stat said 4096 bytes: one read, no empty read to find the end");
}

#[test]
fn errors_serialize_as_drivers_read_them() {
    let e = acp_fs::AcpFsError::not_found("/p/x");
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        json!({"kind": "not_found", "code": -32002, "message": "Resource not found: /p/x", "data": {"uri": "/p/x"}})
    );
    for kind in acp_fs::ErrorKind::ALL {
        assert_eq!(acp_fs::ErrorKind::from_name(kind.as_str()), Some(kind));
        // The serde name (what JS sees as `code`) is the kind's own name.
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
    }
}

#[test]
fn mcp_calls_split_and_cancel() {
    use acp_fs::mcp::{McpDispatch, McpServer};
    let (storage, fs) = setup();
    let server = McpServer::new(fs, "s");
    let McpDispatch::Call(call) = server.dispatch(
        r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt","limit":1}}}"#,
    ) else {
        panic!("a tool call")
    };
    let (operation, reply) = call.into_parts();
    assert_eq!(reply.id(), r#""c1""#);
    let outcome = acp_fs::run(operation, &storage, &DefaultHost);
    let answer: Value = serde_json::from_str(&reply.respond(&outcome)).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "one\n");
    match server.dispatch(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}"#) {
        McpDispatch::Cancel(id) => assert_eq!(id, r#""c1""#),
        other => panic!("want a cancel, got {other:?}"),
    }
}

#[test]
fn mcp_arguments_are_what_their_json_says() {
    // serde_json's `Value` reads {"$serde_json::private::RawValue": "<json>"} as that JSON: a
    // path sent as such an object must be refused as any object is, not read as a string.
    use acp_fs::mcp::{McpDispatch, McpServer};
    let (storage, fs) = setup();
    let server = McpServer::new(fs, "s");
    let answer = |path: &str| {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_text_file","arguments":{{"path":{path}}}}}}}"#
        );
        let text = match server.dispatch(&message) {
            McpDispatch::Call(call) => {
                let (operation, reply) = call.into_parts();
                reply.respond(&acp_fs::run(operation, &storage, &DefaultHost))
            }
            McpDispatch::Reply(text) => text,
            other => panic!("want an answer, got {other:?}"),
        };
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let token = answer(r#"{"$serde_json::private::RawValue":"\"/p/a.txt\""}"#);
    assert_eq!(token, answer(r#"{"other":"\"/p/a.txt\""}"#), "refused as any object");
    assert!(token["error"]["code"] == -32602 || token["result"]["isError"] == true, "{token}");
    assert_eq!(answer(r#""/p/a.txt""#)["result"]["content"][0]["text"], "one\ntwo\n");
}

/// Runs `op` over `storage`, answering each `open` with the head the engine asked for (plus
/// `extra` bytes, to play a storage that sends too many): the outcome, the heads asked for, and
/// the offsets of the `read_at`s that followed.
fn run_with_heads(
    mut op: acp_fs::Operation,
    storage: &MemoryStorage,
    extra: usize,
) -> (acp_fs::Outcome, Vec<usize>, Vec<u64>) {
    let (mut heads, mut reads) = (Vec::new(), Vec::new());
    let mut files = acp_fs::OpenFiles::default();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(Io::Open { root, path, head }) => {
                heads.push(head);
                let opened =
                    acp_fs::perform(storage, &DefaultHost, &mut files, Io::Open { root, path: path.clone(), head });
                match opened {
                    Answer::Opened { file: Some(file), meta, head: None } if head > 0 => {
                        let bytes = storage.get(&path).unwrap();
                        let head = bytes[..bytes.len().min(head + extra)].to_vec();
                        op.resume(Answer::Opened { file: Some(file), meta, head: Some(head.into()) })
                    }
                    other => op.resume(other),
                }
            }
            Step::Io(io) => {
                if let Io::ReadAt { offset, .. } = io {
                    reads.push(offset);
                }
                op.resume(acp_fs::perform(storage, &DefaultHost, &mut files, io))
            }
            Step::Done(outcome) => return (*outcome, heads, reads),
        }
    }
}

#[test]
fn a_head_sent_with_the_open_is_the_first_chunk() {
    let (storage, fs) = setup();
    let read = |path: &str, line: Option<u32>| {
        let mut params = json!({"sessionId": "s", "path": path, "limit": 5});
        match line {
            Some(line) => params["line"] = json!(line),
            None => params = json!({"sessionId": "s", "path": path}),
        }
        fs.read_text_file(params)
    };
    // A small file: the open's head is all of it, and nothing more is read.
    storage.put("/p/small.txt", "x\n".repeat(2048));
    let (out, heads, reads) = run_with_heads(read("/p/small.txt", None), &storage, 0);
    assert_eq!(out.result.unwrap().to_json()["content"].as_str().unwrap().len(), 4096);
    assert_eq!((heads, reads), (vec![acp_fs::FIRST_CHUNK], vec![]));
    // A larger one: the reads go on where the head ended.
    let big: String = (1..=30000).map(|i| format!("line {i}\n")).collect();
    storage.put("/p/big.txt", &big);
    let (out, _, reads) = run_with_heads(read("/p/big.txt", None), &storage, 0);
    assert_eq!(out.result.unwrap().to_json()["content"], json!(big));
    assert_eq!(reads.first(), Some(&(acp_fs::FIRST_CHUNK as u64)));
    // Once a deep window has taught the line index the file, the next one starts near its row
    // (the head is not used then), unless the head held the whole file.
    let deep = big.find("line 29990\n").unwrap() as u64;
    let (_, _, reads) = run_with_heads(read("/p/big.txt", Some(29990)), &storage, 0);
    assert_eq!(reads.first(), Some(&(acp_fs::FIRST_CHUNK as u64)), "the first time it scans on from the head");
    let (out, heads, reads) = run_with_heads(read("/p/big.txt", Some(29990)), &storage, 0);
    assert_eq!(out.result.unwrap().to_json()["content"].as_str().unwrap().lines().next(), Some("line 29990"));
    assert_eq!((heads, reads.first()), (vec![acp_fs::FIRST_CHUNK], Some(&deep)));
    let small: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    storage.put("/p/lines.txt", &small);
    for _ in 0..2 {
        let (out, _, reads) = run_with_heads(read("/p/lines.txt", Some(90)), &storage, 0);
        assert_eq!(out.result.unwrap().to_json()["content"], json!("line 90\nline 91\nline 92\nline 93\nline 94\n"));
        assert_eq!(reads, Vec::<u64>::new(), "a file sent whole with the open is read no further");
    }
    // More than the engine asked for is a wrong answer, reported as the storage's failure.
    let (out, _, _) = run_with_heads(read("/p/big.txt", None), &storage, 1);
    assert_eq!(out.result.unwrap_err().kind, acp_fs::ErrorKind::StorageError);
}

/// Runs `op` over `storage`, answering every write with a full disk.
fn run_with_failing_writes(mut op: acp_fs::Operation, storage: &MemoryStorage) -> acp_fs::Outcome {
    let mut files = acp_fs::OpenFiles::default();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(Io::Write { .. }) => {
                op.resume(Answer::Err(StorageError::new(acp_fs::StorageErrorKind::Other, "No space left on device")))
            }
            Step::Io(io) => op.resume(acp_fs::perform(storage, &DefaultHost, &mut files, io)),
            Step::Done(outcome) => return *outcome,
        }
    }
}

#[test]
fn a_failed_write_takes_back_the_directories_it_made() {
    let (storage, fs) = setup();
    storage.put("/p/had/theirs.txt", "t\n");
    let write = |path: &str| fs.write_text_file(json!({"sessionId": "s", "path": path, "content": "x\n"}));

    let out = run_with_failing_writes(write("/p/new/deep/er/x.txt"), &storage);
    assert_eq!(out.result.unwrap_err().data["errorKind"], "storage_error");
    assert!(out.change.is_none());
    for gone in ["/p/new", "/p/new/deep", "/p/new/deep/er"] {
        assert!(storage.stat(gone, false).is_err(), "{gone} was made for the failed write and stays");
    }
    // A directory that was there already stays, and so does what is in it.
    run_with_failing_writes(write("/p/had/more/x.txt"), &storage).result.unwrap_err();
    assert!(storage.stat("/p/had/more", false).is_err());
    assert_eq!(storage.read("/p/had/theirs.txt").unwrap(), b"t\n");
}
