//! What the host module's tests share: an engine with a session at `/p`, a read started on it.

use super::{HostEngine, HostOperation, HostOutcome, HostStep};
use serde_json::{json, Value};

pub(super) fn engine() -> HostEngine {
    let engine = HostEngine::new(json!({}), json!({"symlinks": "none", "rangedReads": true, "write": true})).unwrap();
    assert!(engine.open_session(&json!("s"), &json!("/p"), &Value::Null, &json!(null)).is_none());
    engine
}

pub(super) fn read(engine: &HostEngine) -> HostOperation {
    engine.start("fs/read_text_file", Ok(json!({"sessionId": "s", "path": "/p/a.txt"}))).unwrap()
}

pub(super) fn done(step: HostStep) -> HostOutcome {
    match step {
        HostStep::Done { done } => *done,
        HostStep::Io { io, .. } => panic!("expected the end, got {io:?}"),
    }
}
