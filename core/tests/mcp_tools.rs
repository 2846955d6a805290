//! The MCP read-only tools beyond what one vector can say (semantics.md §10): a cancelled call
//! asks for nothing more, a search streams instead of loading files, tools a storage cannot serve
//! are left out with their reason, every tool declares its schemas and hints, and on the real
//! disk a symlink to outside the roots is shown and never followed by listings, trees and
//! searches.

use acp_fs::mcp::{McpDispatch, McpServer};
use acp_fs::{AcpFs, DefaultHost, MemoryStorage, OpenFiles, Options, Step, Storage, StorageCaps};
use serde_json::{json, Value};

fn call_message(name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string()
}

fn call(server: &McpServer, storage: &impl Storage, name: &str, args: Value) -> Value {
    let reply = server.handle(storage, &DefaultHost, &call_message(name, args)).expect("a reply");
    serde_json::from_str::<Value>(&reply).unwrap()["result"].clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

fn server_over(storage: &MemoryStorage, options: Value) -> McpServer {
    let fs = AcpFs::new(Options::from_json(&options).unwrap(), storage.caps()).unwrap();
    fs.open_session("s", "/p", &[]).unwrap();
    McpServer::new(fs, "s")
}

#[test]
fn a_cancelled_search_asks_for_no_more_io() {
    let storage = MemoryStorage::new();
    for i in 0..20 {
        storage.put(&format!("/p/d{i}/f.txt"), "needle\n");
    }
    let server = server_over(&storage, json!({}));
    let McpDispatch::Call(call) =
        server.dispatch(&call_message("search_text", json!({"path": "/p", "pattern": "needle"})))
    else {
        panic!("a tools/call starts an operation")
    };
    let (mut op, reply) = call.into_parts();
    let mut files = OpenFiles::default();
    let mut step = op.start();
    for _ in 0..5 {
        step = match step {
            Step::Io(io) => op.resume(acp_fs::perform(&storage, &DefaultHost, &mut files, io)),
            Step::Done(_) => panic!("the search ended before it was cancelled"),
        };
    }
    let outcome = op.cancel();
    assert_eq!(outcome.result.as_ref().unwrap_err().code, -32800);
    assert!(matches!(op.resume(acp_fs::Answer::Done), Step::Done(_)), "no I/O after the cancel");
    let answered: Value = serde_json::from_str(&reply.respond(&outcome)).unwrap();
    assert_eq!(answered["result"]["isError"], true);
}

#[test]
fn a_search_streams_and_stops_reading_at_its_bound() {
    let storage = MemoryStorage::new();
    // 8 MiB of text with a match on the first line: maxResults 1 is met in the first chunk.
    let mut big = String::from("needle\n");
    big.push_str(&format!("{}\n", "x".repeat(127)).repeat(65536));
    storage.put("/p/big.txt", &big);
    let server = server_over(&storage, json!({}));
    let r = call(&server, &storage, "search_text", json!({"path": "/p", "pattern": "needle", "maxResults": 1}));
    assert_eq!(r["structuredContent"]["matches"][0]["line"], 1, "{r}");
    assert!(storage.bytes_read() < 1024 * 1024, "read {} bytes of an 8 MiB file", storage.bytes_read());

    // A match at the very end is found through chunks, never one read of the whole file.
    let before = storage.bytes_read();
    let mut tail = big.clone();
    tail.push_str("the last needle\n");
    storage.put("/p/big.txt", &tail);
    let r = call(&server, &storage, "search_text", json!({"path": "/p/big.txt", "pattern": "last needle"}));
    assert_eq!(r["structuredContent"]["matches"][0]["line"], 65538, "{r}");
    assert!(storage.bytes_read() - before >= tail.len() as u64);
}

#[test]
fn tools_a_storage_cannot_serve_are_left_out_with_the_reason() {
    let caps = StorageCaps { list: false, ..StorageCaps::FULL };
    let storage = MemoryStorage::with_caps(caps);
    let server = server_over(&storage, json!({}));
    let names: Vec<String> = server.tools().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    for listing in ["list_directory", "list_directory_with_sizes", "directory_tree", "search_files", "search_text"] {
        assert!(!names.iter().any(|n| n == listing), "{listing} offered without caps.list");
        let why = server.unavailable().into_iter().find(|(n, _)| *n == listing).map(|(_, why)| why);
        assert!(why.is_some_and(|w| w.contains("caps.list")), "{listing}: {why:?}");
    }
    assert!(names.iter().any(|n| n == "read_multiple_files"), "reading needs no listing");
}

#[test]
fn every_tool_declares_schemas_and_hints() {
    let storage = MemoryStorage::new();
    let server = server_over(&storage, json!({}));
    let tools = server.tools();
    assert!(tools.len() >= 12, "{}", tools.len());
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        assert_eq!(t["inputSchema"]["additionalProperties"], false, "{name}");
        assert!(t["title"].is_string(), "{name}");
        assert_eq!(t["annotations"]["openWorldHint"], false, "{name}");
        // The tools that change files (semantics.md §10.7) say so; every other one is read-only.
        let changes = ["write_file", "edit_file", "create_directory", "move_file"].contains(&name);
        if name != "write_text_file" {
            assert_eq!(t["annotations"]["readOnlyHint"], !changes, "{name}");
            assert_eq!(t["outputSchema"]["type"], "object", "{name}: a structuredContent shape");
        }
        if changes {
            assert!(t["annotations"]["destructiveHint"].is_boolean(), "{name}");
        }
    }
}

#[cfg(all(unix, feature = "disk"))]
#[test]
fn on_disk_a_link_out_of_the_roots_is_shown_never_followed() {
    use acp_fs::DiskStorage;
    use std::fs;
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let (root, outside) = (base.join("root"), base.join("outside"));
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "needle outside\n").unwrap();
    fs::write(root.join("src/a.txt"), "needle inside\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("src/secret-link.txt")).unwrap();
    let disk = DiskStorage::new();
    let fs_ = AcpFs::new(Options::default(), disk.caps()).unwrap();
    let r = root.to_str().unwrap();
    fs_.open_session("s", r, &[]).unwrap();
    let server = McpServer::new(fs_, "s");

    let list = call(&server, &disk, "list_directory", json!({"path": r}));
    assert_eq!(text(&list), "[LINK] out\n[DIR] src");
    let tree = call(&server, &disk, "directory_tree", json!({"path": r}));
    let nodes: Value = serde_json::from_str(text(&tree)).unwrap();
    assert_eq!(nodes[0], json!({"name": "out", "type": "symlink"}), "a link has no children");
    assert!(!text(&tree).contains("secret.txt"), "nothing below the link: {}", text(&tree));
    let found = call(&server, &disk, "search_files", json!({"path": r, "pattern": "**/secret*"}));
    assert_eq!(text(&found), format!("{r}/src/secret-link.txt"), "the link itself is found, by name");
    let grep = call(&server, &disk, "search_text", json!({"path": r, "pattern": "needle"}));
    assert_eq!(text(&grep), format!("{r}/src/a.txt:1: needle inside"));
    let through = call(&server, &disk, "list_directory", json!({"path": format!("{r}/out")}));
    assert_eq!(through["isError"], true);
    assert!(text(&through).contains("symlink_escape"), "{}", text(&through));
    let sizes = call(&server, &disk, "list_directory_with_sizes", json!({"path": format!("{r}/src")}));
    assert!(text(&sizes).starts_with("[FILE] a.txt"), "{}", text(&sizes));
    assert!(text(&sizes).contains("[LINK] secret-link.txt"), "{}", text(&sizes));
}

/// A search reads files one after another and closes each when it is done with it: it never
/// holds more than one open, so a tree of more files than the process may open at once (the
/// disk's descriptor limit) is searched whole instead of stopping, unreported, at the limit.
#[test]
fn a_search_holds_one_file_open_at_a_time() {
    let storage = MemoryStorage::new();
    for i in 0..60 {
        storage.put(&format!("/p/d{}/f{i}.txt", i % 7), format!("line\nneedle {i}\n"));
    }
    storage.put("/p/.gitignore", "*.log\n");
    storage.put("/p/d0/skipped.log", "needle\n");
    let server = server_over(&storage, json!({}));
    let McpDispatch::Call(call) =
        server.dispatch(&call_message("search_text", json!({"path": "/p", "pattern": "needle", "maxResults": 1000})))
    else {
        panic!("a tools/call starts an operation")
    };
    let (mut op, reply) = call.into_parts();
    let mut files = OpenFiles::default();
    let (mut open, mut most) = (0, 0);
    let mut step = op.start();
    let outcome = loop {
        step = match step {
            Step::Io(io) => {
                if matches!(io, acp_fs::Io::Close { .. }) {
                    open -= 1;
                }
                let answer = acp_fs::perform(&storage, &DefaultHost, &mut files, io);
                if matches!(answer, acp_fs::Answer::Opened { file: Some(_), .. }) {
                    open += 1;
                    most = most.max(open);
                }
                op.resume(answer)
            }
            Step::Done(outcome) => break outcome,
        };
    };
    assert_eq!(most, 1, "one file open at a time");
    assert_eq!(open, 0, "every file it opened it closed");
    let answered: Value = serde_json::from_str(&reply.respond(&outcome)).unwrap();
    let result = &answered["result"];
    assert_eq!(result["structuredContent"]["matches"].as_array().unwrap().len(), 60, "{}", text(result));
    assert_eq!(result["structuredContent"]["truncated"], false);
}
