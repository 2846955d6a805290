//! Runs every behaviour vector in `tests/vectors/*.json` (format: tests/vectors/README.md)
//! against the engine over `MemoryStorage`, once with ranged reads cut into 7-byte short
//! reads (every chunk boundary case) and once with whole-file reads; both must meet the
//! vector's expectation.

use acp_fs::{
    AcpFs, ChangeRecord, DocumentWrite, Host, MemoryStorage, Options, SessionOptions, Storage, StorageCaps, Symlinks,
};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::PathBuf;

struct Hooks {
    approve: bool,
    document_write: DocumentWrite,
}

impl Host for Hooks {
    fn approve(&self, _: &ChangeRecord) -> bool {
        self.approve
    }
    fn write_document(&self, _: &str, _: &str) -> DocumentWrite {
        self.document_write
    }
}

fn vectors() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let list: Vec<Value> = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not a JSON array of vectors: {e}", file.display()));
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        out.extend(list.into_iter().map(|v| (stem.clone(), v)));
    }
    out
}

fn bytes_of(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Object(o) if o.contains_key("hex") => hex(o["hex"].as_str().unwrap()),
        other => panic!("not file content: {other}"),
    }
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn storage_for(v: &Value, ranged: bool) -> MemoryStorage {
    let traits = v.get("storage").cloned().unwrap_or(json!({}));
    let flag = |k: &str| traits.get(k).and_then(Value::as_bool);
    let mut caps = StorageCaps::FULL;
    caps.ranged_reads = ranged;
    if flag("realpath") == Some(false) {
        caps.symlinks = Symlinks::Unresolvable;
    }
    if flag("symlinks") == Some(false) {
        caps.symlinks = Symlinks::None;
    }
    if flag("write") == Some(false) {
        caps.write = false;
        caps.make_dirs = false;
    }
    if flag("list") == Some(false) {
        caps.list = false;
    }
    let storage = MemoryStorage::with_caps(caps).with_max_read(7);
    let mut links = Vec::new();
    if let Some(files) = v.get("files").and_then(Value::as_object) {
        for (path, content) in files {
            match content {
                Value::Object(o) if o.contains_key("symlink") => storage.symlink(path, o["symlink"].as_str().unwrap()),
                Value::Object(o) if o.contains_key("dir") => storage.mkdir(path),
                Value::Object(o) if o.contains_key("special") => storage.special(path),
                // Vector files are inserted in key order; a link to a file made later is made last.
                Value::Object(o) if o.contains_key("hardlink") => links.push((path, o["hardlink"].as_str().unwrap())),
                c => storage.put(path, bytes_of(c)),
            }
        }
    }
    for (path, existing) in links {
        assert!(storage.hard_link(path, existing), "{path}: hardlink to {existing}, which is not a file");
    }
    storage
}

/// Every key of `want` must deep-equal the same key of `got` (nested objects likewise).
fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, wv)| g.get(k).is_some_and(|gv| subset(wv, gv))),
        _ => want == got,
    }
}

fn check_error(where_: &str, want: &Value, got: &Value, fails: &mut Vec<String>) {
    if want.get("code") != got.get("code") {
        fails.push(format!("{where_}: code: want {} got {got}", want["code"]));
    }
    if let Some(m) = want.get("message") {
        if got.get("message") != Some(m) {
            fails.push(format!("{where_}: message: want {m} got {}", got["message"]));
        }
    }
    if let Some(d) = want.get("data") {
        if !subset(d, got.get("data").unwrap_or(&Value::Null)) {
            fails.push(format!("{where_}: data: want ⊇ {d} got {}", got.get("data").unwrap_or(&Value::Null)));
        }
    }
}

fn run_vector(v: &Value, ranged: bool, fails: &mut Vec<String>) {
    let name = v["name"].as_str().unwrap_or("?");
    let where_ = format!("{name} [{}]", if ranged { "ranged" } else { "whole" });
    let storage = storage_for(v, ranged);
    let options = match Options::from_json(v.get("options").unwrap_or(&Value::Null)) {
        Ok(o) => o,
        Err(e) => return fails.push(format!("{where_}: options rejected: {e}")),
    };
    let fs = match AcpFs::new(options, storage.caps()) {
        Ok(fs) => fs,
        Err(e) => return fails.push(format!("{where_}: engine rejected options: {e}")),
    };
    let sessions = v.get("sessions").cloned().unwrap_or(json!({"s1": {"cwd": "/project"}}));
    for (id, s) in sessions.as_object().expect("sessions is an object") {
        let extra: Vec<String> = s
            .get("additionalDirectories")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|d| d.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        if let Err(e) = fs.open_session_with(id, s["cwd"].as_str().unwrap(), &extra, &session_options(s)) {
            return fails.push(format!("{where_}: open_session failed: {e}"));
        }
    }
    if let Some(docs) = v.get("documents").and_then(Value::as_object) {
        for (path, text) in docs {
            fs.open_document(path, text.as_str().unwrap()).unwrap();
        }
    }
    let hooks = v.get("hooks").cloned().unwrap_or(json!({}));
    let host = Hooks {
        approve: hooks.get("approve").and_then(Value::as_bool).unwrap_or(true),
        document_write: match hooks.get("documentWrite").and_then(Value::as_str) {
            Some("writeThrough") => DocumentWrite::WriteThrough,
            _ => DocumentWrite::Buffer,
        },
    };
    let expect = &v["expect"];

    if let Some(raw) = v.get("raw") {
        let message = raw.as_str().expect("raw is a string");
        let reply = fs.handle(&storage, &host, message);
        let got = match reply.as_deref().map(serde_json::from_str::<Value>) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => return fails.push(format!("{where_}: the reply is not JSON ({e}): {reply:?}")),
            None => None,
        };
        if let Some(want) = expect.get("raw") {
            let got = got.clone().unwrap_or(Value::Null);
            if *want != got {
                fails.push(format!("{where_}: raw reply: want {want} got {got}"));
            }
        }
        if let Some(want) = expect.get("rawError") {
            match got.as_ref().and_then(|g| g.get("error")) {
                Some(err) => {
                    check_error(&where_, want, err, fails);
                    let got_id = got.as_ref().and_then(|g| g.get("id"));
                    if want.get("id").is_some_and(|id| Some(id) != got_id) {
                        fails.push(format!("{where_}: id: want {} got {got_id:?}", want["id"]));
                    }
                }
                None => fails.push(format!("{where_}: want an error reply, got {got:?}")),
            }
        }
    } else if let Some(steps) = v.get("steps").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            let at = format!("{where_} step {i}");
            if let Some(tool) = step.get("tool") {
                let want = step.get("expect").cloned().unwrap_or(json!({}));
                call_tool(&fs, &storage, &host, &sessions, tool, &want, &at, fails);
            } else if step.get("request").is_some() {
                let Some(op) = start(&fs, step, &at, fails) else { return };
                check_outcome(&at, &acp_fs::run(op, &storage, &host), step.get("expect").unwrap_or(&json!({})), fails);
            } else if let Some(edit) = step.get("edit") {
                apply_edit(&fs, &storage, edit);
            } else if let Some(path) = step.get("documentSaved").and_then(Value::as_str) {
                assert!(fs.document_saved(path), "{at}: documentSaved: {path} is not open");
            } else if let Some(reloaded) = step.get("documentReloaded") {
                let (path, text) = (reloaded["path"].as_str().unwrap(), reloaded["text"].as_str().unwrap());
                fs.document_reloaded(path, text).unwrap();
            } else if let Some(session) = step.get("closeSession").and_then(Value::as_str) {
                fs.close_session(session);
            } else if let Some(open) = step.get("openSession") {
                let (id, cwd) = (open["id"].as_str().unwrap(), open["cwd"].as_str().unwrap());
                fs.open_session_with(id, cwd, &[], &session_options(open)).unwrap();
            } else if let Some(group) = step.get("together").and_then(Value::as_array) {
                let mut ops = Vec::new();
                for r in group {
                    let Some(op) = start(&fs, r, &at, fails) else { return };
                    ops.push(op);
                }
                for (j, (outcome, r)) in together(ops, &storage, &host).iter().zip(group).enumerate() {
                    check_outcome(&format!("{at}.{j}"), outcome, r.get("expect").unwrap_or(&json!({})), fails);
                }
            } else {
                panic!("{at}: unknown step {step}");
            }
        }
    } else if let Some(tool) = v.get("tool") {
        call_tool(&fs, &storage, &host, &sessions, tool, expect, &where_, fails);
    } else {
        let Some(op) = start(&fs, v, &where_, fails) else { return };
        check_outcome(&where_, &acp_fs::run(op, &storage, &host), expect, fails);
    }

    if let Some(files) = expect.get("files").and_then(Value::as_object) {
        for (path, want) in files {
            let want = bytes_of(want);
            match storage.get(path) {
                Some(got) if got == want => {}
                got => fails.push(format!(
                    "{where_}: file {path}: want {:?} got {:?}",
                    String::from_utf8_lossy(&want),
                    got.map(|g| String::from_utf8_lossy(&g).into_owned())
                )),
            }
        }
    }
    if let Some(absent) = expect.get("absent").and_then(Value::as_array) {
        for path in absent {
            let path = path.as_str().unwrap();
            if storage.exists(path) {
                fails.push(format!("{where_}: {path} must not exist"));
            }
        }
    }
    if let Some(want) = expect.get("capabilities") {
        let got = serde_json::to_value(fs.capabilities()).unwrap();
        if *want != got {
            fails.push(format!("{where_}: capabilities: want {want} got {got}"));
        }
    }
    if let Some(docs) = expect.get("documents").and_then(Value::as_object) {
        for (path, want) in docs {
            let got = fs.document(path).map(Value::String).unwrap_or(Value::Null);
            if *want != got {
                fails.push(format!("{where_}: document {path}: want {want} got {got}"));
            }
        }
    }
}

fn first_session(sessions: &Value) -> String {
    sessions.as_object().and_then(|s| s.keys().next().cloned()).unwrap_or_else(|| "s1".into())
}

/// A `tool` vector or step: one MCP `tools/call` (tests/vectors/README.md); the tool result is
/// `expect.result` exactly, a protocol error (an unknown tool) `expect.error`, an `isError`
/// result holding every fragment `expect.toolError`; `expect.change` is the call's change record.
#[allow(clippy::too_many_arguments)]
fn call_tool(
    fs: &AcpFs,
    storage: &MemoryStorage,
    host: &Hooks,
    sessions: &Value,
    tool: &Value,
    expect: &Value,
    where_: &str,
    fails: &mut Vec<String>,
) {
    let session = tool.get("session").and_then(Value::as_str).map_or_else(|| first_session(sessions), str::to_owned);
    let server = acp_fs::mcp::McpServer::new(fs.clone(), session);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": tool["name"], "arguments": tool.get("arguments").cloned().unwrap_or(json!({}))}});
    let (reply, change) = match server.dispatch(&message.to_string()) {
        acp_fs::mcp::McpDispatch::Reply(reply) => (reply, None),
        acp_fs::mcp::McpDispatch::Call(call) => {
            let (op, reply) = call.into_parts();
            let outcome = acp_fs::run(op, storage, host);
            (reply.respond(&outcome), outcome.change)
        }
        _ => return fails.push(format!("{where_}: tools/call got no reply")),
    };
    let reply: Value = serde_json::from_str(&reply).expect("the reply is JSON");
    if let Some(fragments) = expect.get("toolError").and_then(Value::as_array) {
        let text = reply.pointer("/result/content/0/text").and_then(Value::as_str).unwrap_or("");
        if reply.pointer("/result/isError") != Some(&Value::Bool(true)) {
            fails.push(format!("{where_}: want an isError result, got {reply}"));
        }
        for f in fragments.iter().filter_map(Value::as_str).filter(|f| !text.contains(f)) {
            fails.push(format!("{where_}: tool error {text:?} lacks {f:?}"));
        }
    } else {
        match (reply.get("result"), expect.get("result"), reply.get("error"), expect.get("error")) {
            (Some(got), Some(want), _, _) if got != want => {
                fails.push(format!("{where_}: result: want {want} got {got}"))
            }
            (Some(_), Some(_), _, _) => {}
            (_, _, Some(got), Some(want)) => check_error(where_, want, got, fails),
            _ => fails.push(format!("{where_}: want {expect} got {reply}")),
        }
    }
    if let Some(want) = expect.get("change") {
        let got = serde_json::to_value(&change).unwrap();
        if *want != got {
            fails.push(format!("{where_}: change: want {want} got {got}"));
        }
    }
}

fn start(fs: &AcpFs, v: &Value, where_: &str, fails: &mut Vec<String>) -> Option<acp_fs::Operation> {
    let request = &v["request"];
    let method = request["method"].as_str().expect("request.method");
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let op = fs.request(method, params);
    if op.is_none() {
        fails.push(format!("{where_}: {method} is not an fs method"));
    }
    op
}

fn check_outcome(where_: &str, outcome: &acp_fs::Outcome, expect: &Value, fails: &mut Vec<String>) {
    match (&outcome.result, expect.get("result"), expect.get("error")) {
        (Ok(r), Some(want), None) => {
            if r.to_json() != *want {
                fails.push(format!("{where_}: result: want {want} got {}", r.to_json()));
            }
        }
        (Err(e), None, Some(want)) => check_error(where_, want, &e.to_json_rpc(), fails),
        (Ok(_), None, None) => {}
        (got, _, _) => fails.push(format!(
            "{where_}: want {} got {}",
            expect.get("result").or(expect.get("error")).unwrap_or(&Value::Null),
            got.as_ref().map(|r| r.to_json()).unwrap_or_else(|e| e.to_json_rpc())
        )),
    }
    if let Some(want) = expect.get("change") {
        let got = serde_json::to_value(&outcome.change).unwrap();
        if *want != got {
            fails.push(format!("{where_}: change: want {want} got {got}"));
        }
    }
    if let Some(want) = expect.get("staleDocument") {
        let got = serde_json::to_value(&outcome.stale_document).unwrap();
        if *want != got {
            fails.push(format!("{where_}: staleDocument: want {want} got {got}"));
        }
    }
}

/// A step's `edit`: files and documents change between requests (a formatter, the user typing).
/// `files` values are contents, or null to delete; `documents` values are texts, or null to close.
fn apply_edit(fs: &AcpFs, storage: &MemoryStorage, edit: &Value) {
    for (path, content) in edit.get("files").and_then(Value::as_object).into_iter().flatten() {
        match content {
            Value::Null => assert!(storage.remove(path), "edit: {path} does not exist"),
            c => storage.put(path, bytes_of(c)),
        }
    }
    for (path, text) in edit.get("documents").and_then(Value::as_object).into_iter().flatten() {
        match text.as_str() {
            Some(text) => fs.open_document(path, text).unwrap(),
            None => fs.close_document(path),
        }
    }
}

/// Runs operations started together, one step of each in turn (a deterministic interleaving of
/// concurrent requests): an operation waiting for its turn on a path is passed over until the
/// turn has come, so what the vector pins is the engine's queue, not this scheduler.
fn together(mut ops: Vec<acp_fs::Operation>, storage: &MemoryStorage, host: &Hooks) -> Vec<acp_fs::Outcome> {
    use acp_fs::{Io, Step};
    let mut files: Vec<acp_fs::OpenFiles<_>> = ops.iter().map(|_| acp_fs::OpenFiles::default()).collect();
    let mut steps: Vec<Option<Step>> = ops.iter_mut().map(|op| Some(op.start())).collect();
    let mut outcomes: Vec<Option<acp_fs::Outcome>> = ops.iter().map(|_| None).collect();
    for _round in 0..100_000 {
        if outcomes.iter().all(Option::is_some) {
            break;
        }
        for i in 0..ops.len() {
            match steps[i].take() {
                None => {}
                Some(Step::Done(outcome)) => outcomes[i] = Some(*outcome),
                Some(Step::Io(Io::Wait { path, turn })) if !turn.is_ready() => {
                    steps[i] = Some(Step::Io(Io::Wait { path, turn }));
                }
                Some(Step::Io(io)) => {
                    steps[i] = Some(ops[i].resume(acp_fs::perform(storage, host, &mut files[i], io)));
                }
            }
        }
    }
    outcomes.into_iter().map(|o| o.expect("operations started together all end")).collect()
}

#[test]
fn every_vector_holds_on_every_storage_variant() {
    let all = vectors();
    assert!(all.len() >= 150, "the contract needs at least 150 vectors, found {}", all.len());
    let mut names = HashSet::new();
    let mut fails = Vec::new();
    for (file, v) in &all {
        let name = v.get("name").and_then(Value::as_str).unwrap_or_else(|| panic!("{file}: vector without a name"));
        assert!(names.insert(name.to_owned()), "duplicate vector name {name}");
        assert!(v.get("rule").and_then(Value::as_str).is_some(), "{name}: no rule");
        let variants: &[bool] = match v.get("storage").and_then(|s| s.get("ranged")).and_then(Value::as_bool) {
            Some(true) => &[true],
            Some(false) => &[false],
            None => &[true, false],
        };
        for &ranged in variants {
            run_vector(v, ranged, &mut fails);
        }
    }
    assert!(fails.is_empty(), "{} of {} vectors failed:\n{}", fails.len(), all.len(), fails.join("\n"));
    eprintln!("{} vectors held on every storage variant", all.len());
}

/// A vector session's options: its keys besides the id and the roots (`agent`).
fn session_options(session: &Value) -> SessionOptions {
    let mut rest = session.as_object().cloned().unwrap_or_default();
    for roots in ["id", "cwd", "additionalDirectories"] {
        rest.remove(roots);
    }
    SessionOptions::from_json(&Value::Object(rest)).expect("a vector's session options are valid")
}
