//! A window is always a slice of the file as it is now, whatever was done to the file behind
//! the engine's back (semantics.md §8 "Line index"). The case that broke it: a same-size
//! rewrite whose old modification time is put back (`touch -r`, `cp -p`, `rsync -t`, `tar x`),
//! which the line index, keyed by size and modification time, took for the version it had
//! scanned, and served windows cut mid-line.
#![cfg(all(unix, feature = "disk"))]

use acp_fs::{AcpFs, DefaultHost, DiskStorage, Options};
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Rows of varied length: `rows` of them, row `i` holding `i` and some filler.
fn text(rows: usize, salt: usize) -> String {
    (1..=rows).map(|i| format!("{i}:{}\n", "x".repeat((i * 7 + salt) % 23))).collect()
}

/// The same bytes with the rows' boundaries moved: same size, other line starts.
fn shifted(old: &str) -> String {
    let cut = old.len() / 3 + 1;
    let cut = (cut..old.len()).find(|&i| old.as_bytes()[i - 1] != b'\n' && old.is_char_boundary(i)).unwrap();
    format!("{}{}", &old[cut..], &old[..cut])
}

/// Rows `line ..` (1-based), at most `limit` of them, terminators kept (semantics.md §2).
fn slice(text: &str, line: usize, limit: usize) -> String {
    text.split_inclusive('\n').skip(line - 1).take(limit).collect()
}

const WINDOWS: [(usize, usize); 6] = [(251, 250), (1000, 40), (1700, 300), (2, 5), (1999, 10), (600, 600)];

struct Project {
    _tmp: tempfile::TempDir,
    file: PathBuf,
    fs: AcpFs,
    disk: DiskStorage,
}

fn project(content: &str) -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let file = root.join("big.txt");
    fs::write(&file, content).unwrap();
    let disk = DiskStorage::new();
    let fs = AcpFs::new(Options::default(), acp_fs::Storage::caps(&disk)).unwrap();
    fs.open_session("s", root.to_str().unwrap(), &[]).unwrap();
    Project { _tmp: tmp, file, fs, disk }
}

impl Project {
    fn window(&self, line: usize, limit: usize) -> String {
        let params = json!({"sessionId": "s", "path": self.file.to_str().unwrap(), "line": line, "limit": limit});
        let out = acp_fs::run(self.fs.read_text_file(params), &self.disk, &DefaultHost);
        out.result.unwrap().to_json()["content"].as_str().unwrap().to_owned()
    }

    /// Reads every window (so the index remembers line starts of this version), checking each.
    fn read_all(&self, now: &str, when: &str) {
        for (line, limit) in WINDOWS {
            assert_eq!(self.window(line, limit), slice(now, line, limit), "{when}: line {line}, limit {limit}");
        }
    }
}

fn mtime(path: &Path) -> SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

fn set_mtime(path: &Path, when: SystemTime) {
    fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
}

/// Rewrites `path` with `new` in place (same inode), then puts the old modification time back.
fn rewrite_in_place(path: &Path, new: &str) {
    let old = mtime(path);
    fs::write(path, new).unwrap();
    set_mtime(path, old);
}

/// Replaces `path` by rename with a file holding `new` and the old modification time.
fn rewrite_by_rename(path: &Path, new: &str) {
    let old = mtime(path);
    let temp = path.with_extension("new");
    fs::write(&temp, new).unwrap();
    set_mtime(&temp, old);
    fs::rename(&temp, path).unwrap();
}

/// `touch -r REF FILE` after an in-place rewrite, as a user would type it.
fn rewrite_and_touch_r(path: &Path, new: &str) {
    let reference = path.with_extension("ref");
    fs::write(&reference, "").unwrap();
    set_mtime(&reference, mtime(path));
    fs::write(path, new).unwrap();
    let status = Command::new("touch").arg("-r").arg(&reference).arg(path).status().unwrap();
    assert!(status.success());
}

fn check(rewrite: fn(&Path, &str), name: &str) {
    let old = text(2000, 0);
    let new = shifted(&old);
    assert_eq!(old.len(), new.len());
    let p = project(&old);
    p.read_all(&old, &format!("{name}: before"));
    rewrite(&p.file, &new);
    let meta = fs::metadata(&p.file).unwrap();
    assert_eq!(meta.len() as usize, old.len(), "{name}: same size");
    p.read_all(&new, &format!("{name}: after the rewrite"));
    // And back again: the index must not resurrect the first version's line starts either.
    rewrite(&p.file, &old);
    p.read_all(&old, &format!("{name}: after rewriting it back"));
}

#[test]
fn a_same_size_rewrite_with_the_mtime_put_back_in_place() {
    check(rewrite_in_place, "in place, utimes");
}

#[test]
fn a_same_size_rewrite_with_the_mtime_put_back_by_rename() {
    check(rewrite_by_rename, "by rename, utimes");
}

#[test]
fn a_same_size_rewrite_with_touch_r() {
    check(rewrite_and_touch_r, "in place, touch -r");
}
