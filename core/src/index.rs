//! The line index (semantics.md §8 "Line index"): sparse line starts remembered per file, so
//! a window deep in a file that was paged before starts near its first row instead of
//! counting from the top.
//!
//! Entries are keyed by real path and valid for one version of the file, named by what user
//! space cannot set back: size, modification time, change time and file id (see [`Identity`]);
//! another version drops the entry, and so does a write through the engine to that real path.
//! Storages that report no change time get no entry. The whole index
//! is bounded by `lineIndexBytes`; the least recently used entries go first.

use crate::recency::Recency;
use crate::storage::Metadata;
use crate::window::Checkpoint;
use std::collections::hash_map::Entry::{Occupied, Vacant};
use std::collections::HashMap;

/// Bytes an entry costs besides its path and checkpoints (map slot, vector header, identity).
const ENTRY_OVERHEAD: u64 = 96;
const CHECKPOINT_BYTES: u64 = std::mem::size_of::<Checkpoint>() as u64;

/// One version of a file, as the storage describes it.
///
/// The modification time alone is not enough: `touch -r`, `cp -p`, `rsync -t` and `tar x` put
/// an old one back on new content, and a same-size rewrite would then be served from the old
/// version's line starts, lines cut mid-line. The change time (ctime) cannot be set: any
/// write, rename or `utimes` moves it to now. The file id tells a file replaced by rename.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    pub size: u64,
    pub modified: Option<u64>,
    pub changed: u64,
    pub file_id: Option<u64>,
}

impl Identity {
    /// The version `meta` names, if the storage reports a change time to prove it by.
    pub fn of(meta: &Metadata) -> Option<Identity> {
        let changed = meta.changed?;
        Some(Identity { size: meta.size, modified: meta.modified, changed, file_id: meta.file_id })
    }
}

/// Whether two answers of the storage name the same version of a file: every part of a version
/// the storage reported agrees (an [`Identity`], where a change time proves it).
pub(crate) fn same_version(a: &Metadata, b: &Metadata) -> bool {
    (a.size, a.modified, a.changed, a.file_id) == (b.size, b.modified, b.changed, b.file_id)
}

/// Where a window may start instead of the top of the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Start {
    pub from: Checkpoint,
    /// Average bytes per row around `from`, to size the first read.
    pub bytes_per_row: u64,
    /// Where row 1 starts in this version (its UTF-8 BOM's length).
    pub bom: u64,
}

#[derive(Debug)]
struct Entry {
    identity: Identity,
    /// Ascending by line (and so by offset); never holds row 1 (the BOM decides its offset).
    checkpoints: Vec<Checkpoint>,
    /// UTF-8 BOM length of this version (0 or 3): row 1 starts there.
    bom: u64,
    /// Its place in the index's order of use.
    place: u32,
}

impl Entry {
    fn cost(&self, key: &str) -> u64 {
        ENTRY_OVERHEAD + key.len() as u64 + CHECKPOINT_BYTES * self.checkpoints.len() as u64
    }
}

#[derive(Debug, Default)]
pub(crate) struct LineIndex {
    entries: HashMap<String, Entry>,
    order: Recency,
    bytes: u64,
}

impl LineIndex {
    /// Memory held now (the estimate the bound is enforced on).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The nearest remembered line start at or before `line` of this version of the file at
    /// `key`, if any beyond row 1. Another version's entry is dropped.
    pub fn start(&mut self, key: &str, identity: Identity, line: u64) -> Option<Start> {
        let entry = self.entries.get(key)?;
        if entry.identity != identity {
            self.forget(key);
            return None;
        }
        let entry = self.entries.get_mut(key)?;
        self.order.touch(entry.place);
        let cps = &entry.checkpoints;
        let i = cps.partition_point(|c| c.line <= line);
        if i == 0 {
            return None;
        }
        let from = cps[i - 1];
        // Rows around the start: towards the next checkpoint, or the average so far.
        let (rows, bytes) = match cps.get(i) {
            Some(next) if next.line > from.line => (next.line - from.line, next.offset - from.offset),
            _ => (from.line - 1, from.offset - entry.bom),
        };
        Some(Start { from, bytes_per_row: bytes.checked_div(rows).unwrap_or(0), bom: entry.bom })
    }

    /// Remembers the line starts a scan of this version passed. `bom` is where row 1 starts.
    pub fn record(&mut self, key: &str, identity: Identity, bom: u64, marks: &[Checkpoint], bound: u64) {
        let marks: Vec<Checkpoint> = marks.iter().copied().filter(|c| c.line > 1).collect();
        if marks.is_empty() || bound == 0 {
            return;
        }
        if self.entries.get(key).is_some_and(|e| e.identity != identity || e.bom != bom) {
            self.forget(key);
        }
        let order = &mut self.order;
        let entry = match self.entries.entry(key.to_owned()) {
            Occupied(slot) => {
                order.touch(slot.get().place);
                slot.into_mut()
            }
            Vacant(slot) => {
                let place = order.push(key.to_owned());
                slot.insert(Entry { identity, checkpoints: Vec::new(), bom, place })
            }
        };
        let before = if entry.checkpoints.is_empty() { 0 } else { entry.cost(key) };
        merge(&mut entry.checkpoints, &marks);
        let after = entry.cost(key);
        self.bytes = self.bytes - before + after;
        self.shrink(key, bound);
    }

    /// Drops what is known about the file at `key` (a write landed there).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn forget(&mut self, key: &str) {
        if let Some(e) = self.entries.remove(key) {
            self.order.remove(e.place);
            self.bytes -= e.cost(key);
        }
    }

    /// Evicts least recently used entries until the index fits `bound`; the entry just
    /// recorded (`keep`) goes last, thinned to every other checkpoint before it is dropped.
    fn shrink(&mut self, keep: &str, bound: u64) {
        // `keep` was just used, so it is the least recent only once it is the only entry.
        while self.bytes > bound {
            match self.order.oldest().filter(|&k| k != keep).map(str::to_owned) {
                Some(k) => self.forget(&k),
                None => break,
            }
        }
        while self.bytes > bound {
            let Some(entry) = self.entries.get_mut(keep) else { return };
            if entry.checkpoints.len() <= 1 {
                self.forget(keep);
                return;
            }
            let before = entry.cost(keep);
            let mut n = 0;
            entry.checkpoints.retain(|_| {
                n += 1;
                n % 2 == 0
            });
            self.bytes = self.bytes - before + entry.cost(keep);
        }
    }
}

/// Merges ascending `new` into ascending `into`, one checkpoint per line.
fn merge(into: &mut Vec<Checkpoint>, new: &[Checkpoint]) {
    if into.last().is_none_or(|last| new[0].line > last.line) {
        into.extend_from_slice(new);
        return;
    }
    // One pass over the two, the lesser first, the first of a line kept: what sorting the two
    // together and keeping each line's first did, without the sort (about 2 KB of the gzipped
    // fs/* wasm module, for the one place that sorted).
    let old = std::mem::take(into);
    into.reserve(old.len() + new.len());
    let (mut a, mut b) = (old.iter().copied().peekable(), new.iter().copied().peekable());
    while let Some(next) = match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    } {
        if into.last().is_none_or(|last| last.line != next.line) {
            into.push(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(line: u64, offset: u64) -> Checkpoint {
        Checkpoint { line, offset }
    }

    #[test]
    fn nearest_start_at_or_before() {
        let mut ix = LineIndex::default();
        let id = Identity { size: 100, modified: Some(1), changed: 1, file_id: None };
        ix.record("/a", id, 0, &[cp(1, 0), cp(5, 40), cp(9, 80)], u64::MAX);
        assert!(ix.start("/a", id, 4).is_none());
        assert_eq!(ix.start("/a", id, 5).unwrap().from, cp(5, 40));
        assert_eq!(ix.start("/a", id, 8).unwrap().bytes_per_row, 10);
        assert_eq!(ix.start("/a", id, 50).unwrap().from, cp(9, 80));
        // Another version: dropped, and the memory with it.
        assert!(ix.start("/a", Identity { size: 100, modified: Some(1), changed: 2, file_id: None }, 50).is_none());
        assert_eq!(ix.bytes(), 0);
    }

    #[test]
    fn merge_is_sorting_both_and_keeping_each_lines_first() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..2000 {
            let mut run = |more: u64| {
                let len = next(6) + more;
                let mut v: Vec<_> = (0..len).map(|_| cp(next(12) + 2, next(4))).collect();
                v.sort_unstable();
                v
            };
            let into = run(0);
            let new = run(1);
            let mut want = [into.clone(), new.clone()].concat();
            want.sort_unstable();
            want.dedup_by_key(|c| c.line);
            let mut got = into.clone();
            merge(&mut got, &new);
            // The fast path (all of `new` after `into`) appends `new` as it is.
            if into.last().is_none_or(|last| new[0].line > last.line) {
                want = [into, new].concat();
            }
            assert_eq!(got, want);
        }
    }

    #[test]
    fn bounded_least_recently_used_first() {
        let mut ix = LineIndex::default();
        let id = Identity { size: 1, modified: Some(1), changed: 1, file_id: None };
        let one = ENTRY_OVERHEAD + 2 + CHECKPOINT_BYTES;
        ix.record("/a", id, 0, &[cp(2, 1)], 2 * one);
        ix.record("/b", id, 0, &[cp(2, 1)], 2 * one);
        assert!(ix.start("/a", id, 3).is_some());
        ix.record("/c", id, 0, &[cp(2, 1)], 2 * one);
        assert!(ix.start("/b", id, 3).is_none(), "b was used least recently");
        assert!(ix.start("/a", id, 3).is_some() && ix.start("/c", id, 3).is_some());
        assert!(ix.bytes() <= 2 * one);
        // One entry larger than the bound is thinned, then dropped.
        let many: Vec<_> = (2..100).map(|l| cp(l, l)).collect();
        ix.record("/d", id, 0, &many, 2 * one);
        assert!(ix.bytes() <= 2 * one);
    }
}
