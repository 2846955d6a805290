//! # acp-fs
//!
//! The Agent Client Protocol file-system methods, `fs/read_text_file` and
//! `fs/write_text_file`, done right once for every editor: request validation, sessions and
//! roots, paths, decoding, line windows, write safety, approvals, change records and errors.
//!
//! The engine is sans-IO: an [`Operation`] says which I/O it needs next ([`Io`]) and is
//! resumed with the [`Answer`]. The host supplies the storage — a disk (`DiskStorage` with
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
// The Windows disk storage needs a handle-relative open that no safe API offers: its system calls
// live in one module (disk/nt.rs), the only place `unsafe` is allowed; everywhere else, and on
// every other platform, it is forbidden.
#![cfg_attr(not(all(windows, feature = "disk")), forbid(unsafe_code))]
#![cfg_attr(all(windows, feature = "disk"), deny(unsafe_code))]
#![warn(missing_docs)]
// `acp_fs_small`, set only by the fs/* wasm builds (scripts/build-wasm.sh), optimizes for size the
// code a small read never runs: the write path, errors, options, sessions and documents
// (`#[cfg_attr(acp_fs_small, optimize(size))]`; docs/toolchain.md#cold-code-optimized-for-size).
#![cfg_attr(acp_fs_small, feature(optimize_attribute))]

// The contract: the ACP wire types, errors, options and what a request leaves behind.
mod error;
mod options;
mod protocol;
mod record;
pub use error::{codes, AcpFsError, ErrorKind};
pub use options::{KnownAgent, LineEndings, OnConflict, Options, PastEnd, SessionOptions, DEFAULT_DENY};
pub use protocol::{
    FileSystemCapability, ReadTextFileRequest, ReadTextFileResponse, Response, WriteTextFileRequest,
    WriteTextFileResponse, PROTOCOL_VERSION, READ_TEXT_FILE, WRITE_TEXT_FILE,
};
pub use record::{AuditEvent, ChangeKind, ChangeRecord, DocumentWrite};

// The engine: sessions and documents, a request as a sans-IO operation, and the loops that run it.
mod engine;
mod io;
mod ledger;
#[cfg(feature = "merge")]
pub mod merge;
mod operation;
mod recency;
mod run;
pub use engine::AcpFs;
pub use io::{Answer, FileId, Io};
pub use ledger::Turn;
pub use operation::{Operation, Outcome, Step};
pub use run::{perform, run, run_async, OpenFiles};

// The engine's rules, one module each (semantics.md); path, window and the chunk sizes are
// public for the benches, fuzz targets and tests only.
mod ask;
mod contain;
mod deny;
mod file;
mod freshness;
mod index;
mod params;
#[doc(hidden)]
pub mod path;
mod read;
mod refuse;
mod settings;
mod state;
mod text;
#[doc(hidden)]
pub mod window;
mod write;
#[doc(hidden)]
pub use file::{FIRST_CHUNK, MAX_CHUNK};

// Storage: what the engine asks of a host, and the storages that come with it.
mod bytes;
#[cfg(feature = "disk")]
mod disk;
mod memory;
mod storage;
pub use bytes::Bytes;
#[cfg(feature = "disk")]
pub use disk::DiskStorage;
pub use memory::MemoryStorage;
pub use storage::{
    AsyncHost, AsyncStorage, DefaultHost, DirEntry, FileKind, Host, Metadata, Storage, StorageCaps, StorageError,
    StorageErrorKind, Symlinks,
};

// Raw JSON-RPC: a message in, the fs requests answered, everything else handed back.
mod dispatch;
mod json_scan;
mod json_text;
pub use dispatch::{
    not_served, parse_message, respond, respond_json, Call, CheckedParams, Dispatch, Parsed, ParsedCall,
};

// The host protocol the Node and wasm bindings speak (docs/binding-interface.md): public for
// them, hidden from an embedder's docs (a Rust host uses the engine above).
#[doc(hidden)]
pub mod host;
// npm/types/api.d.ts: the options, requests and capabilities, generated from these types.
#[cfg(all(test, feature = "ts"))]
mod typegen;

// The agent's side: tool definitions, argument checks and requests for a client's fs methods.
#[cfg(feature = "mcp")]
pub mod agent;

// MCP: the same engine as an MCP tool server, for ACP v2 clients.
#[cfg(feature = "mcp")]
pub mod mcp;
