//! One request in flight as a binding holds it: stepped, cancelled, refused, aborted; never
//! taking the host down.

use super::answer::HostAnswer;
use super::step::{HostOutcome, HostStep};
#[cfg(feature = "json-rpc")]
use crate::dispatch::respond_outcome;
use crate::error::AcpFsError;
use crate::io::Io;
#[cfg(feature = "mcp")]
use crate::mcp::McpReply;
use crate::operation::{Operation, Outcome, Step};
use crate::record::AuditEvent;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

pub(super) const NOT_AN_ANSWER: &str = "it is not an answer object, or a member has the wrong type";

/// How a request that came as a message is answered once it is done.
pub(super) enum Reply {
    /// A JSON-RPC response with this raw id.
    #[cfg(feature = "json-rpc")]
    Rpc(String),
    /// An MCP `tools/call` result.
    #[cfg(feature = "mcp")]
    Mcp(McpReply),
}

impl Reply {
    fn to(&self, outcome: &Outcome) -> String {
        #[cfg(not(any(feature = "json-rpc", feature = "mcp")))]
        let _ = outcome;
        match *self {
            #[cfg(feature = "json-rpc")]
            Reply::Rpc(ref id) => respond_outcome(id, outcome),
            #[cfg(feature = "mcp")]
            Reply::Mcp(ref reply) => reply.respond(outcome),
        }
    }
}

pub(super) struct State {
    pub(super) op: Operation,
    pub(super) started: bool,
    /// A panic went through the operation: its future must not be polled again.
    pub(super) broken: bool,
    /// The audit event, once the request has ended.
    pub(super) audit: Option<AuditEvent>,
    #[cfg(feature = "disk")]
    pub(super) files: crate::run::OpenFiles<std::fs::File>,
    /// A write the disk loop finished: what a cancel that waited for the loop reports.
    #[cfg(feature = "disk")]
    pub(super) finished: Option<HostOutcome>,
    /// The disk loop changed something (directories, the file): a cancel no longer stops it.
    #[cfg(feature = "disk")]
    pub(super) changed: bool,
    /// The disk loop ran the request to its end, and the driver has not received that end yet
    /// ([`HostOperation::settle`]).
    #[cfg(feature = "disk")]
    pub(super) ended_on_disk: bool,
}

/// One request in flight, as a binding holds it: stepped with answers, cancelled, refused.
/// Nothing here may take the host down: a panic inside the engine, a malformed answer or a
/// step after the end becomes an outcome with an `internal` error.
///
/// It can be shared between threads (the native disk loop runs on a worker thread while the
/// JS thread may cancel).
#[must_use = "a request is answered only once it is run to its outcome"]
pub struct HostOperation {
    state: Mutex<State>,
    /// Set by [`HostOperation::cancel`]; the disk loop checks it before every I/O.
    pub(super) cancelled: AtomicBool,
    pub(super) kind: &'static str,
    reply: Option<Reply>,
}

impl HostOperation {
    pub(super) fn new(op: Operation, reply: Option<Reply>) -> HostOperation {
        let kind = op.kind();
        let state = State {
            op,
            started: false,
            broken: false,
            audit: None,
            #[cfg(feature = "disk")]
            files: Default::default(),
            #[cfg(feature = "disk")]
            finished: None,
            #[cfg(feature = "disk")]
            changed: false,
            #[cfg(feature = "disk")]
            ended_on_disk: false,
        };
        HostOperation { state: Mutex::new(state), cancelled: AtomicBool::new(false), kind, reply }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // Poisoning only follows a panic, which `broken` records.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first call starts the request (whatever it is given: nothing was asked yet); each
    /// later one hands in the answer to the last [`Io`] (`bytes` beside `{bytes: true}`).
    /// `Some(Err(reason))`: the binding could not convert the answer.
    pub fn step(&self, answer: Option<Result<HostAnswer, String>>, bytes: Option<Vec<u8>>) -> HostStep {
        let mut state = self.lock();
        let step = self.advance(&mut state, answer, bytes);
        self.to_host(&mut state, step)
    }

    /// The audit event of the request once it has ended (semantics.md §7; `durationMs` is the
    /// driver's to stamp), `None` before.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn audit(&self) -> Option<AuditEvent> {
        self.lock().audit.clone()
    }

    /// Abandons the request: `-32800`, and no I/O after the last answered step. A write the
    /// disk loop finished while this waited for it is reported as it happened (semantics.md §6).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn cancel(&self) -> HostOutcome {
        self.end(AcpFsError::cancelled())
    }

    /// Asks the disk loop running this request ([`run_on_disk`](Self::run_on_disk), which holds
    /// the request while it works) to end before its next io, without waiting for it: the step
    /// the loop then returns says how the request ended, cancelled or, once it had changed
    /// something, with what it did (semantics.md §6). For a driver whose thread must not block
    /// on [`cancel`](Self::cancel) while a disk io runs.
    #[cfg(feature = "disk")]
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn stop(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Ends the request with `-32602` naming `field`: params the driver refused before the
    /// engine saw them (no JSON form). It is reported (audit event) like any request.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn refuse(&self, field: &str, reason: &str) -> HostOutcome {
        self.end(AcpFsError::invalid_params(field, reason))
    }

    /// Ends the request with an `internal` error (the driver broke its own promise).
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn abort(&self, reason: &str) -> HostOutcome {
        self.end(AcpFsError::internal(reason))
    }

    #[cfg_attr(acp_fs_small, optimize(size))]
    fn end(&self, error: AcpFsError) -> HostOutcome {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut state = self.lock();
        // The disk loop held the lock until it finished the write: the write happened, and it
        // is reported as it happened (with its change record), never as cancelled.
        #[cfg(feature = "disk")]
        if let Some(done) = state.finished.clone() {
            return done;
        }
        let outcome = self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(error))));
        self.to_host(&mut state, outcome).into_outcome()
    }

    /// Advances by one step, never panicking.
    pub(super) fn advance(
        &self,
        state: &mut State,
        answer: Option<Result<HostAnswer, String>>,
        bytes: Option<Vec<u8>>,
    ) -> Step {
        if std::mem::replace(&mut state.started, true) {
            // A binding's own conversion error is not reported word for word: napi and the wasm
            // module's inbox word the same mistake differently, and hosts must see one text.
            let answer = match answer {
                None => Err("no answer".to_owned()),
                Some(Err(_)) => Err(NOT_AN_ANSWER.to_owned()),
                Some(Ok(answer)) => answer.into_answer(bytes),
            };
            match answer {
                Ok(answer) => self.guarded(state, |op| op.resume(answer)),
                Err(why) => {
                    let e = AcpFsError::internal(format!("the driver sent a malformed answer: {why}"));
                    self.guarded(state, |op| Step::Done(Box::new(op.fail(e))))
                }
            }
        } else {
            self.guarded(state, Operation::start)
        }
    }

    /// Runs `f` on the operation unless a panic broke it; a panic now breaks it.
    pub(super) fn guarded(&self, state: &mut State, f: impl FnOnce(&mut Operation) -> Step) -> Step {
        if state.broken {
            return Step::Done(Box::new(self.broken("the operation failed earlier".into())));
        }
        match catch_unwind(AssertUnwindSafe(|| f(&mut state.op))) {
            Ok(step) => step,
            Err(payload) => {
                state.broken = true;
                Step::Done(Box::new(self.broken(panic_message(&*payload))))
            }
        }
    }

    /// The outcome of an operation whose own state cannot be trusted after a panic.
    #[cfg_attr(acp_fs_small, optimize(size))]
    fn broken(&self, message: String) -> Outcome {
        let error = AcpFsError::internal(message);
        Outcome { audit: AuditEvent::failed(self.kind, &error), result: Err(error), change: None, stale_document: None }
    }

    /// An io as a host sees it: a write's bytes taken out to travel beside it.
    pub(super) fn to_host_io(io: Io) -> HostStep {
        let changes = io.changes();
        match io {
            Io::Write { root, path, bytes } => {
                HostStep::Io { io: Io::Write { root, path, bytes: Vec::new() }, bytes: Some(bytes), changes }
            }
            io => HostStep::Io { io, bytes: None, changes },
        }
    }

    pub(super) fn to_host(&self, state: &mut State, step: Step) -> HostStep {
        match step {
            Step::Io(io) => Self::to_host_io(io),
            Step::Done(outcome) => {
                #[cfg(feature = "disk")]
                {
                    state.files = Default::default();
                }
                let reply = self.reply.as_ref().map(|r| r.to(&outcome));
                let Outcome { result, change, stale_document, audit } = *outcome;
                // The request's own end is what it reports, not a cancel or a step after it.
                state.audit.get_or_insert(audit);
                let (result, error) = match result {
                    // A request that came as a message is answered by its reply, which holds the
                    // result already: a large answer (a search, many files) crosses to the
                    // host once, not twice.
                    Ok(r) => (Some(r).filter(|_| reply.is_none()), None),
                    Err(e) => (None, Some(e)),
                };
                HostStep::Done { done: Box::new(HostOutcome { result, error, change, stale_document, reply }) }
            }
        }
    }
}

#[cfg_attr(acp_fs_small, optimize(size))]
pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => format!("panic in acp-fs: {s}"),
        (_, Some(s)) => format!("panic in acp-fs: {s}"),
        _ => "panic in acp-fs".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::host::fixtures::{done, engine, read};
    use crate::host::LONE_SURROGATE;
    use serde_json::json;

    #[test]
    fn io_shapes() {
        let io = |io: Io| serde_json::to_value(HostOperation::to_host_io(io)).unwrap();
        assert_eq!(
            io(Io::ReadAt { file: 2, offset: 5, len: 10 }),
            json!({"io": {"op": "readAt", "file": 2, "offset": 5, "length": 10}})
        );
        assert_eq!(
            io(Io::Open { root: "/p".into(), path: "/p/a".into(), head: 16384 }),
            json!({"io": {"op": "open", "root": "/p", "path": "/p/a", "head": 16384}})
        );
        // A write's bytes travel beside the request, never inside it.
        let HostStep::Io { io: Io::Write { bytes: inside, .. }, bytes, changes } =
            HostOperation::to_host_io(Io::Write { root: "/p".into(), path: "/p/a".into(), bytes: vec![1, 2] })
        else {
            panic!("a write stays a write")
        };
        assert_eq!((inside, bytes, changes), (Vec::new(), Some(vec![1, 2]), true));
        // What changes files or a buffer says so on the wire; nothing else carries the member.
        assert_eq!(
            io(Io::MakeDirs { root: "/p".into(), path: "/p/d".into() }),
            json!({"io": {"op": "makeDirs", "root": "/p", "path": "/p/d"}, "changes": true})
        );
        assert_eq!(
            io(Io::WriteDocument { path: "/p/a".into(), text: "x".into() }),
            json!({"io": {"op": "writeDocument", "path": "/p/a", "text": "x"}, "changes": true})
        );
        assert_eq!(
            io(Io::Stat { path: "/p/a".into(), follow: true }),
            json!({"io": {"op": "stat", "path": "/p/a", "follow": true}})
        );
    }

    #[test]
    fn lifecycle() {
        let engine = engine();
        // The first step ignores what it is given: nothing was asked yet.
        let op = read(&engine);
        assert!(matches!(op.step(Some(Err("junk".into())), None), HostStep::Io { io: Io::Open { .. }, .. }));
        // A malformed answer ends the request as the driver's bug, and so does every later step.
        let out = done(op.step(Some(Err("not an object".into())), None));
        let e = out.error.unwrap();
        assert_eq!((e.kind, e.code), (ErrorKind::Internal, -32603));
        assert!(e.message.ends_with(&format!("malformed answer: {NOT_AN_ANSWER}")), "{}", e.message);
        let audit = op.audit().unwrap();
        assert_eq!((audit.outcome, audit.error_kind), ("error", Some("internal")));
        assert_eq!(done(op.step(None, None)).error.unwrap().kind, ErrorKind::Internal);
        // No answer at all after the first step is malformed too.
        let op = read(&engine);
        op.step(None, None);
        assert_eq!(done(op.step(None, None)).error.unwrap().kind, ErrorKind::Internal);
        // Cancel: -32800 now, internal afterwards.
        let op = read(&engine);
        op.step(None, None);
        assert!(op.audit().is_none(), "no audit event while the request runs");
        let out = op.cancel();
        assert_eq!((out.error.unwrap().code, op.audit().unwrap().outcome), (-32800, "cancelled"));
        op.step(None, None);
        assert_eq!(op.audit().unwrap().outcome, "cancelled", "a step after the end does not rewrite the audit");
        assert_eq!(done(op.step(Some(Ok(HostAnswer::default())), None)).error.unwrap().kind, ErrorKind::Internal);
        // Refuse names the field, before any io, and the audit still says what was asked.
        let op = read(&engine);
        let e = op.refuse("path", LONE_SURROGATE).error.unwrap();
        assert_eq!((e.code, &e.data["field"]), (-32602, &json!("path")));
        assert_eq!(op.audit().unwrap().path.as_deref(), Some("/p/a.txt"));
        // Abort: internal, with the driver's reason.
        let out = read(&engine).abort("the pool is gone");
        assert_eq!(out.error.unwrap().message, "Internal error: the pool is gone");
        // Params a binding could not convert: internal, and not an fs method: none.
        let out = done(engine.start("fs/read_text_file", Err("a cycle".into())).unwrap().step(None, None));
        assert!(out.error.unwrap().message.contains("params that are not JSON: a cycle"));
        assert!(engine.start("session/new", Ok(json!({}))).is_none());
    }

    #[test]
    fn a_storage_error_from_a_binding_fails_the_read_as_storage() {
        let engine = engine();
        let op = read(&engine);
        op.step(None, None);
        let out = done(op.step(Some(Ok(HostAnswer::storage_error("4096 bytes do not fit"))), None));
        assert_eq!(out.error.unwrap().kind, ErrorKind::StorageError);
    }
}
