//! Permission tests as an unprivileged user, also when the suite runs as root (as CI does).
//!
//! Root may write any file, so a permission test run as root would only prove that. When this
//! process is root, [`run`] re-runs the one test as `nobody` (this test binary, filtered to the
//! test, with the uid and gid dropped) and fails unless that run passed; otherwise it runs the
//! test here, as today.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// Set in the re-run: the test body runs there, whoever this process is.
const CHILD: &str = "ACP_FS_TEST_UNPRIVILEGED";

/// Whether this process is the re-run as `nobody`.
pub fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs `body`, the body of the test `name` (its name as libtest knows it), as a user without
/// privileges: here when this process is not root, else in a re-run of that test as `nobody`.
pub fn run(name: &str, body: impl FnOnce()) {
    if is_child() {
        assert!(!rustix::process::geteuid().is_root(), "{CHILD} is set but this process is root");
        return body();
    }
    if !rustix::process::geteuid().is_root() {
        return body();
    }
    rerun(name, None);
}

/// Runs the test `name` of this binary again as `nobody`, and fails unless it passed there.
fn rerun(name: &str, prepared: Option<&Path>) {
    let (uid, gid) = nobody();
    // The re-run's own directory, for its temporary files: owned by nobody, as tempdirs are 0700.
    let home = tempfile::Builder::new().prefix("acp-fs-nobody-").tempdir().expect("a temporary directory");
    std::os::unix::fs::chown(home.path(), Some(uid), Some(gid)).expect("chown the re-run's directory to nobody");
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    let out = Command::new(&exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .envs(prepared.map(|dir| (PREPARED, dir)))
        .env("TMPDIR", home.path())
        .current_dir(home.path())
        .uid(uid)
        .gid(gid)
        .output()
        .unwrap_or_else(|e| panic!("could not run {} as nobody: {e}{}", exe.display(), hint(&exe)));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A filter that matched nothing also exits 0: the test must be seen passing.
    let passed = out.status.success() && stdout.contains(&format!("test {name} ... ok"));
    assert!(passed, "{name} as nobody (uid {uid}) failed:\n{stdout}\n{stderr}{}", hint(&exe));
    eprintln!("{name}: ran as nobody (uid {uid}, gid {gid}), since this process is root");
}

/// Set in the re-run of [`run_prepared`]: the directory the parent prepared.
const PREPARED: &str = "ACP_FS_TEST_PREPARED";

/// As [`run`], for a test whose fixture needs what only root may do (files owned by another
/// user, a mount): `prepare` lays it out in a fresh directory, as root when this process is
/// root, and `body` runs on that directory as `nobody` (here, when this process is not root).
/// What `prepare` returns is dropped once the body has run (an unmount, say).
#[allow(dead_code, reason = "not every test binary that includes this module prepares a fixture")]
pub fn run_prepared<G>(name: &str, prepare: impl FnOnce(&Path) -> G, body: impl FnOnce(&Path)) {
    if is_child() {
        let dir = std::env::var_os(PREPARED).expect("the parent names the prepared directory");
        return run(name, || body(Path::new(&dir)));
    }
    let dir = tempfile::Builder::new().prefix("acp-fs-prepared-").tempdir().expect("a temporary directory");
    let _guard = prepare(dir.path());
    if !rustix::process::geteuid().is_root() {
        return body(dir.path());
    }
    let (uid, gid) = nobody();
    std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown the prepared directory to nobody");
    rerun(name, Some(dir.path()));
}

/// `nobody`'s uid and gid from the password file.
fn nobody() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields.as_slice() {
                ["nobody", _, uid, gid, ..] => Some((uid.parse().ok()?, gid.parse().ok()?)),
                _ => None,
            }
        })
        .expect("a user `nobody` in /etc/passwd, to run the permission tests as when root runs them")
}

/// Why a re-run as nobody may fail before the test itself: the binary out of its reach.
fn hint(exe: &Path) -> String {
    format!(
        "\n(nobody must be able to reach and run {}: every directory above it needs o+x; \
         or run the tests as a user other than root)",
        exe.display()
    )
}
