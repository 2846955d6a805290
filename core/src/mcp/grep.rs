//! `search_text`: a literal or regex search over file contents below a path, for what agents
//! otherwise do with grep (semantics.md §10). Files are streamed chunk by chunk through one open
//! file each (`open`/`read_at`), never loaded whole; unsaved buffers are searched instead of
//! their files; `.gitignore` files are read through the storage and honoured by default.

use super::arguments::Call;
use super::registry::{self, object_schema, Annotations, Need, Tool};
use super::walk::{self, Budget, Dir, Kind};
use super::{globs, output, start, target};
use crate::ask::{Channel, ReadAhead};
use crate::contain::Target;
use crate::error::AcpFsError;
use crate::file::{self, ChunkReader};
use crate::operation::Operation;
use crate::path::AbsPath;
use crate::state::Shared;
use crate::storage::FileKind;
use crate::text::{Encoding, SNIFF_BYTES};
use globset::GlobSet;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};
use serde_json::{json, Value};
use std::collections::VecDeque;

pub(crate) const SEARCH_TEXT: Tool = Tool {
    name: "search_text",
    title: "Search Text",
    description: "Search file contents below a path for a literal text (or a regular expression with \
        regex: true), as grep does, through the editor: unsaved changes in open files are searched. \
        Answers one 'path:line: text' line per matching line (with contextLines, context lines as \
        'path-line- text' and groups separated by '--'). include/exclude take globs ('*.rs' matches \
        at any depth, 'src/**' from the searched path); .gitignore files are respected unless \
        respectGitignore is false; binary files are skipped. Only searches within allowed directories.",
    input: || {
        object_schema(
            json!({
                "path": {"type": "string", "description": "A directory to search below, or one file."},
                "pattern": {"type": "string", "description": "The text to find (a regular expression if regex is true)."},
                "regex": {"type": "boolean", "default": false, "description": "pattern is a regular expression (Rust regex syntax)."},
                "ignoreCase": {"type": "boolean", "default": false},
                "include": {"type": "array", "items": {"type": "string"}, "description": "Only files matching one of these globs."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Skip files and directories matching one of these globs."},
                "respectGitignore": {"type": "boolean", "default": true},
                "contextLines": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "default": 0,
                                 "description": "Lines of context before and after each match."},
                "maxResults": {"type": "integer", "minimum": 1, "default": DEFAULT_RESULTS,
                               "description": "Stop after this many matching lines."}
            }),
            &["path", "pattern"],
        )
    },
    output: Some(|| {
        json!({"type": "object", "required": ["content", "matches"], "properties": {
            "content": {"type": "string"},
            "matches": {"type": "array", "items": {"type": "object", "required": ["path", "line", "text"], "properties": {
                "path": {"type": "string"}, "line": {"type": "integer"}, "text": {"type": "string"}}}},
            "truncated": {"type": "boolean"}}})
    }),
    annotations: Annotations::READ_ONLY,
    needs: &[Need::List],
    start,
    answer: registry::answer,
};

const DEFAULT_RESULTS: u64 = 100;
const MAX_CONTEXT: u64 = 20;
/// A line longer than this is not searched: memory stays bounded whatever a file holds.
const MAX_LINE: usize = 1024 * 1024;
/// What an answer line shows of a long line (minified code).
const SHOWN_LINE: usize = 500;
/// `.gitignore` files larger than this are not read.
const MAX_GITIGNORE: usize = 1024 * 1024;

struct Query {
    re: Regex,
    context: usize,
    include: GlobSet,
    exclude: GlobSet,
    gitignore: bool,
    max_results: u64,
}

fn start(call: &Call) -> Result<Operation, AcpFsError> {
    let path = call.path("path")?;
    let pattern = call.string("pattern")?;
    if pattern.is_empty() {
        return Err(AcpFsError::invalid_params("pattern", "must not be empty"));
    }
    let regex = call.opt_bool("regex")?.unwrap_or(false);
    let source = if regex { pattern.to_owned() } else { regex::escape(pattern) };
    // ^ and $ at every line (CRLF lines too), as grep reads them.
    let re = RegexBuilder::new(&source)
        .multi_line(true)
        .crlf(true)
        .case_insensitive(call.opt_bool("ignoreCase")?.unwrap_or(false))
        .build()
        .map_err(|e| AcpFsError::invalid_params("pattern", format!("invalid regular expression: {e}")))?;
    let context = call.opt_count("contextLines")?.unwrap_or(0);
    if context > MAX_CONTEXT {
        return Err(AcpFsError::invalid_params("contextLines", format!("at most {MAX_CONTEXT}")));
    }
    let max_results = match call.opt_count("maxResults")? {
        Some(0) => return Err(AcpFsError::invalid_params("maxResults", "must be at least 1")),
        Some(n) => n,
        None => DEFAULT_RESULTS,
    };
    let query = Query {
        re,
        context: context as usize,
        include: globs::set("include", &call.strings("include")?, globs::anywhere)?,
        exclude: globs::set("exclude", &call.strings("exclude")?, globs::anywhere)?,
        gitignore: call.opt_bool("respectGitignore")?.unwrap_or(true),
        max_results,
    };
    let session_id = call.session_id.to_owned();
    start::operation(call, "read", move |shared, io| async move {
        let target = target::resolve_dir(&shared, &io, &session_id, path).await?;
        let mut found = Found::new(&shared, &query);
        let is_dir = match shared.caps.stat {
            true => io.stat(target.real.as_str(), true).await.is_ok_and(|m| m.kind == FileKind::Directory),
            false => true,
        };
        let dir = Dir { shown: target.requested.clone(), real: target.real.clone(), root: target.root.clone() };
        if is_dir {
            search_dir(&shared, &io, &query, dir, &mut found).await?;
        } else if !shared.policy.deny.hides(&target.requested, false) && !shared.policy.deny.hides(&target.real, false)
        {
            let doc = walk::dirty_document(&shared, &target.requested, &target.real);
            search_file(&shared, &io, &query, &target, doc.map(|d| d.text), &mut found).await?;
        }
        let bytes = found.bytes;
        Ok(output::done(found.finish(), bytes))
    })
}

/// One `.gitignore`: the directory it governs, relative to the root (`/`-separated).
struct Ignore {
    base: String,
    matcher: Gitignore,
}

async fn search_dir(shared: &Shared, io: &Channel, q: &Query, top: Dir, found: &mut Found) -> Result<(), AcpFsError> {
    let top_rel = relative(&top.root, &top.real);
    let mut ignores = Vec::new();
    if q.gitignore {
        // The .gitignore files of the directories above the one searched, up to the root.
        let mut dir = top.root.clone();
        let mut base = String::new();
        let parts: Vec<&str> = top_rel.split('/').filter(|s| !s.is_empty()).collect();
        for i in 0..parts.len() {
            if let Some(matcher) = read_gitignore(shared, io, &top.root, &dir).await {
                ignores.push(Ignore { base: base.clone(), matcher });
            }
            dir = dir.join([parts[i]]);
            base = parts[..=i].join("/");
        }
    }
    let mut budget = Budget::new(shared);
    // Depth first in name order. Each frame remembers how many .gitignore files governed its
    // parent, so leaving a subtree drops its own.
    let mut stack: Vec<Frame> = Vec::new();
    enter(shared, io, q, top, String::new(), 0, &top_rel, &mut ignores, &mut stack).await?;
    // With read-ahead the walk runs up to AHEAD files in front of the search, across
    // directories, and tells the driver of each file it queues: the disk opens the next
    // directories' files while this one's are searched, rather than starting again at each
    // directory. Without it, the walk stays one file ahead. Either way the files are searched
    // in the walk's order.
    let plans = shared.caps.ranged_reads && io.takes_plans();
    let ahead = if plans { AHEAD } else { 1 };
    let mut queue: VecDeque<(Dir, bool)> = VecDeque::new();
    loop {
        let mut planned = Vec::new();
        while queue.len() < ahead {
            let Some(frame) = stack.last_mut() else { break };
            let Some(e) = frame.pending.next() else {
                let done = stack.pop().expect("a frame is on the stack");
                ignores.truncate(done.governing);
                continue;
            };
            match e.kind {
                Kind::Dir if frame.depth + 1 > budget.max_depth => budget.too_deep += 1,
                Kind::Dir => {
                    let rel = join(&frame.rel, &e.name);
                    let (child, depth) = (frame.dir.child(&e.name), frame.depth + 1);
                    enter(shared, io, q, child, rel, depth, &top_rel, &mut ignores, &mut stack).await?;
                }
                Kind::File => {
                    let child = frame.dir.child(&e.name);
                    // An unsaved buffer is searched instead of its file.
                    if plans && !e.unsaved {
                        planned.push(child.real.as_str().to_owned());
                    }
                    queue.push_back((child, e.unsaved));
                }
                Kind::Link | Kind::Other => {}
            }
        }
        let Some((child, unsaved)) = queue.pop_front() else { break };
        if !planned.is_empty() {
            io.plan(ReadAhead { root: child.root.as_str().to_owned(), paths: planned, head: file::FIRST_CHUNK });
        }
        let target = Target { requested: child.shown, real: child.real, root: child.root, missing: Some(0) };
        let doc = unsaved.then(|| walk::dirty_document(shared, &target.requested, &target.real)).flatten();
        search_file(shared, io, q, &target, doc.map(|d| d.text), found).await?;
        if found.stopped() {
            break;
        }
    }
    found.depth_note = budget.note("Search");
    Ok(())
}

/// A directory being searched: what is left of its entries (those the search looks at).
struct Frame {
    dir: Dir,
    rel: String,
    depth: u64,
    pending: std::vec::IntoIter<walk::Entry>,
    /// The .gitignore files that governed its parent (its own come after).
    governing: usize,
}

/// Files the walk queues ahead of the search when the driver reads ahead: enough to keep the
/// disk's workers busy across a few directories, few enough that a search that stops early
/// has listed little it did not need.
const AHEAD: usize = 64;

/// Lists `dir`, reads its `.gitignore` (if searched with them) and pushes its frame with the
/// entries the search looks at: not `.git`, nor what `exclude` or a `.gitignore` leaves out,
/// and only the files `include` names.
#[allow(clippy::too_many_arguments)]
async fn enter(
    shared: &Shared,
    io: &Channel,
    q: &Query,
    dir: Dir,
    rel: String,
    depth: u64,
    top_rel: &str,
    ignores: &mut Vec<Ignore>,
    stack: &mut Vec<Frame>,
) -> Result<(), AcpFsError> {
    // Below the top, a directory that cannot be listed (gone since, unreadable) is skipped: a
    // search answers what it found.
    let entries = match walk::kinds(shared, io, &dir).await {
        Ok(entries) => entries,
        Err(_) if depth > 0 => return Ok(()),
        Err(e) => return Err(e),
    };
    let governing = ignores.len();
    if q.gitignore && entries.iter().any(|e| e.name == ".gitignore" && e.kind == Kind::File) {
        if let Some(matcher) = read_gitignore(shared, io, &dir.root, &dir.real).await {
            ignores.push(Ignore { base: join(top_rel, &rel), matcher });
        }
    }
    // Judged here, once per entry, with the .gitignore files that govern this directory (its
    // own included): the same ones as when the search reaches the entry.
    let searched: Vec<walk::Entry> = entries
        .into_iter()
        .filter(|e| {
            let is_dir = e.kind == Kind::Dir;
            // VCS internals are never searched (ripgrep skips them as hidden).
            if is_dir && e.name == ".git" {
                return false;
            }
            let entry_rel = join(&rel, &e.name);
            if !q.exclude.is_empty() && q.exclude.is_match(&entry_rel) {
                return false;
            }
            if q.gitignore && ignored(ignores, &join(top_rel, &entry_rel), is_dir) {
                return false;
            }
            e.kind != Kind::File || q.include.is_empty() || q.include.is_match(&entry_rel)
        })
        .collect();
    stack.push(Frame { dir, rel, depth, pending: searched.into_iter(), governing });
    Ok(())
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_owned(),
        (_, true) => a.to_owned(),
        _ => format!("{a}/{b}"),
    }
}

/// `path` below `root`, `/`-separated (`""` for the root itself).
fn relative(root: &AbsPath, path: &AbsPath) -> String {
    path.components().skip(root.components().count()).collect::<Vec<_>>().join("/")
}

/// The innermost `.gitignore` with an opinion decides (git's order; `!` re-includes).
fn ignored(ignores: &[Ignore], rel: &str, is_dir: bool) -> bool {
    for ig in ignores.iter().rev() {
        let sub = if ig.base.is_empty() {
            rel
        } else {
            rel.strip_prefix(&ig.base).and_then(|s| s.strip_prefix('/')).unwrap_or(rel)
        };
        let m = ig.matcher.matched(sub, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

/// The `.gitignore` of the directory `dir` (a real path below `root`), read through the storage
/// like any file; none when it is absent, unreadable, not a regular file or too large.
async fn read_gitignore(shared: &Shared, io: &Channel, root: &AbsPath, dir: &AbsPath) -> Option<Gitignore> {
    let path = dir.join([".gitignore"]);
    let target = Target { requested: path.clone(), real: path, root: root.clone(), missing: Some(0) };
    let bytes = read_small(shared, io, &target, MAX_GITIGNORE).await?;
    let mut builder = GitignoreBuilder::new("");
    for line in String::from_utf8_lossy(&bytes).lines() {
        // A bad line is skipped, as git skips it.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

async fn read_small(shared: &Shared, io: &Channel, target: &Target, max: usize) -> Option<Vec<u8>> {
    if !shared.caps.ranged_reads {
        let bytes = io.read_all(target.real.as_str()).await.ok()?;
        return (bytes.len() <= max).then(|| bytes.into_vec());
    }
    let opened = file::open(io, target, true).await.ok()?;
    let fits = opened.meta.kind == FileKind::File && opened.meta.size <= max as u64;
    let mut reader = ChunkReader::new(io, opened, &target.requested);
    let mut bytes = Some(Vec::new());
    while let Some(read) = bytes.as_mut().filter(|b| fits && !reader.eof && b.len() <= max) {
        match reader.next().await {
            Ok(chunk) => read.extend_from_slice(&chunk),
            Err(_) => bytes = None,
        }
    }
    reader.close().await;
    bytes.filter(|b| fits && b.len() <= max)
}

/// Searches one file (or its unsaved buffer's text). A file that cannot be read (gone since the
/// listing, refused, binary, UTF-16) is skipped: a search answers what it found.
async fn search_file(
    shared: &Shared,
    io: &Channel,
    q: &Query,
    target: &Target,
    buffer: Option<std::sync::Arc<str>>,
    found: &mut Found,
) -> Result<(), AcpFsError> {
    let mut scan = Scan::new(q, target.requested.as_str());
    if let Some(text) = buffer {
        scan.feed(text.as_bytes(), found);
        scan.end(found);
        return Ok(());
    }
    if !shared.caps.ranged_reads {
        let max = shared.policy.options.max_read_bytes;
        if shared.caps.stat {
            match io.stat(target.real.as_str(), false).await {
                Ok(m) if m.kind == FileKind::File && m.size <= max => {}
                _ => return Ok(()),
            }
        }
        let Ok(bytes) = io.read_all(target.real.as_str()).await else { return Ok(()) };
        if bytes.len() as u64 > max {
            return Ok(());
        }
        if let Some(body) = text_body(&bytes) {
            scan.feed(body, found);
            scan.end(found);
        }
        return Ok(());
    }
    let Ok(opened) = file::open(io, target, true).await else { return Ok(()) };
    let checked = file::check(shared, &opened.meta, &target.requested).is_ok();
    let mut reader = ChunkReader::new(io, opened, &target.requested);
    if checked {
        scan_file(&mut reader, &mut scan, found).await;
    }
    // One file open at a time, however many the search reads (the native disk's read-ahead
    // adds a bounded few): a big tree never runs the process out of file handles.
    reader.close().await;
    Ok(())
}

/// Streams an open file through `scan`; a binary or UTF-16 file, or one whose read fails, is
/// skipped (what was found before the failure stays found).
async fn scan_file(reader: &mut ChunkReader<'_>, scan: &mut Scan<'_>, found: &mut Found) {
    // The head first: the binary test needs its first 8 KiB (short reads are joined; a first
    // chunk that holds them, as it mostly does, is tested where it is).
    let Ok(first) = reader.next().await else { return };
    let mut joined = Vec::new();
    if first.len() < SNIFF_BYTES && !reader.eof {
        joined.extend_from_slice(&first);
        while joined.len() < SNIFF_BYTES && !reader.eof {
            match reader.next().await {
                Ok(chunk) => joined.extend_from_slice(&chunk),
                Err(_) => return,
            }
        }
    }
    let head = if joined.is_empty() { &first[..] } else { &joined[..] };
    let Some(body) = text_body(head) else { return };
    scan.feed(body, found);
    while !reader.eof && !found.stopped() {
        match reader.next().await {
            Ok(chunk) => scan.feed(&chunk, found),
            Err(_) => return,
        }
    }
    scan.end(found);
}

/// The UTF-8 text of a file's head past its BOM; `None` for binary and UTF-16 files.
fn text_body(head: &[u8]) -> Option<&[u8]> {
    match Encoding::sniff(head) {
        Ok(e @ (Encoding::Utf8 | Encoding::Utf8Bom)) => Some(&head[e.bom_len()..]),
        _ => None,
    }
}

/// What the search found so far, within its bounds.
struct Found {
    lines: Vec<String>,
    matches: Vec<Value>,
    count: u64,
    max_results: u64,
    max_bytes: u64,
    bytes: u64,
    stopped: Option<String>,
    /// Whether the last line written was part of a group (to separate groups with `--`).
    context: bool,
    depth_note: Option<String>,
}

impl Found {
    fn new(shared: &Shared, q: &Query) -> Found {
        let o = &shared.policy.options;
        Found {
            lines: Vec::new(),
            matches: Vec::new(),
            count: 0,
            max_results: q.max_results.min(o.max_list_entries),
            max_bytes: o.max_tool_output_bytes,
            bytes: 0,
            stopped: None,
            context: q.context > 0,
            depth_note: None,
        }
    }

    fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Writes one answer line; false once the byte bound is met.
    fn push(&mut self, line: String) -> bool {
        if self.bytes + line.len() as u64 + 1 > self.max_bytes {
            self.stopped = Some(format!(
                "[Search stopped after {} matching lines: the answer reached maxToolOutputBytes ({}). Narrow the search.]",
                self.count, self.max_bytes
            ));
            return false;
        }
        self.bytes += line.len() as u64 + 1;
        self.lines.push(line);
        true
    }

    fn matched(&mut self, path: &str, line: u64, text: &str) {
        if self.push(format!("{path}:{line}: {text}")) {
            self.matches.push(json!({"path": path, "line": line, "text": text}));
            self.count += 1;
            if self.count >= self.max_results {
                self.stopped = Some(format!(
                    "[Search stopped after {} matching lines (maxResults {}); narrow the search or raise maxResults.]",
                    self.count, self.max_results
                ));
            }
        }
    }

    fn finish(self) -> Value {
        let truncated = self.stopped.is_some() || self.depth_note.is_some();
        let mut text = if self.lines.is_empty() { "No matches found".to_owned() } else { self.lines.join("\n") };
        for note in self.stopped.iter().chain(&self.depth_note) {
            text = format!("{text}\n{note}");
        }
        output::text(text.clone(), json!({"content": text, "matches": self.matches, "truncated": truncated}))
    }
}

/// One file's scan: complete lines are searched as they arrive, one answer line per matching
/// line; context lines come from a ring of the last lines seen and a count still to show.
struct Scan<'q> {
    q: &'q Query,
    path: &'q str,
    /// The number of the next line to be searched.
    line: u64,
    /// The start of a line that has not ended yet (a line cut by a chunk).
    carry: Vec<u8>,
    /// In a line longer than [`MAX_LINE`], skipped to its end.
    skipping: bool,
    before: VecDeque<(u64, Vec<u8>)>,
    after: usize,
    /// The last line written (0: none yet in this file).
    shown: u64,
}

impl<'q> Scan<'q> {
    fn new(q: &'q Query, path: &'q str) -> Scan<'q> {
        Scan { q, path, line: 1, carry: Vec::new(), skipping: false, before: VecDeque::new(), after: 0, shown: 0 }
    }

    fn feed(&mut self, mut chunk: &[u8], found: &mut Found) {
        if self.skipping {
            let Some(nl) = memchr(b'\n', chunk) else { return };
            self.skipping = false;
            self.line += 1;
            chunk = &chunk[nl + 1..];
        }
        let Some(last) = memrchr(b'\n', chunk) else {
            self.carry.extend_from_slice(chunk);
            self.cap_carry();
            return;
        };
        let (complete, rest) = chunk.split_at(last + 1);
        if self.carry.is_empty() {
            self.region(complete, found);
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(complete);
            self.region(&joined, found);
        }
        self.carry.extend_from_slice(rest);
        self.cap_carry();
    }

    fn cap_carry(&mut self) {
        if self.carry.len() > MAX_LINE {
            self.carry = Vec::new();
            self.skipping = true;
        }
    }

    fn end(&mut self, found: &mut Found) {
        if !self.carry.is_empty() && !self.skipping {
            let last = std::mem::take(&mut self.carry);
            self.region(&last, found);
        }
    }

    /// Searches whole lines (the last may lack its terminator at the end of the file).
    fn region(&mut self, buf: &[u8], found: &mut Found) {
        let mut pos = 0;
        while pos < buf.len() && !found.stopped() {
            let Some(m) = self.q.re.find_at(buf, pos) else { break };
            if m.start() >= buf.len() {
                break;
            }
            let start = memrchr(b'\n', &buf[pos..m.start()]).map_or(pos, |i| pos + i + 1);
            let end = memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i + 1);
            self.gap(&buf[pos..start], found);
            self.hit(&buf[start..end], found);
            pos = end;
        }
        if found.stopped() {
            return;
        }
        self.gap(&buf[pos..], found);
    }

    /// Lines without a match: context after the last match, then remembered as context before
    /// the next.
    fn gap(&mut self, mut gap: &[u8], found: &mut Found) {
        if self.q.context == 0 {
            self.line += lines_in(gap);
            return;
        }
        while self.after > 0 && !gap.is_empty() && !found.stopped() {
            let end = memchr(b'\n', gap).map_or(gap.len(), |i| i + 1);
            let line = self.line;
            self.write_context(line, &gap[..end], found);
            self.line += 1;
            self.after -= 1;
            gap = &gap[end..];
        }
        let total = lines_in(gap);
        let keep = total.min(self.q.context as u64);
        // The start of the gap's last `keep` lines, found from its end.
        let (mut start, mut end) = (gap.len(), gap.len() - usize::from(gap.last() == Some(&b'\n')));
        for _ in 0..keep {
            start = memrchr(b'\n', &gap[..end]).map_or(0, |i| i + 1);
            end = start.saturating_sub(1);
        }
        let mut number = self.line + total - keep;
        let mut rest = &gap[start..];
        while !rest.is_empty() {
            let end = memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            self.before.push_back((number, rest[..end].to_vec()));
            if self.before.len() > self.q.context {
                self.before.pop_front();
            }
            number += 1;
            rest = &rest[end..];
        }
        self.line += total;
    }

    fn hit(&mut self, line: &[u8], found: &mut Found) {
        let number = self.line;
        for (n, text) in std::mem::take(&mut self.before) {
            if n > self.shown {
                self.write_context(n, &text, found);
            }
        }
        self.separate(number, found);
        found.matched(self.path, number, &shown_text(line));
        self.shown = number;
        self.line += 1;
        self.after = self.q.context;
    }

    fn write_context(&mut self, number: u64, text: &[u8], found: &mut Found) {
        self.separate(number, found);
        found.push(format!("{}-{number}- {}", self.path, shown_text(text)));
        self.shown = number;
    }

    /// `--` between groups of context that do not touch.
    fn separate(&mut self, number: u64, found: &mut Found) {
        if found.context && !found.lines.is_empty() && (self.shown == 0 || number > self.shown + 1) {
            found.push("--".to_owned());
        }
    }
}

/// Lines in `bytes`: its terminators, and a final unterminated piece.
fn lines_in(bytes: &[u8]) -> u64 {
    let n = memchr_iter(b'\n', bytes).count() as u64;
    n + u64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'))
}

/// A line as an answer shows it: without its terminator, invalid UTF-8 replaced, a long line cut.
fn shown_text(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    if text.len() <= SHOWN_LINE {
        return text.into_owned();
    }
    let mut cut = SHOWN_LINE;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [line cut: {} bytes]", &text[..cut], line.len())
}

#[cfg(all(test, feature = "disk"))]
mod tests {
    use crate::io::Io;
    use crate::mcp::{McpDispatch, McpServer};
    use crate::operation::Step;
    use crate::run::OpenFiles;
    use crate::{perform, AcpFs, DefaultHost, MemoryStorage, Options, Storage};
    use serde_json::json;

    /// With a driver that reads ahead, the walk names the next directories' files before the
    /// search is done with this one's (so the disk's workers never wait for the search to reach
    /// a directory), every file before it is opened, and in the order the search opens them.
    #[test]
    fn read_ahead_plans_run_across_directories_in_the_search_order() {
        let storage = MemoryStorage::new();
        for d in 0..8 {
            for f in 0..3 {
                storage.put(&format!("/p/d{d}/f{f}.txt"), format!("needle {d} {f}\n"));
            }
        }
        let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
        fs.open_session("s", "/p", &[]).unwrap();
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search_text", "arguments": {"path": "/p", "pattern": "needle"}}});
        let McpDispatch::Call(call) = McpServer::new(fs, "s").dispatch(&message.to_string()) else {
            panic!("a tools/call starts an operation")
        };
        let (mut op, _reply) = call.into_parts();
        op.channel().accepts_plans();
        let (mut files, mut planned, mut opened) = (OpenFiles::default(), Vec::<String>::new(), Vec::new());
        // What had been planned when each file was opened.
        let mut known_at_open = Vec::new();
        let mut step = op.start();
        while let Step::Io(io) = step {
            if let Some(plan) = op.channel().take_plan() {
                planned.extend(plan.paths);
            }
            if let Io::Open { path, .. } = &io {
                opened.push(path.clone());
                known_at_open.push(planned.len());
            }
            step = op.resume(perform(&storage, &DefaultHost, &mut files, io));
        }
        assert_eq!(opened.len(), 24, "every file searched");
        assert_eq!(planned, opened, "each file planned once, in the order it is opened");
        for (i, known) in known_at_open.iter().enumerate() {
            assert!(*known > i, "{} was opened before it was planned", opened[i]);
        }
        let last_of_first = opened.iter().position(|p| p == "/p/d0/f2.txt").unwrap();
        assert!(
            planned[..known_at_open[last_of_first]].iter().any(|p| p.starts_with("/p/d1/")),
            "the next directory's files are planned before the first directory's last is opened"
        );
    }
}
