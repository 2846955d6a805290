//! Crash safety of writes on a real disk: the `stdio` example is killed with SIGKILL at random
//! points of large writes. After each kill the file holds exactly the old or exactly the new
//! content, and the next write in that directory (a fresh process) succeeds and leaves no
//! temporary file behind: a temporary of a dead process is swept by the next write there.
//!
//! `ACP_FS_CRASH_ITERATIONS` (default 20) sets the number of kills and `ACP_FS_CRASH_SEED` the
//! random delays (printed, to replay a failure).
#![cfg(all(unix, feature = "disk"))]

use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Under the default `maxWriteBytes` and `maxReadBytes` (10 MiB), so the write is accepted and
/// the file it leaves can be replaced again.
const SIZE: usize = 8_000_000;
/// Every temporary name DiskStorage makes contains this (`.{name}.acp-fs-{pid}-{n}.tmp`).
const TEMP_MARK: &str = ".acp-fs-";

/// The example binary, built once per test run (as in tests/stdio.rs: `cargo test --test
/// crash` does not build examples, so the binary could be missing or stale).
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary knows its own path");
        let profile_dir = exe.parent().and_then(Path::parent).expect("test binary lives in <target>/<profile>/deps");
        let target_dir = profile_dir.parent().expect("profile dir lives in the target dir");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev",
            Some(name) => name,
            None => panic!("unexpected build directory {}", profile_dir.display()),
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        let output = Command::new(&cargo)
            .args(["build", "--quiet", "--package", "acp-fs", "--features", "disk", "--example", "stdio"])
            .args(["--profile", profile, "--target-dir"])
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cargo:?} to build the stdio example: {e}"));
        assert!(
            output.status.success(),
            "building the stdio example failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        profile_dir.join("examples").join(format!("stdio{}", std::env::consts::EXE_SUFFIX))
    })
}

fn server(root: &str) -> Child {
    Command::new(binary())
        .args(["--root", root])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the stdio example")
}

fn write_request(path: &str, content: &str) -> String {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fs/write_text_file",
        "params": {"sessionId": "s", "path": path, "content": content}});
    let mut line = request.to_string();
    line.push('\n');
    line
}

/// One write through a fresh process, to the end: its reply.
fn write_through(root: &str, path: &str, content: &str) -> Value {
    let mut child = server(root);
    let mut stdin = child.stdin.take().unwrap();
    let line = write_request(path, content);
    // A thread feeds stdin while this one reads the reply: a large request fills the pipe.
    let feeder = std::thread::spawn(move || stdin.write_all(line.as_bytes()));
    let mut reply = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut reply).unwrap();
    feeder.join().unwrap().expect("the server read the whole request");
    let status = child.wait().unwrap();
    assert!(status.success(), "the server failed: {status}");
    serde_json::from_str(&reply).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {reply}"))
}

/// Version `tag` of the big file: lines that name their version, `SIZE` bytes in all.
fn content(tag: usize) -> String {
    let mut text = String::with_capacity(SIZE);
    let mut n = 0;
    while text.len() + 64 <= SIZE {
        n += 1;
        let _ = writeln!(text, "version {tag:04} line {n:09} {}", "x".repeat(35));
    }
    text
}

/// Temporary files in `dir`.
fn temps(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(TEMP_MARK))
        .collect();
    names.sort();
    names
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn a_killed_write_leaves_the_old_or_the_new_file_and_no_temporary() {
    let iterations = env_number("ACP_FS_CRASH_ITERATIONS", 20) as usize;
    let seed = std::env::var("ACP_FS_CRASH_SEED").map_or_else(
        |_| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
        |v| v.parse().expect("a number"),
    );
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };

    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    let root = dir.to_str().unwrap().to_owned();
    let target = format!("{root}/big.txt");
    let mut old = content(0).into_bytes();
    std::fs::write(&target, &old).unwrap();

    binary();
    // How long a whole write takes here (start-up, 8 MB through the pipe, parsing, the old
    // file's read, the temporary's write and sync, the rename): kills land anywhere in it.
    // Also how long its temporary file exists (where the disk work is), watched from here.
    let first = content(1);
    let started = Instant::now();
    let (mut seen, mut gone) = (None, None);
    let reply = std::thread::scope(|scope| {
        let writer = scope.spawn(|| write_through(&root, &target, &first));
        while !writer.is_finished() {
            let present = !temps(&dir).is_empty();
            if present && seen.is_none() {
                seen = Some(started.elapsed());
            } else if !present && seen.is_some() && gone.is_none() {
                gone = Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        writer.join().unwrap()
    });
    assert_eq!(reply["result"], json!({}), "{reply}");
    let whole = started.elapsed().max(Duration::from_millis(50));
    let disk_work = match (seen, gone) {
        (Some(seen), Some(gone)) => (gone - seen).max(Duration::from_millis(1)),
        _ => Duration::from_millis(50),
    };
    old = first.into_bytes();
    assert_eq!(std::fs::read(&target).unwrap(), old);

    let (mut kept_old, mut got_new, mut torn) = (0, 0, Vec::new());
    let mut left_by_kill = Vec::new();
    let mut left_after_next_write = Vec::new();
    for i in 0..iterations {
        let before = temps(&dir);
        let new = content(i + 2);
        let line = write_request(&target, &new);
        let mut child = server(&root);
        let mut stdin = child.stdin.take().unwrap();
        // Output is not read: the one small reply fits in the pipe.
        let feeder = std::thread::spawn(move || {
            // The kill breaks the pipe mid-request: that is the point.
            let _ = stdin.write_all(line.as_bytes());
        });
        let start = Instant::now();
        let delay = if i % 2 == 0 {
            // Anywhere in the whole request.
            let delay = Duration::from_micros(next() % whole.as_micros() as u64);
            std::thread::sleep(delay);
            delay
        } else {
            // While the temporary file exists: the few milliseconds of disk work hide in a
            // second of parsing in a debug build, and this is where they are. (A storage whose
            // temporaries have no name is killed at the end of `whole`.)
            let after = Duration::from_micros(next() % disk_work.as_micros() as u64);
            while start.elapsed() < whole && temps(&dir).iter().all(|t| before.contains(t)) {
                std::thread::sleep(Duration::from_micros(200));
            }
            std::thread::sleep(after);
            start.elapsed()
        };
        let _ = child.kill();
        child.wait().unwrap();
        feeder.join().unwrap();

        let now = std::fs::read(&target).unwrap();
        let kept = if now == old {
            kept_old += 1;
            "old"
        } else if now == new.as_bytes() {
            got_new += 1;
            "new"
        } else {
            torn.push(format!("kill {i} after {delay:?}: {} bytes, neither version", now.len()));
            "torn"
        };
        old = now;
        eprintln!("kill {i} after {delay:?}: {kept} content");
        let left: Vec<String> = temps(&dir).into_iter().filter(|t| !before.contains(t)).collect();
        if !left.is_empty() {
            left_by_kill.push(format!("kill {i} after {delay:?} ({kept} content): {left:?}"));
        }

        // The next write in the directory, by a fresh process, succeeds and sweeps.
        let reply = write_through(&root, &format!("{root}/after.txt"), &format!("after kill {i}\n"));
        assert_eq!(reply["result"], json!({}), "the write after kill {i} failed: {reply}");
        let left = temps(&dir);
        if !left.is_empty() {
            left_after_next_write.push(format!("after kill {i}: {} temporary files", left.len()));
        }
    }

    let report = format!(
        "{iterations} kills within {whole:?}, half of them within {disk_work:?} of the temporary's creation \
         (seed {seed}): {kept_old} kept the old file, {got_new} got the new \
         one, {} torn {torn:#?}\nkills that left a temporary: {} {left_by_kill:#?}\niterations whose next write left \
         temporaries behind: {} {left_after_next_write:#?}\ntemporary files at the end: {}",
        torn.len(),
        left_by_kill.len(),
        left_after_next_write.len(),
        temps(&dir).len(),
    );
    eprintln!("{report}");
    assert!(torn.is_empty() && left_after_next_write.is_empty(), "crash safety failed:\n{report}");
}
