//! `npm/types/host.d.ts` is generated from the host protocol's types and those they name; this
//! fails when it is stale (`ACP_FS_BLESS=1 cargo test --all-features -p acp-fs host::generated`
//! rewrites it).

use super::agent_side::HostRequest;
use super::*;
use crate::error::ErrorKind;
use crate::io::Io;
use crate::protocol::{FileSystemCapability, Response};
use crate::record::{AuditEvent, ChangeRecord, DocumentWrite};
use crate::storage::{FileKind, Symlinks};
use ts_rs::{Config, TS};

fn generate() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        HostInfo::decl(&cfg),
        HostAnswer::decl(&cfg),
        HostError::decl(&cfg),
        HostMetadata::decl(&cfg),
        super::answer::HostEntry::decl(&cfg),
        HostOutcome::decl(&cfg),
        HostStep::decl(&cfg),
        HostDispatch::decl(&cfg),
        HostRequest::decl(&cfg),
        Io::decl(&cfg),
        AcpFsError::decl(&cfg),
        ErrorKind::decl(&cfg),
        ChangeRecord::decl(&cfg),
        AuditEvent::decl(&cfg),
        DocumentWrite::decl(&cfg),
        FileKind::decl(&cfg),
        StorageCaps::decl(&cfg),
        Symlinks::decl(&cfg),
        Response::decl(&cfg),
        crate::protocol::ReadTextFileResponse::decl(&cfg),
        crate::protocol::WriteTextFileResponse::decl(&cfg),
        FileSystemCapability::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from core/src/host.rs and the types it names (ts-rs): do not edit.\n\
         // Regenerate: ACP_FS_BLESS=1 cargo test -p acp-fs --all-features host::generated\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n",
    );
    for decl in decls {
        out.push_str("\nexport ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

#[test]
fn host_types_are_current() {
    crate::typegen::assert_current("host.d.ts", &generate(), "host::generated");
}
