//! acp-fs wire types against the official ACP schema crate (`agent-client-protocol-schema`):
//! what acp-fs sends, an SDK-based agent must read with the same values, and the other way
//! round.

use acp_fs::{
    AcpFs, DefaultHost, FileSystemCapability, MemoryStorage, Options, ReadTextFileRequest, ReadTextFileResponse,
    Storage, StorageCaps, WriteTextFileRequest, WriteTextFileResponse, PROTOCOL_VERSION, READ_TEXT_FILE,
    WRITE_TEXT_FILE,
};
use agent_client_protocol_schema::v1 as acp;
use agent_client_protocol_schema::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Serializes with one crate and reads with the other, through JSON text as on the wire.
fn convert<A: Serialize, B: DeserializeOwned>(value: &A) -> B {
    let text = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text} is not accepted: {e}"))
}

fn meta() -> Map<String, Value> {
    let Value::Object(m) = json!({
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "vendor.example/nested": {"list": [1, "two", null], "flag": true}
    }) else {
        unreachable!()
    };
    m
}

#[test]
fn method_names_and_protocol_version_match_the_schema() {
    assert_eq!(READ_TEXT_FILE, acp::CLIENT_METHOD_NAMES.fs_read_text_file);
    assert_eq!(WRITE_TEXT_FILE, acp::CLIENT_METHOD_NAMES.fs_write_text_file);
    assert_eq!(PROTOCOL_VERSION, ProtocolVersion::V1.as_u16());
}

#[test]
fn read_request_round_trips() {
    let ours = ReadTextFileRequest {
        session_id: "sess-1".into(),
        path: "/project/src/main.rs".into(),
        line: Some(7),
        limit: Some(3),
        meta: Some(meta()),
    };
    let theirs: acp::ReadTextFileRequest = convert(&ours);
    assert_eq!(&*theirs.session_id.0, "sess-1");
    assert_eq!(theirs.path, PathBuf::from("/project/src/main.rs"));
    assert_eq!((theirs.line, theirs.limit), (Some(7), Some(3)));
    assert_eq!(theirs.meta, Some(meta()));
    let back: ReadTextFileRequest = convert(&theirs);
    assert_eq!(back, ours);

    // Optional fields left out on one side are left out on the other, not turned into 0.
    let minimal = ReadTextFileRequest { session_id: "s".into(), path: "/p/a".into(), ..Default::default() };
    let theirs: acp::ReadTextFileRequest = convert(&minimal);
    assert_eq!(theirs, acp::ReadTextFileRequest::new("s", "/p/a"));
    let back: ReadTextFileRequest = convert(&acp::ReadTextFileRequest::new("s", "/p/a"));
    assert_eq!(back, minimal);

    let theirs = acp::ReadTextFileRequest::new("s2", "C:\\work\\x.txt").line(1).limit(u32::MAX).meta(meta());
    let ours: ReadTextFileRequest = convert(&theirs);
    assert_eq!(ours.session_id, "s2");
    assert_eq!(ours.path, "C:\\work\\x.txt");
    assert_eq!((ours.line, ours.limit), (Some(1), Some(u32::MAX)));
    assert_eq!(ours.meta, Some(meta()));
}

#[test]
fn write_request_round_trips() {
    let content = "line one\r\nünïcödé \u{1F600}\n\ttab \"quoted\" \\ back\n";
    let ours = WriteTextFileRequest {
        session_id: "sess-1".into(),
        path: "/project/new/file.txt".into(),
        content: content.into(),
        meta: Some(meta()),
    };
    let theirs: acp::WriteTextFileRequest = convert(&ours);
    assert_eq!(&*theirs.session_id.0, "sess-1");
    assert_eq!(theirs.path, PathBuf::from("/project/new/file.txt"));
    assert_eq!(theirs.content, content);
    assert_eq!(theirs.meta, Some(meta()));
    let back: WriteTextFileRequest = convert(&theirs);
    assert_eq!(back, ours);

    let theirs = acp::WriteTextFileRequest::new("s", "/p/empty.txt", "");
    let ours: WriteTextFileRequest = convert(&theirs);
    assert_eq!(
        ours,
        WriteTextFileRequest { session_id: "s".into(), path: "/p/empty.txt".into(), ..Default::default() }
    );
    assert_eq!(convert::<_, acp::WriteTextFileRequest>(&ours), theirs);
}

#[test]
fn read_response_round_trips() {
    let ours = ReadTextFileResponse { content: "a\r\nb\n".into(), meta: None };
    let theirs: acp::ReadTextFileResponse = convert(&ours);
    assert_eq!(theirs, acp::ReadTextFileResponse::new("a\r\nb\n"));
    assert_eq!(convert::<_, ReadTextFileResponse>(&theirs), ours);

    let ours = ReadTextFileResponse { content: String::new(), meta: Some(meta()) };
    let theirs: acp::ReadTextFileResponse = convert(&ours);
    assert_eq!(theirs.content, "");
    assert_eq!(theirs.meta, Some(meta()));
    assert_eq!(convert::<_, ReadTextFileResponse>(&theirs), ours);
}

#[test]
fn write_response_is_an_empty_object_both_ways() {
    let ours = WriteTextFileResponse::default();
    assert_eq!(serde_json::to_string(&ours).unwrap(), "{}");
    let theirs: acp::WriteTextFileResponse = convert(&ours);
    assert_eq!(theirs, acp::WriteTextFileResponse::new());

    let theirs_text = serde_json::to_string(&acp::WriteTextFileResponse::new()).unwrap();
    let back: WriteTextFileResponse = serde_json::from_str(&theirs_text).unwrap();
    assert_eq!(back, ours);

    let with_meta = WriteTextFileResponse { meta: Some(meta()) };
    let theirs: acp::WriteTextFileResponse = convert(&with_meta);
    assert_eq!(theirs.meta, Some(meta()));
    assert_eq!(convert::<_, WriteTextFileResponse>(&theirs), with_meta);
}

#[test]
fn capabilities_fit_client_capabilities_fs() {
    for (read, write) in [(true, true), (true, false), (false, false)] {
        let ours = FileSystemCapability { read_text_file: read, write_text_file: write };
        let init = json!({ "fs": ours });
        let theirs: acp::ClientCapabilities = serde_json::from_value(init.clone()).unwrap();
        assert_eq!(theirs.fs, acp::FileSystemCapabilities::new().read_text_file(read).write_text_file(write));
        let back = serde_json::to_value(&theirs).unwrap();
        let back: FileSystemCapability = serde_json::from_value(back["fs"].clone()).unwrap();
        assert_eq!(back, ours);
    }

    // What the engine advertises is what an agent reads.
    let full = AcpFs::new(Options::default(), StorageCaps::FULL).unwrap().capabilities();
    let theirs: acp::FileSystemCapabilities = convert(&full);
    assert!(theirs.read_text_file && theirs.write_text_file);
    let read_only = AcpFs::new(Options { read_only: true, ..Options::default() }, StorageCaps::FULL).unwrap();
    let theirs: acp::FileSystemCapabilities = convert(&read_only.capabilities());
    assert!(theirs.read_text_file && !theirs.write_text_file);
    let minimal = AcpFs::new(Options::default(), StorageCaps::READ_ONLY_MINIMAL).unwrap();
    let theirs: acp::FileSystemCapabilities = convert(&minimal.capabilities());
    assert!(theirs.read_text_file && !theirs.write_text_file);
}

fn engine() -> (AcpFs, MemoryStorage) {
    let storage = MemoryStorage::new();
    storage.put("/project/src/main.rs", "fn main() {\r\n    hello();\r\n}\r\n");
    let fs = AcpFs::new(Options::default(), storage.caps()).unwrap();
    fs.open_session("sess-1", "/project", &[]).unwrap();
    (fs, storage)
}

#[test]
fn engine_read_response_is_a_schema_read_response() {
    let (fs, storage) = engine();
    let request = acp::ReadTextFileRequest::new("sess-1", "/project/src/main.rs").line(2).limit(1);
    let params = serde_json::to_value(&request).unwrap();
    let outcome = acp_fs::run(fs.read_text_file(params), &storage, &DefaultHost);
    let result = outcome.result.expect("read succeeds").to_json();
    let theirs: acp::ReadTextFileResponse = serde_json::from_value(result).unwrap();
    assert_eq!(theirs, acp::ReadTextFileResponse::new("    hello();\r\n"));
}

#[test]
fn engine_json_rpc_replies_are_schema_responses() {
    let (fs, storage) = engine();
    // Requests built by the SDK types, framed as the SDK frames them.
    let read = acp::Request {
        id: acp::RequestId::Str("r-1".into()),
        method: acp::CLIENT_METHOD_NAMES.fs_read_text_file.into(),
        params: Some(acp::ReadTextFileRequest::new("sess-1", "/project/src/main.rs").line(3)),
    };
    let message = serde_json::to_string(&acp::JsonRpcMessage::wrap(read)).unwrap();
    let reply = fs.handle(&storage, &DefaultHost, &message).expect("an fs request is answered");
    let reply: acp::JsonRpcMessage<acp::Response<acp::ReadTextFileResponse>> =
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{reply}: {e}"));
    assert_eq!(
        reply.into_inner(),
        acp::Response::Result {
            id: acp::RequestId::Str("r-1".into()),
            result: acp::ReadTextFileResponse::new("}\r\n")
        }
    );

    let write = acp::Request {
        id: acp::RequestId::Number(9),
        method: acp::CLIENT_METHOD_NAMES.fs_write_text_file.into(),
        params: Some(acp::WriteTextFileRequest::new("sess-1", "/project/out/new.txt", "hi\n")),
    };
    let message = serde_json::to_string(&acp::JsonRpcMessage::wrap(write)).unwrap();
    let reply = fs.handle(&storage, &DefaultHost, &message).unwrap();
    let reply: acp::JsonRpcMessage<acp::Response<acp::WriteTextFileResponse>> =
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{reply}: {e}"));
    assert_eq!(
        reply.into_inner(),
        acp::Response::Result { id: acp::RequestId::Number(9), result: acp::WriteTextFileResponse::new() }
    );
    assert_eq!(storage.get("/project/out/new.txt").unwrap(), b"hi\n");
}

#[test]
fn engine_errors_are_schema_errors() {
    let (fs, storage) = engine();
    let call = |id: i64, path: &str| {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": READ_TEXT_FILE,
                             "params": {"sessionId": "sess-1", "path": path}});
        let reply = fs.handle(&storage, &DefaultHost, &message.to_string()).unwrap();
        match serde_json::from_str::<acp::Response<acp::ReadTextFileResponse>>(&reply) {
            Ok(acp::Response::Error { id: acp::RequestId::Number(n), error }) if n == id => error,
            other => panic!("{reply} read as {other:?}"),
        }
    };
    let missing = call(1, "/project/missing.rs");
    assert_eq!(missing.code, acp::ErrorCode::ResourceNotFound);
    // The SDK's own resource_not_found carries the path the same way.
    let sdk = acp::Error::resource_not_found(Some("/project/missing.rs".into()));
    assert_eq!(missing.data, sdk.data);
    assert_eq!(missing.message, "Resource not found: /project/missing.rs");

    let outside = call(2, "/etc/passwd");
    assert_eq!(outside.code, acp::ErrorCode::InternalError);
    assert_eq!(outside.data.unwrap()["errorKind"], "path_outside_roots");

    let relative = call(3, "src/main.rs");
    assert_eq!(relative.code, acp::ErrorCode::InvalidParams);
    assert_eq!(relative.data.unwrap()["field"], "path");
}
