//! What the raw dispatcher costs before any io: one JSON-RPC message classified, its id kept and
//! its params checked into a request (`AcpFs::dispatch`, the path of `handle()` in every host).
//! A small read with `_meta`, and a write of 4 KB of source text with its escapes. Then a whole
//! 4 KB read and that write through `handle()` over a `MemoryStorage`, each reply written.
//!
//! `cargo bench -p acp-fs --bench dispatch`

use acp_fs::{AcpFs, DefaultHost, Dispatch, MemoryStorage, Options, Storage, StorageCaps};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn messages() -> [(&'static str, String); 2] {
    let read = r#"{"jsonrpc":"2.0","id":17,"method":"fs/read_text_file","params":{"sessionId":"sess-1","path":"/project/src/main.rs","line":120,"limit":40,"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}"#;
    let mut content = String::new();
    while content.len() < 4096 {
        content.push_str("\tlet value = compute(\"input\", options); // a line of ordinary source code\n");
    }
    let params = serde_json::json!({"sessionId": "sess-1", "path": "/project/src/main.rs", "content": content});
    let write = format!(r#"{{"jsonrpc":"2.0","id":"w-1","method":"fs/write_text_file","params":{params}}}"#);
    [("small read", read.to_owned()), ("4 KB write", write)]
}

fn dispatch(c: &mut Criterion) {
    let fs =
        AcpFs::new(Options { roots: Some(vec!["/project".into()]), ..Options::default() }, StorageCaps::FULL).unwrap();
    let messages = messages();
    for (name, message) in &messages {
        assert!(matches!(fs.dispatch(message), Dispatch::Call(_)), "{name} is a call");
        c.bench_function(&format!("dispatch/{name}"), |b| b.iter(|| black_box(fs.dispatch(black_box(message)))));
    }
    let storage = MemoryStorage::new();
    let mut text = String::new();
    while text.len() < 4096 {
        text.push_str("\tlet value = compute(\"input\", options); // a line of ordinary source code\n");
    }
    storage.put("/project/a.txt", &text);
    let fs =
        AcpFs::new(Options { roots: Some(vec!["/project".into()]), ..Options::default() }, storage.caps()).unwrap();
    let read =
        r#"{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/project/a.txt"}}"#;
    assert!(fs.handle(&storage, &DefaultHost, read).is_some_and(|r| r.contains("compute")));
    c.bench_function("dispatch/handle a whole 4 KB read", |b| {
        b.iter(|| black_box(fs.handle(&storage, &DefaultHost, black_box(read))))
    });
    // The same content every time: after the first, the write finds it there already.
    let write = messages[1].1.replace("sess-1", "s").replace("src/main.rs", "w.txt");
    assert_eq!(
        fs.handle(&storage, &DefaultHost, &write).as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":"w-1","result":{}}"#)
    );
    c.bench_function("dispatch/handle the 4 KB write", |b| {
        b.iter(|| black_box(fs.handle(&storage, &DefaultHost, black_box(&write))))
    });
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
