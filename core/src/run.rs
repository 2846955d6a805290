//! The two ten-line loops that run an [`Operation`] against a storage.

use crate::io::{Answer, FileId, Io};
use crate::operation::Step;
use crate::operation::{Operation, Outcome};
use crate::storage::{AsyncHost, AsyncStorage, Host, Metadata, Storage, StorageError, StorageErrorKind};

/// The files one operation opened, by [`FileId`]; dropping it closes them, so a driver keeps
/// one per operation and drops it when the operation ends (or is cancelled).
pub struct OpenFiles<F>(Vec<Option<F>>);

impl<F> Default for OpenFiles<F> {
    fn default() -> Self {
        OpenFiles(Vec::new())
    }
}

impl<F> OpenFiles<F> {
    /// Numbers a file just opened (the native disk's read-ahead opens some before they are
    /// asked for).
    pub(crate) fn opened(&mut self, opened: Result<(Option<F>, Metadata), StorageError>) -> Answer {
        match opened {
            Ok((Some(file), meta)) => {
                let Ok(id) = FileId::try_from(self.0.len()) else {
                    return Answer::Err(StorageError::new(StorageErrorKind::Other, "too many open files"));
                };
                self.0.push(Some(file));
                Answer::Opened { file: Some(id), meta, head: None }
            }
            Ok((None, meta)) => Answer::Opened { file: None, meta, head: None },
            Err(e) => Answer::Err(e),
        }
    }

    /// Closes them all. Done before a write or a directory creation (as the JS driver does): the
    /// engine has read what it needs by then, and Windows refuses to replace a file that still
    /// has an open handle unless the volume offers POSIX rename semantics (FAT, exFAT, SMB shares
    /// and Wine do not), so the write's rename over its target would fail with "Access denied".
    fn close_all(&mut self) {
        self.0.clear();
    }

    /// Closes one file (its id is not given again: ids are positions).
    fn close(&mut self, id: FileId) {
        if let Some(file) = self.0.get_mut(id as usize) {
            *file = None;
        }
    }

    fn get(&self, id: FileId) -> Result<&F, StorageError> {
        self.0
            .get(id as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| StorageError::new(StorageErrorKind::Other, format!("the operation has no open file {id}")))
    }
}

/// Performs one I/O request against a synchronous storage and host; `files` are the
/// operation's open files.
pub fn perform<S: Storage>(storage: &S, host: &impl Host, files: &mut OpenFiles<S::File>, io: Io) -> Answer {
    match io {
        Io::Stat { path, follow } => storage.stat(&path, follow).into(),
        Io::RealPath { path } => storage.real_path(&path).into(),
        Io::ReadAll { path } => storage.read(&path).into(),
        // A Rust storage reads its head with the first `read_at`.
        Io::Open { root, path, .. } => files.opened(storage.open(&root, &path)),
        Io::ReadAt { file, offset, len } => files.get(file).and_then(|f| storage.read_at(f, offset, len)).into(),
        Io::MakeDirs { root, path } => {
            files.close_all();
            storage.make_dirs(&root, &path).into()
        }
        Io::Write { root, path, bytes } => {
            files.close_all();
            storage.write(&root, &path, &bytes).into()
        }
        Io::Approve { change } => Answer::Approved(host.approve(&change)),
        // Blocks this thread until the other write to the path has ended.
        Io::Wait { turn, .. } => {
            turn.wait();
            Answer::Done
        }
        Io::WriteDocument { path, text } => Answer::Document(host.write_document(&path, &text)),
        Io::Close { file } => {
            files.close(file);
            Answer::Done
        }
        Io::List { root, path, kinds: false } => storage.list(&root, &path).into(),
        Io::List { root, path, kinds: true } => storage.list_kinds(&root, &path).into(),
        Io::Rename { root, from, to } => {
            files.close_all();
            storage.rename(&root, &from, &to).into()
        }
        Io::MakeDir { root, path } => storage.make_dir(&root, &path).into(),
        Io::RemoveDir { root, path } => storage.remove_dir(&root, &path).into(),
        Io::Merge { base, current, ours } => merged(&base, &current, &ours),
    }
}

/// The answer to [`Io::Merge`], which only a build without the `merge` feature asks. A Rust
/// host of such a build has no merge module to answer with: the write fails saying so, rather
/// than as edits that overlap.
fn merged(base: &str, current: &str, ours: &str) -> Answer {
    #[cfg(feature = "merge")]
    return Answer::Merged(crate::merge::merge(base, current, ours));
    #[cfg(not(feature = "merge"))]
    {
        let _ = (base, current, ours);
        Answer::Err(StorageError::new(StorageErrorKind::Unsupported, NO_MERGE))
    }
}

/// Why a build without the `merge` feature cannot merge in Rust.
#[cfg(not(feature = "merge"))]
const NO_MERGE: &str = "this build of acp-fs has no three-way merge: cargo feature `merge` is off";

/// Runs `op` to completion against a synchronous storage.
pub fn run<S: Storage>(mut op: Operation, storage: &S, host: &impl Host) -> Outcome {
    let clock = Clock::start();
    let mut files = OpenFiles::default();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(io) => op.resume(perform(storage, host, &mut files, io)),
            Step::Done(outcome) => return clock.stamp(*outcome),
        }
    }
}

/// Runs `op` to completion against an async storage (no `Send` needed: wasm-friendly).
pub async fn run_async<S: AsyncStorage>(mut op: Operation, storage: &S, host: &impl AsyncHost) -> Outcome {
    let clock = Clock::start();
    let mut files = OpenFiles::default();
    let mut step = op.start();
    loop {
        step = match step {
            Step::Io(io) => {
                let answer = match io {
                    Io::Stat { path, follow } => storage.stat(&path, follow).await.into(),
                    Io::RealPath { path } => storage.real_path(&path).await.into(),
                    Io::ReadAll { path } => storage.read(&path).await.into(),
                    Io::Open { root, path, .. } => files.opened(storage.open(&root, &path).await),
                    Io::ReadAt { file, offset, len } => match files.get(file) {
                        Ok(f) => storage.read_at(f, offset, len).await.into(),
                        Err(e) => Answer::Err(e),
                    },
                    Io::MakeDirs { root, path } => {
                        files.close_all();
                        storage.make_dirs(&root, &path).await.into()
                    }
                    Io::Write { root, path, bytes } => {
                        files.close_all();
                        storage.write(&root, &path, &bytes).await.into()
                    }
                    Io::Approve { change } => Answer::Approved(host.approve(&change).await),
                    Io::Wait { turn, .. } => {
                        turn.ready().await;
                        Answer::Done
                    }
                    Io::WriteDocument { path, text } => Answer::Document(host.write_document(&path, &text).await),
                    Io::Close { file } => {
                        files.close(file);
                        Answer::Done
                    }
                    Io::List { root, path, kinds: false } => storage.list(&root, &path).await.into(),
                    Io::List { root, path, kinds: true } => storage.list_kinds(&root, &path).await.into(),
                    Io::Rename { root, from, to } => {
                        files.close_all();
                        storage.rename(&root, &from, &to).await.into()
                    }
                    Io::MakeDir { root, path } => storage.make_dir(&root, &path).await.into(),
                    Io::RemoveDir { root, path } => storage.remove_dir(&root, &path).await.into(),
                    Io::Merge { base, current, ours } => merged(&base, &current, &ours),
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
