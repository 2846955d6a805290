//! Writes that land as an editor's save does (semantics.md §5 "What a write keeps"): the file
//! keeps its owner, group and extended attributes; a writable file in a directory that takes no
//! new names is written in place; a failed write leaves no directory it made. On the real disk,
//! as an unprivileged user where privilege would change the answer.
#![cfg(all(unix, feature = "disk"))]

mod common;
mod unprivileged;

use acp_fs::{AcpFs, DefaultHost, DiskStorage, Options, Outcome, Storage};
use common::SmallTmpfs;
use serde_json::json;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Writes `content` to `path` through the engine over the real disk, the session rooted at `root`.
fn write(root: &Path, path: &Path, content: &str) -> Outcome {
    let disk = DiskStorage::new();
    let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
    fs.open_session("s", root.to_str().unwrap(), &[]).unwrap();
    let params = json!({"sessionId": "s", "path": path.to_str().unwrap(), "content": content});
    acp_fs::run(fs.write_text_file(params), &disk, &DefaultHost)
}

fn ok(out: Outcome) {
    if let Err(e) = out.result {
        panic!("expected success, got {e}");
    }
}

fn error_kind(out: Outcome) -> String {
    let e = out.result.expect_err("the write must fail");
    e.data["errorKind"].as_str().unwrap_or_else(|| panic!("no errorKind in {e}")).to_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_writable_file_in_a_read_only_directory_is_written_in_place() {
    unprivileged::run("a_writable_file_in_a_read_only_directory_is_written_in_place", || {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ro");
        fs::create_dir(&dir).unwrap();
        let file = dir.join("a.txt");
        fs::write(&file, "old content\n").unwrap();
        set_mode(&file, 0o640);
        let inode = fs::metadata(&file).unwrap().ino();
        set_mode(&dir, 0o555);
        if fs::write(dir.join("probe"), "").is_ok() {
            // Only a privileged user gets here (nobody never does): it may add names anywhere.
            assert!(!unprivileged::is_child(), "nobody could write into a read-only directory");
            let _ = fs::remove_file(dir.join("probe"));
            set_mode(&dir, 0o755);
            return;
        }

        // Shorter, then longer than what is there: the tail of the old text never survives.
        ok(write(tmp.path(), &file, "new\n"));
        assert_eq!(fs::read(&file).unwrap(), b"new\n");
        ok(write(tmp.path(), &file, "a longer text than any before\n"));
        assert_eq!(fs::read(&file).unwrap(), b"a longer text than any before\n");
        let meta = fs::metadata(&file).unwrap();
        assert_eq!(meta.ino(), inode, "written in place, not replaced");
        assert_eq!(meta.mode() & 0o7777, 0o640);
        assert_eq!(names(&dir), ["a.txt"], "no temporary left");

        // A new name is still refused: the directory takes none.
        assert_eq!(error_kind(write(tmp.path(), &dir.join("new.txt"), "n\n")), "permission_denied");
        // And a file that may not be written is still not, in place or otherwise.
        set_mode(&dir, 0o755);
        set_mode(&file, 0o444);
        set_mode(&dir, 0o555);
        assert_eq!(error_kind(write(tmp.path(), &file, "x\n")), "permission_denied");
        assert_eq!(fs::read(&file).unwrap(), b"a longer text than any before\n");
        set_mode(&dir, 0o755);
    });
}

#[test]
fn root_keeps_the_owner_and_group_of_the_file_it_replaces() {
    if !rustix::process::geteuid().is_root() {
        // Only root may give a file away; a user's replacement is its own by nature, and the
        // in-place test below covers a file it could not give back.
        eprintln!("not root: owner-keeping by chown is root's case (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("theirs.txt");
    fs::write(&file, "old\n").unwrap();
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    set_mode(&file, 0o2664);
    let inode = fs::metadata(&file).unwrap().ino();

    ok(write(tmp.path(), &file, "new\n"));
    let meta = fs::metadata(&file).unwrap();
    assert_eq!(fs::read(&file).unwrap(), b"new\n");
    assert_ne!(meta.ino(), inode, "root may give the file away, so the write is the atomic replace");
    assert_eq!((meta.uid(), meta.gid()), (65534, 65534), "owner and group kept");
    assert_eq!(meta.mode() & 0o7777, 0o2664, "the set-group-id bit survives the chown");
}

#[test]
fn a_file_the_user_cannot_give_back_is_written_in_place() {
    unprivileged::run_prepared(
        "a_file_the_user_cannot_give_back_is_written_in_place",
        |dir| {
            // Root lays out a directory the user may write in, holding root's file that anyone
            // may write: replacing it would make it the user's.
            let file = dir.join("shared.txt");
            fs::write(&file, "old\n").unwrap();
            set_mode(&file, 0o666);
            set_mode(dir, 0o777);
        },
        |dir| {
            let file = dir.join("shared.txt");
            let before = fs::metadata(&file).unwrap();
            let mine = rustix::process::geteuid().as_raw();
            ok(write(dir, &file, "new text\n"));
            let after = fs::metadata(&file).unwrap();
            assert_eq!(fs::read(&file).unwrap(), b"new text\n");
            assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()), "owner and group kept");
            if before.uid() != mine {
                assert_eq!(after.ino(), before.ino(), "another user's file is written in place");
            }
            assert_eq!(names(dir), ["shared.txt"], "no temporary left");
        },
    );
}

#[test]
fn extended_attributes_survive_a_write() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("tagged.txt");
    fs::write(&file, "old\n").unwrap();
    let fd = fs::File::open(&file).unwrap();
    match rustix::fs::fsetxattr(&fd, "user.acp-fs.test", b"kept", rustix::fs::XattrFlags::empty()) {
        Ok(()) => {}
        Err(e) => {
            // tmpfs before Linux 6.6 and some overlays take no user attributes: nothing to keep.
            eprintln!("this file system takes no user.* attributes ({e}): nothing to test here");
            return;
        }
    }
    drop(fd);
    let inode = fs::metadata(&file).unwrap().ino();

    ok(write(tmp.path(), &file, "new\n"));
    assert_ne!(fs::metadata(&file).unwrap().ino(), inode, "replaced by rename");
    let fd = fs::File::open(&file).unwrap();
    let mut value = [0u8; 16];
    let n = rustix::fs::fgetxattr(&fd, "user.acp-fs.test", &mut value[..]).expect("the attribute was copied");
    assert_eq!(&value[..n], b"kept");
}

#[test]
fn a_write_that_runs_out_of_space_leaves_no_directory_it_made() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(tmpfs) = SmallTmpfs::mount(&tmp.path().join("small"), "256k") else { return };
    let root = tmpfs.0.join("project");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("kept.txt"), "kept\n").unwrap();

    let out = write(&root, &root.join("new/dirs/for/it/big.txt"), &"x".repeat(1 << 20));
    let e = out.result.expect_err("a megabyte does not fit in 256 KiB");
    assert_eq!(e.data["errorKind"], "storage_error", "{e}");
    assert!(e.message.contains("No space left"), "{e}");
    assert_eq!(names(&root), ["kept.txt"], "no directory, no temporary left");
}

#[test]
fn a_write_in_place_that_runs_out_of_space_leaves_the_old_content() {
    unprivileged::run_prepared(
        "a_write_in_place_that_runs_out_of_space_leaves_the_old_content",
        |dir| {
            let tmpfs = SmallTmpfs::mount(&dir.join("small"), "256k")?;
            let ro = tmpfs.0.join("ro");
            fs::create_dir(&ro).unwrap();
            fs::write(ro.join("a.txt"), "old\n").unwrap();
            set_mode(&ro.join("a.txt"), 0o666);
            set_mode(&ro, 0o555);
            Some(tmpfs)
        },
        |dir| {
            let ro = dir.join("small/ro");
            if !ro.exists() {
                eprintln!("no tmpfs was mounted (not root): nothing to fill");
                return;
            }
            if rustix::process::geteuid().is_root() {
                eprintln!("root takes the atomic path in a read-only directory: not this test's case");
                return;
            }
            let out = write(dir, &ro.join("a.txt"), &"x".repeat(1 << 20));
            let e = out.result.expect_err("a megabyte does not fit in 256 KiB");
            assert!(e.message.contains("No space left"), "{e}");
            assert_eq!(fs::read(ro.join("a.txt")).unwrap(), b"old\n", "the old content is whole");
            assert_eq!(names(&ro), ["a.txt"]);
        },
    );
}
