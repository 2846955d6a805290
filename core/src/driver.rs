//! The two ten-line loops that run an [`Operation`] against a storage.

use crate::io::{Answer, Io, Step};
use crate::operation::{Operation, Outcome};
use crate::storage::{AsyncHost, AsyncStorage, Host, Storage};

/// Performs one I/O request against a synchronous storage and host.
pub fn perform(storage: &impl Storage, host: &impl Host, io: Io) -> Answer {
    match io {
        Io::Stat { path, follow } => storage.stat(&path, follow).into(),
        Io::RealPath { path } => storage.real_path(&path).into(),
        Io::ReadAll { path } => storage.read(&path).into(),
        Io::ReadRange { path, offset, len } => storage.read_range(&path, offset, len).into(),
        Io::MakeDirs { path } => storage.make_dirs(&path).into(),
        Io::Write { path, bytes } => storage.write(&path, &bytes).into(),
        Io::Approve { change } => Answer::Approved(host.approve(&change)),
        Io::WriteDocument { path, text } => Answer::Document(host.write_document(&path, &text)),
    }
}

/// Runs `op` to completion against a synchronous storage.
pub fn run(mut op: Operation, storage: &impl Storage, host: &impl Host) -> Outcome {
    let clock = Clock::start();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(io) => op.resume(perform(storage, host, io)),
            Step::Done(outcome) => return clock.stamp(*outcome),
        }
    }
}

/// Runs `op` to completion against an async storage (no `Send` needed: wasm-friendly).
pub async fn run_async(mut op: Operation, storage: &impl AsyncStorage, host: &impl AsyncHost) -> Outcome {
    let clock = Clock::start();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(io) => {
                let answer = match io {
                    Io::Stat { path, follow } => storage.stat(&path, follow).await.into(),
                    Io::RealPath { path } => storage.real_path(&path).await.into(),
                    Io::ReadAll { path } => storage.read(&path).await.into(),
                    Io::ReadRange { path, offset, len } => storage.read_range(&path, offset, len).await.into(),
                    Io::MakeDirs { path } => storage.make_dirs(&path).await.into(),
                    Io::Write { path, bytes } => storage.write(&path, &bytes).await.into(),
                    Io::Approve { change } => Answer::Approved(host.approve(&change).await),
                    Io::WriteDocument { path, text } => Answer::Document(host.write_document(&path, &text).await),
                };
                op.resume(answer)
            }
            Step::Done(outcome) => return clock.stamp(*outcome),
        }
    }
}

/// Wall-clock duration for the audit event; wasm32-unknown-unknown has no clock in std, so
/// there the JS driver stamps it instead.
struct Clock(#[cfg(not(target_arch = "wasm32"))] std::time::Instant);

impl Clock {
    fn start() -> Clock {
        Clock(
            #[cfg(not(target_arch = "wasm32"))]
            std::time::Instant::now(),
        )
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn stamp(&self, mut outcome: Outcome) -> Outcome {
        outcome.audit.duration_ms = Some(self.0.elapsed().as_secs_f64() * 1000.0);
        outcome
    }

    #[cfg(target_arch = "wasm32")]
    fn stamp(&self, outcome: Outcome) -> Outcome {
        outcome
    }
}
