//! Listings, moves, single directories and directory removal on the Windows disk (the walk below
//! the root's handle, core/src/disk/windows_dirs.rs): the promises of tests/dirs.rs that need no
//! link, since Windows code cannot make one without privileges (and Wine 8 makes none at all).
//! Links swapped in are tested from the Linux side under Wine (tests/cross/wine-dirs.test.mjs)
//! and on faked system answers (core/src/disk/win_walk.rs). Run under Wine by cross-compiling:
//! `cargo test -p acp-fs --features disk --target x86_64-pc-windows-gnu --test dirs_windows`
//! with `wine` as the runner (tests/cross/wine-dirs.test.mjs does).
#![cfg(all(windows, feature = "disk"))]

use acp_fs::{AcpFs, DefaultHost, DirEntry, DiskStorage, FileKind, Options, Storage, StorageError, StorageErrorKind};
use serde_json::json;
use std::fs;
use std::path::PathBuf;

/// `base\root\{a.txt, .env, sub\b.txt, empty\}` and `base\outside\secret.txt`.
struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    disk: DiskStorage,
}

impl Tree {
    fn new() -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        // The engine's paths are plain, not verbatim (`\\?\C:\…`).
        let real = fs::canonicalize(tmp.path()).unwrap();
        let base = PathBuf::from(real.to_str().unwrap().trim_start_matches(r"\\?\"));
        fs::create_dir(base.join("root")).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        fs::write(base.join(r"root\a.txt"), "abc").unwrap();
        fs::write(base.join(r"root\.env"), "TOKEN=1").unwrap();
        fs::create_dir(base.join(r"root\sub")).unwrap();
        fs::write(base.join(r"root\sub\b.txt"), "b").unwrap();
        fs::create_dir(base.join(r"root\empty")).unwrap();
        fs::write(base.join(r"outside\secret.txt"), "OUTSIDE").unwrap();
        Tree { _tmp: tmp, base, disk: DiskStorage::new() }
    }

    fn root(&self) -> String {
        self.p("root")
    }

    fn p(&self, rel: &str) -> String {
        self.base.join(rel).to_str().unwrap().to_owned()
    }

    fn text(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.base.join(rel)).ok()
    }

    fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.base.join(rel)).is_ok()
    }
}

fn kinds(entries: Vec<DirEntry>) -> Vec<(String, FileKind, u64)> {
    let mut out: Vec<_> = entries.into_iter().map(|e| (e.name, e.meta.kind, e.meta.size)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn kind_of<T>(r: Result<T, StorageError>) -> StorageErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind,
    }
}

#[test]
fn the_disk_offers_listings_moves_and_directories() {
    let caps = DiskStorage::new().caps();
    assert!(caps.list && caps.rename && caps.make_dir);
    let full = acp_fs::host::info().full_caps;
    assert!(full.list && full.rename && full.make_dir, "the node binding's native disk offers them too");
}

#[test]
fn lists_kinds_sizes_and_times() {
    let t = Tree::new();
    let (s, root) = (&t.disk, t.root());
    assert_eq!(
        kinds(s.list(&root, &root).unwrap()),
        [
            (".env".into(), FileKind::File, 7),
            ("a.txt".into(), FileKind::File, 3),
            ("empty".into(), FileKind::Directory, 0),
            ("sub".into(), FileKind::Directory, 0),
        ],
        "nothing denied at this layer, no `.` or `..`"
    );
    // A file's entry carries what a stat of it does.
    let entry = s.list(&root, &root).unwrap().into_iter().find(|e| e.name == "a.txt").unwrap();
    let stat = s.stat(&t.p(r"root\a.txt"), false).unwrap();
    assert!(stat.modified.is_some());
    assert_eq!((entry.meta.size, entry.meta.modified, entry.meta.links), (stat.size, stat.modified, stat.links));
    assert_eq!(kinds(s.list(&root, &t.p(r"root\sub")).unwrap()), [("b.txt".into(), FileKind::File, 1)]);
    assert!(s.list(&root, &t.p(r"root\empty")).unwrap().is_empty());
    assert_eq!(kind_of(s.list(&root, &t.p(r"root\missing"))), StorageErrorKind::NotFound);
    assert_eq!(kind_of(s.list(&root, &t.p(r"root\a.txt"))), StorageErrorKind::NotADirectory);
    // More entries than one system call returns (64 KiB of entries: about 500 long names).
    let many = t.p(r"root\many");
    fs::create_dir(&many).unwrap();
    for i in 0..1500 {
        fs::write(format!(r"{many}\{i:04}-{}.txt", "x".repeat(40)), "").unwrap();
    }
    let listed = kinds(s.list(&root, &many).unwrap());
    assert_eq!(listed.len(), 1500);
    assert_eq!(listed[1499].0, format!("1499-{}.txt", "x".repeat(40)));
}

#[test]
fn makes_one_directory() {
    let t = Tree::new();
    let (s, root) = (&t.disk, t.root());
    s.make_dir(&root, &t.p(r"root\new")).unwrap();
    assert!(fs::metadata(t.p(r"root\new")).unwrap().is_dir());
    for there in ["new", "a.txt", "sub"] {
        let at = t.p(&format!(r"root\{there}"));
        assert_eq!(kind_of(s.make_dir(&root, &at)), StorageErrorKind::AlreadyExists, "{there}");
    }
    assert_eq!(t.text(r"root\a.txt").as_deref(), Some("abc"), "a file in the way stays");
    assert_eq!(kind_of(s.make_dir(&root, &t.p(r"root\x\y"))), StorageErrorKind::NotFound);
    assert!(!t.exists(r"root\x"));
    assert_eq!(kind_of(s.make_dir(&root, &t.p(r"root\a.txt\y"))), StorageErrorKind::NotADirectory);
    assert_eq!(kind_of(s.make_dir(&root, &root)), StorageErrorKind::AlreadyExists);
}

#[test]
fn moves_without_replacing() {
    let t = Tree::new();
    let (s, root) = (&t.disk, t.root());
    let p = |rel: &str| t.p(&format!(r"root\{rel}"));
    s.rename(&root, &p("a.txt"), &p("moved.txt")).unwrap();
    assert_eq!((t.exists(r"root\a.txt"), t.text(r"root\moved.txt").as_deref()), (false, Some("abc")));
    s.rename(&root, &p("moved.txt"), &p(r"sub\a.txt")).unwrap();
    assert_eq!(t.text(r"root\sub\a.txt").as_deref(), Some("abc"));
    // Never onto something: a file, an empty directory, a directory.
    fs::write(p("c.txt"), "c").unwrap();
    for there in [r"sub\a.txt", "empty", "sub"] {
        assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p(there))), StorageErrorKind::AlreadyExists, "{there}");
    }
    assert_eq!(kind_of(s.rename(&root, &p("empty"), &p("sub"))), StorageErrorKind::AlreadyExists);
    assert_eq!(t.text(r"root\c.txt").as_deref(), Some("c"));
    assert_eq!(t.text(r"root\sub\a.txt").as_deref(), Some("abc"));
    // A directory moves with what is in it.
    s.rename(&root, &p("sub"), &p(r"empty\sub")).unwrap();
    assert_eq!(t.text(r"root\empty\sub\b.txt").as_deref(), Some("b"));
    assert!(!t.exists(r"root\sub"));
    assert_eq!(kind_of(s.rename(&root, &p("missing"), &p("x"))), StorageErrorKind::NotFound);
    assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p(r"nodir\c.txt"))), StorageErrorKind::NotFound);
    assert!(s.rename(&root, &root, &p("r")).is_err(), "a root is never moved");
    assert!(s.rename(&root, &p("empty"), &p(r"empty\sub\inside")).is_err(), "nor a directory into itself");
    assert_eq!(t.text(r"root\empty\sub\b.txt").as_deref(), Some("b"));
}

#[test]
fn removes_only_an_empty_directory() {
    let t = Tree::new();
    let (s, root) = (&t.disk, t.root());
    s.remove_dir(&root, &t.p(r"root\empty")).unwrap();
    assert!(!t.exists(r"root\empty"));
    assert!(s.remove_dir(&root, &t.p(r"root\sub")).is_err(), "a directory that holds a file stays");
    assert_eq!(t.text(r"root\sub\b.txt").as_deref(), Some("b"));
    assert!(s.remove_dir(&root, &t.p(r"root\a.txt")).is_err(), "a file is not a directory");
    assert_eq!(t.text(r"root\a.txt").as_deref(), Some("abc"));
    assert_eq!(kind_of(s.remove_dir(&root, &t.p(r"root\missing"))), StorageErrorKind::NotFound);
    assert!(s.remove_dir(&root, &root).is_err(), "never the root");
}

/// The directories a failed write made for its new file are taken back (semantics.md §5 "No
/// trace of a failed write"), through `remove_dir`; one that holds someone else's file stays.
#[test]
fn a_failed_write_leaves_no_directories_behind() {
    for step in DiskStorage::WRITE_STEPS {
        let t = Tree::new();
        let root = t.root();
        let failing = DiskStorage::new().fail_at(step);
        let engine = AcpFs::new(Options::default(), failing.caps()).unwrap();
        engine.open_session("s", &root, &[]).unwrap();
        let write = |rel: &str| {
            let path = t.p(&format!(r"root\{rel}"));
            let params = json!({"sessionId": "s", "path": path, "content": "x\n"});
            acp_fs::run(engine.write_text_file(params), &failing, &DefaultHost).result
        };
        let e = write(r"made\for\it\new.txt").unwrap_err();
        assert_eq!(e.data["errorKind"], "storage_error", "{step:?}: {e:?}");
        assert!(!t.exists(r"root\made"), "{step:?}: every directory made for the file is gone");
        fs::create_dir_all(t.p(r"root\had\busy")).unwrap();
        fs::write(t.p(r"root\had\busy\theirs.txt"), "t").unwrap();
        assert!(write(r"had\new\deeper\new.txt").is_err());
        assert!(!t.exists(r"root\had\new"), "{step:?}");
        assert_eq!(t.text(r"root\had\busy\theirs.txt").as_deref(), Some("t"), "{step:?}: what was there stays");
    }
}

/// Paths the engine did not check (not below the root, not normalized) never reach the disk.
#[test]
fn refuses_paths_outside_the_root() {
    let t = Tree::new();
    let (s, root) = (&t.disk, t.root());
    let out = t.p("outside");
    assert_eq!(kind_of(s.list(&root, &out)), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list(&root, &t.p(r"root\sub\.."))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.make_dir(&root, &t.p(r"outside\made"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.rename(&root, &t.p(r"root\a.txt"), &t.p(r"outside\a.txt"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.rename(&root, &t.p(r"outside\secret.txt"), &t.p(r"root\s"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.remove_dir(&root, &out)), StorageErrorKind::SymlinkEscape);
    assert!(!t.exists(r"outside\made") && !t.exists(r"outside\a.txt") && !t.exists(r"root\s"));
    assert_eq!(t.text(r"outside\secret.txt").as_deref(), Some("OUTSIDE"));
}

/// Links swapped in after the engine's check: under Wine the cross test lays out a tree with
/// Unix symlinks on the Linux side (Windows code under Wine 8 cannot make a link) and names it
/// in `ACP_FS_WINE_LINKS`: `root\{a.txt, b.txt, sub\, link → outside, file-link →
/// outside\secret.txt, near-link → root\b.txt, dangling → root\nowhere}` and
/// `outside\{secret.txt, inner\}`. Nothing is listed, moved,
/// created or removed through a link. Without the variable (a plain Windows run, where making a
/// link takes privileges) there is nothing to test here, and it says so.
#[test]
fn links_lead_nowhere_outside() {
    let Ok(base) = std::env::var("ACP_FS_WINE_LINKS") else {
        eprintln!("links_lead_nowhere_outside: ACP_FS_WINE_LINKS unset (tests/cross/wine-dirs.test.mjs sets it)");
        return;
    };
    let s = DiskStorage::new();
    let p = |rel: &str| format!(r"{base}\{rel}");
    let root = p("root");
    let outside_before = snapshot(&p("outside"));
    for at in ["link", r"link\inner"] {
        assert_eq!(kind_of(s.list(&root, &p(&format!(r"root\{at}")))), StorageErrorKind::SymlinkEscape, "list {at}");
    }
    for at in [r"link\made", r"link\inner\made"] {
        let made = s.make_dir(&root, &p(&format!(r"root\{at}")));
        assert_eq!(kind_of(made), StorageErrorKind::SymlinkEscape, "make_dir {at}");
    }
    for (from, to) in [
        (r"link\secret.txt", "stolen.txt"),
        ("a.txt", r"link\planted.txt"),
        ("a.txt", r"link\inner\planted.txt"),
        (r"link\inner", "inner"),
    ] {
        let moved = s.rename(&root, &p(&format!(r"root\{from}")), &p(&format!(r"root\{to}")));
        assert_eq!(kind_of(moved), StorageErrorKind::SymlinkEscape, "move {from} to {to}");
    }
    // A link to a file moves as itself or not at all (Wine shows it as the file it leads to):
    // never what it leads to (the Linux side checks `outside` and what arrived in `sub`).
    let _ = s.rename(&root, &p(r"root\file-link"), &p(r"root\sub\moved-link"));
    // So does one to a file beside it, which passes every check but the name its open reached.
    let _ = s.rename(&root, &p(r"root\near-link"), &p(r"root\sub\near-moved"));
    assert_eq!(fs::read_to_string(p("root\\b.txt")).unwrap(), "inside b", "the file the link leads to stays");
    assert_eq!(kind_of(s.remove_dir(&root, &p(r"root\link\inner"))), StorageErrorKind::SymlinkEscape);
    // The link itself is not a directory to remove.
    assert!(s.remove_dir(&root, &p(r"root\link")).is_err());
    // Nothing made where a dangling link points.
    assert!(s.make_dir(&root, &p(r"root\dangling")).is_err());
    assert!(fs::symlink_metadata(p(r"root\nowhere")).is_err());
    // The listing of the root names the links without describing what they lead to: a link to a
    // directory is listed as a link (Wine shows it as a reparse point); never as the directory.
    let listed = kinds(s.list(&root, &root).unwrap());
    let link = listed.iter().find(|(n, _, _)| n == "link").expect("the link is listed");
    assert_eq!(link.1, FileKind::Symlink, "{listed:?}");
    assert_eq!(fs::read_to_string(p("root\\a.txt")).unwrap(), "inside a", "the file that was to move stays");
    assert_eq!(snapshot(&p("outside")), outside_before, "nothing outside changed, moved or made");
}

/// Every path below `dir` with its file's text (a directory: empty), not following links.
fn snapshot(dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::from(dir)];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            let text = if e.file_type().unwrap().is_dir() {
                todo.push(path.clone());
                String::new()
            } else {
                fs::read_to_string(&path).unwrap_or_default()
            };
            out.push((path.to_str().unwrap().to_owned(), text));
        }
    }
    out.sort();
    out
}
