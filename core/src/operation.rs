//! A request in flight: a state machine that names its next I/O and is resumed with the
//! answer.
//!
//! Each operation is written as a straight-line `async fn` whose only awaits are the typed
//! asks of its [`Channel`] (`ask.rs`); the compiler turns it into the state machine. It is
//! polled by hand with a no-op waker: nothing here performs I/O or needs a runtime, so the same
//! machine runs under a blocking loop, an async executor, the libuv pool or a JS promise chain.

use crate::ask::Channel;
use crate::error::AcpFsError;
use crate::io::{Answer, Io};
use crate::params::Echo;
use crate::protocol::Response;
use crate::record::{AuditEvent, ChangeRecord};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// What a finished request produced: the answer to send, the change to show, the event to log.
#[derive(Clone, Debug, PartialEq)]
#[must_use = "the outcome holds the answer the peer is waiting for"]
pub struct Outcome {
    /// The JSON-RPC result or error ([`Response::to_json`], [`AcpFsError::to_json_rpc`]).
    pub result: Result<Response, AcpFsError>,
    /// Set after a successful write.
    pub change: Option<ChangeRecord>,
    /// An open document the host said matches storage, whose storage this request found
    /// holding other text (a terminal, a formatter or a checkout moved the file): the name it
    /// was opened under, reported once, so the editor can reload it (semantics.md §9 "Open
    /// documents"). The request itself answered from the storage.
    pub stale_document: Option<String>,
    /// The request for the host's audit log; `duration_ms` is set by [`run`](crate::run) and
    /// [`run_async`](crate::run_async), and left to a driver that steps by hand.
    pub audit: AuditEvent,
}

/// What the request-specific logic returns.
pub(crate) struct Done {
    pub response: Response,
    pub change: Option<ChangeRecord>,
    pub bytes: u64,
    /// A clean document this request found stale (freshness.rs), by its name.
    pub stale: Option<String>,
}

type Logic = Pin<Box<dyn Future<Output = Result<Done, AcpFsError>> + Send>>;

/// One `fs/read_text_file` or `fs/write_text_file` request in flight.
///
/// Drive it with [`crate::run`] / [`crate::run_async`], or by hand:
/// ```
/// use acp_fs::{AcpFs, Options, MemoryStorage, Step, Answer, Io, Storage};
/// let storage = MemoryStorage::new();
/// storage.put("/p/a.txt", "one\ntwo\n");
/// let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
/// fs.open_session("s", "/p", &[]).unwrap();
/// let mut op = fs.read_text_file(serde_json::json!({"sessionId": "s", "path": "/p/a.txt", "line": 2}));
/// let mut files = acp_fs::OpenFiles::default(); // closed when dropped, after the operation
/// let mut step = op.start();
/// let outcome = loop {
///     step = match step {
///         Step::Io(io) => op.resume(acp_fs::perform(&storage, &acp_fs::DefaultHost, &mut files, io)),
///         Step::Done(outcome) => break outcome,
///     };
/// };
/// assert_eq!(outcome.result.unwrap().to_json()["content"], "two\n");
/// ```
#[must_use = "a request is answered only once it is run to its outcome"]
pub struct Operation {
    logic: Option<Logic>,
    channel: Channel,
    op: &'static str,
    echo: Echo,
}

impl Operation {
    pub(crate) fn new(op: &'static str, echo: Echo, logic: impl FnOnce(Channel) -> Logic) -> Operation {
        let channel = Channel::default();
        let logic = Some(logic(channel.clone()));
        Operation { logic, channel, op, echo }
    }

    /// `"read"` or `"write"`.
    pub fn kind(&self) -> &'static str {
        self.op
    }

    /// The hand-off with the driver, for what goes beside the steps (read-ahead plans).
    #[cfg(all(feature = "mcp", feature = "disk"))]
    pub(crate) fn channel(&self) -> &Channel {
        &self.channel
    }

    /// Runs until the first I/O request (or the end).
    pub fn start(&mut self) -> Step {
        self.poll()
    }

    /// Hands in the answer to the last [`Io`](crate::Io) and runs to the next one.
    pub fn resume(&mut self, answer: Answer) -> Step {
        self.channel.answer(answer);
        self.poll()
    }

    /// Abandons the request: `-32800`, and no I/O after the last answered step.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn cancel(&mut self) -> Outcome {
        self.fail(AcpFsError::cancelled())
    }

    /// Ends the request with `error` (a driver that cannot answer, e.g. a host value that
    /// does not convert); no I/O after the last answered step.
    #[cfg_attr(acp_fs_small, optimize(size))]
    pub fn fail(&mut self, error: AcpFsError) -> Outcome {
        self.logic = None;
        self.outcome(Err(error))
    }

    fn poll(&mut self) -> Step {
        let Some(logic) = self.logic.as_mut() else {
            return self.done(Err(AcpFsError::internal("the operation has already finished")));
        };
        match logic.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(result) => {
                self.logic = None;
                self.done(result)
            }
            Poll::Pending => match self.channel.take_io() {
                Some(io) => Step::Io(io),
                None => {
                    self.logic = None;
                    self.done(Err(AcpFsError::internal("resumed without an answer")))
                }
            },
        }
    }

    fn done(&self, result: Result<Done, AcpFsError>) -> Step {
        Step::Done(Box::new(self.outcome(result)))
    }

    fn outcome(&self, result: Result<Done, AcpFsError>) -> Outcome {
        let audit = AuditEvent {
            session_id: self.echo.session_id.clone(),
            path: self.echo.path.clone(),
            line: self.echo.line,
            limit: self.echo.limit,
            traceparent: self.echo.traceparent.clone(),
            ..AuditEvent::ended(self.op, result.as_ref().map(|done| done.bytes))
        };
        match result {
            Ok(done) => Outcome { result: Ok(done.response), change: done.change, stale_document: done.stale, audit },
            Err(e) => Outcome { result: Err(e), change: None, stale_document: None, audit },
        }
    }
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation").field("op", &self.op).field("finished", &self.logic.is_none()).finish()
    }
}

/// What an operation wants now.
#[derive(Debug)]
#[must_use = "a step is the io to perform, or the request's outcome"]
pub enum Step {
    /// Perform this I/O and [`resume`](Operation::resume) with its [`Answer`].
    Io(Io),
    /// The request has ended; the operation asks for nothing more.
    Done(Box<Outcome>),
}
