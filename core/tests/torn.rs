//! A window is one version of a file: while a writer atomically replaces a file (temp file +
//! rename, as editors and `git checkout` do), a line window read over several ranged chunks
//! must come entirely from the old version or entirely from the new one, never half and half.
//!
//! The file (2,000 lines of 64 bytes: 128,000 bytes) is larger than the engine's first chunk
//! (16 KiB), so a whole-file window takes four ranged reads; a storage that reopens the path
//! for each of them can stitch versions together. `ACP_FS_TORN_READS` (default 500) sets
//! how many windows are read.
#![cfg(all(unix, feature = "disk"))]

use acp_fs::{AcpFs, DefaultHost, DiskStorage, Options, Storage, FIRST_CHUNK};
use serde_json::json;
use std::fs;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

const LINES: usize = 2_000;
const LINE_BYTES: usize = 64;

/// Version `v` ('A' or 'B'): every line starts with the version and its number and is padded
/// to [`LINE_BYTES`], so the versions differ on every line and have the same offsets.
fn version(v: char) -> String {
    let mut text = String::with_capacity(LINES * LINE_BYTES);
    for n in 1..=LINES {
        let head = format!("{v} {n:05} ");
        text.push_str(&head);
        text.extend(std::iter::repeat_n(v.to_ascii_lowercase(), LINE_BYTES - head.len() - 1));
        text.push('\n');
    }
    text
}

/// `(line, limit)` windows, from the whole file to windows that start deep and end early.
const WINDOWS: [(Option<u32>, Option<u32>); 5] =
    [(None, None), (Some(1), Some(2_000)), (Some(1), Some(1_999)), (Some(300), Some(1_500)), (Some(1_000), None)];

#[test]
fn every_window_is_one_version_while_the_file_is_replaced() {
    let reads: usize = std::env::var("ACP_FS_TORN_READS").map_or(500, |v| v.parse().expect("a number"));
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let (a, b) = (version('A'), version('B'));
    assert!(a.len() > 4 * FIRST_CHUNK, "the file must span several chunks");
    let target = root.join("t.txt");
    fs::write(&target, &a).unwrap();

    let disk = DiskStorage::new();
    let fs = AcpFs::new(Options::default(), disk.caps()).unwrap();
    fs.open_session("s", root.to_str().unwrap(), &[]).unwrap();
    let path = target.to_str().unwrap().to_owned();

    let stop = AtomicBool::new(false);
    let replaced = AtomicU64::new(0);
    let started = Instant::now();
    let (mut torn, mut failed, mut from_a, mut from_b) = (0usize, Vec::new(), 0usize, 0usize);
    let mut samples = Vec::new();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            // The writer's temporary is not named like DiskStorage's: nothing here is acp-fs.
            let temp = root.join(".t.txt.writer");
            let mut next_is_b = true;
            while !stop.load(Ordering::Relaxed) {
                fs::write(&temp, if next_is_b { &b } else { &a }).unwrap();
                fs::rename(&temp, &target).unwrap();
                next_is_b = !next_is_b;
                replaced.fetch_add(1, Ordering::Relaxed);
            }
        });
        for i in 0..reads {
            let (line, limit) = WINDOWS[i % WINDOWS.len()];
            let mut params = json!({"sessionId": "s", "path": path});
            if let Some(line) = line {
                params["line"] = line.into();
            }
            if let Some(limit) = limit {
                params["limit"] = limit.into();
            }
            let content = match acp_fs::run(fs.read_text_file(params), &disk, &DefaultHost).result {
                Ok(r) => r.to_json()["content"].as_str().unwrap().to_owned(),
                Err(e) => {
                    failed.push(format!("read {i}: {} {}", e.message, e.data));
                    continue;
                }
            };
            // Every line must be the right line of one version.
            let first = line.unwrap_or(1) as usize;
            let expected = limit.map_or(LINES - first + 1, |l| l as usize);
            let lines: Vec<&str> = content.lines().collect();
            let versions: Vec<char> = lines.iter().map(|l| l.chars().next().unwrap_or('?')).collect();
            let whole_a = versions.iter().all(|&v| v == 'A');
            let whole_b = versions.iter().all(|&v| v == 'B');
            let numbered = lines.iter().enumerate().all(|(k, l)| l.get(2..7) == Some(&format!("{:05}", first + k)[..]));
            if lines.len() == expected && numbered && (whole_a || whole_b) {
                if whole_a {
                    from_a += 1;
                } else {
                    from_b += 1;
                }
            } else {
                torn += 1;
                if samples.len() < 5 {
                    let switch = versions.windows(2).position(|w| w[0] != w[1]).map(|k| first + k + 1);
                    samples.push(format!(
                        "read {i} (line {line:?}, limit {limit:?}): {} lines, starts with {:?}, switches \
                         version at line {switch:?}",
                        lines.len(),
                        versions.first()
                    ));
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
    });

    let report = format!(
        "{reads} windows in {:.1?} while the file was replaced {} times: {from_a} all A, {from_b} all B, \
         {torn} torn, {} failed\nsamples: {samples:#?}\nfailures: {:#?}",
        started.elapsed(),
        replaced.load(Ordering::Relaxed),
        failed.len(),
        &failed[..failed.len().min(5)],
    );
    eprintln!("{report}");
    assert!(torn == 0 && failed.is_empty(), "windows mixed versions of the file:\n{report}");
    assert!(replaced.load(Ordering::Relaxed) > 0, "the writer never replaced the file:\n{report}");
}
