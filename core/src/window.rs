//! Line windows over a stream of UTF-8 bytes (semantics.md §2).
//!
//! A line ends with `\n` (so `\r\n` is one terminator and a lone `\r` is not); the answer is
//! an exact substring. The scanner is fed chunks in file order and stops wanting bytes as soon
//! as the window is complete, so a window costs the bytes up to its end, not the file.

use memchr::{memchr_iter, memrchr};

/// While seeking, the scanner remembers one line start per this many bytes (the first at or
/// after each multiple), for the engine's line index.
pub const CHECKPOINT_STRIDE: u64 = 64 * 1024;

/// A line start: row `line` (1-based) begins at byte `offset` of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Checkpoint {
    pub line: u64,
    pub offset: u64,
}

/// How a scan ended badly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowError {
    /// The start row is past the last row; `line_count` = newlines + 1.
    PastEnd { line: u64, line_count: u64 },
    /// The window's own bytes are not UTF-8.
    NotUtf8,
    /// The window's content exceeds the byte budget.
    TooLarge,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Passing newlines until the start row.
    Seeking,
    /// Inside the window; `None` = to the end.
    Collecting {
        rows_left: Option<u64>,
    },
    Done,
}

/// Streaming window scanner.
///
/// ```
/// use acp_fs::window::Window;
/// let mut w = Window::new(2, Some(2), u64::MAX);
/// w.feed(b"one\r\ntwo\nthr").unwrap();
/// w.feed(b"ee\nfour").unwrap();
/// assert_eq!(w.finish().unwrap(), "two\nthree\n");
/// assert_eq!(Window::slice("a\nb\n", 3, None).unwrap(), "");
/// ```
#[derive(Debug)]
pub struct Window {
    line: u64,
    limit: Option<u64>,
    phase: Phase,
    newlines: u64,
    out: String,
    /// Bytes taken into the window so far (`out` and a cut sequence waiting in `carry`).
    taken: usize,
    max_bytes: u64,
    /// An incomplete UTF-8 sequence cut by a chunk boundary.
    carry: Vec<u8>,
    /// The row the first fed byte starts, and that byte's offset in the file.
    base: Checkpoint,
    /// File offset of the next byte to be fed.
    pos: u64,
    /// Line starts passed on the way (stride marks, the window's start and end).
    marks: Vec<Checkpoint>,
}

impl Window {
    /// `line` is 1-based (0 is treated as 1); `limit` rows at most, `None` = to the end.
    pub fn new(line: u64, limit: Option<u64>, max_bytes: u64) -> Window {
        Window::resume(line, limit, max_bytes, Checkpoint { line: 1, offset: 0 })
    }

    /// A scanner whose first fed byte starts row `from.line` at file offset `from.offset` (a
    /// checkpoint of the line index, or row 1 after a BOM). `from.line` must not be past
    /// `line`.
    pub fn resume(line: u64, limit: Option<u64>, max_bytes: u64, from: Checkpoint) -> Window {
        Window::resume_into(line, limit, max_bytes, from, (String::new(), Vec::new()))
    }

    /// [`Window::resume`] in the buffers of a window not fed yet (its text and line starts),
    /// emptied.
    fn resume_into(
        line: u64,
        limit: Option<u64>,
        max_bytes: u64,
        from: Checkpoint,
        (mut out, mut marks): (String, Vec<Checkpoint>),
    ) -> Window {
        out.clear();
        marks.clear();
        let line = line.max(1).max(from.line);
        let phase = if line == from.line { Phase::Collecting { rows_left: limit } } else { Phase::Seeking };
        let mut w = Window {
            line,
            limit,
            phase,
            newlines: 0,
            out,
            taken: 0,
            max_bytes,
            carry: Vec::new(),
            base: from,
            pos: from.offset,
            marks,
        };
        if w.phase != Phase::Seeking {
            w.marks.push(from);
        }
        if w.phase == (Phase::Collecting { rows_left: Some(0) }) {
            w.phase = Phase::Done;
        }
        w
    }

    /// The line starts this scan passed: one per [`CHECKPOINT_STRIDE`] bytes while seeking,
    /// the window's start, and its end when the limit ended it. Ascending.
    pub fn checkpoints(&self) -> &[Checkpoint] {
        &self.marks
    }

    /// The window of an in-memory text, with no byte budget.
    pub fn slice(text: &str, line: u64, limit: Option<u64>) -> Result<&str, WindowError> {
        let bytes = text.as_bytes();
        let start = if line <= 1 {
            0
        } else {
            match after_nth_newline(bytes, line - 1) {
                Ok(i) => i,
                Err(seen) => return Err(WindowError::PastEnd { line, line_count: seen + 1 }),
            }
        };
        let end = match limit {
            Some(0) => start,
            Some(n) => after_nth_newline(&bytes[start..], n).map_or(bytes.len(), |i| start + i),
            None => bytes.len(),
        };
        Ok(&text[start..end])
    }

    /// The same window, scanned from `from` instead (see [`Window::resume`]); nothing may have
    /// been fed yet.
    pub fn restart(self, from: Checkpoint) -> Window {
        // In this one's buffers: a read made a second scanner for every first.
        Window::resume_into(self.line, self.limit, self.max_bytes, from, (self.out, self.marks))
    }

    /// The first row of the window (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The most rows the window takes; `None` = to the end.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Room for `bytes` of content (a hint: never more than the byte budget), so a long window
    /// is not copied again as its buffer grows.
    pub fn reserve(&mut self, bytes: u64) {
        let room = usize::try_from(bytes.min(self.max_bytes)).unwrap_or(0);
        self.out.reserve(room.saturating_sub(self.out.len()));
    }

    /// Whether this window is the whole text (line 1, no limit).
    pub fn is_whole_file(&self) -> bool {
        self.line == 1 && self.limit.is_none()
    }

    /// True once the window is complete: no more bytes are needed.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Feeds the next chunk of the text (after any BOM).
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), WindowError> {
        let chunk_start = self.pos;
        self.pos += chunk.len() as u64;
        if self.phase == Phase::Seeking {
            // Bytes before the window are counted, never validated (semantics.md §8,
            // "Decoding limits"): `\n` never occurs inside a multi-byte UTF-8 sequence, so the
            // count is exact whatever those bytes are, and the window starts on a character
            // boundary. The chunk is walked in stride-aligned pieces so that each piece that
            // ends on a stride boundary leaves a checkpoint behind.
            let mut at = chunk_start;
            loop {
                let next_stride = (at / CHECKPOINT_STRIDE + 1) * CHECKPOINT_STRIDE;
                let piece_len = usize::try_from(next_stride - at).unwrap_or(usize::MAX).min(chunk.len());
                let piece = &chunk[..piece_len];
                let need = self.line - self.base.line - self.newlines;
                match after_nth_newline(piece, need) {
                    Err(seen) => {
                        self.newlines += seen;
                        if at + piece_len as u64 == next_stride {
                            if let Some(i) = memrchr(b'\n', piece) {
                                let mark =
                                    Checkpoint { line: self.base.line + self.newlines, offset: at + i as u64 + 1 };
                                if self.marks.last() != Some(&mark) {
                                    self.marks.push(mark);
                                }
                            }
                        }
                        chunk = &chunk[piece_len..];
                        at += piece_len as u64;
                        if chunk.is_empty() {
                            return Ok(());
                        }
                    }
                    Ok(s) => {
                        self.newlines += need;
                        chunk = &chunk[s..];
                        at += s as u64;
                        let start = Checkpoint { line: self.line, offset: at };
                        if self.marks.last() != Some(&start) {
                            self.marks.push(start);
                        }
                        self.phase = Phase::Collecting { rows_left: self.limit };
                        break;
                    }
                }
            }
        }
        if self.phase == (Phase::Collecting { rows_left: Some(0) }) {
            self.phase = Phase::Done;
        }
        if let Phase::Collecting { rows_left } = self.phase {
            let end = match rows_left {
                None => None,
                Some(left) => match after_nth_newline(chunk, left) {
                    Ok(end) => Some(end),
                    Err(seen) => {
                        self.phase = Phase::Collecting { rows_left: Some(left - seen) };
                        None
                    }
                },
            };
            let take = &chunk[..end.unwrap_or(chunk.len())];
            let (completed, text) = self.validate(take)?;
            if (self.taken + take.len()) as u64 > self.max_bytes {
                return Err(WindowError::TooLarge);
            }
            self.taken += take.len();
            if let Some(c) = completed {
                self.out.push(c);
            }
            self.out.push_str(text);
            if let Some(end) = end {
                self.phase = Phase::Done;
                let offset = self.pos - (chunk.len() - end) as u64;
                let line = self.line + self.limit.unwrap_or(0);
                self.marks.push(Checkpoint { line, offset });
            }
        }
        Ok(())
    }

    /// Ends the stream (EOF, or the window is done) and returns the window's text.
    pub fn finish(self) -> Result<String, WindowError> {
        // A sequence cut off by the end is invalid whatever else happened: the same bytes as
        // one complete invalid byte, which `feed` already refused.
        if !self.carry.is_empty() {
            return Err(WindowError::NotUtf8);
        }
        if self.phase == Phase::Seeking {
            return Err(WindowError::PastEnd { line: self.line, line_count: self.base.line + self.newlines });
        }
        Ok(self.out)
    }

    /// Strict UTF-8 across chunk boundaries: the character a cut sequence in `carry` completes,
    /// and the text of `bytes` up to a sequence cut at their end (which waits in `carry`). The
    /// text is the validator's own `&str`, so the window is never validated a second time.
    fn validate<'a>(&mut self, mut bytes: &'a [u8]) -> Result<(Option<char>, &'a str), WindowError> {
        let mut completed = None;
        if !self.carry.is_empty() {
            let want = utf8_len(self.carry[0]);
            let need = want - self.carry.len();
            let take = need.min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < want {
                return Ok((None, ""));
            }
            completed = std::str::from_utf8(&self.carry).map_err(|_| WindowError::NotUtf8)?.chars().next();
            self.carry.clear();
        }
        if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            return Ok((completed, text));
        }
        // Invalid or cut at the end: std says where, which the carry needs.
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok((completed, text)),
            Err(e) if e.error_len().is_none() => {
                let (valid, cut) = bytes.split_at(e.valid_up_to());
                self.carry.extend_from_slice(cut);
                Ok((completed, std::str::from_utf8(valid).map_err(|_| WindowError::NotUtf8)?))
            }
            Err(_) => Err(WindowError::NotUtf8),
        }
    }
}

/// The index just past the `n`-th newline (`n` ≥ 1) of `bytes`, or how many newlines there
/// are when there are fewer.
///
/// Whole blocks are counted with memchr's vectorized counter and only the block holding the
/// answer is walked newline by newline: stopping at every newline of a 100 MB text costs
/// several times the count itself (docs/benchmarks.md).
fn after_nth_newline(bytes: &[u8], n: u64) -> Result<usize, u64> {
    const BLOCK: usize = 16 * 1024;
    let mut seen = 0u64;
    for (b, block) in bytes.chunks(BLOCK).enumerate() {
        let count = memchr_iter(b'\n', block).count() as u64;
        if seen + count >= n {
            let skip = usize::try_from(n - seen - 1).unwrap_or(usize::MAX);
            if let Some(i) = memchr_iter(b'\n', block).nth(skip) {
                return Ok(b * BLOCK + i + 1);
            }
        }
        seen += count;
    }
    Err(seen)
}

/// Length of the sequence a lead byte starts (1 for anything that cannot lead: from_utf8 then
/// reports it).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window fed `bytes` in chunks of `size`.
    fn fed(bytes: &[u8], size: usize, max: u64) -> Result<String, WindowError> {
        let mut w = Window::new(1, None, max);
        for chunk in bytes.chunks(size) {
            w.feed(chunk)?;
        }
        w.finish()
    }

    #[test]
    fn characters_cut_by_chunks_are_joined_once() {
        let text = "aé€😀\nb😀é\n";
        for size in 1..=text.len() {
            assert_eq!(fed(text.as_bytes(), size, 1024).unwrap(), text, "chunks of {size}");
        }
    }

    #[test]
    fn bad_or_cut_sequences_are_refused_whatever_the_chunks() {
        for bytes in [&b"a\xE2\x82x"[..], b"a\xE2\x82", b"\xF0\x9F\x98", b"a\xFFb", b"\xC3"] {
            for size in 1..=bytes.len() {
                assert!(matches!(fed(bytes, size, 1024), Err(WindowError::NotUtf8)), "{bytes:?} by {size}");
            }
        }
    }

    #[test]
    fn the_byte_budget_counts_a_cut_sequence() {
        // 5 bytes fit, a 6th does not, whether the emoji's bytes wait in the carry or not.
        for size in 1..=6 {
            assert_eq!(fed("a😀".as_bytes(), size, 5).unwrap(), "a😀");
            assert!(matches!(fed("ab😀".as_bytes(), size, 5), Err(WindowError::TooLarge)), "by {size}");
        }
    }
}
