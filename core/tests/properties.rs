//! Property tests for windows (semantics.md §2, §8 "Decoding limits"), paths (§3, §8 "Paths")
//! and the engine's robustness against arbitrary requests. Every expectation comes from the
//! contract or from the small reference models below, never from the code under test.

use acp_fs::path::{AbsPath, Style};
use acp_fs::window::{Window, WindowError};
use acp_fs::{AcpFs, DefaultHost, Dispatch, ErrorKind, MemoryStorage, Options, PastEnd, StorageCaps};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// Reference model of windows (semantics.md §2), written without memchr or the scanner.

/// Rows of `text` with their terminators: every `\n` ends a row, and whatever follows the
/// last `\n` (possibly nothing) is one more row, so there are always `count('\n') + 1`.
fn rows(text: &str) -> Vec<&str> {
    let mut rows = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            rows.push(&text[start..=i]);
            start = i + 1;
        }
    }
    rows.push(&text[start..]);
    rows
}

/// Where a window lies in the text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    start: usize,
    end: usize,
    /// The window ended on a terminator because the limit ran out, so nothing after `end` is
    /// needed; otherwise it runs to the end of the text and only EOF completes it.
    bounded: bool,
}

/// The model: `Ok(span)` or `Err((line, line_count))` for a start row past the last row.
fn model(text: &str, line: u64, limit: Option<u64>) -> Result<Span, (u64, u64)> {
    let rows = rows(text);
    let line = line.max(1);
    if line > rows.len() as u64 {
        return Err((line, rows.len() as u64));
    }
    let first = (line - 1) as usize;
    let start: usize = rows[..first].iter().map(|r| r.len()).sum();
    let take = limit.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let taken = rows[first..].iter().take(take).count();
    let end = start + rows[first..first + taken].iter().map(|r| r.len()).sum::<usize>();
    // Only the last row lacks a terminator: the window is bounded iff it stops before it.
    let bounded = first + taken < rows.len();
    Ok(Span { start, end, bounded })
}

fn text_strategy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => Just("a".to_owned()),
        2 => Just("bc".to_owned()),
        4 => Just("\n".to_owned()),
        2 => Just("\r\n".to_owned()),
        2 => Just("\r".to_owned()),
        1 => Just(" ".to_owned()),
        1 => Just("é".to_owned()),
        1 => Just("€".to_owned()),
        1 => Just("😀".to_owned()),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

fn line_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0u64..40, 1 => Just(u64::MAX), 1 => any::<u64>()]
}

fn limit_strategy() -> impl Strategy<Value = Option<u64>> {
    prop::option::weighted(0.8, prop_oneof![8 => 0u64..40, 1 => Just(u64::MAX), 1 => any::<u64>()])
}

/// Chunk boundaries: sorted, duplicates kept (they feed empty chunks), anywhere in the bytes,
/// so they also fall inside multi-byte characters.
fn cuts(len: usize, picks: &[Index]) -> Vec<usize> {
    let mut cuts: Vec<usize> = picks.iter().map(|i| i.index(len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

/// Streams `bytes` into a window split at `cuts`, as the engine does: no more chunks once the
/// window is done. Also returns how many bytes had been fed when it first said it was done.
fn stream(bytes: &[u8], cuts: &[usize], window: Window) -> (Result<String, WindowError>, Option<usize>) {
    let mut window = window;
    let bounds: Vec<usize> = cuts.iter().copied().chain(std::iter::once(bytes.len())).collect();
    let mut fed = 0;
    let mut done_at = window.is_done().then_some(0);
    for &cut in &bounds {
        if window.is_done() {
            break;
        }
        if let Err(e) = window.feed(&bytes[fed..cut]) {
            return (Err(e), done_at);
        }
        fed = cut;
        if window.is_done() && done_at.is_none() {
            done_at = Some(fed);
        }
    }
    (window.finish(), done_at)
}

/// The first chunk boundary at or after `pos` (0 counts: before any chunk).
fn first_bound_at_or_after(pos: usize, cuts: &[usize], len: usize) -> usize {
    std::iter::once(0).chain(cuts.iter().copied()).chain(std::iter::once(len)).find(|&b| b >= pos).unwrap()
}

const INVALID: [&[u8]; 8] =
    [b"\xFF", b"\x80", b"\xC0\x80", b"\xED\xA0\x80", b"\xE2\x82", b"\xF0\x9F\x98", b"\xF4\x90\x80\x80", b"\xC3"];

proptest! {
    // Failures are pinned as plain tests below instead of a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn windows_are_exact_substrings(text in text_strategy(), line in line_strategy(), limit in limit_strategy()) {
        let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
        match Window::slice(&text, line, limit) {
            Ok(window) => {
                let offset = (window.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                prop_assert!(offset <= text.len() && offset + window.len() <= text.len(), "not inside the text");
                let end = offset + window.len();
                prop_assert_eq!(&text[offset..end], window);
                prop_assert!(offset == 0 || text.as_bytes()[offset - 1] == b'\n', "starts mid-row");
                // An empty window (limit 0) ends where it starts.
                prop_assert!(end == offset || end == text.len() || text.as_bytes()[end - 1] == b'\n', "ends mid-row");
            }
            Err(WindowError::PastEnd { line: l, line_count }) => {
                prop_assert_eq!(line_count, newlines + 1);
                prop_assert_eq!(l, line);
                prop_assert!(l > line_count);
            }
            Err(e) => prop_assert!(false, "slice of a str failed with {:?}", e),
        }
    }

    #[test]
    fn slice_matches_reference_model(text in text_strategy(), line in line_strategy(), limit in limit_strategy()) {
        let got = Window::slice(&text, line, limit);
        match model(&text, line, limit) {
            Ok(span) => prop_assert_eq!(got, Ok(&text[span.start..span.end])),
            Err((line, line_count)) => prop_assert_eq!(got, Err(WindowError::PastEnd { line, line_count })),
        }
    }

    #[test]
    fn consecutive_windows_concatenate_to_the_text(text in text_strategy(), k in 1u64..8) {
        let row_count = text.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
        let mut joined = String::new();
        let mut line = 1;
        while line <= row_count {
            joined.push_str(Window::slice(&text, line, Some(k)).unwrap());
            line += k;
        }
        prop_assert_eq!(&joined, &text);
        prop_assert_eq!(
            Window::slice(&text, row_count + 1, Some(k)),
            Err(WindowError::PastEnd { line: row_count + 1, line_count: row_count })
        );
    }

    #[test]
    fn streaming_equals_slicing(
        text in text_strategy(),
        line in line_strategy(),
        limit in limit_strategy(),
        picks in prop::collection::vec(any::<Index>(), 0..10),
    ) {
        let bytes = text.as_bytes();
        let cuts = cuts(bytes.len(), &picks);
        let (got, done_at) = stream(bytes, &cuts, Window::new(line, limit, u64::MAX));
        let expected = Window::slice(&text, line, limit).map(str::to_owned);
        prop_assert_eq!(&got, &expected);
        // A window needs the bytes up to its end and no more (semantics.md §2 "Cost"): it is
        // done after the first chunk that reaches its end, and never done while it runs to EOF.
        match model(&text, line, limit) {
            Ok(span) if span.bounded => {
                prop_assert_eq!(done_at, Some(first_bound_at_or_after(span.end, &cuts, bytes.len())));
            }
            _ => prop_assert_eq!(done_at, None),
        }
    }

    #[test]
    fn utf8_is_checked_inside_the_window_only(
        text in text_strategy(),
        line in line_strategy(),
        limit in limit_strategy(),
        at in any::<Index>(),
        bad in 0..INVALID.len(),
        picks in prop::collection::vec(any::<Index>(), 0..10),
    ) {
        // Inserted at a character boundary, so the bad bytes are invalid whatever follows them,
        // and without a newline, so the rows keep their numbers.
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
        let p = boundaries[at.index(boundaries.len())];
        let bytes = [&text.as_bytes()[..p], INVALID[bad], &text.as_bytes()[p..]].concat();
        let cuts = cuts(bytes.len(), &picks);
        let (got, _) = stream(&bytes, &cuts, Window::new(line, limit, u64::MAX));
        // Rows before the window are counted, not validated (semantics.md §8 "Decoding
        // limits"), so a past-end window only counts; an unbounded window also owns bytes
        // inserted at the very end (they extend its last row).
        let inside = match model(&text, line, limit) {
            Ok(span) => p >= span.start && (p < span.end || (p == span.end && !span.bounded)),
            Err((line, line_count)) => {
                prop_assert_eq!(got, Err(WindowError::PastEnd { line, line_count }));
                return Ok(());
            }
        };
        if inside {
            prop_assert_eq!(got, Err(WindowError::NotUtf8));
        } else {
            prop_assert_eq!(got, Ok(Window::slice(&text, line, limit).unwrap().to_owned()));
        }
    }

    #[test]
    fn byte_budget_bounds_the_content(
        text in text_strategy(),
        line in 0u64..30,
        limit in limit_strategy(),
        max in 0u64..64,
        picks in prop::collection::vec(any::<Index>(), 0..6),
    ) {
        let cuts = cuts(text.len(), &picks);
        let (got, _) = stream(text.as_bytes(), &cuts, Window::new(line, limit, max));
        let expected = match model(&text, line, limit) {
            Ok(span) if (span.end - span.start) as u64 > max => Err(WindowError::TooLarge),
            Ok(span) => Ok(text[span.start..span.end].to_owned()),
            Err((line, line_count)) => Err(WindowError::PastEnd { line, line_count }),
        };
        prop_assert_eq!(got, expected);
    }
}

// ---------------------------------------------------------------------------------------------
// Paths: an independent stack model of lexical normalization (semantics.md §3, §8 "Paths").

/// Applies `segments` to `stack` the way the contract describes: `""` and `.` vanish, `..`
/// drops one component but never climbs above the root.
fn normalize<'a>(mut stack: Vec<&'a str>, segments: &[&'a str]) -> Vec<&'a str> {
    for &s in segments {
        match s {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            name => stack.push(name),
        }
    }
    stack
}

fn under(path: &[&str], root: &[&str], same: impl Fn(&str, &str) -> bool) -> bool {
    path.len() >= root.len() && path.iter().zip(root).all(|(a, b)| same(a, b))
}

fn root_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["proj", "PROJ", "proj2", "a", "é"]).prop_map(str::to_owned)
}

/// Relative segments, with the names a traversal would use; `extra` adds style-specific ones.
fn segment(extra: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("..".to_owned()),
        2 => Just(".".to_owned()),
        2 => Just(String::new()),
        3 => root_name(),
        1 => Just("...".to_owned()),
        1 => Just(".x".to_owned()),
        1 => prop::sample::select(extra).prop_map(str::to_owned),
        2 => "[a-zA-Z0-9 ._-]{1,5}",
    ]
}

fn no_dot_components(p: &AbsPath) -> bool {
    p.components().all(|c| !c.is_empty() && c != "." && c != "..")
}

fn flip_case(s: &str, flip: bool) -> String {
    if flip {
        s.chars()
            .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
            .collect()
    } else {
        s.to_owned()
    }
}

proptest! {
    // Failures are pinned as plain tests below instead of a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn posix_paths_never_escape_lexically(
        root in prop::collection::vec(root_name(), 0..3),
        segments in prop::collection::vec(segment(&["C:", "a:b", "?"]), 0..10),
    ) {
        let root_text = format!("/{}", root.join("/"));
        let input = format!("{root_text}/{}", segments.join("/"));
        let root_path = AbsPath::parse(&root_text).unwrap();
        let path = AbsPath::parse(&input).unwrap();
        let root_stack: Vec<&str> = root.iter().map(String::as_str).collect();
        let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
        let expected = normalize(root_stack.clone(), &seg);
        prop_assert!(no_dot_components(&path), "{}", path);
        prop_assert_eq!(path.style(), Style::Posix);
        prop_assert_eq!(path.as_str(), format!("/{}", expected.join("/")));
        // POSIX compares case-sensitively (semantics.md §8).
        prop_assert_eq!(path.starts_with(&root_path), under(&expected, &root_stack, |a, b| a == b), "{} vs {}", path, root_path);
        prop_assert_eq!(AbsPath::parse(path.as_str()), Ok(path.clone()), "normalization is idempotent");
    }

    #[test]
    fn posix_paths_with_a_backslash_are_refused(
        segments in prop::collection::vec(segment(&["a\\b", "..\\x", "\\"]), 0..6),
    ) {
        // On a Windows host `\` separates too, so the path's meaning depends on the host
        // (semantics.md §8.1): refused rather than guessed.
        let input = format!("/project/{}", segments.join("/"));
        prop_assert_eq!(AbsPath::parse(&input).is_err(), input.contains('\\'), "{:?}", input);
    }

    #[test]
    fn drive_paths_never_escape_lexically(
        drive in prop::sample::select(vec!['C', 'c', 'D']),
        root in prop::collection::vec(root_name(), 0..3),
        segments in prop::collection::vec(segment(&["C:", "c$"]), 0..10),
        seps in prop::collection::vec(any::<bool>(), 16),
        flip in any::<bool>(),
    ) {
        let sep = |i: usize| if seps[i % seps.len()] { '\\' } else { '/' };
        let root_text = format!("C:\\{}", root.join("\\"));
        // The same root spelled with another case and mixed separators, then the segments.
        let mut input = format!("{}:{}", flip_case(&drive.to_string(), flip), sep(0));
        let input_root: Vec<String> = root.iter().map(|r| flip_case(r, flip)).collect();
        for (i, part) in input_root.iter().chain(&segments).enumerate() {
            if i > 0 {
                input.push(sep(i));
            }
            input.push_str(part);
        }
        let root_path = AbsPath::parse(&root_text).unwrap();
        let path = AbsPath::parse(&input).unwrap();
        let root_stack: Vec<&str> = root.iter().map(String::as_str).collect();
        let all: Vec<&str> = input_root.iter().chain(&segments).map(String::as_str).collect();
        let expected = normalize(Vec::new(), &all);
        let letter = drive.to_ascii_uppercase();
        prop_assert!(no_dot_components(&path), "{}", path);
        prop_assert_eq!(path.style(), Style::Drive);
        prop_assert_eq!(path.as_str(), format!("{letter}:\\{}", expected.join("\\")));
        let same_drive = letter == 'C';
        let inside = same_drive && under(&expected, &root_stack, |a, b| a.eq_ignore_ascii_case(b));
        prop_assert_eq!(path.starts_with(&root_path), inside, "{} vs {}", path, root_path);
        prop_assert_eq!(AbsPath::parse(path.as_str()), Ok(path.clone()), "normalization is idempotent");
    }

    #[test]
    fn unc_paths_never_climb_above_the_share(
        segments in prop::collection::vec(segment(&["C:"]), 0..10),
        seps in prop::collection::vec(any::<bool>(), 16),
    ) {
        let mut input = String::from("\\\\srv\\share");
        for (i, s) in segments.iter().enumerate() {
            input.push(if seps[i % seps.len()] { '\\' } else { '/' });
            input.push_str(s);
        }
        let share = AbsPath::parse("\\\\SRV\\Share").unwrap();
        let path = AbsPath::parse(&input).unwrap();
        let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
        let expected = normalize(Vec::new(), &seg);
        prop_assert!(no_dot_components(&path), "{}", path);
        prop_assert_eq!(path.as_str(), ["\\\\srv\\share"].into_iter().chain(expected).collect::<Vec<_>>().join("\\"));
        prop_assert!(path.starts_with(&share));
    }

    #[test]
    fn parse_never_panics(input in any::<String>()) {
        if let Ok(p) = AbsPath::parse(&input) {
            prop_assert!(no_dot_components(&p));
            prop_assert_eq!(AbsPath::parse(p.as_str()), Ok(p.clone()));
        }
    }

    #[test]
    fn parse_never_panics_on_path_like_input(
        parts in prop::collection::vec(
            prop::sample::select(vec!["/", "\\", "\\\\", ":", ".", "..", "C", "c:", "file:", "FILE://", "?", "é", "€", "😀", "\0", "a", " "]),
            0..12,
        ),
    ) {
        let input = parts.concat();
        if let Ok(p) = AbsPath::parse(&input) {
            prop_assert!(no_dot_components(&p));
            prop_assert_eq!(AbsPath::parse(p.as_str()), Ok(p.clone()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The engine never panics, and what it answers stays inside the contract.

fn json_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("JSON numbers are finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
        any::<String>().prop_map(Value::String),
        odd_path().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["sessionId", "path", "line", "limit", "content", "_meta", "traceparent"])
            .prop_map(str::to_owned),
        1 => any::<String>(),
    ]
}

const ODD_PATHS: [&str; 30] = [
    "/project/a.txt",
    "/project/crlf.txt",
    "/project/bom.txt",
    "/project/utf16.txt",
    "/project/bin.dat",
    "/project/bad.txt",
    "/project/.env",
    "/project/key.pem",
    "/project/notes.txt",
    "/project/escape",
    "/project/dangling",
    "/project/fifo",
    "/project/dir",
    "/project/dir/new.txt",
    "/project/new/deep/file.txt",
    "/project/.git/config",
    "/project/./a.txt",
    "/project/../etc/passwd",
    "//project//a.txt",
    "/PROJECT/a.txt",
    "/etc/passwd",
    "/",
    "C:\\project\\a.txt",
    "\\\\srv\\share\\a",
    "\\\\?\\C:\\x",
    "relative/a.txt",
    "",
    "file:///project/a.txt",
    "/project/a\0.txt",
    "C:a.txt",
];

fn odd_path() -> impl Strategy<Value = String> {
    // Absolute paths built from the root's own letters, separators, dots and multi-byte
    // characters: near-misses of the root ("/projec€", "/project2", "/proj/../project").
    let near_root = prop::collection::vec(
        prop::sample::select(vec!["p", "r", "o", "j", "e", "c", "t", "/", "..", ".", "é", "€", "😀", "\\", "C:"]),
        0..12,
    )
    .prop_map(|parts| format!("/{}", parts.concat()));
    prop_oneof![
        4 => prop::sample::select(ODD_PATHS.to_vec()).prop_map(str::to_owned),
        2 => near_root,
        1 => any::<String>().prop_map(|s| format!("/project/{s}")),
        1 => any::<String>(),
    ]
}

fn odd_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(1)),
        Just(json!(2)),
        Just(json!(-1)),
        Just(json!(1.5)),
        Just(json!(3.0)),
        Just(json!(-0.0)),
        Just(json!(4294967295u64)),
        Just(json!(4294967296u64)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(1e300)),
        Just(json!("2")),
        Just(json!(true)),
        Just(Value::Null),
        Just(json!([])),
        Just(json!({})),
        any::<u32>().prop_map(Value::from),
    ]
}

/// Well-formed-looking params with odd values: each field present or not.
fn odd_params() -> impl Strategy<Value = Value> {
    let session = prop_oneof![
        12 => Just(json!("s")),
        1 => Just(json!("other")),
        1 => Just(json!("")),
        1 => Just(json!(7)),
        1 => Just(Value::Null),
    ];
    let content = prop_oneof![
        3 => any::<String>().prop_map(Value::String),
        1 => Just(json!("a\nb\r\nc")),
        1 => Just(json!("\u{FEFF}bom")),
        1 => Just(json!(42)),
        1 => Just(Value::Null),
    ];
    let meta = prop_oneof![
        Just(json!({"traceparent": "00-abc-def-01"})),
        Just(json!({"traceparent": 5})),
        Just(json!("meta")),
        Just(json!([1])),
        Just(Value::Null),
    ];
    // Mostly present and plausible, so most cases get past validation to the path checks.
    (
        prop::option::weighted(0.9, session),
        prop::option::weighted(0.95, odd_path().prop_map(Value::String)),
        prop::option::weighted(0.3, odd_number()),
        prop::option::weighted(0.3, odd_number()),
        prop::option::weighted(0.8, content),
        prop::option::weighted(0.2, meta),
    )
        .prop_map(|(session, path, line, limit, content, meta)| {
            let mut m = Map::new();
            let fields = [
                ("sessionId", session),
                ("path", path),
                ("line", line),
                ("limit", limit),
                ("content", content),
                ("_meta", meta),
            ];
            for (k, v) in fields {
                if let Some(v) = v {
                    m.insert(k.to_owned(), v);
                }
            }
            Value::Object(m)
        })
}

const SECRET_OUTSIDE: &str = "SECRET-OUTSIDE-ROOT";
const SECRET_DENIED: &str = "SECRET-DENIED";

/// A project with every kind of file the contract treats specially, plus secrets that no
/// answer may ever carry.
fn fixture(caps: StorageCaps) -> MemoryStorage {
    let m = MemoryStorage::with_caps(caps);
    m.put("/project/a.txt", "one\ntwo\r\nthree");
    m.put("/project/crlf.txt", "x\r\ny\r\n");
    m.put("/project/bom.txt", b"\xEF\xBB\xBFbom\n");
    m.put("/project/utf16.txt", [0xFF, 0xFE, b'h', 0, b'\n', 0]);
    m.put("/project/bin.dat", b"a\0b");
    m.put("/project/bad.txt", b"ok\n\xFF\n");
    m.put("/project/.env", format!("{SECRET_DENIED}\n"));
    m.put("/project/key.pem", format!("{SECRET_DENIED}\n"));
    m.put("/project/.git/config", "[core]\n");
    m.symlink("/project/notes.txt", ".env");
    m.symlink("/project/escape", "/etc/passwd");
    m.symlink("/project/dangling", "/nowhere/x");
    m.special("/project/fifo");
    m.mkdir("/project/dir");
    m.put("/etc/passwd", format!("{SECRET_OUTSIDE}\n"));
    m
}

fn options_strategy() -> impl Strategy<Value = Options> {
    prop_oneof![
        Just(Options::default()),
        Just(Options { lenient_params: true, past_end: PastEnd::Empty, ..Options::default() }),
        Just(Options { zed_compat: true, ..Options::default() }),
        Just(Options { read_only: true, ..Options::default() }),
        Just(Options { create_parents: false, ..Options::default() }),
        Just(Options { max_read_bytes: 4, max_write_bytes: 4, ..Options::default() }),
        Just(Options { roots: Some(vec!["/project".to_owned()]), ..Options::default() }),
    ]
}

fn caps_strategy() -> impl Strategy<Value = StorageCaps> {
    let full = StorageCaps::FULL;
    prop_oneof![
        Just(full),
        Just(StorageCaps { ranged_reads: false, ..full }),
        Just(StorageCaps { stat: false, ranged_reads: false, ..full }),
        Just(StorageCaps { write: false, make_dirs: false, ..full }),
        Just(StorageCaps { make_dirs: false, ..full }),
    ]
}

/// Everything outside the root and under `.git/`: no request may change it.
fn protected(storage: &MemoryStorage) -> Vec<(String, Vec<u8>)> {
    storage
        .files()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("/project/") || p.starts_with("/project/.git/"))
        .collect()
}

/// Runs a read and a write with `params` and checks the answers against the contract.
fn check_engine(options: Options, caps: StorageCaps, params: Value) -> Result<(), TestCaseError> {
    let storage = fixture(caps);
    let deny_on = !options.deny.is_empty();
    let max_read = options.max_read_bytes;
    let fs = AcpFs::new(options, caps).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    let before = protected(&storage);

    let read = acp_fs::run(fs.read_text_file(params.clone()), &storage, &DefaultHost);
    match &read.result {
        Ok(r) => {
            let v = r.to_json();
            let content = v["content"].as_str();
            prop_assert!(content.is_some(), "a read answers {{content}}: {}", v);
            let content = content.unwrap();
            prop_assert!(content.len() as u64 <= max_read, "content beyond maxReadBytes");
            prop_assert!(!content.contains(SECRET_OUTSIDE), "read escaped the root: {}", params);
            prop_assert!(!deny_on || !content.contains(SECRET_DENIED), "read a denied file: {}", params);
        }
        Err(e) => check_error(e)?,
    }

    let write = acp_fs::run(fs.write_text_file(params.clone()), &storage, &DefaultHost);
    match &write.result {
        Ok(r) => {
            prop_assert_eq!(r.to_json(), json!({}), "a write answers {{}}");
            prop_assert!(write.change.is_some(), "a successful write yields a change record");
        }
        Err(e) => {
            check_error(e)?;
            prop_assert!(write.change.is_none());
        }
    }
    prop_assert_eq!(protected(&storage), before, "a write escaped the root or touched .git/: {}", params);
    Ok(())
}

/// Errors are one of the kinds and codes of semantics.md §6, never an internal failure.
fn check_error(e: &acp_fs::AcpFsError) -> Result<(), TestCaseError> {
    prop_assert!(e.kind != ErrorKind::Internal, "internal error: {}", e);
    prop_assert_eq!(e.code, e.kind.json_rpc_code(), "{}", e);
    prop_assert!([-32601, -32602, -32002, -32603].contains(&e.code), "{}", e);
    if e.code == -32603 {
        let kinds = [
            "path_outside_roots",
            "symlink_escape",
            "denied_by_pattern",
            "not_a_file",
            "binary_file",
            "not_utf8",
            "file_too_large",
            "permission_denied",
            "user_rejected",
            // A write after a windowed read of a file the storage cannot stat: the engine cannot
            // prove nothing changed, so it refuses (semantics.md §9).
            "stale_write",
            "storage_error",
        ];
        let kind = e.data["errorKind"].as_str().unwrap_or("");
        prop_assert!(kinds.contains(&kind), "unknown errorKind in {}", e);
    }
    Ok(())
}

fn envelope_strategy() -> impl Strategy<Value = String> {
    let method = prop_oneof![
        3 => Just(json!("fs/read_text_file")),
        3 => Just(json!("fs/write_text_file")),
        1 => Just(json!("$/cancel_request")),
        1 => Just(json!("session/new")),
        1 => json_strategy(),
    ];
    let id = prop_oneof![Just(json!(1)), Just(json!("x")), Just(Value::Null), json_strategy()];
    let jsonrpc = prop_oneof![4 => Just(json!("2.0")), 1 => json_strategy()];
    let params = prop_oneof![2 => odd_params(), 1 => json_strategy()];
    (prop::option::of(jsonrpc), prop::option::of(id), prop::option::of(method), prop::option::of(params), 0usize..4)
        .prop_map(|(jsonrpc, id, method, params, cut)| {
            let mut m = Map::new();
            for (k, v) in [("jsonrpc", jsonrpc), ("id", id), ("method", method), ("params", params)] {
                if let Some(v) = v {
                    m.insert(k.to_owned(), v);
                }
            }
            let text = Value::Object(m).to_string();
            // Sometimes cut short, at a character boundary, to be malformed JSON.
            match cut {
                0 => text
                    .char_indices()
                    .nth(text.chars().count() / 2)
                    .map_or(text.clone(), |(i, _)| text[..i].to_owned()),
                1 => format!("[{text}]"),
                _ => text,
            }
        })
}

/// Classifies and, if it is ours, runs a raw message; every reply must be JSON-RPC 2.0.
fn check_dispatch(message: &str) -> Result<(), TestCaseError> {
    let storage = fixture(StorageCaps::FULL);
    let fs = AcpFs::new(Options::default(), StorageCaps::FULL).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    let reply = match fs.dispatch(message) {
        Dispatch::NotMine | Dispatch::Cancel(_) => return Ok(()),
        Dispatch::Reply(r) => r,
        Dispatch::Call(call) => {
            let raw_id = call.id().to_owned();
            let id: Result<Value, _> = serde_json::from_str(&raw_id);
            prop_assert!(id.is_ok(), "the id is not JSON: {}", raw_id);
            let outcome = acp_fs::run(call.operation, &storage, &DefaultHost);
            if let Err(e) = &outcome.result {
                check_error(e)?;
            }
            let reply = acp_fs::respond(&raw_id, outcome.result.map(|r| r.to_json()));
            // Byte-for-byte: the reply carries the id exactly as the request spelled it.
            prop_assert!(reply.contains(&format!("\"id\":{raw_id},")), "id not echoed: {}", reply);
            let v: Value = serde_json::from_str(&reply).unwrap();
            prop_assert_eq!(&v["id"], &id.unwrap());
            reply
        }
        other => return Err(TestCaseError::fail(format!("a dispatch this test does not know: {other:?}"))),
    };
    let v: Result<Value, _> = serde_json::from_str(&reply);
    prop_assert!(v.is_ok(), "reply is not JSON: {}", reply);
    let v = v.unwrap();
    prop_assert_eq!(&v["jsonrpc"], "2.0");
    prop_assert!(v.get("result").is_some() != v.get("error").is_some(), "exactly one of result/error: {}", reply);
    Ok(())
}

proptest! {
    // Failures are pinned as plain tests below instead of a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn engine_survives_arbitrary_json(
        options in options_strategy(),
        caps in caps_strategy(),
        params in json_strategy(),
    ) {
        check_engine(options, caps, params)?;
    }

    #[test]
    fn engine_survives_odd_params(options in options_strategy(), caps in caps_strategy(), params in odd_params()) {
        check_engine(options, caps, params)?;
    }

    #[test]
    fn dispatch_survives_arbitrary_strings(message in any::<String>()) {
        check_dispatch(&message)?;
    }

    #[test]
    fn dispatch_survives_odd_envelopes(message in envelope_strategy()) {
        check_dispatch(&message)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Minimal inputs of failures the properties above found, pinned so they stay fixed.

#[test]
fn containment_never_slices_inside_a_character() {
    // The root's length falls inside `é`/`€`: the answer is "not inside", not a panic.
    let root = AbsPath::parse("/a").unwrap();
    assert!(!AbsPath::parse("/é").unwrap().starts_with(&root));
    let project = AbsPath::parse("/project").unwrap();
    assert!(!AbsPath::parse("/projec€").unwrap().starts_with(&project));
    let drive = AbsPath::parse("C:\\a").unwrap();
    assert!(!AbsPath::parse("C:\\é").unwrap().starts_with(&drive));
}

#[test]
fn request_for_a_near_miss_of_the_root_is_outside_it() {
    let storage = fixture(StorageCaps::FULL);
    let fs = AcpFs::new(Options::default(), StorageCaps::FULL).unwrap();
    fs.open_session("s", "/project", &[]).unwrap();
    let params = json!({"sessionId": "s", "path": "/projec€", "content": "x"});
    let read = acp_fs::run(fs.read_text_file(params.clone()), &storage, &DefaultHost);
    assert_eq!(read.result.unwrap_err().data["errorKind"], "path_outside_roots");
    let write = acp_fs::run(fs.write_text_file(params), &storage, &DefaultHost);
    assert_eq!(write.result.unwrap_err().data["errorKind"], "path_outside_roots");
}

#[test]
fn past_end_scan_counts_rows_however_the_bytes_are_cut() {
    // A past-end window has only counted rows; the bytes it passed are never served, so they
    // are not validated (semantics.md §8 "Decoding limits"): the answer is the row count,
    // whether a bad sequence is cut by EOF or not.
    let scan = |bytes: &[u8]| {
        let mut w = Window::new(2, None, u64::MAX);
        w.feed(bytes).and_then(|()| w.finish())
    };
    assert_eq!(scan(b"\xFF"), Err(WindowError::PastEnd { line: 2, line_count: 1 }));
    assert_eq!(scan(b"\xE2\x82"), Err(WindowError::PastEnd { line: 2, line_count: 1 }));
    // Once the window is reached, its own bytes are validated, cut or not.
    let mut w = Window::new(2, None, u64::MAX);
    assert_eq!(w.feed(b"\xFF\n\xE2\x82").and_then(|()| w.finish()), Err(WindowError::NotUtf8));
}
