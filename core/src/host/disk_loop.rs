//! The native disk loop: a worker thread performs a request's storage io against the built-in
//! disk until the request needs the host.

use super::answer::HostAnswer;
use super::operation::{panic_message, HostOperation};
use super::step::HostStep;
use crate::error::AcpFsError;
use crate::io::{Answer, Io};
use crate::operation::Step;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

impl HostOperation {
    /// Resumes with `answer` (if any) and performs storage I/O against the built-in disk until
    /// the request needs the host (`approve`, `writeDocument`, a `wait` whose turn has not
    /// come) or is done. For a worker thread: it blocks on the disk.
    pub fn run_on_disk(&self, answer: Option<Result<HostAnswer, String>>) -> HostStep {
        let disk = crate::DiskStorage::for_run();
        // The engine's read-ahead plans (a search's next files), opened on worker threads.
        #[cfg(feature = "mcp")]
        let mut ahead = crate::disk::read_ahead::Reader::new(&disk);
        let mut state = self.lock();
        #[cfg(feature = "mcp")]
        state.op.channel().accepts_plans();
        // A request that had already ended (its outcome given) stays as it ended.
        let running = state.audit.is_none();
        let mut step = self.advance(&mut state, answer, None);
        loop {
            #[cfg(feature = "mcp")]
            if let Some(plan) = state.op.channel().take_plan() {
                ahead.plan(plan);
            }
            step = match step {
                Step::Io(io @ (Io::Approve { .. } | Io::WriteDocument { .. })) => {
                    return self.to_host(&mut state, Step::Io(io))
                }
                // Another write to the path holds its turn (it may be waiting for a person):
                // the driver waits, not a worker thread (semantics.md §9).
                Step::Io(Io::Wait { turn, path }) if !turn.is_ready() => {
                    return self.to_host(&mut state, Step::Io(Io::Wait { turn, path }))
                }
                Step::Io(Io::Wait { .. }) => self.guarded(&mut state, |op| op.resume(Answer::Done)),
                Step::Io(_) if self.cancelled.load(Ordering::SeqCst) && !state.changed => {
                    let cancelled = AcpFsError::cancelled();
                    self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(cancelled))))
                }
                Step::Io(io) => {
                    state.changed |= io.changes();
                    let files = &mut state.files;
                    let host = crate::DefaultHost; // host I/O is returned above, never performed
                    let performed = catch_unwind(AssertUnwindSafe(|| {
                        #[cfg(feature = "mcp")]
                        if let Some(early) = ahead.answer(&io, files) {
                            return early;
                        }
                        crate::perform(&disk, &host, files, io)
                    }));
                    match performed {
                        Ok(answer) => self.guarded(&mut state, |op| op.resume(answer)),
                        Err(payload) => {
                            let e = AcpFsError::internal(panic_message(&*payload));
                            self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(e))))
                        }
                    }
                }
                done @ Step::Done(_) => {
                    state.ended_on_disk = running;
                    let step = self.to_host(&mut state, done);
                    if let (HostStep::Done { done }, "write") = (&step, self.kind) {
                        state.finished = Some((**done).clone());
                    }
                    return step;
                }
            }
        }
    }
}

impl HostOperation {
    /// The step [`run_on_disk`](Self::run_on_disk) ended with, as the driver receives it: the
    /// binding calls this on the JS thread when the pool's work comes back. A stop that came
    /// during or after the loop's last io, but before the driver saw the end, still cancels a request that
    /// changed nothing (semantics.md §6: a cancel ends a request at once while it reads). Nobody
    /// has seen that end yet, so it is replaced, audit event included.
    pub fn settle(&self, step: HostStep) -> HostStep {
        if !matches!(step, HostStep::Done { .. }) || !self.cancelled.load(Ordering::SeqCst) {
            return step;
        }
        let mut state = self.lock();
        if !std::mem::take(&mut state.ended_on_disk) || state.changed {
            return step;
        }
        state.audit = None;
        let cancelled = AcpFsError::cancelled();
        let step = self.guarded(&mut state, |op| Step::Done(Box::new(op.fail(cancelled))));
        self.to_host(&mut state, step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostEngine;
    use serde_json::json;

    /// A write of "new\n" to `a.txt` in a fresh directory of its own, run by the disk loop up to
    /// its approval: the operation, the file's path and the directory (for the caller to remove).
    fn disk_write_at_approval(name: &str) -> (HostOperation, std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("acp-fs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dir = dir.canonicalize().unwrap();
        let path = dir.join("a.txt");
        let caps =
            json!({"symlinks": "resolvable", "stat": true, "rangedReads": true, "write": true, "makeDirs": true});
        let engine = HostEngine::new(json!({}), caps).unwrap();
        assert!(engine.open_session(&json!("s"), &json!(dir.to_str().unwrap()), &json!([]), &json!(null)).is_none());
        let params = json!({"sessionId": "s", "path": path.to_str().unwrap(), "content": "new\n"});
        let op = engine.start("fs/write_text_file", Ok(params)).unwrap();
        let approve = op.run_on_disk(None);
        assert!(matches!(approve, HostStep::Io { io: Io::Approve { .. }, .. }), "{approve:?}");
        (op, path, dir)
    }

    fn approved() -> Option<Result<HostAnswer, String>> {
        Some(Ok(serde_json::from_value::<HostAnswer>(json!({"approved": true})).unwrap()))
    }

    /// The disk loop wrote the file; a cancel that waited for it reports the write as it
    /// happened (with its change record), never as cancelled.
    #[test]
    fn a_cancel_after_the_disk_wrote_reports_the_write() {
        let (op, path, dir) = disk_write_at_approval("cancel");
        let HostStep::Done { done } = op.run_on_disk(approved()) else { panic!("the write ends") };
        assert!(done.error.is_none(), "{done:?}");
        let cancelled = op.cancel();
        assert!(cancelled.error.is_none(), "the write happened: {cancelled:?}");
        assert_eq!(cancelled.change.map(|c| c.new_text), Some("new\n".to_owned()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A stop that lands while the loop's last io runs (here: its answer is already on the way)
    /// still ends a request that changed nothing as cancelled: an abort during a read always
    /// wins, however the race with the worker thread falls.
    #[test]
    fn a_stop_during_the_last_io_of_a_read_cancels_it() {
        let engine = super::super::fixtures::engine();
        let op = super::super::fixtures::read(&engine);
        let first = op.step(None, None);
        assert!(matches!(first, HostStep::Io { io: Io::Open { .. }, .. }), "{first:?}");
        op.stop();
        // An answer that ends the read with no further io; the binding settles what comes back.
        let end = op.run_on_disk(Some(Ok(HostAnswer::storage_error("the disk answered late"))));
        let done = super::super::fixtures::done(op.settle(end));
        assert_eq!(done.error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        assert_eq!(op.audit().unwrap().outcome, "cancelled");
    }

    /// The loop ended a read before the stop came; the driver had not received it yet: the
    /// end it receives is the cancel, and so is the audit event.
    #[test]
    fn a_stop_after_the_loop_ended_a_read_cancels_it_before_the_driver_sees_it() {
        let dir = tempfile_dir("settle");
        std::fs::write(dir.join("a.txt"), "x\n").unwrap();
        let caps =
            json!({"symlinks": "resolvable", "stat": true, "rangedReads": true, "write": true, "makeDirs": true});
        let engine = HostEngine::new(json!({}), caps).unwrap();
        assert!(engine.open_session(&json!("s"), &json!(dir.to_str().unwrap()), &json!([]), &json!(null)).is_none());
        let path = dir.join("a.txt");
        let op =
            engine.start("fs/read_text_file", Ok(json!({"sessionId": "s", "path": path.to_str().unwrap()}))).unwrap();
        let ended = op.run_on_disk(None);
        assert!(matches!(&ended, HostStep::Done { done } if done.error.is_none()), "{ended:?}");
        op.stop();
        let settled = super::super::fixtures::done(op.settle(ended));
        assert_eq!(settled.error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        assert_eq!(op.audit().unwrap().outcome, "cancelled");
        // Without a stop, or for a write that happened, the end stands (the other tests).
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("acp-fs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    /// `stop` takes no lock: the disk loop sees it before its next io and ends the request
    /// there, cancelled, with nothing written; a later `cancel` reports that same end.
    #[test]
    fn a_stop_ends_the_disk_loop_at_its_next_io() {
        let (op, path, dir) = disk_write_at_approval("stop");
        op.stop();
        let HostStep::Done { done } = op.run_on_disk(approved()) else { panic!("the loop ends the request") };
        assert_eq!(done.error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        assert!(done.change.is_none());
        assert_eq!(op.audit().unwrap().outcome, "cancelled");
        assert!(!path.exists(), "nothing was written");
        assert_eq!(op.cancel().error.map(|e| e.code), Some(crate::codes::REQUEST_CANCELLED));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
