//! What several integration tests share. Each test file that needs it says `mod common;`.
#![allow(dead_code)]

use acp_fs::{ChangeRecord, Host};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The `stdio` example binary, built once per test run. `cargo test --test <name>` builds only
/// that test target, never the examples, so the binary next to it could be missing or older than
/// the code under test; building it here (a no-op when it is fresh) rules both out.
pub fn stdio_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(build_example)
}

fn build_example() -> PathBuf {
    // This test runs from `<target-dir>/<profile-dir>/deps/`; the example goes to
    // `<target-dir>/<profile-dir>/examples/`.
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("test binary lives in <target>/<profile>/deps");
    let target_dir = profile_dir.parent().expect("profile dir lives in the target dir");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(name) => name,
        None => panic!("unexpected build directory {}", profile_dir.display()),
    };
    let binary = profile_dir.join("examples").join(format!("stdio{}", std::env::consts::EXE_SUFFIX));
    // A re-run as nobody (unprivileged/mod.rs) may not run cargo; its parent built the binary
    // just before (each such test asks for it before re-running).
    if std::env::var_os("ACP_FS_TEST_UNPRIVILEGED").is_some() {
        return binary;
    }
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
        "`cargo build -p acp-fs --features disk --example stdio` failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        binary.is_file(),
        "the stdio example was built but {} is missing (a `--target` build keeps binaries elsewhere)",
        binary.display()
    );
    binary
}

/// A small tmpfs of its own, so the disk can be filled without touching the machine's. Only
/// root may mount; the tests say so and pass elsewhere (CI runs as root).
pub struct SmallTmpfs(pub PathBuf);

impl SmallTmpfs {
    pub fn mount(at: &Path, size: &str) -> Option<SmallTmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0777"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status();
        match status {
            Ok(s) if s.success() => Some(SmallTmpfs(at.to_path_buf())),
            _ => {
                eprintln!("cannot mount a tmpfs here (not root, or no mount): the ENOSPC tests need one");
                None
            }
        }
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A host that records every change it is asked to approve and refuses each, so nothing is
/// written: what the approval payload says can be checked against what stayed on the storage.
#[derive(Default)]
pub struct Refuser {
    /// The changes asked, in order.
    pub asked: RefCell<Vec<ChangeRecord>>,
}

impl Host for Refuser {
    fn approve(&self, change: &ChangeRecord) -> bool {
        self.asked.borrow_mut().push(change.clone());
        false
    }
}
