//! Raw JSON-RPC messages into the dispatcher, over a MemoryStorage with a session open.
//!
//! Input: one message per line (at most 8), dispatched in order against two engines that share
//! nothing: default options through `dispatch` + `run` + `respond`, and every option flipped
//! through `handle`. Checked for every message:
//! - nothing panics;
//! - every answer produced is one valid JSON-RPC 2.0 response: `"jsonrpc": "2.0"`, an `id`
//!   (the request's own when there is one), exactly one of `result` / `error`, and an error
//!   code from the contract's table (semantics.md §6);
//! - no file outside the session's root (`/project`) changes or appears, whatever goes in;
//! - a message is refused as not JSON exactly when serde_json refuses its text, or when it
//!   names an envelope member twice (semantics.md §8.1): the engine reads messages with a
//!   scanner of its own (`core/src/json_scan.rs`), and this holds it to serde_json.
#![no_main]

use acp_fs::{AcpFs, DefaultHost, Dispatch, MemoryStorage, Options, Storage};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const ROOT: &str = "/project";
const CODES: [i64; 7] = [-32700, -32600, -32601, -32602, -32002, -32603, -32800];

fn storage() -> MemoryStorage {
    let m = MemoryStorage::new().with_max_read(7);
    m.put("/project/a.txt", "one\ntwo\nthree\n");
    m.put("/project/crlf.txt", "one\r\ntwo\r\nthree");
    m.put("/project/bom.txt", b"\xEF\xBB\xBFbom\nline\n");
    m.put("/project/utf16le.txt", b"\xFF\xFEa\0\n\0b\0");
    m.put("/project/utf16be.txt", b"\xFE\xFF\0a\0\n\0b");
    m.put("/project/bin.dat", b"PK\x03\x04\0\0");
    m.put("/project/bad.txt", b"ok\n\xC3(\nok\n");
    m.put("/project/lone-cr.txt", "a\rb\r\nc\n");
    m.put("/project/empty.txt", "");
    m.put("/project/.env", "SECRET=1\n");
    m.put("/project/.git/config", "[core]\n");
    m.put("/project/open.txt", "on disk\n");
    m.mkdir("/project/dir");
    m.put("/project/dir/nested.txt", "nested\n");
    m.special("/project/fifo");
    m.symlink("/project/link-in", "a.txt");
    m.symlink("/project/link-out", "/outside/secret.txt");
    m.symlink("/project/dir-out", "/outside");
    m.symlink("/project/dir-up", "../outside/dir");
    m.symlink("/project/dangling", "/outside/missing.txt");
    m.symlink("/project/loop", "loop");
    m.symlink("/project/env-link", ".env");
    m.put("/outside/secret.txt", "secret\n");
    m.put("/outside/dir/inner.txt", "inner\n");
    m.put("/outsider.txt", "sibling of the root\n");
    m.put("/project2/x.txt", "a root-like prefix\n");
    m
}

fn engines() -> [(AcpFs, MemoryStorage); 2] {
    let plain = storage();
    let fs = AcpFs::new(Options::default(), plain.caps()).unwrap();
    fs.open_session("s", ROOT, &[]).unwrap();
    fs.open_document("/project/open.txt", "in the buffer\r\n").unwrap();

    let flipped = storage();
    let options = Options::from_json(&json!({
        "pastEnd": "empty",
        "lenientParams": true,
        "lineEndings": "asIs",
        "createParents": false,
        "deny": false,
        "maxReadBytes": 16,
        "maxWriteBytes": 16,
        "zedCompat": true,
        "roots": ["/project/dir"],
    }))
    .unwrap();
    let fs2 = AcpFs::new(options, flipped.caps()).unwrap();
    fs2.open_session("s", ROOT, &[]).unwrap();
    fs2.open_document("/project/dir-up/inner.txt", "a buffer outside\n").unwrap();
    [(fs, plain), (fs2, flipped)]
}

/// Every file not under the root, with its bytes.
fn outside(m: &MemoryStorage) -> Vec<(String, Vec<u8>)> {
    m.files().into_iter().filter(|(p, _)| !p.starts_with("/project/")).collect()
}

/// One reply must be a JSON-RPC 2.0 response; `id` is the request's raw id when known.
///
/// The id is kept raw: it is echoed byte-for-byte, and a number such as `1e400` is valid JSON
/// that serde_json would refuse to hold as a `Value` (the request had it too).
fn check_reply(message: &str, reply: &str, id: Option<&str>) {
    let members: BTreeMap<String, Box<RawValue>> = serde_json::from_str(reply)
        .unwrap_or_else(|e| panic!("reply is not a JSON object ({e}):\n  message: {message}\n  reply: {reply}"));
    let value = |name: &str| -> Option<Value> {
        members.get(name).map(|raw| {
            serde_json::from_str(raw.get()).unwrap_or_else(|e| panic!("reply's {name} does not parse ({e}): {reply}"))
        })
    };
    assert_eq!(value("jsonrpc"), Some(json!("2.0")), "reply: {reply}");
    let got = members.get("id").unwrap_or_else(|| panic!("reply without id: {reply}")).get();
    let id_ok = matches!(got.as_bytes()[0], b'"' | b'-' | b'0'..=b'9') || got == "null";
    assert!(id_ok, "bad id in reply: {reply}");
    if let Some(id) = id {
        assert_eq!(got, id, "the reply's id is not the request's, byte for byte: {message} -> {reply}");
    }
    match (value("result"), value("error")) {
        (Some(_), None) => {}
        (None, Some(e)) => {
            let code = e["code"].as_i64().unwrap_or_else(|| panic!("error without integer code: {reply}"));
            assert!(CODES.contains(&code), "error code {code} is not in the contract: {message} -> {reply}");
            assert!(e["message"].is_string(), "error without message: {reply}");
        }
        _ => panic!("reply needs exactly one of result/error: {message} -> {reply}"),
    }
    assert_eq!(members.len(), 3, "stray members in reply: {reply}");
}

/// The names of a JSON object's members, in order (repeats kept), as serde_json reads them;
/// `None` for a name with a lone surrogate escape, which no envelope member's name has.
struct Names(Vec<Option<String>>);

impl<'de> serde::Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Names, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
                let mut names = Vec::new();
                while let Some((name, _)) = map.next_entry::<Box<RawValue>, serde::de::IgnoredAny>()? {
                    names.push(serde_json::from_str(name.get()).ok());
                }
                Ok(Names(names))
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether `message` must be refused as not JSON: serde_json refuses its text, or it is an
/// object naming `jsonrpc`, `id`, `method` or `params` twice.
fn not_json(message: &str) -> bool {
    if serde_json::from_str::<&RawValue>(message).is_err() {
        return true;
    }
    let Ok(Names(names)) = serde_json::from_str::<Names>(message) else { return false };
    ["jsonrpc", "id", "method", "params"].iter().any(|n| names.iter().filter(|m| m.as_deref() == Some(*n)).count() > 1)
}

/// Whether `reply` refuses its message as not JSON.
fn refused_as_not_json(reply: &str) -> bool {
    let reply: Value = serde_json::from_str(reply).unwrap_or(Value::Null);
    reply["error"]["data"]["reason"] == "the message is not valid JSON"
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let engines = engines();
    let before: Vec<_> = engines.iter().map(|(_, m)| outside(m)).collect();
    let [(fs, plain), (fs2, flipped)] = &engines;
    for message in text.split('\n').take(8) {
        // The first engine goes through dispatch + run + respond, checking the echoed id.
        let dispatched = fs.dispatch(message);
        let refused = matches!(&dispatched, Dispatch::Reply(reply) if refused_as_not_json(reply));
        // A message with a lone surrogate escape that serde_json takes as raw text is no
        // exception: the engine refuses it for what it is, not as not JSON.
        assert_eq!(refused, not_json(message), "refused as not JSON or not, unlike serde_json: {message:?}");
        match dispatched {
            Dispatch::Reply(reply) => check_reply(message, &reply, None),
            Dispatch::Call(call) => {
                let id = call.id().to_owned();
                let acp_fs::Call { operation, .. } = call;
                let outcome = acp_fs::run(operation, plain, &DefaultHost);
                let reply = acp_fs::respond(&id, outcome.result.map(|r| r.to_json()));
                check_reply(message, &reply, Some(&id));
            }
            Dispatch::NotMine | Dispatch::Cancel(_) => {
                if let Some(reply) = acp_fs::not_served(message) {
                    check_reply(message, &reply, None);
                }
            }
            other => panic!("a dispatch this target does not know: {other:?}"),
        }
        // The second through handle(), the one-call entry a standalone server uses.
        match fs2.handle(flipped, &DefaultHost, message) {
            Some(reply) => check_reply(message, &reply, None),
            None => {
                if let Some(reply) = acp_fs::not_served(message) {
                    check_reply(message, &reply, None);
                }
            }
        }
    }
    for ((_, m), before) in engines.iter().zip(before) {
        assert_eq!(outside(m), before, "a file outside the root changed; input: {text:?}");
        assert!(!m.exists("/outside/missing.txt"), "a dangling link's target was created; input: {text:?}");
    }
});
