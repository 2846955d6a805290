//! `npm/types/api.d.ts`, the TypeScript of the public API's values that Rust defines (engine
//! options, request params, the capability types), generated with ts-rs so the declarations the
//! JS packages ship cannot drift from what the engine accepts. This test fails when the file is
//! stale; `ACP_FS_BLESS=1 cargo test -p acp-fs --all-features typegen` rewrites it.
//!
//! Types `npm/types/host.d.ts` (the binding protocol, generated from `host`) already declares
//! are re-exported from there rather than declared twice.

use crate::options::{KnownAgent, Options, SessionOptions};
use crate::protocol::{ReadTextFileRequest, WriteTextFileRequest};
use ts_rs::{Config, TS};

/// What `api.d.ts` takes from `host.d.ts`: the public values the binding protocol also carries.
const FROM_HOST: [&str; 5] =
    ["FileSystemCapability", "ReadTextFileResponse", "StorageCaps", "Symlinks", "WriteTextFileResponse"];

/// A declaration with its type's doc comment, as ts-rs's own export writes it.
fn declare<T: TS>(cfg: &Config) -> String {
    format!("\n{}export {}\n", T::docs().unwrap_or_default(), T::decl(cfg))
}

fn generate() -> String {
    // Byte counts are u64 in Rust and plain numbers in JS (napi and wasm take either).
    let cfg = Config::new().with_large_int("number");
    let mut out = format!(
        "// Generated from the Rust types (ts-rs) by core/src/typegen.rs: do not edit.\n\
         // Regenerate: ACP_FS_BLESS=1 cargo test -p acp-fs --all-features typegen\n\n\
         export type {{ {} }} from './host.js';\n",
        FROM_HOST.join(", ")
    );
    out.push_str(&declare::<Options>(&cfg));
    out.push_str(&declare::<SessionOptions>(&cfg));
    out.push_str(&declare::<KnownAgent>(&cfg));
    out.push_str(&declare::<ReadTextFileRequest>(&cfg));
    out.push_str(&declare::<WriteTextFileRequest>(&cfg));
    out
}

/// Fails when the generated file `npm/types/<name>` differs from `want`; with `ACP_FS_BLESS`
/// set it rewrites the file first. `filter` names the test for the message's command.
pub(crate) fn assert_current(name: &str, want: &str, filter: &str) {
    let path = format!("{}/../npm/types/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("ACP_FS_BLESS").is_some() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "npm/types/{name} is stale: run ACP_FS_BLESS=1 cargo test -p acp-fs --all-features {filter}");
}

#[test]
fn api_types_are_current() {
    assert_current("api.d.ts", &generate(), "typegen");
}

#[test]
fn what_api_takes_from_host_is_declared_there() {
    // A type host.d.ts stopped declaring would leave api.d.ts re-exporting nothing.
    let host = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../npm/types/host.d.ts")).unwrap();
    for name in FROM_HOST {
        assert!(host.contains(&format!("\nexport type {name} = ")), "host.d.ts does not declare {name}");
    }
}
