//! The shared tool-argument cases (tests/vectors/tools/tool-arguments.json), also run by both
//! npm packages: a model's arguments are judged by the client's own rules.

use acp_fs::agent;
use serde_json::Value;
use std::path::PathBuf;

/// JSON equality where numbers compare by value (`3.0` is `3`, as in JS).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, wv)| g.get(k).is_some_and(|gv| subset(wv, gv))),
        _ => same(want, got),
    }
}

#[test]
fn every_tool_argument_case_holds() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/tools/tool-arguments.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let session = file["sessionId"].as_str().unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 30, "expected the shared cases, found {}", cases.len());
    let mut fails = Vec::new();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let got = agent::check_tool_arguments(c["tool"].as_str().unwrap(), session, &c["arguments"]);
        let want = &c["expect"];
        match (got, want.get("error")) {
            (Ok((method, params)), None) => {
                if method != want["method"] || !same(&params, &want["params"]) {
                    fails.push(format!("{name}: want {} {} got {method} {params}", want["method"], want["params"]));
                }
            }
            (Err(e), Some(err)) => {
                let json = e.to_json_rpc();
                if json["code"] != err["code"] || !err.get("data").is_none_or(|d| subset(d, &json["data"])) {
                    fails.push(format!("{name}: want error {err} got {json}"));
                }
            }
            (got, _) => fails.push(format!("{name}: want {want} got {:?}", got.map_err(|e| e.to_json_rpc()))),
        }
    }
    assert!(fails.is_empty(), "{} of {} cases failed:\n{}", fails.len(), cases.len(), fails.join("\n"));
}
