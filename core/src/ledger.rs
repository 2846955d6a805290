//! Edits that never clobber (semantics.md §9): what each session's agent saw of each file (the
//! read ledger), the stale-write rule, and one write at a time per real path (turns).

use crate::index::{same_version, Identity};
use crate::path::{AbsPath, Style};
use crate::recency::Recency;
use crate::storage::Metadata;
use std::collections::hash_map::Entry::{Occupied, Vacant};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// What the agent saw of a file.
#[derive(Clone, Debug)]
pub(crate) enum Seen {
    /// The whole text (a whole-file read, or what the session wrote): a merge base.
    Text(Arc<str>),
    /// The whole text, too large to keep: only "changed or not" can be told.
    Digest { len: u64, hash: u64 },
    /// A window of a file read from storage: what the storage said of the file then
    /// (semantics.md §9), compared by [`same_version`]. No modification time means "cannot
    /// tell", which counts as changed.
    Identity(Metadata),
}

impl Seen {
    pub fn digest(text: &[u8]) -> Seen {
        Seen::Digest { len: text.len() as u64, hash: hash(text) }
    }

    pub fn identity(meta: &Metadata) -> Seen {
        Seen::Identity(*meta)
    }

    /// The version of the file this names, when the storage reported one it can prove (a
    /// change time: semantics.md §8 "Line index").
    pub fn version(&self) -> Option<Identity> {
        match self {
            Seen::Identity(meta) => Identity::of(meta),
            _ => None,
        }
    }

    /// What it costs to keep, beyond the entry itself.
    fn bytes(&self) -> usize {
        match self {
            Seen::Text(t) => t.len(),
            _ => 0,
        }
    }
}

/// A 64-bit digest; the ledger lives in one process, so std's fixed-key SipHash is enough
/// (nobody gets to choose texts that collide with what the agent read without also changing
/// what the agent read).
fn hash(text: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The text there now, to compare with what was seen.
pub(crate) struct Current<'a> {
    /// `None`: nothing is there (the file was deleted and no buffer is open).
    pub text: Option<&'a str>,
    /// The storage's metadata when the text came from storage (or from a buffer the host
    /// marked clean, which matches storage).
    pub meta: Option<Metadata>,
    /// The open document's version, when the text came from one.
    pub document: Option<u64>,
}

/// One file in a session's ledger.
struct Entry {
    seen: Seen,
    /// The document version the agent saw, when the text came from an open document: the same
    /// version now means unchanged without comparing texts.
    document: Option<u64>,
    /// Its place in the ledger's order of use.
    place: u32,
    cost: usize,
}

/// Per-entry bookkeeping counted against the session bound besides the key and text.
const ENTRY_COST: usize = 96;

/// One session's ledger, bounded: least recently used entries are dropped first.
#[derive(Default)]
pub(crate) struct Ledger {
    entries: HashMap<String, Entry>,
    order: Recency,
    bytes: usize,
}

impl Ledger {
    fn record(&mut self, key: String, seen: Seen, document: Option<u64>, limits: Limits) {
        let seen = match seen {
            Seen::Text(t) if t.len() > limits.file => Seen::digest(t.as_bytes()),
            other => other,
        };
        let cost = ENTRY_COST + key.len() + seen.bytes();
        if cost > limits.session {
            self.forget(&key);
            return;
        }
        self.bytes += cost;
        // A file read again (the usual case) replaces its entry in place: one lookup, and its
        // place in the order moves to the recent end with no copy of its name.
        match self.entries.entry(key) {
            Occupied(mut slot) => {
                let place = slot.get().place;
                let old = slot.insert(Entry { seen, document, place, cost });
                self.bytes -= old.cost;
                self.order.touch(place);
            }
            Vacant(slot) => {
                let place = self.order.push(slot.key().clone());
                slot.insert(Entry { seen, document, place, cost });
            }
        }
        while self.bytes > limits.session {
            let Some(oldest) = self.order.pop_oldest() else { break };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.cost;
            }
        }
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    fn forget(&mut self, key: &str) {
        if let Some(e) = self.entries.remove(key) {
            self.order.remove(e.place);
            self.bytes -= e.cost;
        }
    }

    fn get(&mut self, key: &str) -> Option<(Seen, Option<u64>)> {
        let e = self.entries.get_mut(key)?;
        self.order.touch(e.place);
        Some((e.seen.clone(), e.document))
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Limits {
    pub file: usize,
    pub session: usize,
}

/// Ledgers of sessions the host never opened (a default policy) are kept for this many
/// sessions at most; opened sessions keep theirs until closed.
const UNOPENED_LEDGERS: usize = 64;

/// Every session's ledger.
#[derive(Default)]
pub(crate) struct Ledgers {
    inner: Mutex<LedgersInner>,
}

#[derive(Default)]
struct LedgersInner {
    sessions: HashMap<String, (Ledger, bool, u64)>,
    clock: u64,
}

impl Ledgers {
    fn lock(&self) -> MutexGuard<'_, LedgersInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn record(&self, session: &str, opened: bool, key: String, seen: Seen, doc: Option<u64>, limits: Limits) {
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        if let Some(slot) = inner.sessions.get_mut(session) {
            slot.1 |= opened;
            slot.2 = now;
            slot.0.record(key, seen, doc, limits);
            return;
        }
        // The session's name is copied only when its ledger is made, not on every read; only
        // then can the unopened ledgers become too many.
        let mut ledger = Ledger::default();
        ledger.record(key, seen, doc, limits);
        inner.sessions.insert(session.to_owned(), (ledger, opened, now));
        let unopened = inner.sessions.values().filter(|s| !s.1).count();
        if unopened > UNOPENED_LEDGERS {
            let oldest = inner.sessions.iter().filter(|(_, s)| !s.1).min_by_key(|(_, s)| s.2).map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                inner.sessions.remove(&k);
            }
        }
    }

    pub fn get(&self, session: &str, key: &str) -> Option<(Seen, Option<u64>)> {
        self.lock().sessions.get_mut(session)?.0.get(key)
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn drop_session(&self, session: &str) {
        self.lock().sessions.remove(session);
    }

    /// `(entries, bytes)` of a session's ledger, for tests and hosts that watch memory.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn usage(&self, session: &str) -> (usize, usize) {
        self.lock().sessions.get(session).map_or((0, 0), |s| (s.0.entries.len(), s.0.bytes))
    }
}

/// Whether the text there now differs from what the agent saw.
#[cfg_attr(acp_fs_small, optimize(size))]
pub(crate) fn changed(seen: &Seen, seen_doc: Option<u64>, now: &Current<'_>) -> bool {
    if seen_doc.is_some() && seen_doc == now.document {
        return false;
    }
    let Some(text) = now.text else { return true };
    match seen {
        Seen::Text(base) => **base != *text,
        Seen::Digest { len, hash: h } => *len != text.len() as u64 || *h != hash(text.as_bytes()),
        Seen::Identity(then) => match &now.meta {
            Some(meta) if then.modified.is_some() => !same_version(then, meta),
            // No modification time, or a buffer whose relation to storage is unknown: the
            // engine cannot prove nothing changed, so it says it did.
            _ => true,
        },
    }
}

/// The ledger's key for a real path: drive and UNC paths compare case-insensitively.
pub(crate) fn key(path: &AbsPath) -> String {
    match path.style() {
        Style::Posix => path.as_str().to_owned(),
        Style::Drive | Style::Unc => path.as_str().to_ascii_lowercase(),
    }
}

/// Writes to one real path, in the order they asked: the front of a path's queue has the turn.
#[derive(Default)]
pub(crate) struct Turns {
    state: Mutex<TurnState>,
    changed: Condvar,
}

#[derive(Default)]
struct TurnState {
    queues: HashMap<String, VecDeque<u64>>,
    next: u64,
    wakers: Vec<Waker>,
}

impl Turns {
    fn lock(&self) -> MutexGuard<'_, TurnState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Joins the queue of `key`; the ticket leaves it when dropped (the write ended, failed or
    /// was cancelled), whatever state it was in.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn enter(self: &Arc<Self>, key: String) -> Ticket {
        let mut s = self.lock();
        s.next += 1;
        let id = s.next;
        s.queues.entry(key.clone()).or_default().push_back(id);
        Ticket { turns: self.clone(), key, id }
    }

    /// Joins the queues of every key at once, so that two operations that both need the same
    /// keys are queued in the same order on each (one of them has every turn first: no
    /// deadlock, whatever order they ask in).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn enter_all(self: &Arc<Self>, keys: impl IntoIterator<Item = String>) -> Vec<Ticket> {
        let mut s = self.lock();
        s.next += 1;
        let id = s.next;
        let mut tickets: Vec<Ticket> = Vec::new();
        for key in keys {
            if tickets.iter().any(|t| t.key == key) {
                continue;
            }
            s.queues.entry(key.clone()).or_default().push_back(id);
            tickets.push(Ticket { turns: self.clone(), key, id });
        }
        tickets
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    fn is_front(&self, key: &str, id: u64) -> bool {
        self.lock().queues.get(key).and_then(|q| q.front()) == Some(&id)
    }
}

/// A place in a path's write queue.
pub(crate) struct Ticket {
    turns: Arc<Turns>,
    key: String,
    id: u64,
}

impl Ticket {
    pub fn ready(&self) -> bool {
        self.turns.is_front(&self.key, self.id)
    }

    pub fn waiter(&self) -> Turn {
        Turn { turns: self.turns.clone(), key: self.key.clone(), id: self.id }
    }
}

impl Drop for Ticket {
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn drop(&mut self) {
        let wakers = {
            let mut s = self.turns.lock();
            if let Some(q) = s.queues.get_mut(&self.key) {
                q.retain(|&t| t != self.id);
                if q.is_empty() {
                    s.queues.remove(&self.key);
                }
            }
            std::mem::take(&mut s.wakers)
        };
        self.turns.changed.notify_all();
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// What a driver waits on for [`crate::Io::Wait`]: the write's turn on its path. Blocking
/// drivers call [`Turn::wait`], async ones await [`Turn::ready`]; drivers that cannot reach it
/// (the JS driver) answer after any other operation of the engine ended: the operation asks
/// again if its turn has not come.
#[derive(Clone)]
pub struct Turn {
    turns: Arc<Turns>,
    key: String,
    id: u64,
}

impl Turn {
    /// Whether the turn has come.
    pub fn is_ready(&self) -> bool {
        self.turns.is_front(&self.key, self.id)
    }

    /// Blocks the thread until the turn has come.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn wait(&self) {
        let mut s = self.turns.lock();
        loop {
            let front = s.queues.get(&self.key).and_then(|q| q.front()).copied();
            // Not queued at all: the operation has ended; nothing to wait for.
            if front.is_none_or(|f| f == self.id) || !s.queues.get(&self.key).is_some_and(|q| q.contains(&self.id)) {
                return;
            }
            s = self.turns.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Resolves when the turn has come (runtime-agnostic: woken when a turn ends).
    pub fn ready(&self) -> impl Future<Output = ()> + '_ {
        TurnReady(self)
    }
}

struct TurnReady<'a>(&'a Turn);

impl Future for TurnReady<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let t = self.0;
        let mut s = t.turns.lock();
        let queued = s.queues.get(&t.key).is_some_and(|q| q.contains(&t.id));
        let front = s.queues.get(&t.key).and_then(|q| q.front()) == Some(&t.id);
        if front || !queued {
            return Poll::Ready(());
        }
        s.wakers.push(cx.waker().clone());
        Poll::Pending
    }
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn").field("path", &self.key).field("ticket", &self.id).finish()
    }
}

impl PartialEq for Turn {
    fn eq(&self, other: &Turn) -> bool {
        Arc::ptr_eq(&self.turns, &other.turns) && self.key == other.key && self.id == other.id
    }
}

#[cfg(test)]
mod ledger_tests {
    use super::*;

    const ROOMY: Limits = Limits { file: 1 << 20, session: 1 << 20 };

    fn read(ledgers: &Ledgers, session: &str, opened: bool) {
        ledgers.record(session, opened, "/p/a".into(), Seen::Text(Arc::from("a\n")), None, ROOMY);
    }

    #[test]
    fn ledgers_of_sessions_never_opened_are_bounded_oldest_first() {
        let ledgers = Ledgers::default();
        read(&ledgers, "opened", true);
        for i in 0..UNOPENED_LEDGERS {
            read(&ledgers, &format!("u{i}"), false);
        }
        // Read again: now the most recent of the unopened.
        read(&ledgers, "u0", false);
        read(&ledgers, "one too many", false);
        assert_eq!(ledgers.usage("u1").0, 0, "the least recently used unopened ledger went");
        for kept in ["opened", "u0", "u2", "one too many"] {
            assert_eq!(ledgers.usage(kept).0, 1, "{kept} kept");
        }
        // A session the host opens later counts as opened from then on.
        read(&ledgers, "u2", true);
        read(&ledgers, "another", false);
        assert_eq!(ledgers.usage("u3").0, 1, "u2's place went to another");
        read(&ledgers, "yet another", false);
        assert_eq!(ledgers.usage("u3").0, 0);
        assert_eq!(ledgers.usage("u2").0, 1);
    }
}

#[cfg(test)]
mod turn_tests {
    use super::*;

    #[test]
    fn keys_entered_at_once_are_queued_in_one_order() {
        let turns = Arc::new(Turns::default());
        let first = turns.enter_all(["a".to_owned(), "b".to_owned()]);
        let second = turns.enter_all(["b".to_owned(), "a".to_owned(), "b".to_owned()]);
        assert_eq!(second.len(), 2, "a key named twice is one ticket");
        assert!(first.iter().all(Ticket::ready));
        assert!(second.iter().all(|t| !t.ready()), "behind the first on both keys, whatever the order asked");
        drop(first);
        assert!(second.iter().all(Ticket::ready));
    }
}
