//! The real-disk storage, end to end through the engine on real temporary directories, and
//! directly where the storage's own promise is the point (semantics.md §3–§5).
#![cfg(all(unix, feature = "disk"))]

mod unprivileged;

use acp_fs::{
    AcpFs, AcpFsError, DefaultHost, DiskStorage, FileKind, Metadata, Options, Outcome, Storage, StorageErrorKind,
};
use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use tempfile::TempDir;

/// A temporary directory with `project/` (the session's root) and `outside/` next to it.
struct Env {
    _tmp: TempDir,
    base: PathBuf,
    disk: DiskStorage,
    fs: AcpFs,
}

impl Env {
    fn new() -> Env {
        Env::with_disk(DiskStorage::new())
    }

    fn with_disk(disk: DiskStorage) -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().to_path_buf();
        fs::create_dir(base.join("project")).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
        fs.open_session("s", base.join("project").to_str().unwrap(), &[]).unwrap();
        Env { _tmp: tmp, base, disk, fs }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }

    fn p(&self, rel: &str) -> String {
        self.path(rel).to_str().unwrap().to_owned()
    }

    /// The session root, as the engine hands it to the storage.
    fn root(&self) -> String {
        self.p("project")
    }

    /// A ranged read straight from the storage: open, then one read of the open file.
    fn range(&self, path: &str, offset: u64, len: usize) -> Result<Vec<u8>, acp_fs::StorageError> {
        match self.disk.open(&self.root(), path)? {
            (Some(file), _) => self.disk.read_at(&file, offset, len).map(acp_fs::Bytes::into_vec),
            (None, meta) => Err(acp_fs::StorageError::new(StorageErrorKind::Other, format!("not opened: {meta:?}"))),
        }
    }

    fn read(&self, rel: &str, extra: Value) -> Outcome {
        let mut params = json!({"sessionId": "s", "path": self.p(rel)});
        merge(&mut params, extra);
        acp_fs::run(self.fs.read_text_file(params), &self.disk, &DefaultHost)
    }

    fn write(&self, rel: &str, content: &str) -> Outcome {
        self.write_with(&self.disk, rel, content)
    }

    fn write_with(&self, disk: &DiskStorage, rel: &str, content: &str) -> Outcome {
        let params = json!({"sessionId": "s", "path": self.p(rel), "content": content});
        acp_fs::run(self.fs.write_text_file(params), disk, &DefaultHost)
    }
}

fn merge(into: &mut Value, extra: Value) {
    if let (Value::Object(into), Value::Object(extra)) = (into, extra) {
        into.extend(extra);
    }
}

fn content(out: Outcome) -> String {
    match out.result {
        Ok(r) => r.to_json()["content"].as_str().expect("content is a string").to_owned(),
        Err(e) => panic!("expected content, got {e}"),
    }
}

fn error(out: Outcome) -> AcpFsError {
    match out.result {
        Ok(r) => panic!("expected an error, got {}", r.to_json()),
        Err(e) => e,
    }
}

fn error_kind(out: Outcome) -> String {
    let e = error(out);
    e.data["errorKind"].as_str().unwrap_or_else(|| panic!("no errorKind in {e}")).to_owned()
}

fn ok(out: Outcome) {
    if let Err(e) = out.result {
        panic!("expected success, got {e}");
    }
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success(), "mkfifo {} failed", path.display());
}

/// Runs `f` on another thread and fails the test if it does not finish promptly: a blocking
/// open of a FIFO would otherwise hang the suite instead of failing it.
fn promptly<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("{what} blocked"))
}

// ---- containment on a real disk ----

#[test]
fn symlink_to_a_file_outside_is_refused_for_read_and_write() {
    let env = Env::new();
    fs::write(env.path("outside/secret.txt"), "secret\n").unwrap();
    symlink(env.path("outside/secret.txt"), env.path("project/link")).unwrap();

    assert_eq!(error_kind(env.read("project/link", json!({}))), "symlink_escape");
    assert_eq!(error_kind(env.write("project/link", "pwned\n")), "symlink_escape");
    assert_eq!(fs::read(env.path("outside/secret.txt")).unwrap(), b"secret\n");
    assert!(fs::symlink_metadata(env.path("project/link")).unwrap().file_type().is_symlink());
}

#[test]
fn symlink_inside_the_root_is_followed_for_read_and_write() {
    let env = Env::new();
    fs::write(env.path("project/real.txt"), "one\ntwo\n").unwrap();
    symlink("real.txt", env.path("project/alias.txt")).unwrap();

    assert_eq!(content(env.read("project/alias.txt", json!({"line": 2}))), "two\n");
    let out = env.write("project/alias.txt", "three\n");
    let change = out.change.clone().expect("a change record");
    ok(out);
    assert!(!change.created);
    assert_eq!(change.old_text.as_deref(), Some("one\ntwo\n"));
    // The write went to the link's target; the link is still a link.
    assert_eq!(fs::read(env.path("project/real.txt")).unwrap(), b"three\n");
    assert_eq!(fs::read_link(env.path("project/alias.txt")).unwrap(), Path::new("real.txt"));
}

#[test]
fn new_file_under_a_symlinked_directory_pointing_outside_is_refused() {
    let env = Env::new();
    symlink(env.path("outside"), env.path("project/out")).unwrap();

    assert_eq!(error_kind(env.write("project/out/new.txt", "x\n")), "symlink_escape");
    assert_eq!(error_kind(env.write("project/out/a/b/new.txt", "x\n")), "symlink_escape");
    assert_eq!(error_kind(env.read("project/out/new.txt", json!({}))), "symlink_escape");
    assert!(listing(&env.path("outside")).is_empty(), "created outside: {:?}", listing(&env.path("outside")));
}

#[test]
fn dangling_symlinks_are_refused_and_their_targets_never_created() {
    let env = Env::new();
    symlink(env.path("outside/ghost.txt"), env.path("project/to-outside")).unwrap();
    // Even pointing inside the root: a dangling link cannot be proven to stay inside.
    symlink(env.path("project/later.txt"), env.path("project/to-inside")).unwrap();
    symlink(env.path("outside/nodir"), env.path("project/dir-link")).unwrap();

    for link in ["project/to-outside", "project/to-inside"] {
        assert_eq!(error_kind(env.read(link, json!({}))), "symlink_escape", "{link}");
        assert_eq!(error_kind(env.write(link, "x\n")), "symlink_escape", "{link}");
    }
    assert_eq!(error_kind(env.write("project/dir-link/new.txt", "x\n")), "symlink_escape");
    assert!(!env.path("outside/ghost.txt").exists());
    assert!(!env.path("project/later.txt").exists());
    assert!(!env.path("outside/nodir").exists());
    assert!(listing(&env.path("outside")).is_empty());
}

#[test]
fn symlinks_are_seen_as_such_and_resolved() {
    let env = Env::new();
    let disk = &env.disk;
    fs::write(env.path("project/a.txt"), "abc").unwrap();
    symlink("a.txt", env.path("project/link")).unwrap();
    symlink(env.path("outside/missing"), env.path("project/dangling")).unwrap();
    let (file, link) = (env.p("project/a.txt"), env.p("project/link"));

    let through = disk.stat(&link, true).unwrap();
    assert_eq!(Metadata { modified: None, changed: None, file_id: None, ..through }, Metadata::new(FileKind::File, 3));
    assert!(through.modified.is_some(), "the disk reports a modification time");
    assert!(through.changed.is_some() && through.file_id.is_some(), "and what proves a version: ctime, inode");
    let direct = disk.stat(&file, true).unwrap();
    assert_eq!(direct.file_id, through.file_id, "the same file whichever name reached it");
    assert_eq!(disk.stat(&link, false).unwrap().kind, FileKind::Symlink);
    assert_eq!(disk.stat(&env.p("project"), true).unwrap().kind, FileKind::Directory);
    let real = fs::canonicalize(env.path("project/a.txt")).unwrap();
    assert_eq!(disk.real_path(&link).unwrap(), real.to_str().unwrap());
    // A dangling link and a missing file both resolve to NotFound; only lstat tells them apart.
    assert_eq!(disk.real_path(&env.p("project/dangling")).unwrap_err().kind, StorageErrorKind::NotFound);
    assert_eq!(disk.real_path(&env.p("project/nothing")).unwrap_err().kind, StorageErrorKind::NotFound);
    assert_eq!(disk.stat(&env.p("project/dangling"), false).unwrap().kind, FileKind::Symlink);
    assert_eq!(disk.stat(&env.p("project/nothing"), false).unwrap_err().kind, StorageErrorKind::NotFound);
    assert_eq!(disk.stat(&format!("{file}/below"), false).unwrap_err().kind, StorageErrorKind::NotADirectory);
}

#[test]
fn storage_never_reads_through_a_final_symlink() {
    // What happens when a link is swapped in after the engine checked the real path.
    let env = Env::new();
    fs::write(env.path("outside/secret.txt"), "secret\n").unwrap();
    symlink(env.path("outside/secret.txt"), env.path("project/swapped")).unwrap();
    let swapped = env.p("project/swapped");

    let e = env.disk.read(&swapped).unwrap_err();
    assert_eq!(e.kind, StorageErrorKind::SymlinkEscape, "{e}");
    assert_eq!(env.range(&swapped, 0, 10).unwrap_err().kind, StorageErrorKind::SymlinkEscape);
}

#[test]
fn storage_write_replaces_a_final_symlink_instead_of_following_it() {
    let env = Env::new();
    fs::write(env.path("outside/secret.txt"), "secret\n").unwrap();
    symlink(env.path("outside/secret.txt"), env.path("project/swapped")).unwrap();

    env.disk.write(&env.root(), &env.p("project/swapped"), b"new\n").unwrap();
    assert_eq!(fs::read(env.path("outside/secret.txt")).unwrap(), b"secret\n");
    let meta = fs::symlink_metadata(env.path("project/swapped")).unwrap();
    assert!(meta.is_file());
    assert_eq!(fs::read(env.path("project/swapped")).unwrap(), b"new\n");
}

// ---- non-regular files ----

#[test]
fn fifo_is_refused_without_blocking() {
    let env = Env::new();
    mkfifo(&env.path("project/pipe"));

    let (fs_, disk, pipe) = (env.fs.clone(), env.disk.clone(), env.p("project/pipe"));
    let out = promptly("reading a FIFO through the engine", move || {
        acp_fs::run(fs_.read_text_file(json!({"sessionId": "s", "path": pipe})), &disk, &DefaultHost)
    });
    assert_eq!(error_kind(out), "not_a_file");

    let (fs_, disk, pipe) = (env.fs.clone(), env.disk.clone(), env.p("project/pipe"));
    let out = promptly("writing a FIFO through the engine", move || {
        acp_fs::run(fs_.write_text_file(json!({"sessionId": "s", "path": pipe, "content": "x"})), &disk, &DefaultHost)
    });
    assert_eq!(error_kind(out), "not_a_file");
    assert!(!fs::symlink_metadata(env.path("project/pipe")).unwrap().is_file(), "the FIFO was replaced");

    // The storage itself, asked directly (as after a swap), refuses promptly too.
    let pipe = env.p("project/pipe");
    assert_eq!(env.disk.stat(&pipe, true).unwrap().kind, FileKind::Other);
    let (disk, p) = (env.disk.clone(), pipe.clone());
    let e = promptly("DiskStorage::read on a FIFO", move || disk.read(&p)).unwrap_err();
    assert_eq!(e.kind, StorageErrorKind::Other);
    assert!(e.message.contains("not a regular file"), "{e}");
    let (disk, root, p) = (env.disk.clone(), env.root(), pipe);
    let (file, meta) = promptly("DiskStorage::open on a FIFO", move || disk.open(&root, &p)).unwrap();
    assert!(file.is_none(), "a FIFO is never handed out as an open file");
    assert_eq!(meta.kind, FileKind::Other);
}

#[test]
fn directory_is_not_a_file() {
    let env = Env::new();
    fs::create_dir(env.path("project/sub")).unwrap();
    fs::write(env.path("project/sub/keep.txt"), "keep\n").unwrap();

    assert_eq!(error_kind(env.read("project/sub", json!({}))), "not_a_file");
    assert_eq!(error_kind(env.read("project/sub", json!({"line": 1, "limit": 1}))), "not_a_file");
    assert_eq!(error_kind(env.write("project/sub", "x\n")), "not_a_file");
    assert_eq!(fs::read(env.path("project/sub/keep.txt")).unwrap(), b"keep\n");

    let sub = env.p("project/sub");
    assert_eq!(env.disk.read(&sub).unwrap_err().kind, StorageErrorKind::IsADirectory);
    assert_eq!(env.disk.open(&env.root(), &sub).unwrap().1.kind, FileKind::Directory);
    assert_eq!(env.disk.write(&env.root(), &sub, b"x").unwrap_err().kind, StorageErrorKind::IsADirectory);
    assert!(env.path("project/sub").is_dir());
    assert_eq!(listing(&env.path("project/sub")), ["keep.txt"]);
}

#[test]
fn a_file_in_place_of_a_parent_directory() {
    let env = Env::new();
    fs::write(env.path("project/file"), "x\n").unwrap();

    // Reading below a file finds nothing; writing below it cannot make a directory there.
    assert_eq!(error(env.read("project/file/a.txt", json!({}))).code, -32002);
    assert_eq!(error_kind(env.write("project/file/a.txt", "y\n")), "not_a_file");
    assert_eq!(error_kind(env.write("project/file/deeper/a.txt", "y\n")), "not_a_file");
    assert_eq!(fs::read(env.path("project/file")).unwrap(), b"x\n");
    assert_eq!(
        env.disk.make_dirs(&env.root(), &env.p("project/file")).unwrap_err().kind,
        StorageErrorKind::NotADirectory
    );
    assert_eq!(
        env.disk.make_dirs(&env.root(), &env.p("project/file/d")).unwrap_err().kind,
        StorageErrorKind::NotADirectory
    );
}

#[test]
fn missing_file_is_not_found() {
    let env = Env::new();
    let e = error(env.read("project/nope.txt", json!({})));
    assert_eq!(e.code, -32002);
    assert_eq!(e.data["uri"], env.p("project/nope.txt"));
    assert_eq!(env.disk.read(&env.p("project/nope.txt")).unwrap_err().kind, StorageErrorKind::NotFound);
    assert_eq!(env.disk.stat(&env.p("project/nope.txt"), true).unwrap_err().kind, StorageErrorKind::NotFound);
}

// ---- text on disk ----

#[test]
fn crlf_round_trip() {
    let env = Env::new();
    fs::write(env.path("project/win.txt"), "alpha\r\nbeta\r\ngamma").unwrap();

    assert_eq!(content(env.read("project/win.txt", json!({}))), "alpha\r\nbeta\r\ngamma");
    assert_eq!(content(env.read("project/win.txt", json!({"line": 2, "limit": 1}))), "beta\r\n");
    ok(env.write("project/win.txt", "one\ntwo\n"));
    assert_eq!(fs::read(env.path("project/win.txt")).unwrap(), b"one\r\ntwo\r\n");
    assert_eq!(content(env.read("project/win.txt", json!({}))), "one\r\ntwo\r\n");
}

#[test]
fn lf_file_stays_lf() {
    let env = Env::new();
    fs::write(env.path("project/unix.txt"), "a\nb\n").unwrap();
    ok(env.write("project/unix.txt", "c\nd\n"));
    assert_eq!(fs::read(env.path("project/unix.txt")).unwrap(), b"c\nd\n");
}

#[test]
fn bom_is_kept_on_write_and_not_doubled() {
    let env = Env::new();
    fs::write(env.path("project/bom.txt"), b"\xEF\xBB\xBFhello\n").unwrap();

    assert_eq!(content(env.read("project/bom.txt", json!({}))), "hello\n");
    ok(env.write("project/bom.txt", "bye\n"));
    assert_eq!(fs::read(env.path("project/bom.txt")).unwrap(), b"\xEF\xBB\xBFbye\n");
    ok(env.write("project/bom.txt", "\u{FEFF}again\n"));
    assert_eq!(fs::read(env.path("project/bom.txt")).unwrap(), b"\xEF\xBB\xBFagain\n");
}

#[test]
fn binary_and_invalid_files_are_refused_and_never_replaced() {
    let env = Env::new();
    fs::write(env.path("project/bin.dat"), b"ab\0cd").unwrap();
    fs::write(env.path("project/latin1.txt"), b"caf\xE9\n").unwrap();

    assert_eq!(error_kind(env.read("project/bin.dat", json!({}))), "binary_file");
    assert_eq!(error_kind(env.write("project/bin.dat", "text")), "binary_file");
    assert_eq!(error_kind(env.read("project/latin1.txt", json!({}))), "not_utf8");
    assert_eq!(error_kind(env.write("project/latin1.txt", "text")), "not_utf8");
    assert_eq!(fs::read(env.path("project/bin.dat")).unwrap(), b"ab\0cd");
    assert_eq!(fs::read(env.path("project/latin1.txt")).unwrap(), b"caf\xE9\n");
}

// ---- writes ----

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn mode_is_kept() {
    let env = Env::new();
    // 0o666 and 0o777 have bits a usual umask removes from a newly created file.
    let files = [
        ("project/run.sh", 0o755),
        ("project/private.txt", 0o600),
        ("project/odd.txt", 0o640),
        ("project/shared.txt", 0o666),
        ("project/all.sh", 0o777),
    ];
    for (name, bits) in files {
        fs::write(env.path(name), "old\n").unwrap();
        fs::set_permissions(env.path(name), fs::Permissions::from_mode(bits)).unwrap();
        ok(env.write(name, "new\n"));
        assert_eq!(fs::read(env.path(name)).unwrap(), b"new\n");
        assert_eq!(mode(&env.path(name)), bits, "{name}: {:o}", mode(&env.path(name)));
    }
}

#[test]
fn new_file_is_created_with_the_default_mode() {
    let env = Env::new();
    // A file made by std gets the process's default mode (0o666 minus the umask).
    fs::write(env.path("project/reference"), "").unwrap();

    let out = env.write("project/new.txt", "fresh\n");
    let change = out.change.clone().expect("a change record");
    ok(out);
    assert!(change.created);
    assert_eq!(change.old_text, None);
    assert_eq!(fs::read(env.path("project/new.txt")).unwrap(), b"fresh\n");
    assert_eq!(mode(&env.path("project/new.txt")), mode(&env.path("project/reference")));
    assert_eq!(listing(&env.path("project")), ["new.txt", "reference"]);
}

#[test]
fn parents_are_created_for_a_new_nested_file() {
    let env = Env::new();
    let out = env.write("project/a/b/c/deep.txt", "deep\n");
    assert!(out.change.as_ref().is_some_and(|c| c.created));
    ok(out);
    assert_eq!(fs::read(env.path("project/a/b/c/deep.txt")).unwrap(), b"deep\n");
    assert_eq!(listing(&env.path("project/a/b/c")), ["deep.txt"]);
}

#[test]
fn write_replaces_the_inode() {
    // Rename, not truncate-in-place: a reader holding the old file never sees a mix.
    let env = Env::new();
    let path = env.path("project/f.txt");
    fs::write(&path, "old\n").unwrap();
    let before = fs::metadata(&path).unwrap().ino();
    let held = fs::File::open(&path).unwrap();

    ok(env.write("project/f.txt", "new\n"));
    assert_ne!(fs::metadata(&path).unwrap().ino(), before);
    assert_eq!(held.metadata().unwrap().ino(), before);
    assert_eq!(std::io::read_to_string(held).unwrap(), "old\n");
    assert_eq!(fs::read(&path).unwrap(), b"new\n");
    assert_eq!(listing(&env.path("project")), ["f.txt"]);
}

#[test]
fn a_failure_at_any_step_leaves_the_old_file_and_no_temporary() {
    assert_eq!(DiskStorage::WRITE_STEPS.len(), 5);
    for step in DiskStorage::WRITE_STEPS {
        let env = Env::new();
        let failing = DiskStorage::new().fail_at(step);
        let path = env.path("project/keep.txt");
        fs::write(&path, "old\r\ncontent\r\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();

        let out = env.write_with(&failing, "project/keep.txt", "new\n");
        assert!(out.change.is_none(), "{step:?}: a failed write has no change record");
        let e = error(out);
        assert_eq!(e.data["errorKind"], "storage_error", "{step:?}: {e}");
        assert!(e.message.contains(&format!("{step:?}")), "{step:?}: {e}");
        assert_eq!(fs::read(&path).unwrap(), b"old\r\ncontent\r\n", "{step:?}");
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode, "{step:?}");
        assert_eq!(mode(&path), 0o640, "{step:?}");
        assert_eq!(listing(&env.path("project")), ["keep.txt"], "{step:?}");

        // A new file: nothing appears, not even half of it.
        let e = error(env.write_with(&failing, "project/new.txt", "x\n"));
        assert_eq!(e.data["errorKind"], "storage_error", "{step:?}: {e}");
        assert_eq!(listing(&env.path("project")), ["keep.txt"], "{step:?}");

        // Nor do the directories made for a new file, once its write failed.
        let e = error(env.write_with(&failing, "project/made/for/it/new.txt", "x\n"));
        assert_eq!(e.data["errorKind"], "storage_error", "{step:?}: {e}");
        assert_eq!(listing(&env.path("project")), ["keep.txt"], "{step:?}");
        // ...but one that was there before stays, and so does what someone else put there.
        fs::create_dir_all(env.path("project/had/busy")).unwrap();
        fs::write(env.path("project/had/busy/theirs.txt"), "t\n").unwrap();
        error(env.write_with(&failing, "project/had/new/deeper/new.txt", "x\n"));
        assert_eq!(listing(&env.path("project/had")), ["busy"], "{step:?}");
        fs::remove_dir_all(env.path("project/had")).unwrap();

        // The same storage without the fault writes normally afterwards.
        ok(env.write("project/keep.txt", "new\n"));
        assert_eq!(fs::read(&path).unwrap(), b"new\r\n", "{step:?}");
        assert_eq!(listing(&env.path("project")), ["keep.txt"], "{step:?}");
    }
}

#[test]
fn long_file_names_get_a_temporary_that_fits() {
    let env = Env::new();
    let name = format!("project/{}.txt", "n".repeat(251));
    ok(env.write(&name, "long\n"));
    assert_eq!(fs::read(env.path(&name)).unwrap(), b"long\n");
    ok(env.write(&name, "longer\n"));
    assert_eq!(fs::read(env.path(&name)).unwrap(), b"longer\n");
    assert_eq!(listing(&env.path("project")).len(), 1);

    // Multi-byte names are cut on a character boundary.
    let name = format!("project/{}.txt", "é".repeat(125));
    ok(env.write(&name, "accent\n"));
    assert_eq!(fs::read(env.path(&name)).unwrap(), b"accent\n");
}

#[test]
fn concurrent_writes_leave_one_whole_version() {
    let env = Env::new();
    let path = env.p("project/busy.txt");
    let root = env.root();
    let versions: Vec<Vec<u8>> = (0..8).map(|t| format!("writer {t}\n").repeat(5000).into_bytes()).collect();
    std::thread::scope(|scope| {
        for v in &versions {
            let (disk, path, root) = (&env.disk, &path, &root);
            scope.spawn(move || {
                for _ in 0..10 {
                    disk.write(root, path, v).unwrap();
                }
            });
        }
    });
    let stored = fs::read(&path).unwrap();
    assert!(versions.contains(&stored), "the file is a mix of versions");
    assert_eq!(listing(&env.path("project")), ["busy.txt"]);
}

// Root runs these as nobody (unprivileged::run); a user that is not root but may write any file
// (CAP_DAC_OVERRIDE) takes the privileged branch, which the re-run as nobody never may.

#[test]
fn read_only_file_is_not_replaced() {
    unprivileged::run("read_only_file_is_not_replaced", || {
        let env = Env::new();
        let path = env.path("project/locked.txt");
        fs::write(&path, "locked\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        if fs::OpenOptions::new().write(true).open(&path).is_ok() {
            assert!(!unprivileged::is_child(), "nobody could open a read-only file for writing");
            // A privileged user may write any file, so may we.
            ok(env.write("project/locked.txt", "changed\n"));
            assert_eq!(fs::read(&path).unwrap(), b"changed\n");
            assert_eq!(mode(&path), 0o444);
            return;
        }
        assert_eq!(error_kind(env.write("project/locked.txt", "changed\n")), "permission_denied");
        assert_eq!(fs::read(&path).unwrap(), b"locked\n");
        assert_eq!(listing(&env.path("project")), ["locked.txt"]);
    });
}

#[test]
fn read_only_directory_takes_no_new_file() {
    unprivileged::run("read_only_directory_takes_no_new_file", || {
        let env = Env::new();
        fs::create_dir(env.path("project/ro")).unwrap();
        fs::write(env.path("project/ro/a.txt"), "a\n").unwrap();
        fs::set_permissions(env.path("project/ro"), fs::Permissions::from_mode(0o555)).unwrap();
        let privileged = fs::write(env.path("project/ro/probe"), "").is_ok();
        let _ = fs::remove_file(env.path("project/ro/probe"));

        let outcome = env.write("project/ro/new.txt", "n\n");
        fs::set_permissions(env.path("project/ro"), fs::Permissions::from_mode(0o755)).unwrap();
        if privileged {
            assert!(!unprivileged::is_child(), "nobody could write into a read-only directory");
            // A privileged user may write anywhere, so may we.
            return ok(outcome);
        }
        // The file already there is written in place (write_identity.rs); a new name is refused.
        assert_eq!(error_kind(outcome), "permission_denied");
        assert_eq!(listing(&env.path("project/ro")), ["a.txt"]);
    });
}

// ---- reads ----

#[test]
fn read_range_is_short_only_at_the_end() {
    let env = Env::new();
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    fs::write(env.path("project/data"), &bytes).unwrap();
    let p = env.p("project/data");

    assert_eq!(env.range(&p, 0, 10).unwrap(), &bytes[..10]);
    assert_eq!(env.range(&p, 99_990, 10).unwrap(), &bytes[99_990..]);
    assert_eq!(env.range(&p, 99_995, 10).unwrap(), &bytes[99_995..]);
    assert_eq!(env.range(&p, 1234, 70_000).unwrap(), &bytes[1234..71_234]);
    assert!(env.range(&p, 100_000, 10).unwrap().is_empty());
    assert!(env.range(&p, 500_000, 10).unwrap().is_empty());
    assert!(env.range(&p, u64::MAX, 10).unwrap().is_empty());
    assert!(env.range(&p, 5, 0).unwrap().is_empty());
    // A huge length asks for at most what is there, not for memory.
    assert_eq!(env.range(&p, 50_000, usize::MAX).unwrap(), &bytes[50_000..]);
    assert_eq!(env.disk.read(&p).unwrap(), bytes);
}

#[cfg(target_os = "linux")]
#[test]
fn files_that_report_size_zero_are_still_read() {
    // procfs files say they are empty but have content: the size is a hint, not the end.
    let disk = DiskStorage::new();
    // By its real path: `/proc/self` is a symlink, which opens below a root refuse.
    let status = format!("/proc/{}/status", std::process::id());
    let (file, _) = disk.open("/proc", &status).unwrap();
    let head = disk.read_at(&file.unwrap(), 0, 4096).unwrap();
    assert!(head.starts_with(b"Name:"), "{:?}", String::from_utf8_lossy(&head));
    assert!(disk.read("/proc/self/status").unwrap().starts_with(b"Name:"));
}

#[test]
fn large_file_streams_windows() {
    let env = Env::new();
    let mut text = String::new();
    let mut starts = Vec::new();
    let mut i = 0u64;
    while text.len() < 50 * 1024 * 1024 {
        starts.push(text.len());
        i += 1;
        text.push_str(&format!("line {i:09} {}\n", "abcdefghij".repeat((i % 13) as usize)));
    }
    starts.push(text.len());
    fs::write(env.path("project/big.log"), &text).unwrap();
    let window = |from: usize, count: usize| text[starts[from - 1]..starts[from - 1 + count]].to_owned();

    assert_eq!(content(env.read("project/big.log", json!({"line": 1, "limit": 50}))), window(1, 50));
    // Deep windows cross many 1 MiB chunk boundaries.
    let deep = starts.len() - 10;
    assert_eq!(content(env.read("project/big.log", json!({"line": deep, "limit": 3}))), window(deep, 3));
    let lines = starts.len() - 1;
    assert_eq!(content(env.read("project/big.log", json!({"line": lines}))), window(lines, 1));
    // The whole file is over maxReadBytes (10 MiB): refused from its size, before it is read.
    assert_eq!(error_kind(env.read("project/big.log", json!({}))), "file_too_large");
}
