//! # acp-fs
//!
//! The Agent Client Protocol file-system methods, `fs/read_text_file` and
//! `fs/write_text_file`, done right once for every editor: request validation, sessions and
//! roots, paths, decoding, line windows, write safety, approvals, change records and errors.
//!
//! The engine is sans-IO: an [`Operation`] says which I/O it needs next ([`Io`]) and is
//! resumed with the [`Answer`]. The host supplies the storage — a disk ([`DiskStorage`] with
//! the `disk` feature), a virtual file system, editor buffers — and runs the operation with
//! [`run`] or [`run_async`], or by hand.
//!
//! ```
//! use acp_fs::{AcpFs, DefaultHost, MemoryStorage, Options, Storage};
//! use serde_json::json;
//!
//! let storage = MemoryStorage::new();
//! storage.put("/project/src/main.rs", "fn main() {\r\n    hello();\r\n}\r\n");
//! let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
//! fs.open_session("sess-1", "/project", &[]).unwrap();
//!
//! // Windows keep their terminators: the answer is an exact substring.
//! let read = acp_fs::run(
//!     fs.read_text_file(json!({"sessionId": "sess-1", "path": "/project/src/main.rs", "line": 2, "limit": 1})),
//!     &storage, &DefaultHost);
//! assert_eq!(read.result.unwrap().to_json(), json!({"content": "    hello();\r\n"}));
//!
//! // Outside the session's roots: refused with a precise error.
//! let denied = acp_fs::run(
//!     fs.read_text_file(json!({"sessionId": "sess-1", "path": "/etc/passwd"})), &storage, &DefaultHost);
//! assert_eq!(denied.result.unwrap_err().data["errorKind"], "path_outside_roots");
//! ```
#![forbid(unsafe_code)]

pub mod agent;
mod ask;
mod bytes;
mod contain;
mod deny;
#[cfg(feature = "disk")]
mod disk;
mod dispatch;
mod driver;
mod engine;
mod error;
mod file;
pub mod host;
mod index;
mod io;
mod ledger;
pub mod mcp;
mod memory;
mod operation;
mod options;
mod params;
#[doc(hidden)]
pub mod path;
mod protocol;
mod read;
mod record;
mod refuse;
mod state;
mod storage;
mod text;
#[cfg(all(test, feature = "ts"))]
mod typegen;
#[doc(hidden)]
pub mod window;
mod write;

pub use bytes::Bytes;
#[cfg(feature = "disk")]
pub use disk::DiskStorage;
pub use dispatch::{not_served, respond, Call, Dispatch};
pub use driver::{perform, run, run_async, OpenFiles};
pub use engine::AcpFs;
pub use error::{codes, AcpFsError, ErrorKind};
#[doc(hidden)]
pub use file::{FIRST_CHUNK, MAX_CHUNK};
pub use io::{Answer, FileId, Io};
pub use ledger::Turn;
pub use memory::MemoryStorage;
pub use operation::{Operation, Outcome, Step};
pub use options::{LineEndings, OnConflict, Options, PastEnd, DEFAULT_DENY};
pub use protocol::{
    FileSystemCapability, ReadTextFileRequest, ReadTextFileResponse, Response, WriteTextFileRequest,
    WriteTextFileResponse, PROTOCOL_VERSION, READ_TEXT_FILE, WRITE_TEXT_FILE,
};
pub use record::{AuditEvent, ChangeRecord, DocumentWrite};
pub use storage::{
    AsyncHost, AsyncStorage, DefaultHost, FileKind, Host, Metadata, Storage, StorageCaps, StorageError,
    StorageErrorKind, Symlinks,
};
