//! The `stdio` example as a client sees it: a real process, real disk, JSON-RPC lines.
//!
//! Run with `cargo test -p acp-fs --features disk --test stdio`; the tests build the example
//! themselves (see [`binary`]).
#![cfg(all(unix, feature = "disk"))]

mod common;
mod unprivileged;
use common::stdio_binary as binary;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Generous: the server answers in microseconds, but CI machines stall.
const TIMEOUT: Duration = Duration::from_secs(20);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_in(Path::new("."), args)
    }

    /// Starts the server with `dir` as its current directory (for relative roots).
    fn start_in(dir: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(binary())
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the stdio example");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        // A blocking read on the child's stdout would hang the test if the server never
        // answers; the thread turns it into a channel the test can wait on with a deadline.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server { child, stdin, lines }
    }

    fn send(&mut self, message: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(message.as_bytes()).and_then(|_| stdin.write_all(b"\n")).expect("write to the server");
        stdin.flush().expect("flush to the server");
    }

    /// The next line the server prints, exactly as printed.
    fn next_line(&self) -> String {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no reply within {TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout without replying"),
        }
    }

    /// Sends one message and returns the raw reply line.
    fn raw(&mut self, message: &str) -> String {
        self.send(message);
        self.next_line()
    }

    fn call(&mut self, message: Value) -> Value {
        let line = self.raw(&message.to_string());
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {line}"))
    }

    /// Closes stdin and waits for the exit status; nothing more may have been printed.
    fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let status = wait(&mut self.child);
        match self.lines.recv_timeout(TIMEOUT) {
            Err(RecvTimeoutError::Disconnected) => {}
            Ok(line) => panic!("unexpected output after the last request: {line}"),
            Err(RecvTimeoutError::Timeout) => panic!("stdout still open after exit"),
        }
        status
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Only reached with a live child when an assertion failed mid-test.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("poll the server") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A temp dir by its real path (macOS `/tmp` is a symlink), so tests can name files exactly as
/// the disk reports them.
fn project() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
    (dir, real.to_str().expect("UTF-8 temp path").to_owned())
}

fn read(id: Value, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": path}})
}

fn write(id: Value, path: &str, content: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "fs/write_text_file",
           "params": {"sessionId": "s1", "path": path, "content": content}})
}

#[test]
fn reads_a_window_with_its_crlf_bytes() {
    let (_dir, root) = project();
    std::fs::write(format!("{root}/crlf.txt"), "one\r\ntwo\r\nthree\r\n").unwrap();
    let mut server = Server::start(&["--root", &root]);
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fs/read_text_file",
        "params": {"sessionId": "any-session", "path": format!("{root}/crlf.txt"), "line": 2, "limit": 1}});
    // The very first stdout line must be this reply: no banner on the protocol stream.
    assert_eq!(server.raw(&request.to_string()), r#"{"jsonrpc":"2.0","id":1,"result":{"content":"two\r\n"}}"#);
    let whole = server.call(read(json!(2), &format!("{root}/crlf.txt")));
    assert_eq!(whole["result"]["content"], "one\r\ntwo\r\nthree\r\n");
    assert!(server.finish().success());
}

#[test]
fn writes_a_new_nested_file() {
    let (_dir, root) = project();
    let path = format!("{root}/new/deeper/file.txt");
    let mut server = Server::start(&["--root", &root]);
    let reply = server.raw(&write(json!(42), &path, "hello\nworld\n").to_string());
    assert_eq!(reply, r#"{"jsonrpc":"2.0","id":42,"result":{}}"#);
    assert_eq!(std::fs::read(&path).unwrap(), b"hello\nworld\n");
    // And the server reads back what it wrote.
    assert_eq!(server.call(read(json!(43), &path))["result"]["content"], "hello\nworld\n");
    assert!(server.finish().success());
}

#[test]
fn string_ids_are_echoed_byte_for_byte() {
    let (_dir, root) = project();
    std::fs::write(format!("{root}/a.txt"), "x").unwrap();
    let mut server = Server::start(&["--root", &root]);
    // The escape must come back as sent, not re-encoded as `é`.
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":"req-\u00e9-7","method":"fs/read_text_file","params":{{"sessionId":"s","path":"{root}/a.txt"}}}}"#
    );
    assert_eq!(server.raw(&request), r#"{"jsonrpc":"2.0","id":"req-\u00e9-7","result":{"content":"x"}}"#);
    assert!(server.finish().success());
}

#[test]
fn missing_file_is_resource_not_found() {
    let (_dir, root) = project();
    let path = format!("{root}/missing.txt");
    let mut server = Server::start(&["--root", &root]);
    let reply = server.call(read(json!(3), &path));
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["error"]["code"], -32002);
    assert_eq!(reply["error"]["message"], format!("Resource not found: {path}"));
    assert_eq!(reply["error"]["data"]["uri"], path.as_str());
    assert!(reply.get("result").is_none());
}

#[test]
fn relative_path_is_invalid_params() {
    let (_dir, root) = project();
    let mut server = Server::start(&["--root", &root]);
    let reply = server.call(read(json!(4), "src/main.rs"));
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["field"], "path");
    assert!(reply["error"]["data"]["reason"].is_string());
}

#[test]
fn path_outside_the_roots_is_refused() {
    let (_dir, root) = project();
    let (_other, elsewhere) = project();
    let secret = format!("{elsewhere}/secret.txt");
    std::fs::write(&secret, "do not leak").unwrap();
    let mut server = Server::start(&["--root", &root]);
    let reply = server.call(read(json!(5), &secret));
    assert_eq!(reply["error"]["code"], -32603);
    assert_eq!(reply["error"]["data"]["errorKind"], "path_outside_roots");
    assert_eq!(reply["error"]["data"]["path"], secret.as_str());
    // Lexical `..` cannot climb out either.
    let climb = format!("{root}/../{}/secret.txt", Path::new(&elsewhere).file_name().unwrap().to_str().unwrap());
    let reply = server.call(read(json!(6), &climb));
    assert_eq!(reply["error"]["data"]["errorKind"], "path_outside_roots");
    let reply = server.call(write(json!(7), &format!("{elsewhere}/planted.txt"), "x"));
    assert_eq!(reply["error"]["data"]["errorKind"], "path_outside_roots");
    assert!(!Path::new(&format!("{elsewhere}/planted.txt")).exists());
}

#[test]
fn every_root_is_served() {
    let (_a, first) = project();
    let (_b, second) = project();
    std::fs::write(format!("{second}/b.txt"), "in the second root\n").unwrap();
    let mut server = Server::start(&["--root", &first, &format!("--root={second}")]);
    let reply = server.call(read(json!(1), &format!("{second}/b.txt")));
    assert_eq!(reply["result"]["content"], "in the second root\n");
    let reply = server.call(write(json!(2), &format!("{first}/a.txt"), "a"));
    assert_eq!(reply["result"], json!({}));
    assert!(server.finish().success());
}

#[test]
fn a_root_that_is_a_symlink_serves_paths_under_both_names() {
    let (_dir, root) = project();
    let (_links, links) = project();
    let (_other, elsewhere) = project();
    let link = format!("{links}/link-to-project");
    std::os::unix::fs::symlink(&root, &link).unwrap();
    std::fs::write(format!("{root}/a.txt"), "real").unwrap();
    std::fs::write(format!("{elsewhere}/secret.txt"), "do not leak").unwrap();
    std::os::unix::fs::symlink(&elsewhere, format!("{root}/escape")).unwrap();
    let mut server = Server::start(&["--root", &link]);
    // Under the link's own name, as a client that was given `/tmp/...` on macOS sends it.
    let reply = server.call(read(json!(1), &format!("{link}/a.txt")));
    assert_eq!(reply["result"]["content"], "real", "{reply}");
    let reply = server.call(write(json!(2), &format!("{link}/sub/new.txt"), "made\n"));
    assert_eq!(reply["result"], json!({}), "{reply}");
    assert_eq!(std::fs::read(format!("{root}/sub/new.txt")).unwrap(), b"made\n");
    // And under the root's real path, as an agent that canonicalized its working directory
    // sends it (§8 "Roots and symlinks"), the same as @acp-fs/node answers.
    let reply = server.call(read(json!(3), &format!("{root}/a.txt")));
    assert_eq!(reply["result"]["content"], "real", "{reply}");
    // Beside the real path is still outside.
    let reply = server.call(read(json!(30), &format!("{elsewhere}/secret.txt")));
    assert_eq!(reply["error"]["data"]["errorKind"], "path_outside_roots", "{reply}");
    // A second link inside the root still cannot lead out of it.
    let reply = server.call(read(json!(4), &format!("{link}/escape/secret.txt")));
    assert_eq!(reply["error"]["data"]["errorKind"], "symlink_escape", "{reply}");
    let reply = server.call(write(json!(6), &format!("{link}/escape/planted.txt"), "x"));
    assert_eq!(reply["error"]["data"]["errorKind"], "symlink_escape", "{reply}");
    assert!(!Path::new(&format!("{elsewhere}/planted.txt")).exists());
    assert!(server.finish().success());
}

#[test]
fn a_relative_root_is_taken_from_the_current_directory() {
    let (_dir, root) = project();
    std::fs::create_dir(format!("{root}/work")).unwrap();
    std::fs::write(format!("{root}/work/a.txt"), "here").unwrap();
    std::fs::write(format!("{root}/outside.txt"), "not here").unwrap();
    let mut server = Server::start_in(Path::new(&root), &["--root", "work"]);
    let reply = server.call(read(json!(1), &format!("{root}/work/a.txt")));
    assert_eq!(reply["result"]["content"], "here", "{reply}");
    let reply = server.call(read(json!(2), &format!("{root}/outside.txt")));
    assert_eq!(reply["error"]["data"]["errorKind"], "path_outside_roots", "{reply}");
    assert!(server.finish().success());
}

#[test]
fn other_methods_are_method_not_found() {
    let (_dir, root) = project();
    let mut server = Server::start(&["--root", &root]);
    let reply = server.raw(r#"{"jsonrpc":"2.0","id":"x1","method":"session/new","params":{}}"#);
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["id"], "x1");
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(reply["error"]["data"], json!({"method": "session/new"}));
    let reply = server.call(json!({"jsonrpc": "2.0", "id": 9, "method": "fs/delete_file", "params": {}}));
    assert_eq!(reply["id"], 9);
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(reply["error"]["data"]["method"], "fs/delete_file");
    assert!(server.finish().success());
}

#[test]
fn notifications_responses_and_blank_lines_get_no_output() {
    let (_dir, root) = project();
    std::fs::write(format!("{root}/a.txt"), "a").unwrap();
    let mut server = Server::start(&["--root", &root]);
    server.send(r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#);
    server.send(r#"{"jsonrpc":"2.0","method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}}"#);
    server.send(r#"{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    server.send("");
    server.send("   ");
    // The server answers in order, so had any of the above produced a line it would come
    // before this reply.
    let reply = server.call(read(json!("after"), &format!("{root}/a.txt")));
    assert_eq!(reply["id"], "after");
    assert_eq!(reply["result"]["content"], "a");
    assert!(server.finish().success());
}

#[test]
fn a_last_message_without_newline_is_answered() {
    let (_dir, root) = project();
    std::fs::write(format!("{root}/a.txt"), "tail").unwrap();
    let mut server = Server::start(&["--root", &root]);
    let message = read(json!(1), &format!("{root}/a.txt")).to_string();
    let mut stdin = server.stdin.take().unwrap();
    stdin.write_all(message.as_bytes()).unwrap();
    // Closing stdin is the only end-of-message marker left.
    drop(stdin);
    let reply: Value = serde_json::from_str(&server.next_line()).unwrap();
    assert_eq!(reply["result"]["content"], "tail");
    assert!(server.finish().success());
}

#[test]
fn malformed_messages_get_precise_errors() {
    let (_dir, root) = project();
    let mut server = Server::start(&["--root", &root]);
    let reply: Value = serde_json::from_str(&server.raw(r#"{"jsonrpc":"2.0","id":1,"method":"#)).unwrap();
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32700);
    // Invalid UTF-8 cannot be handed to the engine as text; it is still a parse error.
    server.stdin.as_mut().unwrap().write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n").unwrap();
    server.stdin.as_mut().unwrap().flush().unwrap();
    let reply: Value = serde_json::from_str(&server.next_line()).unwrap();
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32700);
    let reply: Value = serde_json::from_str(&server.raw("[1,2]")).unwrap();
    assert_eq!(reply["error"]["code"], -32600);
    // Not ours, but a request this server will never serve is still held to JSON-RPC 2.0.
    let reply = server.call(json!({"id": 5, "method": "session/new"}));
    assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(5), json!(-32600)));
    let reply = server.call(json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "session/new"}));
    assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (Value::Null, json!(-32600)));
    let reply = server.call(json!({"jsonrpc": "2.0", "id": 6, "method": "fs/read_text_file", "params": [1]}));
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["field"], "params");
    assert!(server.finish().success(), "the server survives bad input and exits 0 at EOF");
}

#[test]
fn read_only_refuses_writes() {
    let (_dir, root) = project();
    std::fs::write(format!("{root}/a.txt"), "kept\n").unwrap();
    let mut server = Server::start(&["--read-only", "--root", &root]);
    let reply = server.call(write(json!(1), &format!("{root}/a.txt"), "overwritten\n"));
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(reply["error"]["data"], json!({"method": "fs/write_text_file"}));
    let reply = server.call(write(json!(2), &format!("{root}/new.txt"), "x"));
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(std::fs::read_to_string(format!("{root}/a.txt")).unwrap(), "kept\n");
    assert!(!Path::new(&format!("{root}/new.txt")).exists());
    assert_eq!(server.call(read(json!(3), &format!("{root}/a.txt")))["result"]["content"], "kept\n");
    assert!(server.finish().success());
}

/// Runs the binary to completion with no input; returns (status, stdout, stderr).
fn run_to_exit(args: &[&str]) -> (ExitStatus, String, String) {
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the stdio example");
    let status = wait(&mut child);
    let mut out = String::new();
    let mut err = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status, out, err)
}

#[test]
fn bad_arguments_exit_with_code_2_and_usage() {
    let (_dir, root) = project();
    let file = format!("{root}/plain.txt");
    std::fs::write(&file, "").unwrap();
    let cases: [&[&str]; 6] = [
        &[],
        &["--read-only"],
        &["--root"],
        &["--root", &root, "--bogus"],
        &["--root", &root, "extra"],
        &["--root", &file],
    ];
    for args in cases {
        let (status, out, err) = run_to_exit(args);
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("usage:"), "{args:?}: usage on stderr, got {err:?}");
        assert!(out.is_empty(), "{args:?}: nothing on stdout, got {out:?}");
    }
}

#[test]
fn help_prints_usage_and_succeeds() {
    let (status, out, _) = run_to_exit(&["--help"]);
    assert_eq!(status.code(), Some(0));
    assert!(out.contains("--root DIR") && out.contains("--read-only"), "{out}");
}

#[test]
fn end_of_input_exits_zero_with_no_output() {
    let (_dir, root) = project();
    let (status, out, err) = run_to_exit(&["--root", &root]);
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(out, "");
    // The banner tells a person what is served, on stderr only.
    assert!(err.contains(&root) && err.contains(r#""writeTextFile":true"#), "{err}");
    let (_, _, err) = run_to_exit(&["--root", &root, "--read-only"]);
    assert!(err.contains(r#""writeTextFile":false"#), "{err}");
}

// Writes land as an editor's save does (semantics.md §5 "What a write keeps"); the disk cases
// are core/tests/write_identity.rs, these show the example serves them the same.

#[test]
fn a_writable_file_in_a_read_only_directory_is_written_in_place() {
    binary(); // built here: the re-run as nobody may not run cargo
    unprivileged::run("a_writable_file_in_a_read_only_directory_is_written_in_place", || {
        let (_dir, root) = project();
        let dir = format!("{root}/ro");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(format!("{dir}/a.txt"), "old\n").unwrap();
        let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(format!("{dir}/a.txt")).unwrap());
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o555)).unwrap();
        let privileged = std::fs::write(format!("{dir}/probe"), "").is_ok();
        let mut server = Server::start(&["--root", &root]);
        let reply = server.call(write(json!(1), &format!("{dir}/a.txt"), "new\n"));
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        assert!(server.finish().success());
        if privileged {
            assert!(!unprivileged::is_child(), "nobody could write into a read-only directory");
            return;
        }
        assert_eq!(reply["result"], json!({}), "{reply}");
        assert_eq!(std::fs::read(format!("{dir}/a.txt")).unwrap(), b"new\n");
        let after = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(format!("{dir}/a.txt")).unwrap());
        assert_eq!(after, inode, "written in place");
    });
}

#[test]
fn a_write_that_runs_out_of_space_leaves_no_directory_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let Some(tmpfs) = common::SmallTmpfs::mount(&dir.path().join("small"), "256k") else { return };
    let root = tmpfs.0.to_str().unwrap().to_owned();
    let mut server = Server::start(&["--root", &root]);
    let reply = server.call(write(json!(1), &format!("{root}/new/dirs/big.txt"), &"x".repeat(1 << 20)));
    assert_eq!(reply["error"]["data"]["errorKind"], "storage_error", "{reply}");
    assert!(server.finish().success());
    assert_eq!(std::fs::read_dir(&tmpfs.0).unwrap().count(), 0, "no directory, no temporary left");
}
