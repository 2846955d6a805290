//! What one small read costs the engine behind a binding, with no JS around it: a whole 4 KB
//! `fs/read_text_file` through the host protocol (`acp_fs::host`), as the wasm and napi bindings
//! drive it. Params arrive as JSON text (`start_json`), the open is answered with the whole file
//! as its head, so two steps end the request. docs/benchmarks.md compares this with the same
//! read through @acp-fs/wasm in Node and in Chromium (`bench/wasm.mjs`).
//!
//! `cargo bench -p acp-fs --bench host`

use acp_fs::host::{HostAnswer, HostEngine, HostStep};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;

/// About 4 KB of ~80-byte lines, one in ten with non-ASCII characters (bench/wasm-core.mjs's text).
fn text() -> String {
    let mut text = String::new();
    for i in 1.. {
        if text.len() >= 4096 {
            break;
        }
        let line = if i % 10 == 0 {
            format!("{i}: café — ünïcödé «quoted» text to make the decoder work for its living, ok\n")
        } else {
            format!("{i}: const value = compute(input, options); // a line of ordinary source code\n")
        };
        text.push_str(&line);
    }
    text
}

fn small_read(c: &mut Criterion) {
    let text = text();
    let caps = json!({"symlinks": "none", "stat": true, "rangedReads": true, "write": false, "makeDirs": false});
    let engine = HostEngine::new(json!({"roots": ["/p"]}), caps).unwrap();
    let params = r#"{"sessionId":"bench","path":"/p/a.txt"}"#;
    let answer = format!(r#"{{"file":1,"metadata":{{"kind":"file","size":{},"links":1}},"bytes":true}}"#, text.len());
    let read = || {
        let op = engine.start_json("fs/read_text_file", params).expect("an fs method");
        let HostStep::Io { .. } = op.step(None, None) else { panic!("a read opens the file first") };
        let opened = serde_json::from_str::<HostAnswer>(&answer).map_err(|e| e.to_string());
        let HostStep::Done { done } = op.step(Some(opened), Some(text.as_bytes().to_vec())) else {
            panic!("the head holds the whole file")
        };
        (done, op.audit())
    };
    let (done, _) = read();
    assert_eq!(serde_json::to_value(&done.result).unwrap(), json!({"content": text}));
    c.bench_function("host/whole 4 KB read", |b| b.iter(|| black_box(read())));
}

criterion_group!(benches, small_read);
criterion_main!(benches);
