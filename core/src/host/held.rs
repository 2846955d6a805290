//! Operations named by number. A binding whose objects cost more to make than a small read's
//! whole work (wasm-bindgen registers every exported object with a `FinalizationRegistry`, about
//! half a microsecond a request in Node) hands the driver a number instead, and the engine keeps
//! the operation until the driver releases it.

use super::{HostAnswer, HostOperation, HostOutcome, HostStep};
use crate::record::AuditEvent;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};

/// The operations a binding handed out by number, each kept until [`release`](Self::release).
/// A number that is not held (released, or never given) gets an `internal` error, never
/// another operation: numbers come back only after 2^32 others, and never while held.
///
/// ```
/// use acp_fs::host::{HeldOperations, HostEngine, HostStep};
/// use serde_json::json;
/// let engine = HostEngine::new(json!({"roots": ["/p"]}), json!({"symlinks": "none"})).unwrap();
/// let held = HeldOperations::default();
/// let op = held.hold(engine.start_json("fs/read_text_file", r#"{"sessionId": "s", "path": "/p/a"}"#).unwrap());
/// assert!(matches!(held.step(op, None, None), HostStep::Io { .. }));
/// held.release(op);
/// let HostStep::Done { done } = held.step(op, None, None) else { panic!() };
/// assert_eq!(done.error.unwrap().kind, acp_fs::ErrorKind::Internal);
/// ```
#[derive(Default)]
pub struct HeldOperations {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next: u32,
    ops: HashMap<u32, Arc<HostOperation>, BuildHasherDefault<Numbers>>,
}

/// The table's hasher. Its keys are numbers this table hands out, in order, so nobody can choose
/// keys that collide, and std's keyed SipHash (which the engine's maps of paths and session ids
/// need) only costs time: a small read looks the table up four or five times. One
/// multiplication by the golden ratio spreads consecutive numbers over the whole hash, top bits
/// included, which hashbrown reads for each slot's tag.
#[derive(Default)]
struct Numbers(u64);

impl Hasher for Numbers {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u32` is called (the keys are `u32`); this is for completeness.
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl HeldOperations {
    /// Keeps `op`; its number.
    #[must_use = "the number is the only way to step the operation, and to release it"]
    pub fn hold(&self, op: HostOperation) -> u32 {
        let mut table = self.lock();
        let mut id = table.next;
        while table.ops.contains_key(&id) {
            id = id.wrapping_add(1);
        }
        table.next = id.wrapping_add(1);
        table.ops.insert(id, Arc::new(op));
        id
    }

    /// [`HostOperation::step`] of operation `id`.
    pub fn step(&self, id: u32, answer: Option<Result<HostAnswer, String>>, bytes: Option<Vec<u8>>) -> HostStep {
        match self.get(id) {
            Some(op) => op.step(answer, bytes),
            None => HostStep::Done { done: Box::new(not_held(id)) },
        }
    }

    /// [`HostOperation::audit`] of operation `id`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn audit(&self, id: u32) -> Option<AuditEvent> {
        self.get(id)?.audit()
    }

    /// [`HostOperation::cancel`] of operation `id`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn cancel(&self, id: u32) -> HostOutcome {
        self.get(id).map_or_else(|| not_held(id), |op| op.cancel())
    }

    /// [`HostOperation::refuse`] of operation `id`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn refuse(&self, id: u32, field: &str, reason: &str) -> HostOutcome {
        self.get(id).map_or_else(|| not_held(id), |op| op.refuse(field, reason))
    }

    /// [`HostOperation::abort`] of operation `id`.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn abort(&self, id: u32, reason: &str) -> HostOutcome {
        self.get(id).map_or_else(|| not_held(id), |op| op.abort(reason))
    }

    /// Forgets operation `id` (a request in flight ends as if its host went away).
    pub fn release(&self, id: u32) {
        self.lock().ops.remove(&id);
    }

    /// The operation, shared: the table is not locked while it runs.
    fn get(&self, id: u32) -> Option<Arc<HostOperation>> {
        self.lock().ops.get(&id).cloned()
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every change is one insert or remove: the table is consistent even after a panic.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The outcome of a call naming an operation that is not held.
#[cfg_attr(acp_fs_small, optimize(size))]
fn not_held(id: u32) -> HostOutcome {
    HostOutcome::internal(format!("no operation {id}: it was released or never started"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostEngine;
    use serde_json::json;

    fn engine() -> HostEngine {
        let engine = HostEngine::new(json!({"roots": ["/p"]}), json!({"symlinks": "none"})).unwrap();
        assert!(engine.open_session(&json!("s"), &json!("/p"), &json!([]), &json!(null)).is_none());
        engine
    }

    fn read(engine: &HostEngine) -> HostOperation {
        engine.start_json("fs/read_text_file", r#"{"sessionId": "s", "path": "/p/a"}"#).unwrap()
    }

    #[test]
    fn a_number_is_not_given_again_while_its_operation_is_held() {
        let (engine, held) = (engine(), HeldOperations::default());
        held.lock().next = u32::MAX;
        let last = held.hold(read(&engine));
        let first = held.hold(read(&engine));
        assert_eq!((last, first), (u32::MAX, 0), "numbers wrap around");
        held.lock().next = u32::MAX;
        assert_eq!(held.hold(read(&engine)), 1, "held numbers are skipped");
        held.release(first);
        held.lock().next = 0;
        assert_eq!(held.hold(read(&engine)), 0, "a released number may come back");
    }

    #[test]
    fn every_call_naming_an_operation_not_held_gets_internal() {
        let (engine, held) = (engine(), HeldOperations::default());
        let id = held.hold(read(&engine));
        assert!(matches!(held.step(id, None, None), HostStep::Io { .. }));
        let cancelled = held.cancel(id);
        assert_eq!(cancelled.error.unwrap().code, crate::codes::REQUEST_CANCELLED);
        assert_eq!(held.audit(id).unwrap().outcome, "cancelled");
        held.release(id);
        assert!(held.audit(id).is_none());
        let outcomes = [held.cancel(id), held.refuse(id, "path", "no"), held.abort(id, "broke")];
        for outcome in outcomes {
            let error = outcome.error.unwrap();
            assert_eq!(error.kind, crate::ErrorKind::Internal);
            assert!(error.message.contains(&format!("no operation {id}")), "{}", error.message);
        }
    }
}
