//! Containment while the disk moves (semantics.md §3): a helper process swaps a directory of
//! the session's root for a symlink to a directory outside it, and a file for a symlink to a
//! file outside, as fast as it can, while thousands of reads and writes go through
//! [`DiskStorage`] from two threads.
//!
//! A check of the real path followed by an open of the same path again is a time-of-check to
//! time-of-use race: between the two the agent (which may run commands in the workspace) can
//! swap a directory for a symlink. These tests prove that no byte from outside is ever
//! answered, no byte outside is ever written, no entry appears outside and no temporary file
//! is left anywhere, whatever the interleaving; every request either succeeds or fails cleanly.
//! Listings, moves and new directories (the storage of the MCP file tools, asked of the disk
//! directly) race the same mover: no listing shows an outside entry, and nothing is moved out
//! of `outside/` or into it, or created there.
//!
//! Counts, not time, make a run: `ACP_FS_RACE_REQUESTS` (default 6,000: in every seven, two
//! reads, a write to an existing file, a creation, a listing, a move and a new directory) sets
//! how many, and `ACP_FS_RACE_SECONDS` (default 20) bounds the time a slow machine may spend on
//! them.
//!
//! ```text
//! ACP_FS_RACE_REQUESTS=100000 ACP_FS_RACE_SECONDS=600 cargo test -p acp-fs --all-features --test race -- --nocapture
//! ```
#![cfg(all(unix, feature = "disk"))]

use acp_fs::{AcpFs, DefaultHost, DiskStorage, ErrorKind, Options, Outcome, Storage, StorageErrorKind};
use serde_json::json;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Set (to `mode\nbase`) only in the helper process.
const HELPER_ENV: &str = "ACP_FS_RACE_HELPER";
const REQUESTS_ENV: &str = "ACP_FS_RACE_REQUESTS";
const SECONDS_ENV: &str = "ACP_FS_RACE_SECONDS";
const DEFAULT_REQUESTS: usize = 6_000;
const DEFAULT_SECONDS: u64 = 20;
const THREADS: usize = 2;

/// Every outside file holds this; no answer may.
const CANARY: &str = "OUTSIDE-CANARY";
/// The files of `root/sub/`, and of `outside/` under the same names.
const FILES: [&str; 3] = ["a.txt", "b.txt", "c.txt"];
/// Lines per file: with ~40-byte lines a file spans several ranged chunks (16 KiB first).
const LINES: usize = 1_000;
/// An entry only `outside/` has: a listing that shows it listed outside.
const MARKER: &str = "OUTSIDE-CANARY.marker";
/// Every temporary name DiskStorage makes contains this (`.{name}.acp-fs-{pid}-{n}.tmp`).
const TEMP_MARK: &str = ".acp-fs-";

/// How the helper swaps `root/sub` and the symlink `root/sub-link` (→ `outside/`).
#[derive(Clone, Copy, Debug)]
enum Mover {
    /// One atomic `renameat2(RENAME_EXCHANGE)`: `root/sub` is always a directory or the symlink.
    #[cfg(target_os = "linux")]
    Exchange,
    /// Plain renames, on every Unix: `root/sub` is briefly missing between the two.
    Rename,
}

impl Mover {
    fn name(self) -> &'static str {
        match self {
            #[cfg(target_os = "linux")]
            Mover::Exchange => "exchange",
            Mover::Rename => "rename",
        }
    }

    fn parse(name: &str) -> Mover {
        match name {
            #[cfg(target_os = "linux")]
            "exchange" => Mover::Exchange,
            "rename" => Mover::Rename,
            other => panic!("unknown mover {other:?}"),
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn containment_holds_while_directories_are_exchanged_for_symlinks() {
    race(Mover::Exchange);
}

#[test]
fn containment_holds_while_directories_are_renamed_into_symlinks() {
    race(Mover::Rename);
}

#[cfg(all(target_os = "linux", feature = "mcp"))]
#[test]
fn searches_on_the_native_disk_stay_contained_while_directories_are_exchanged() {
    search_race(Mover::Exchange);
}

#[cfg(feature = "mcp")]
#[test]
fn searches_on_the_native_disk_stay_contained_while_directories_are_renamed() {
    search_race(Mover::Rename);
}

// ---- the layout ----

fn inside_text(name: &str, tag: &str) -> String {
    (1..=LINES).fold(String::new(), |mut s, n| {
        let _ = writeln!(s, "inside {name} {tag} line {n:05}");
        s
    })
}

fn canary_text(name: &str) -> String {
    (1..=LINES).fold(String::new(), |mut s, n| {
        let _ = writeln!(s, "{CANARY} {name} line {n:05}");
        s
    })
}

/// `base/root/sub/{a,b,c}.txt`, `base/root/sub-link` → `base/outside`, and
/// `base/outside/{a,b,c}.txt` holding the canary. `base` is a real path (macOS `/tmp` is not).
fn layout() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let sub = base.join("root/sub");
    fs::create_dir_all(&sub).unwrap();
    fs::create_dir(base.join("outside")).unwrap();
    for name in FILES {
        fs::write(sub.join(name), inside_text(name, "original")).unwrap();
        fs::write(base.join("outside").join(name), canary_text(name)).unwrap();
    }
    fs::write(base.join("outside").join(MARKER), "").unwrap();
    std::os::unix::fs::symlink(base.join("outside"), base.join("root/sub-link")).unwrap();
    (tmp, base)
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Every temporary file under `dir`, without following symlinks.
fn temps(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_name().to_string_lossy().contains(TEMP_MARK) {
            found.push(path.clone());
        }
        if entry.file_type().unwrap().is_dir() {
            temps(&path, found);
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

// ---- the helper process ----

/// The disk mover, run as a separate process (a fresh run of this test binary) so that it
/// races the requests from its own CPU time, as an agent's command would.
struct Helper {
    child: Child,
    base: PathBuf,
}

impl Helper {
    fn start(mover: Mover, base: &Path) -> Helper {
        let exe = std::env::current_exe().expect("the test binary knows its own path");
        let child = Command::new(exe)
            .args(["race_helper", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(HELPER_ENV, format!("{}\n{}", mover.name(), base.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the race helper");
        let helper = Helper { child, base: base.to_path_buf() };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !base.join("ready").exists() {
            assert!(Instant::now() < deadline, "the race helper did not start");
            std::thread::sleep(Duration::from_millis(5));
        }
        helper
    }

    /// Stops the helper and returns how many full swap cycles it made.
    fn stop(mut self) -> u64 {
        fs::write(self.base.join("stop"), "").unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the race helper failed: {status}");
                break;
            }
            assert!(Instant::now() < deadline, "the race helper did not stop");
            std::thread::sleep(Duration::from_millis(5));
        }
        let cycles = fs::read_to_string(self.base.join("cycles")).expect("the helper reports its cycles");
        cycles.trim().parse().unwrap()
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Only reached with a live child when the test failed before stopping it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The helper's entry point: a no-op unless run by [`Helper::start`].
#[test]
#[ignore = "the disk mover of the race tests, run only as their helper process"]
fn race_helper() {
    let Ok(spec) = std::env::var(HELPER_ENV) else { return };
    let (mode, base) = spec.split_once('\n').expect("mode\\nbase");
    let mover = Mover::parse(mode);
    let base = PathBuf::from(base);
    let root = open_dir(&base.join("root"));
    // The real `sub` directory, by handle: the file swaps happen inside it wherever its name
    // is, never through the symlink, so the helper itself never touches `outside/`.
    let sub = open_dir(&base.join("root/sub"));
    let canary = cstr(base.join("outside/a.txt").as_os_str().as_bytes());
    let stop = base.join("stop");
    fs::write(base.join("ready"), "").unwrap();
    let mut cycles = 0u64;
    let mut intruders = 0u64;
    let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
    while !stop.exists() {
        // All four combinations (sub → link, a.txt → link, sub → real, a.txt → real), each
        // held for a random few microseconds so that every state is seen by some step of
        // some request, not only the states the mover happens to linger in.
        dir_to_link(mover, root, &mut intruders);
        pause(&mut rng);
        file_to_link(mover, sub, &canary);
        pause(&mut rng);
        dir_to_real(mover, root, &mut intruders);
        pause(&mut rng);
        file_to_real(mover, sub);
        pause(&mut rng);
        cycles += 1;
    }
    fs::write(base.join("cycles"), cycles.to_string()).unwrap();
}

/// Spins (a sleep would last far longer than asked) for 0 to 127 microseconds.
fn pause(rng: &mut u64) {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let until = Instant::now() + Duration::from_micros(*rng % 128);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

type Fd = libc::c_int;

fn cstr(bytes: &[u8]) -> CString {
    CString::new(bytes).unwrap()
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn open_dir(path: &Path) -> Fd {
    let path = cstr(path.as_os_str().as_bytes());
    // SAFETY: a valid NUL-terminated path; the descriptor lives until the process exits.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    assert!(fd >= 0, "open {path:?}: {}", io::Error::last_os_error());
    fd
}

fn rename_at(dir: Fd, from: &str, to: &str) -> io::Result<()> {
    let (from, to) = (cstr(from.as_bytes()), cstr(to.as_bytes()));
    // SAFETY: valid descriptor and NUL-terminated names.
    check(unsafe { libc::renameat(dir, from.as_ptr(), dir, to.as_ptr()) })
}

#[cfg(target_os = "linux")]
fn exchange_at(dir: Fd, a: &str, b: &str) -> io::Result<()> {
    let (a, b) = (cstr(a.as_bytes()), cstr(b.as_bytes()));
    // SAFETY: valid descriptor and NUL-terminated names; renameat2 takes no other pointers.
    let rc = unsafe { libc::syscall(libc::SYS_renameat2, dir, a.as_ptr(), dir, b.as_ptr(), libc::RENAME_EXCHANGE) };
    check(rc as libc::c_int)
}

/// Renames `from` to `root/sub`; a directory the engine created at `sub` while it was missing
/// (a write creating its parents) is moved aside to `intruder-N` first. Both stay in root.
fn rename_to_sub(root: Fd, from: &str, intruders: &mut u64) {
    loop {
        match rename_at(root, from, "sub") {
            Ok(()) => return,
            Err(e) if matches!(e.raw_os_error(), Some(libc::EISDIR | libc::ENOTEMPTY | libc::EEXIST)) => {
                *intruders += 1;
                rename_at(root, "sub", &format!("intruder-{intruders}")).unwrap();
            }
            Err(e) => panic!("rename {from} to sub: {e}"),
        }
    }
}

fn dir_to_link(mover: Mover, root: Fd, intruders: &mut u64) {
    match mover {
        #[cfg(target_os = "linux")]
        Mover::Exchange => exchange_at(root, "sub", "sub-link").unwrap(),
        Mover::Rename => {
            rename_at(root, "sub", "sub-away").unwrap();
            rename_to_sub(root, "sub-link", intruders);
        }
    }
}

fn dir_to_real(mover: Mover, root: Fd, intruders: &mut u64) {
    match mover {
        #[cfg(target_os = "linux")]
        Mover::Exchange => exchange_at(root, "sub", "sub-link").unwrap(),
        Mover::Rename => {
            rename_at(root, "sub", "sub-link").unwrap();
            rename_to_sub(root, "sub-away", intruders);
        }
    }
}

/// `sub/a.txt` becomes a symlink to `outside/a.txt` and the real file waits as `sub/a.link`.
/// The two swaps cost the same syscalls, so a mover stalled by the file system (renames wait
/// for the journal while writes sync) lingers in each state alike.
fn file_to_link(mover: Mover, sub: Fd, canary: &CString) {
    repair_link(sub, canary);
    match mover {
        #[cfg(target_os = "linux")]
        Mover::Exchange => exchange_at(sub, "a.txt", "a.link").unwrap(),
        Mover::Rename => {
            // a.txt is missing for a moment; a write may create it then, and is replaced.
            let _ = rename_at(sub, "a.txt", "a.saved");
            rename_at(sub, "a.link", "a.txt").unwrap();
        }
    }
}

/// `sub/a.txt` is the real file again and `sub/a.link` the symlink.
fn file_to_real(mover: Mover, sub: Fd) {
    match mover {
        #[cfg(target_os = "linux")]
        Mover::Exchange => exchange_at(sub, "a.txt", "a.link").unwrap(),
        Mover::Rename => {
            rename_at(sub, "a.txt", "a.link").unwrap();
            if let Err(e) = rename_at(sub, "a.saved", "a.txt") {
                assert_eq!(e.kind(), io::ErrorKind::NotFound, "rename a.saved to a.txt: {e}");
            }
        }
    }
}

/// A write that lands on `a.txt` while it is the symlink replaces the symlink (as it should),
/// so the swap would soon have no symlink left: make `a.link` one again when it is not.
fn repair_link(sub: Fd, canary: &CString) {
    let link = cstr(b"a.link");
    // SAFETY: an all-zero stat is a valid value for fstatat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, NUL-terminated name and a stat to fill.
    let found = check(unsafe { libc::fstatat(sub, link.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) });
    if found.is_ok() && st.st_mode & libc::S_IFMT == libc::S_IFLNK {
        return;
    }
    if found.is_ok() {
        // SAFETY: valid descriptor and NUL-terminated name.
        check(unsafe { libc::unlinkat(sub, link.as_ptr(), 0) }).unwrap();
    }
    // SAFETY: valid descriptor and NUL-terminated strings.
    check(unsafe { libc::symlinkat(canary.as_ptr(), sub, link.as_ptr()) }).unwrap();
}

// ---- the requests ----

#[derive(Default)]
struct Tally {
    ok_reads: u64,
    ok_writes: u64,
    ok_creates: u64,
    ok_lists: u64,
    ok_moves: u64,
    ok_dirs: u64,
    /// Successful listings that show an entry of `outside/`.
    escaped_lists: u64,
    /// Successful reads whose content holds outside bytes.
    escaped_reads: u64,
    /// Successful writes whose change record's old text holds outside bytes.
    escaped_old_text: u64,
    panics: u64,
    errors: BTreeMap<&'static str, u64>,
    unexpected: Vec<String>,
    samples: Vec<String>,
    done: u64,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.ok_reads += other.ok_reads;
        self.ok_writes += other.ok_writes;
        self.ok_creates += other.ok_creates;
        self.ok_lists += other.ok_lists;
        self.ok_moves += other.ok_moves;
        self.ok_dirs += other.ok_dirs;
        self.escaped_lists += other.escaped_lists;
        self.escaped_reads += other.escaped_reads;
        self.escaped_old_text += other.escaped_old_text;
        self.panics += other.panics;
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        self.unexpected.extend(other.unexpected);
        self.samples.extend(other.samples);
        self.done += other.done;
    }

    fn sample(&mut self, what: String) {
        if self.samples.len() < 12 {
            self.samples.push(what);
        }
    }
}

/// Clean refusals while the disk moves; anything else (an internal error, a parse error, a
/// window past the end of a file that never shrinks) is a bug.
// A stale write is the session's own read going out of date while the disk moves: refused,
// nothing written (semantics.md §9).
const CLEAN: [ErrorKind; 6] = [
    ErrorKind::StaleWrite,
    ErrorKind::SymlinkEscape,
    ErrorKind::NotFound,
    ErrorKind::StorageError,
    ErrorKind::NotAFile,
    ErrorKind::PermissionDenied,
];

/// Clean refusals of the storage calls (a listing, a move, a new directory) while the disk
/// moves: a parent that is a symlink now, a name gone or taken meanwhile, or a parent that was
/// not a directory when it was opened (the symlink an open refused was swapped back before the
/// refusal could be told apart from a file there: `why_not_dir` sees a directory again).
const CLEAN_STORAGE: [StorageErrorKind; 4] = [
    StorageErrorKind::SymlinkEscape,
    StorageErrorKind::NotFound,
    StorageErrorKind::AlreadyExists,
    StorageErrorKind::NotADirectory,
];

#[derive(Clone, Copy)]
enum Request {
    Read,
    Window,
    Write,
    Create,
    List,
    Move,
    MakeDir,
}

fn request(i: usize) -> Request {
    match i % 7 {
        0 => Request::Read,
        1 => Request::Window,
        2 => Request::Write,
        3 => Request::Create,
        4 => Request::List,
        5 => Request::Move,
        _ => Request::MakeDir,
    }
}

/// A listing, move or new directory in `sub`, asked of the disk as the engine hands it checked
/// paths: `sub` is a real directory of the root when the engine checks, whatever it is by the
/// time the disk acts. Moves take turns: `sub/b.txt` out to `root/held-b.txt` (through a
/// swapped `sub` that would take `outside/b.txt`), back again, and a file created earlier in
/// `sub` to a new name in `sub` (through a swapped parent on either side, that would plant it
/// in `outside/`).
fn run_storage(disk: &DiskStorage, root: &str, sub: &str, i: usize, tally: &mut Tally) {
    let done = match request(i) {
        Request::List => disk.list(root, sub).map(|entries| {
            tally.ok_lists += 1;
            if let Some(e) = entries.iter().find(|e| e.name == MARKER) {
                tally.escaped_lists += 1;
                tally.sample(format!("request {i} listed outside: {}", e.name));
            }
        }),
        Request::Move => {
            let (from, to) = match (i / 7) % 3 {
                0 => (format!("{sub}/b.txt"), format!("{root}/held-b.txt")),
                1 => (format!("{root}/held-b.txt"), format!("{sub}/b.txt")),
                _ => (format!("{sub}/new-{}.txt", i - 2), format!("{sub}/moved-{i}.txt")),
            };
            disk.rename(root, &from, &to).map(|()| tally.ok_moves += 1)
        }
        _ => disk.make_dir(root, &format!("{sub}/dir-{i}")).map(|()| tally.ok_dirs += 1),
    };
    if let Err(e) = done {
        let name = match e.kind {
            StorageErrorKind::SymlinkEscape => "storage: symlink escape",
            StorageErrorKind::NotFound => "storage: not found",
            StorageErrorKind::AlreadyExists => "storage: already exists",
            StorageErrorKind::NotADirectory => "storage: not a directory",
            _ => "storage: other",
        };
        let seen = tally.errors.entry(name).or_default();
        *seen += 1;
        if *seen <= 2 {
            tally.sample(format!("request {i}: {e}"));
        }
        if !CLEAN_STORAGE.contains(&e.kind) && tally.unexpected.len() < 10 {
            tally.unexpected.push(format!("request {i}: {e}"));
        }
    }
}

fn run_one(fs: &AcpFs, disk: &DiskStorage, sub: &str, i: usize) -> Outcome {
    let name = FILES[(i / 4) % FILES.len()];
    let path = format!("{sub}/{name}");
    let params = match request(i) {
        Request::Read => json!({"sessionId": "s", "path": path}),
        Request::Window => {
            // Windows start anywhere in the file and end before its last line (the file never
            // shrinks), some spanning several chunks.
            let line = 1 + (i * 37) % (LINES / 2);
            let limit = 1 + (i * 13) % (LINES / 2 - 1);
            json!({"sessionId": "s", "path": path, "line": line, "limit": limit})
        }
        Request::Write => {
            let content = inside_text(name, &format!("write-{i}"));
            return acp_fs::run(
                fs.write_text_file(json!({"sessionId": "s", "path": path, "content": content})),
                disk,
                &DefaultHost,
            );
        }
        Request::List | Request::Move | Request::MakeDir => unreachable!("asked of the disk directly"),
        Request::Create => {
            let path = format!("{sub}/new-{i}.txt");
            let content = format!("inside new file {i}\n");
            return acp_fs::run(
                fs.write_text_file(json!({"sessionId": "s", "path": path, "content": content})),
                disk,
                &DefaultHost,
            );
        }
    };
    acp_fs::run(fs.read_text_file(params), disk, &DefaultHost)
}

fn drive(fs: &AcpFs, disk: &DiskStorage, dirs: (&str, &str), thread: usize, total: usize, deadline: Instant) -> Tally {
    let (root, sub) = dirs;
    let mut tally = Tally::default();
    for i in (thread..total).step_by(THREADS) {
        if Instant::now() > deadline {
            break;
        }
        tally.done += 1;
        if matches!(request(i), Request::List | Request::Move | Request::MakeDir) {
            if catch_unwind(AssertUnwindSafe(|| run_storage(disk, root, sub, i, &mut tally))).is_err() {
                tally.panics += 1;
            }
            continue;
        }
        let outcome = match catch_unwind(AssertUnwindSafe(|| run_one(fs, disk, sub, i))) {
            Ok(outcome) => outcome,
            Err(_) => {
                tally.panics += 1;
                continue;
            }
        };
        match (request(i), outcome.result) {
            (Request::Read | Request::Window, Ok(response)) => {
                tally.ok_reads += 1;
                let content = response.to_json()["content"].as_str().unwrap_or_default().to_owned();
                if content.contains(CANARY) {
                    tally.escaped_reads += 1;
                    let first = content.lines().next().unwrap_or_default().to_owned();
                    tally.sample(format!("request {i} read outside bytes: {first:?}"));
                }
            }
            (Request::List | Request::Move | Request::MakeDir, _) => unreachable!("asked of the disk directly"),
            (Request::Write | Request::Create, Ok(_)) => {
                if matches!(request(i), Request::Write) {
                    tally.ok_writes += 1;
                } else {
                    tally.ok_creates += 1;
                }
                let old = outcome.change.and_then(|c| c.old_text).unwrap_or_default();
                if old.contains(CANARY) {
                    tally.escaped_old_text += 1;
                    tally.sample(format!("request {i} replaced (and reported) outside text"));
                }
            }
            (_, Err(e)) => {
                let seen = tally.errors.entry(e.kind.as_str()).or_default();
                *seen += 1;
                if *seen <= 2 {
                    tally.sample(format!("request {i}: {}", e.message));
                }
                if !CLEAN.contains(&e.kind) && tally.unexpected.len() < 10 {
                    tally.unexpected.push(format!("request {i}: {} {}", e.message, e.data));
                }
            }
        }
    }
    tally
}

fn race(mover: Mover) {
    let (_tmp, base) = layout();
    let outside = base.join("outside");
    let outside_before = listing(&outside);
    let canaries: Vec<Vec<u8>> = FILES.iter().map(|n| fs::read(outside.join(n)).unwrap()).collect();
    let total = env_number(REQUESTS_ENV, DEFAULT_REQUESTS as u64) as usize;
    let seconds = env_number(SECONDS_ENV, DEFAULT_SECONDS);

    let disk = DiskStorage::new();
    let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
    let root = base.join("root");
    fs.open_session("s", root.to_str().unwrap(), &[]).unwrap();
    let sub = root.join("sub").to_str().unwrap().to_owned();
    let root = root.to_str().unwrap().to_owned();

    let helper = Helper::start(mover, &base);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut tally = Tally::default();
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let (fs, disk, dirs) = (&fs, &disk, (root.as_str(), sub.as_str()));
                scope.spawn(move || drive(fs, disk, dirs, t, total, deadline))
            })
            .collect();
        for t in threads {
            tally.merge(t.join().expect("a request thread panicked outside a request"));
        }
    });
    let elapsed = started.elapsed();
    let cycles = helper.stop();

    // The end state, with the disk still.
    let outside_after = listing(&outside);
    let new_outside: Vec<&String> = outside_after.iter().filter(|n| !outside_before.contains(n)).collect();
    let gone_outside: Vec<&String> = outside_before.iter().filter(|n| !outside_after.contains(n)).collect();
    let changed_outside: Vec<&str> = FILES
        .iter()
        .zip(&canaries)
        .filter(|(n, before)| fs::read(outside.join(n)).ok().as_ref() != Some(*before))
        .map(|(n, _)| *n)
        .collect();
    let mut left = Vec::new();
    temps(&base, &mut left);
    let left_outside = left.iter().filter(|p| p.starts_with(&outside)).count();

    let report = format!(
        "{mover:?}: {done}/{total} requests in {elapsed:.1?} against {cycles} swap cycles\n\
         ok: {reads} reads, {writes} writes, {creates} creations, {lists} listings, {moves} moves, \
         {dirs} new directories; errors: {errors:?}\n\
         reads answering outside bytes: {escaped_reads}\n\
         listings showing outside entries: {escaped_lists}\n\
         writes reporting outside text as the old text: {escaped_old_text}\n\
         outside files changed: {changed_outside:?}\n\
         new entries in outside/: {n_new} {new_outside:?}\n\
         entries gone from outside/: {gone_outside:?}\n\
         temporary files left: {n_left} ({left_outside} of them in outside/)\n\
         panics: {panics}; unexpected errors: {unexpected:#?}\nsamples: {samples:#?}",
        done = tally.done,
        reads = tally.ok_reads,
        writes = tally.ok_writes,
        creates = tally.ok_creates,
        lists = tally.ok_lists,
        moves = tally.ok_moves,
        dirs = tally.ok_dirs,
        escaped_lists = tally.escaped_lists,
        errors = tally.errors,
        escaped_reads = tally.escaped_reads,
        escaped_old_text = tally.escaped_old_text,
        n_new = new_outside.len(),
        n_left = left.len(),
        panics = tally.panics,
        unexpected = tally.unexpected,
        samples = tally.samples,
    );
    eprintln!("{report}");

    let contained = tally.escaped_reads == 0
        && tally.escaped_lists == 0
        && tally.escaped_old_text == 0
        && changed_outside.is_empty()
        && new_outside.is_empty()
        && gone_outside.is_empty()
        && left.is_empty()
        && tally.panics == 0
        && tally.unexpected.is_empty();
    assert!(contained, "containment failed while the disk moved:\n{report}");
    // Not vacuous: the disk did move, and requests did get through while it did.
    assert!(cycles > 0, "the helper never swapped anything:\n{report}");
    assert!(tally.ok_reads > 0 && tally.ok_writes + tally.ok_creates > 0, "nothing succeeded:\n{report}");
    assert!(
        tally.ok_lists > 0 && tally.ok_moves > 0 && tally.ok_dirs > 0,
        "no listing, move or new directory:\n{report}"
    );
}

// ---- searches on the native disk ----

/// `search_text` over the root as a native host runs it (`HostOperation::run_on_disk`: the
/// root's handle kept for the run, each directory's files opened ahead of the engine on worker
/// threads), racing the same mover: the first lines of every file, inside and outside, match,
/// so a file read through a swapped `sub` or `a.txt` would show outside lines in the answer.
/// None may, and the searches must still find what is inside.
#[cfg(feature = "mcp")]
fn search_race(mover: Mover) {
    use acp_fs::host::{HostEngine, HostStep};
    let (_tmp, base) = layout();
    let total = env_number(REQUESTS_ENV, DEFAULT_REQUESTS as u64) as usize / 10;
    let seconds = env_number(SECONDS_ENV, DEFAULT_SECONDS);
    let caps = serde_json::to_value(DiskStorage::new().caps()).unwrap();
    let engine = HostEngine::new(json!({}), caps).unwrap();
    let root = base.join("root").to_str().unwrap().to_owned();
    assert!(engine.open_session(&json!("s"), &json!(root), &json!([]), &json!(null)).is_none());

    let helper = Helper::start(mover, &base);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut searches, mut lines, mut escaped, mut failed) = (0u64, 0u64, Vec::new(), Vec::new());
    for i in 0..total {
        if Instant::now() > deadline {
            break;
        }
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "search_text",
            "arguments": {"path": root, "pattern": "line 0000", "maxResults": 100_000}}});
        let (_, op) = engine.mcp_dispatch("s", &call.to_string());
        let step = op.expect("a tools/call comes with its operation").run_on_disk(None);
        let HostStep::Done { done } = step else { panic!("a search needs nothing of the host: {step:?}") };
        let reply: serde_json::Value = serde_json::from_str(done.reply.as_deref().unwrap_or("null")).unwrap();
        let result = &reply["result"];
        if result["isError"] != json!(false) {
            failed.push(format!("search {i}: {reply}"));
            continue;
        }
        searches += 1;
        for m in result["structuredContent"]["matches"].as_array().into_iter().flatten() {
            lines += 1;
            if m["text"].as_str().unwrap_or_default().contains(CANARY) && escaped.len() < 10 {
                escaped.push(format!("search {i}: {m}"));
            }
        }
    }
    let cycles = helper.stop();
    let report = format!(
        "{mover:?}: {searches} searches ({lines} matching lines) against {cycles} swap cycles; \
         outside lines answered: {escaped:#?}; failed searches: {failed:#?}"
    );
    eprintln!("{report}");
    assert!(escaped.is_empty() && failed.is_empty(), "a search escaped or failed while the disk moved:\n{report}");
    assert!(cycles > 0 && searches > 0 && lines > 0, "nothing raced, or nothing was found:\n{report}");
}
