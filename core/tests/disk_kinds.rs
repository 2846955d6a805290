//! The real disk answers with the contract's kind, not the errno it happened to meet
//! (semantics.md §3, §8.2): a socket is `not_a_file`, a parent directory swapped for a symlink
//! after the check is `symlink_escape`.
#![cfg(all(unix, feature = "disk"))]

use acp_fs::{AcpFs, DefaultHost, DiskStorage, Options, Storage, StorageErrorKind};
use serde_json::json;
use std::fs;
use std::os::unix::fs::{symlink, FileTypeExt};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use tempfile::TempDir;

/// `project/` (the root) and `outside/` beside it, with a session on the root.
fn layout() -> (TempDir, PathBuf, AcpFs) {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    fs::create_dir(base.join("project")).unwrap();
    fs::create_dir(base.join("outside")).unwrap();
    let acp = AcpFs::new(Options::default(), DiskStorage::new().caps()).unwrap();
    acp.open_session("s", base.join("project").to_str().unwrap(), &[]).unwrap();
    (tmp, base, acp)
}

fn text(path: &std::path::Path) -> String {
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_socket_inside_the_root_is_not_a_file() {
    let (_tmp, base, acp) = layout();
    let sock = base.join("project/agent.sock");
    let _listener = UnixListener::bind(&sock).unwrap();
    for window in [json!({}), json!({"line": 2, "limit": 1})] {
        let mut params = json!({"sessionId": "s", "path": text(&sock)});
        params.as_object_mut().unwrap().extend(window.as_object().unwrap().clone());
        let out = acp_fs::run(acp.read_text_file(params), &DiskStorage::new(), &DefaultHost);
        let err = out.result.unwrap_err();
        assert_eq!(err.data["errorKind"], "not_a_file", "{err:?}");
    }
    // Writing over it is refused the same way, and the socket stays.
    let out = acp_fs::run(
        acp.write_text_file(json!({"sessionId": "s", "path": text(&sock), "content": "x"})),
        &DiskStorage::new(),
        &DefaultHost,
    );
    assert_eq!(out.result.unwrap_err().data["errorKind"], "not_a_file");
    assert!(fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
}

/// The engine checked `project/a/` (a real directory); then `a` became a symlink to
/// `outside/`. The storage is called with the checked paths, as it would be a moment later.
fn swapped_parent() -> (TempDir, PathBuf) {
    let (tmp, base, _) = layout();
    symlink(base.join("outside"), base.join("project/a")).unwrap();
    (tmp, base)
}

#[test]
fn a_parent_swapped_for_a_symlink_before_make_dirs_is_a_symlink_escape() {
    let (_tmp, base) = swapped_parent();
    let disk = DiskStorage::new();
    let err = disk.make_dirs(&text(&base.join("project")), &text(&base.join("project/a/b/c"))).unwrap_err();
    assert_eq!(err.kind, StorageErrorKind::SymlinkEscape, "{err}");
    assert!(fs::read_dir(base.join("outside")).unwrap().next().is_none(), "nothing created outside");
}

#[test]
fn a_parent_swapped_for_a_symlink_before_a_write_is_a_symlink_escape() {
    let (_tmp, base) = swapped_parent();
    let disk = DiskStorage::new();
    for rel in ["project/a/x.txt", "project/a/b/x.txt"] {
        let err = disk.write(&text(&base.join("project")), &text(&base.join(rel)), b"data").unwrap_err();
        assert_eq!(err.kind, StorageErrorKind::SymlinkEscape, "{rel}: {err}");
    }
    assert!(fs::read_dir(base.join("outside")).unwrap().next().is_none(), "nothing created outside");
}

#[test]
fn a_parent_swapped_for_a_symlink_before_an_open_is_a_symlink_escape() {
    let (_tmp, base) = swapped_parent();
    fs::write(base.join("outside/x.txt"), "secret").unwrap();
    let disk = DiskStorage::new();
    let err = disk.open(&text(&base.join("project")), &text(&base.join("project/a/x.txt"))).unwrap_err();
    assert_eq!(err.kind, StorageErrorKind::SymlinkEscape, "{err}");
}

/// `--root /x/link` (a symlink to `/x/real`, like macOS `/tmp`): a path under either name is
/// inside, on the real disk as in the vectors; a sibling of the real directory is not.
#[test]
fn a_root_that_is_a_symlink_serves_its_real_path_too() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    fs::create_dir(base.join("real")).unwrap();
    fs::write(base.join("real/a.txt"), "hi\n").unwrap();
    fs::write(base.join("beside.txt"), "no\n").unwrap();
    symlink(base.join("real"), base.join("link")).unwrap();
    let disk = DiskStorage::new();
    let acp =
        AcpFs::new(Options { roots: Some(vec![text(&base.join("link"))]), ..Options::default() }, disk.caps()).unwrap();
    let read = |path: PathBuf| {
        acp_fs::run(acp.read_text_file(json!({"sessionId": "any", "path": text(&path)})), &disk, &DefaultHost).result
    };
    assert_eq!(read(base.join("link/a.txt")).unwrap().to_json(), json!({"content": "hi\n"}));
    assert_eq!(read(base.join("real/a.txt")).unwrap().to_json(), json!({"content": "hi\n"}));
    assert_eq!(read(base.join("beside.txt")).unwrap_err().data["errorKind"], "path_outside_roots");
}
