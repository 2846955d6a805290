//! Read-ahead for the native disk loop: the files a request has said it opens next (a
//! search's next files, in order, across directories: [`ReadAhead`](crate::ask::ReadAhead)) are
//! opened, and their heads read, on worker threads while the engine searches the ones before, so
//! the disk's work and the engine's overlap. The engine is unchanged by it: it still asks for
//! each file with its own `Open`, and gets what an `Open` performed then would have given, only
//! sooner.
//!
//! Every early open is the disk's own ([`DiskStorage::open`]: below the root's handle, no
//! symlink anywhere on the way, the type checked on the open handle), so a path swapped for a
//! symlink is refused early exactly as it would have been later. Only files the engine named
//! are opened, at most [`BATCH`] × [`BATCHES`] ahead of it; what it does not ask for after all
//! (a file it passed, a plan of another root, a search that stopped) is closed unread, and
//! nothing is opened once the run has ended.

use super::DiskStorage;
use crate::ask::ReadAhead;
use crate::bytes::Bytes;
use crate::io::{Answer, Io};
use crate::run::OpenFiles;
use crate::storage::{FileKind, Metadata, Storage, StorageError};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Files handed to a worker at once: one hand-off (and at most one wake-up each way) per batch,
/// not per file, since on a busy machine the wake-ups cost more than the opens.
const BATCH: usize = 16;
/// Batches in flight at most: the workers stay busy, while the files (and heads) held for the
/// engine stay few (`BATCH * BATCHES` open at most).
const BATCHES: usize = 3;

/// What an early open gave: the open's own answer, and the head read with it.
type Early = Result<(Option<File>, Metadata, Option<Bytes>), StorageError>;

/// Files to open early, in order, and where their answers go.
struct Job {
    root: String,
    paths: Vec<String>,
    head: usize,
    reply: SyncSender<Vec<Early>>,
}

/// A batch handed to a worker: the paths not yet taken by the engine and, once received, their
/// answers (one per path, in order).
struct Batch {
    paths: VecDeque<String>,
    early: Receiver<Vec<Early>>,
    received: Option<VecDeque<Early>>,
}

struct Workers {
    queues: Vec<Sender<Job>>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

/// Threads that open ahead: as many as the machine runs at once (the engine mostly waits for
/// them), and no more than a disk usefully serves.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// One disk run's read-ahead: worker threads, started with the run's first plan.
pub(crate) struct Reader {
    disk: DiskStorage,
    workers: Option<Workers>,
    /// Batches handed out so far (the next goes to the next worker).
    handed: usize,
    /// The plan's files not yet handed to a worker.
    planned: VecDeque<String>,
    root: String,
    head: usize,
    sent: VecDeque<Batch>,
    /// No worker could be started: plans are ignored.
    failed: bool,
}

impl Reader {
    /// A read-ahead over `disk` (the run's own, so the root handles it keeps are shared).
    pub(crate) fn new(disk: &DiskStorage) -> Reader {
        Reader {
            disk: disk.clone(),
            workers: None,
            handed: 0,
            planned: VecDeque::new(),
            root: String::new(),
            head: 0,
            sent: VecDeque::new(),
            failed: false,
        }
    }

    /// Follows a plan: its files come after those planned before, which the search still opens
    /// first. A plan of another root or head starts over: what the last one opened and the
    /// engine has not taken is closed.
    pub(crate) fn plan(&mut self, plan: ReadAhead) {
        if self.failed {
            return;
        }
        if plan.root != self.root || plan.head != self.head {
            self.sent.clear();
            self.planned.clear();
            self.root = plan.root;
            self.head = plan.head;
        }
        self.planned.extend(plan.paths);
        self.top_up();
    }

    /// The answer to `io` from the read-ahead: an `Open` of the plan's next file (or a later
    /// one: those before it are closed unread), its file numbered among `files`; `None` for any
    /// other io, which the disk performs as usual.
    pub(crate) fn answer(&mut self, io: &Io, files: &mut OpenFiles<File>) -> Option<Answer> {
        let Io::Open { root, path, head } = io else { return None };
        if *root != self.root || self.head > *head {
            return None;
        }
        let (b, at) = self
            .sent
            .iter()
            .enumerate()
            .find_map(|(b, batch)| Some((b, batch.paths.iter().position(|p| p == path)?)))?;
        self.sent.drain(..b);
        let batch = self.sent.front_mut()?;
        if batch.received.is_none() {
            // A worker that went away (it cannot, short of a panic) leaves the opens to the disk.
            let Ok(early) = batch.early.recv() else {
                self.sent.clear();
                return None;
            };
            batch.received = Some(early.into());
        }
        let received = batch.received.as_mut()?;
        batch.paths.drain(..=at);
        received.drain(..at);
        let early = received.pop_front();
        if batch.paths.is_empty() {
            self.sent.pop_front();
        }
        self.top_up();
        let (file, meta, head) = match early? {
            Ok(opened) => opened,
            Err(e) => return Some(Answer::Err(e)),
        };
        Some(match files.opened(Ok((file, meta))) {
            Answer::Opened { file, meta, .. } => Answer::Opened { file, meta, head },
            other => other,
        })
    }

    /// Hands the workers the plan's next files, up to [`BATCHES`] batches ahead.
    fn top_up(&mut self) {
        while self.sent.len() < BATCHES && !self.planned.is_empty() {
            let n = self.planned.len().min(BATCH);
            let paths: Vec<String> = self.planned.drain(..n).collect();
            let (reply, early) = sync_channel(1);
            let job = Job { root: self.root.clone(), paths: paths.clone(), head: self.head, reply };
            let Some(queue) = self.queue() else { return };
            if queue.send(job).is_err() {
                return;
            }
            self.sent.push_back(Batch { paths: paths.into(), early, received: None });
        }
    }

    /// The next worker's queue (in turn, so batches spread over the workers), the workers
    /// started if they were not yet.
    fn queue(&mut self) -> Option<&Sender<Job>> {
        if self.workers.is_none() && !self.failed {
            let stop = Arc::new(AtomicBool::new(false));
            let (mut queues, mut threads) = (Vec::new(), Vec::new());
            for _ in 0..workers() {
                let (queue, jobs) = channel::<Job>();
                let (disk, stopped) = (self.disk.clone(), stop.clone());
                let spawned = std::thread::Builder::new()
                    .name("acp-fs read-ahead".into())
                    .spawn(move || work(&disk, &jobs, &stopped));
                match spawned {
                    Ok(thread) => {
                        threads.push(thread);
                        queues.push(queue);
                    }
                    Err(_) => break,
                }
            }
            match threads.is_empty() {
                true => self.failed = true,
                false => self.workers = Some(Workers { queues, stop, threads }),
            }
        }
        let workers = self.workers.as_ref()?;
        self.handed += 1;
        workers.queues.get(self.handed % workers.queues.len())
    }
}

impl Drop for Reader {
    /// The run is over: the workers open nothing more, and are waited for (at most the open
    /// each is doing), so no read of this run outlives it.
    fn drop(&mut self) {
        self.sent.clear();
        if let Some(workers) = self.workers.take() {
            workers.stop.store(true, Ordering::SeqCst);
            drop(workers.queues);
            for thread in workers.threads {
                let _ = thread.join();
            }
        }
    }
}

/// A worker: each job's opens, and their heads, until the run stops it.
fn work(disk: &DiskStorage, jobs: &Receiver<Job>, stop: &AtomicBool) {
    while let Ok(job) = jobs.recv() {
        let mut early = Vec::with_capacity(job.paths.len());
        for path in &job.paths {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            early.push(open(disk, &job.root, path, job.head));
        }
        // The engine may have given up on them (a new plan, a search that stopped): then
        // they are closed here.
        let _ = job.reply.send(early);
    }
}

/// The open the engine will ask for, with the head it will ask for read at once: what the
/// `Open` performed later would answer.
fn open(disk: &DiskStorage, root: &str, path: &str, head: usize) -> Early {
    let (file, meta) = disk.open(root, path)?;
    let head = match &file {
        // The head is a courtesy: a failed read leaves the engine to read the file itself.
        Some(f) if head > 0 && meta.kind == FileKind::File => read_head(f, head, meta.size),
        _ => None,
    };
    Ok((file, meta, head))
}

/// Up to `head` bytes from the start of a file just opened (its offset is 0; the engine's own
/// reads are positioned, so moving it changes nothing for them), no more than the open found in
/// it: the engine takes that size as the file's end. Read into spare capacity, which
/// `read_to_end` fills without zeroing it first, and with no read past what is wanted.
fn read_head(file: &File, head: usize, size: u64) -> Option<Bytes> {
    // Size 0 is not trusted (procfs-like files report 0 and still have content).
    let want = if size > 0 { head.min(usize::try_from(size).unwrap_or(usize::MAX)) } else { head };
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(want).ok()?;
    file.take(want as u64).read_to_end(&mut bytes).ok()?;
    Some(bytes.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().to_str().unwrap().to_owned();
        for (name, text) in [("a.txt", "aaa\n"), ("b.txt", "bbb\n"), ("c.txt", "ccc\n")] {
            std::fs::write(format!("{root}/{name}"), text).unwrap();
        }
        (dir, root)
    }

    fn open_io(root: &str, name: &str) -> Io {
        Io::Open { root: root.to_owned(), path: format!("{root}/{name}"), head: 16 }
    }

    fn plan(root: &str, names: &[&str]) -> ReadAhead {
        ReadAhead { root: root.to_owned(), paths: names.iter().map(|n| format!("{root}/{n}")).collect(), head: 16 }
    }

    #[test]
    fn planned_opens_come_early_with_their_heads_and_others_are_the_disks() {
        let (_dir, root) = tree();
        let disk = DiskStorage::for_run();
        let mut reader = Reader::new(&disk);
        let mut files = OpenFiles::default();
        // No plan yet: every open is the disk's.
        assert!(reader.answer(&open_io(&root, "a.txt"), &mut files).is_none());
        reader.plan(plan(&root, &["a.txt", "b.txt", "c.txt"]));
        let Some(Answer::Opened { file: Some(_), meta, head: Some(head) }) =
            reader.answer(&open_io(&root, "a.txt"), &mut files)
        else {
            panic!("a planned open comes with its head")
        };
        assert_eq!((meta.size, &head[..]), (4, &b"aaa\n"[..]));
        // Skipping b.txt closes it unread; c.txt still comes early.
        let Some(Answer::Opened { head: Some(head), .. }) = reader.answer(&open_io(&root, "c.txt"), &mut files) else {
            panic!("a later planned open comes early too")
        };
        assert_eq!(&head[..], &b"ccc\n"[..]);
        // b.txt was passed: its open is the disk's again, as is anything else.
        assert!(reader.answer(&open_io(&root, "b.txt"), &mut files).is_none());
        assert!(reader.answer(&Io::Close { file: 0 }, &mut files).is_none());
    }

    /// A search plans as its walk goes: a later plan's files come after the earlier one's,
    /// which still come early.
    #[test]
    fn a_later_plan_of_the_same_root_adds_to_the_earlier() {
        let (_dir, root) = tree();
        let disk = DiskStorage::for_run();
        let mut reader = Reader::new(&disk);
        let mut files = OpenFiles::default();
        reader.plan(plan(&root, &["a.txt"]));
        reader.plan(plan(&root, &["b.txt", "c.txt"]));
        for (name, text) in [("a.txt", &b"aaa\n"[..]), ("b.txt", b"bbb\n"), ("c.txt", b"ccc\n")] {
            let Some(Answer::Opened { head: Some(head), .. }) = reader.answer(&open_io(&root, name), &mut files) else {
                panic!("{name} comes early")
            };
            assert_eq!(&head[..], text);
        }
    }

    #[test]
    fn an_open_asking_for_a_shorter_head_or_another_root_is_the_disks() {
        let (_dir, root) = tree();
        let disk = DiskStorage::for_run();
        let mut reader = Reader::new(&disk);
        let mut files = OpenFiles::default();
        reader.plan(plan(&root, &["a.txt"]));
        let short = Io::Open { root: root.clone(), path: format!("{root}/a.txt"), head: 2 };
        assert!(reader.answer(&short, &mut files).is_none(), "a head longer than asked is a wrong answer");
        let elsewhere = Io::Open { root: "/".to_owned(), path: format!("{root}/a.txt"), head: 16 };
        assert!(reader.answer(&elsewhere, &mut files).is_none());
    }

    /// An early open is the disk's own: a directory on the way swapped for a symlink after the
    /// plan was made is refused as the engine's own open would refuse it, never followed.
    #[cfg(unix)]
    #[test]
    fn an_early_open_through_a_swapped_symlink_is_refused() {
        let (dir, root) = tree();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        let disk = DiskStorage::for_run();
        let mut reader = Reader::new(&disk);
        let mut files = OpenFiles::default();
        reader.plan(plan(&root, &["sub/secret.txt"]));
        match reader.answer(&open_io(&root, "sub/secret.txt"), &mut files) {
            Some(Answer::Err(e)) => assert_eq!(e.kind, crate::storage::StorageErrorKind::SymlinkEscape, "{e:?}"),
            other => panic!("refused, not followed: {other:?}"),
        }
    }
}
