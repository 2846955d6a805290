//! Line windows over a stream of UTF-8 bytes (semantics.md §2).
//!
//! A line ends with `\n` (so `\r\n` is one terminator and a lone `\r` is not); the answer is
//! an exact substring. The scanner is fed chunks in file order and stops wanting bytes as soon
//! as the window is complete, so a window costs the bytes up to its end, not the file.

use memchr::memchr_iter;

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
    out: Vec<u8>,
    max_bytes: u64,
    /// An incomplete UTF-8 sequence cut by a chunk boundary.
    carry: Vec<u8>,
}

impl Window {
    /// `line` is 1-based (0 is treated as 1); `limit` rows at most, `None` = to the end.
    pub fn new(line: u64, limit: Option<u64>, max_bytes: u64) -> Window {
        let line = line.max(1);
        let phase = if line == 1 { Phase::Collecting { rows_left: limit } } else { Phase::Seeking };
        let mut w = Window { line, limit, phase, newlines: 0, out: Vec::new(), max_bytes, carry: Vec::new() };
        if w.phase == (Phase::Collecting { rows_left: Some(0) }) {
            w.phase = Phase::Done;
        }
        w
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
        if self.phase == Phase::Seeking {
            let need = self.line - 1 - self.newlines;
            match after_nth_newline(chunk, need) {
                // Bytes before the window are counted, never validated (semantics.md §8,
                // "Decoding limits"): `\n` never occurs inside a multi-byte UTF-8 sequence, so
                // the count is exact whatever those bytes are, and the window starts on a
                // character boundary.
                Err(seen) => {
                    self.newlines += seen;
                    return Ok(());
                }
                Ok(s) => {
                    self.newlines += need;
                    chunk = &chunk[s..];
                    self.phase = Phase::Collecting { rows_left: self.limit };
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
            self.validate(take)?;
            if (self.out.len() + take.len()) as u64 > self.max_bytes {
                return Err(WindowError::TooLarge);
            }
            self.out.extend_from_slice(take);
            if end.is_some() {
                self.phase = Phase::Done;
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
            return Err(WindowError::PastEnd { line: self.line, line_count: self.newlines + 1 });
        }
        // Every byte was validated on the way in.
        String::from_utf8(self.out).map_err(|_| WindowError::NotUtf8)
    }

    /// Strict UTF-8 across chunk boundaries.
    fn validate(&mut self, mut bytes: &[u8]) -> Result<(), WindowError> {
        if !self.carry.is_empty() {
            let want = utf8_len(self.carry[0]);
            let need = want - self.carry.len();
            let take = need.min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < want {
                return Ok(());
            }
            std::str::from_utf8(&self.carry).map_err(|_| WindowError::NotUtf8)?;
            self.carry.clear();
        }
        if simdutf8::basic::from_utf8(bytes).is_ok() {
            return Ok(());
        }
        // Invalid or cut at the end: std says where, which the carry needs.
        match std::str::from_utf8(bytes) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                self.carry.extend_from_slice(&bytes[e.valid_up_to()..]);
                Ok(())
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
