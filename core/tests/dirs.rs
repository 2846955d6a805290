//! Listings, moves and single directories (`Storage::list`, `rename`, `make_dir`): the same
//! promises checked on the real disk (a temporary directory) and on `MemoryStorage`. Each entry
//! is described without following it, a symlinked parent is refused (`SymlinkEscape`) with
//! nothing listed, moved or created outside, a move never replaces, and nothing is denied at
//! this layer (the deny list is the engine's).
#![cfg(all(unix, feature = "disk"))]

use acp_fs::{perform, Answer, Io};
use acp_fs::{
    DefaultHost, DirEntry, DiskStorage, FileKind, MemoryStorage, OpenFiles, Storage, StorageError, StorageErrorKind,
};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

/// A storage under test with `root/` (the root) and `outside/` beside it.
trait Tree {
    type S: Storage;
    fn storage(&self) -> &Self::S;
    /// `root/` and `outside/`, absolute, real.
    fn root(&self) -> String;
    fn outside(&self) -> String;
    fn put(&self, path: &str, text: &str);
    fn dir(&self, path: &str);
    fn link(&self, path: &str, target: &str);
    /// A file's text, not following a final symlink.
    fn text(&self, path: &str) -> Option<String>;
    /// Whether anything is at `path`, not following a final symlink.
    fn exists(&self, path: &str) -> bool;
    fn is_link(&self, path: &str) -> bool;
}

struct Disk {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    disk: DiskStorage,
}

impl Disk {
    fn new() -> Disk {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir(base.join("root")).unwrap();
        fs::create_dir(base.join("outside")).unwrap();
        Disk { _tmp: tmp, base, disk: DiskStorage::new() }
    }
}

impl Tree for Disk {
    type S = DiskStorage;
    fn storage(&self) -> &DiskStorage {
        &self.disk
    }
    fn root(&self) -> String {
        self.base.join("root").to_str().unwrap().to_owned()
    }
    fn outside(&self) -> String {
        self.base.join("outside").to_str().unwrap().to_owned()
    }
    fn put(&self, path: &str, text: &str) {
        fs::write(path, text).unwrap();
    }
    fn dir(&self, path: &str) {
        fs::create_dir(path).unwrap();
    }
    fn link(&self, path: &str, target: &str) {
        symlink(target, path).unwrap();
    }
    fn text(&self, path: &str) -> Option<String> {
        let meta = fs::symlink_metadata(path).ok()?;
        meta.is_file().then(|| fs::read_to_string(path).unwrap())
    }
    fn exists(&self, path: &str) -> bool {
        fs::symlink_metadata(path).is_ok()
    }
    fn is_link(&self, path: &str) -> bool {
        fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }
}

struct Memory(MemoryStorage);

impl Memory {
    fn new() -> Memory {
        let m = MemoryStorage::new();
        m.mkdir("/base/root");
        m.mkdir("/base/outside");
        Memory(m)
    }
}

impl Tree for Memory {
    type S = MemoryStorage;
    fn storage(&self) -> &MemoryStorage {
        &self.0
    }
    fn root(&self) -> String {
        "/base/root".into()
    }
    fn outside(&self) -> String {
        "/base/outside".into()
    }
    fn put(&self, path: &str, text: &str) {
        self.0.put(path, text);
    }
    fn dir(&self, path: &str) {
        self.0.mkdir(path);
    }
    fn link(&self, path: &str, target: &str) {
        self.0.symlink(path, target);
    }
    fn text(&self, path: &str) -> Option<String> {
        self.0.get(path).map(|b| String::from_utf8(b).unwrap())
    }
    fn exists(&self, path: &str) -> bool {
        self.0.exists(path)
    }
    fn is_link(&self, path: &str) -> bool {
        self.0.stat(path, false).is_ok_and(|m| m.kind == FileKind::Symlink)
    }
}

/// `root/{a.txt, .env, sub/b.txt, link → outside, file-link → outside/secret.txt, dangling}`
/// and `outside/{secret.txt, inner/}`.
fn populate(t: &impl Tree) -> (String, String) {
    let (root, out) = (t.root(), t.outside());
    t.put(&format!("{root}/a.txt"), "abc");
    t.put(&format!("{root}/.env"), "TOKEN=1");
    t.dir(&format!("{root}/sub"));
    t.put(&format!("{root}/sub/b.txt"), "b");
    t.put(&format!("{out}/secret.txt"), "OUTSIDE");
    t.dir(&format!("{out}/inner"));
    t.link(&format!("{root}/link"), &out);
    t.link(&format!("{root}/file-link"), &format!("{out}/secret.txt"));
    t.link(&format!("{root}/dangling"), &format!("{root}/nowhere"));
    (root, out)
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

fn lists_entries_without_following_them(t: &impl Tree) {
    let (root, out) = populate(t);
    let s = t.storage();
    let listed = kinds(s.list(&root, &root).unwrap());
    let names: Vec<&str> = listed.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, [".env", "a.txt", "dangling", "file-link", "link", "sub"], "nothing denied here");
    let kind = |name: &str| listed.iter().find(|(n, _, _)| n == name).map(|(_, k, s)| (*k, *s)).unwrap();
    assert_eq!(kind("a.txt"), (FileKind::File, 3));
    assert_eq!(kind("sub").0, FileKind::Directory);
    // Links are listed as links, their size the target's length, never the target's.
    assert_eq!(kind("link"), (FileKind::Symlink, out.len() as u64));
    assert_eq!(kind("file-link").0, FileKind::Symlink);
    assert_eq!(kind("dangling").0, FileKind::Symlink);
    // A file's entry carries what a stat of it does (the tools show sizes and times).
    let entry = s.list(&root, &root).unwrap().into_iter().find(|e| e.name == "a.txt").unwrap();
    let stat = s.stat(&format!("{root}/a.txt"), false).unwrap();
    assert_eq!((entry.meta.size, entry.meta.modified, entry.meta.links), (stat.size, stat.modified, stat.links));

    assert_eq!(kinds(s.list(&root, &format!("{root}/sub")).unwrap()), [("b.txt".into(), FileKind::File, 1)]);
    // The link's target is never listed through it, nor anything below it.
    assert_eq!(kind_of(s.list(&root, &format!("{root}/link"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list(&root, &format!("{root}/link/inner"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list(&root, &format!("{root}/missing"))), StorageErrorKind::NotFound);
    assert_eq!(kind_of(s.list(&root, &format!("{root}/a.txt"))), StorageErrorKind::NotADirectory);
    // An empty directory lists nothing.
    t.dir(&format!("{root}/empty"));
    assert!(s.list(&root, &format!("{root}/empty")).unwrap().is_empty());

    // A listing of kinds only (a tree, a search) names the same entries with the same kinds,
    // links as links, and refuses what the full listing refuses.
    let names_and_kinds = |entries: Vec<DirEntry>| -> Vec<(String, FileKind)> {
        kinds(entries).into_iter().map(|(n, k, _)| (n, k)).collect()
    };
    for dir in [root.clone(), format!("{root}/sub"), format!("{root}/empty")] {
        let full = names_and_kinds(s.list(&root, &dir).unwrap());
        assert_eq!(names_and_kinds(s.list_kinds(&root, &dir).unwrap()), full, "{dir}");
    }
    assert_eq!(kind_of(s.list_kinds(&root, &format!("{root}/link"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list_kinds(&root, &format!("{root}/link/inner"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list_kinds(&root, &format!("{root}/a.txt"))), StorageErrorKind::NotADirectory);
}

fn makes_one_directory(t: &impl Tree) {
    let (root, out) = populate(t);
    let s = t.storage();
    s.make_dir(&root, &format!("{root}/new")).unwrap();
    assert_eq!(kinds(s.list(&root, &format!("{root}/new")).unwrap()), []);
    assert_eq!(s.stat(&format!("{root}/new"), false).unwrap().kind, FileKind::Directory);
    for there in ["new", "a.txt", "sub", "link", "dangling"] {
        assert_eq!(kind_of(s.make_dir(&root, &format!("{root}/{there}"))), StorageErrorKind::AlreadyExists, "{there}");
    }
    assert!(!t.exists(&format!("{root}/nowhere")), "a dangling link's target is not created through it");
    assert_eq!(t.text(&format!("{root}/a.txt")).as_deref(), Some("abc"), "a file in the way stays");
    // One directory: its parent must exist.
    assert_eq!(kind_of(s.make_dir(&root, &format!("{root}/x/y"))), StorageErrorKind::NotFound);
    assert!(!t.exists(&format!("{root}/x")));
    assert_eq!(kind_of(s.make_dir(&root, &format!("{root}/a.txt/y"))), StorageErrorKind::NotADirectory);
    // A symlinked parent: refused, nothing made outside.
    assert_eq!(kind_of(s.make_dir(&root, &format!("{root}/link/made"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.make_dir(&root, &format!("{root}/link/inner/made"))), StorageErrorKind::SymlinkEscape);
    assert!(!t.exists(&format!("{out}/made")) && !t.exists(&format!("{out}/inner/made")));
    // The root itself is there.
    assert_eq!(kind_of(s.make_dir(&root, &root)), StorageErrorKind::AlreadyExists);
}

fn moves_without_replacing(t: &impl Tree) {
    let (root, out) = populate(t);
    let s = t.storage();
    let p = |name: &str| format!("{root}/{name}");
    // A file, to a new name and into another directory.
    s.rename(&root, &p("a.txt"), &p("moved.txt")).unwrap();
    assert_eq!((t.exists(&p("a.txt")), t.text(&p("moved.txt")).as_deref()), (false, Some("abc")));
    s.rename(&root, &p("moved.txt"), &p("sub/a.txt")).unwrap();
    assert_eq!(t.text(&p("sub/a.txt")).as_deref(), Some("abc"));
    // Never onto something: a file, a directory (even empty), a link, a dangling link.
    t.put(&p("c.txt"), "c");
    t.dir(&p("empty"));
    for there in ["sub/a.txt", "empty", "sub", "link", "dangling"] {
        assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p(there))), StorageErrorKind::AlreadyExists, "{there}");
    }
    assert_eq!(kind_of(s.rename(&root, &p("empty"), &p("sub"))), StorageErrorKind::AlreadyExists);
    assert_eq!((t.text(&p("c.txt")).as_deref(), t.text(&p("sub/a.txt")).as_deref()), (Some("c"), Some("abc")));
    assert!(t.is_link(&p("link")) && t.is_link(&p("dangling")) && !t.exists(&p("nowhere")));
    // A directory moves with what is in it.
    s.rename(&root, &p("sub"), &p("empty/sub")).unwrap();
    assert_eq!(t.text(&p("empty/sub/b.txt")).as_deref(), Some("b"));
    assert!(!t.exists(&p("sub")));
    // A symlink moves as a link; its target stays where it is.
    s.rename(&root, &p("file-link"), &p("empty/file-link")).unwrap();
    assert!(t.is_link(&p("empty/file-link")));
    assert_eq!(t.text(&format!("{out}/secret.txt")).as_deref(), Some("OUTSIDE"));
    // A symlinked parent, on either side: refused, nothing moved or created outside.
    assert_eq!(kind_of(s.rename(&root, &p("link/secret.txt"), &p("stolen.txt"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p("link/planted.txt"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p("link/inner/planted.txt"))), StorageErrorKind::SymlinkEscape);
    assert!(!t.exists(&p("stolen.txt")) && t.text(&p("c.txt")).as_deref() == Some("c"));
    assert_eq!(t.text(&format!("{out}/secret.txt")).as_deref(), Some("OUTSIDE"));
    assert!(!t.exists(&format!("{out}/planted.txt")) && !t.exists(&format!("{out}/inner/planted.txt")));
    // Missing source, missing destination parent.
    assert_eq!(kind_of(s.rename(&root, &p("missing"), &p("x"))), StorageErrorKind::NotFound);
    assert_eq!(kind_of(s.rename(&root, &p("c.txt"), &p("nodir/c.txt"))), StorageErrorKind::NotFound);
    // Never a root, never a directory into itself.
    assert!(s.rename(&root, &root, &p("r")).is_err());
    assert!(s.rename(&root, &p("empty"), &p("empty/sub/inside")).is_err());
    assert_eq!(t.text(&p("empty/sub/b.txt")).as_deref(), Some("b"));
}

#[test]
fn disk_lists_entries_without_following_them() {
    lists_entries_without_following_them(&Disk::new());
}

#[test]
fn memory_lists_entries_without_following_them() {
    lists_entries_without_following_them(&Memory::new());
}

#[test]
fn disk_makes_one_directory() {
    makes_one_directory(&Disk::new());
}

#[test]
fn memory_makes_one_directory() {
    makes_one_directory(&Memory::new());
}

#[test]
fn disk_moves_without_replacing() {
    moves_without_replacing(&Disk::new());
}

#[test]
fn memory_moves_without_replacing() {
    moves_without_replacing(&Memory::new());
}

/// Paths the engine did not check (not below the root, not normalized) never reach the disk.
#[test]
fn disk_refuses_paths_outside_the_root() {
    let t = Disk::new();
    let (root, out) = populate(&t);
    let s = t.storage();
    assert_eq!(kind_of(s.list(&root, &out)), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.list(&root, &format!("{root}/sub/.."))), StorageErrorKind::SymlinkEscape);
    assert_eq!(kind_of(s.make_dir(&root, &format!("{out}/made"))), StorageErrorKind::SymlinkEscape);
    assert_eq!(
        kind_of(s.rename(&root, &format!("{root}/a.txt"), &format!("{out}/a.txt"))),
        StorageErrorKind::SymlinkEscape
    );
    assert_eq!(
        kind_of(s.rename(&root, &format!("{out}/secret.txt"), &format!("{root}/s"))),
        StorageErrorKind::SymlinkEscape
    );
    assert!(!t.exists(&format!("{out}/made")) && !t.exists(&format!("{out}/a.txt")) && !t.exists(&format!("{root}/s")));
}

/// The storage advertises what it does, and the engine's io reaches it through `perform` (the
/// loop every Rust driver and the native disk run).
#[test]
fn the_caps_and_the_io_reach_both_storages() {
    assert!(DiskStorage::new().caps().list && DiskStorage::new().caps().rename && DiskStorage::new().caps().make_dir);
    let caps = MemoryStorage::new().caps();
    assert!(caps.list && caps.rename && caps.make_dir);
    // The native disk of the bindings is this disk.
    let full = acp_fs::host::info().full_caps;
    assert!(full.list && full.rename && full.make_dir);

    let t = Disk::new();
    let (root, _) = populate(&t);
    let disk = t.storage();
    let mut files = OpenFiles::default();
    let io = |io: Io, files: &mut OpenFiles<_>| perform(disk, &DefaultHost, files, io);
    let made = io(Io::MakeDir { root: root.clone(), path: format!("{root}/d") }, &mut files);
    assert_eq!(made, Answer::Done);
    let moved =
        io(Io::Rename { root: root.clone(), from: format!("{root}/a.txt"), to: format!("{root}/d/a.txt") }, &mut files);
    assert_eq!(moved, Answer::Done);
    let list = |kinds| Io::List { root: root.clone(), path: format!("{root}/d"), kinds };
    let Answer::Entries(entries) = io(list(false), &mut files) else { panic!("a listing answers entries") };
    assert_eq!(kinds(entries), [("a.txt".into(), FileKind::File, 3)]);
    // A listing of kinds only reaches the storage's list_kinds: the disk leaves sizes out.
    let Answer::Entries(entries) = io(list(true), &mut files) else { panic!("a listing answers entries") };
    assert_eq!(kinds(entries), [("a.txt".into(), FileKind::File, 0)]);
    let Answer::Err(e) = io(Io::MakeDir { root: root.clone(), path: format!("{root}/d") }, &mut files) else {
        panic!("a second make_dir fails")
    };
    assert_eq!(e.kind, StorageErrorKind::AlreadyExists);
}
