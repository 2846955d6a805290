"""dispatch.json (raw JSON-RPC) and order.json (checking order)."""

import json

from vectorlib import (V, read, write, req, ok, err, invalid, policy, not_found, method_off, OK_WRITE,
                       change, hexb, link, DIR, READ, WRITE)

A = "/project/a.txt"
F = {A: "x", "/project/lines.txt": "one\ntwo\nthree\n"}


def msg(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def rq(id_, method, params):
    return msg({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def resp_ok(id_, result):
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def raw_err(code, id_=None, has_id=True, **data):
    """rawError: code and data keys are pinned; "id" (checked by runners when given) when determined."""
    e = {"code": code}
    if has_id:
        e["id"] = id_
    if data:
        e["data"] = data
    return {"rawError": e}


def dispatch():
    v = []
    P = {"sessionId": "s1", "path": A}
    v += [
        V("raw-read-numeric-id", "§8 raw dispatcher echoes a numeric id", ["8.raw-id", "1.methods", "1.read-params"],
          files=F, raw=rq(7, READ, P), expect={"raw": resp_ok(7, {"content": "x"})}),
        V("raw-read-string-id", "§8 raw dispatcher echoes a string id", ["8.raw-id", "1.methods"],
          files=F, raw=rq("req-1", READ, P), expect={"raw": resp_ok("req-1", {"content": "x"})}),
        V("raw-read-id-zero", "§8 raw dispatcher echoes id 0", ["8.raw-id"],
          files=F, raw=rq(0, READ, P), expect={"raw": resp_ok(0, {"content": "x"})}),
        V("raw-read-negative-id", "§8 raw dispatcher echoes a negative id", ["8.raw-id"],
          files=F, raw=rq(-12, READ, P), expect={"raw": resp_ok(-12, {"content": "x"})}),
        V("raw-read-string-id-looks-numeric", "§8 a string id stays a string", ["8.raw-id"],
          files=F, raw=rq("7", READ, P), expect={"raw": resp_ok("7", {"content": "x"})}),
        V("raw-read-empty-string-id", "§8 an empty string id is echoed", ["8.raw-id"],
          files=F, raw=rq("", READ, P), expect={"raw": resp_ok("", {"content": "x"})}),
        V("raw-read-unicode-string-id", "§8 a string id is echoed exactly", ["8.raw-id"],
          files=F, raw=rq("é-✓-\"q\"", READ, P), expect={"raw": resp_ok("é-✓-\"q\"", {"content": "x"})}),
        V("raw-read-fractional-id", "§8 a numeric id is echoed as sent", ["8.raw-id"],
          files=F, raw=rq(1.5, READ, P), expect={"raw": resp_ok(1.5, {"content": "x"})}),
        V("raw-read-large-id", "§8 a numeric id is echoed as sent", ["8.raw-id"],
          files=F, raw=rq(4294967296123, READ, P), expect={"raw": resp_ok(4294967296123, {"content": "x"})}),
        V("raw-read-window", "§2 windows through the raw dispatcher", ["1.surfaces", "2.exact-substring"],
          files=F, raw=rq(3, READ, {"sessionId": "s1", "path": "/project/lines.txt", "line": 2, "limit": 1}),
          expect={"raw": resp_ok(3, {"content": "two\n"})}),
        V("raw-read-float-integral-line", "§8 3.0 accepted as 3 (raw JSON text)", ["8.float-integral"],
          files=F, raw='{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/lines.txt","line":3.0,"limit":1.0}}',
          expect={"raw": resp_ok(4, {"content": "three\n"})}),
        V("raw-read-exponent-line", "§8 an integral JSON float in exponent form is an integer", ["8.float-integral"],
          files=F, raw='{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/lines.txt","line":2e0,"limit":1}}',
          expect={"raw": resp_ok(4, {"content": "two\n"})}),
        V("raw-write-result-empty-object", "§1 write response is {} (never null), also raw", ["1.write-response", "1.methods"],
          files=F, raw=rq(2, WRITE, {"sessionId": "s1", "path": A, "content": "y"}),
          expect={"raw": resp_ok(2, {}), "files": {A: "y"}, "change": change(A, "x", "y")}),
        V("raw-write-string-id", "§8 raw write echoes a string id", ["8.raw-id", "1.write-response"],
          files=F, raw=rq("w-9", WRITE, {"sessionId": "s1", "path": "/project/n.txt", "content": ""}),
          expect={"raw": resp_ok("w-9", {}), "files": {"/project/n.txt": ""}}),
        V("raw-not-found-full-error", "§6 not_found through the raw dispatcher: code, message and data", ["6.not-found", "8.raw-id"],
          files=F, raw=rq(5, READ, {"sessionId": "s1", "path": "/project/missing.txt"}),
          expect={"raw": {"jsonrpc": "2.0", "id": 5, "error": {"code": -32002, "message": "Resource not found: /project/missing.txt",
                                                                 "data": {"uri": "/project/missing.txt"}}}}),
        V("raw-past-end-error", "§2 past-end error through the raw dispatcher", ["2.past-end-error", "8.raw-id"],
          files=F, raw=rq(6, READ, {"sessionId": "s1", "path": "/project/lines.txt", "line": 9}),
          expect=raw_err(-32602, 6, line=9, lineCount=4)),
        V("raw-unknown-session", "§8 unknown session through the raw dispatcher", ["8.unknown-session", "8.raw-id"],
          files=F, raw=rq(8, READ, {"sessionId": "nope", "path": A}), expect=raw_err(-32602, 8, field="sessionId")),
        V("raw-invalid-params-line", "§2 malformed line through the raw dispatcher", ["2.malformed", "8.raw-id"],
          files=F, raw=rq("p", READ, {"sessionId": "s1", "path": A, "line": -3}), expect=raw_err(-32602, "p", field="line")),
        V("raw-params-array", "§8 params not an object through the raw dispatcher", ["8.params-object"],
          files=F, raw=rq(9, READ, ["s1", A]), expect=raw_err(-32602, 9, field="params")),
        V("raw-policy-error", "§6 policy denial through the raw dispatcher", ["6.policy", "8.raw-id"],
          files=F, raw=rq(10, READ, {"sessionId": "s1", "path": "/etc/passwd"}),
          expect=raw_err(-32603, 10, errorKind="path_outside_roots", path="/etc/passwd")),
        V("raw-write-read-only", "§8 capability off through the raw dispatcher: -32601 {method}", ["8.capability-off", "6.method-not-found"],
          options={"readOnly": True}, files=F, raw=rq(11, WRITE, {"sessionId": "s1", "path": A, "content": "y"}),
          expect={**raw_err(-32601, 11, method=WRITE), "files": {A: "x"}}),
        # parse errors
        V("raw-parse-error", "§8 a parse error answers -32700 with id null", ["6.parse", "8.raw-parse"],
          files=F, raw='{"jsonrpc":"2.0","id":1,"method":', expect=raw_err(-32700, None)),
        V("raw-parse-error-garbage", "§8 a parse error answers -32700 with id null", ["6.parse", "8.raw-parse"],
          files=F, raw="not json", expect=raw_err(-32700, None)),
        V("raw-parse-error-empty", "§8 an empty message is a parse error", ["6.parse", "8.raw-parse"],
          files=F, raw="", expect=raw_err(-32700, None)),
        V("raw-parse-error-trailing-garbage", "§8 trailing text after the JSON value is a parse error", ["6.parse", "8.raw-parse"],
          files=F, raw=rq(1, READ, P) + " x", expect=raw_err(-32700, None)),
        V("raw-parse-error-single-quotes", "§8 JSON only: single quotes are a parse error", ["6.parse", "8.raw-parse"],
          files=F, raw="{'jsonrpc':'2.0','id':1,'method':'fs/read_text_file'}", expect=raw_err(-32700, None)),
        # invalid requests
        V("raw-batch-invalid-request", "§8 a batch (array) is -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw="[" + rq(1, READ, P) + "]", expect=raw_err(-32600, None)),
        V("raw-empty-batch-invalid-request", "§8 a batch (array) is -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw="[]", expect=raw_err(-32600, None)),
        V("raw-missing-jsonrpc", "§8 a message without \"jsonrpc\": \"2.0\" is -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw=msg({"id": 1, "method": READ, "params": P}), expect=raw_err(-32600, 1)),
        V("raw-jsonrpc-1-0", "§8 \"jsonrpc\" must be \"2.0\"", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw=msg({"jsonrpc": "1.0", "id": 1, "method": READ, "params": P}), expect=raw_err(-32600, 1)),
        V("raw-jsonrpc-number", "§8 \"jsonrpc\" must be the string \"2.0\"", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw='{"jsonrpc":2.0,"id":1,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32600, 1)),
        V("raw-method-not-string", "§8 a non-string method is -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "method": 5, "params": P}), expect=raw_err(-32600, 1)),
        V("raw-method-null", "§8 a non-string method is -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "method": None, "params": P}), expect=raw_err(-32600, 1)),
        V("raw-scalar-message", "§8 a message that is not an object has no \"jsonrpc\": \"2.0\": -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw="42", expect=raw_err(-32600, None)),
        V("raw-string-message", "§8 a message that is not an object has no \"jsonrpc\": \"2.0\": -32600", ["6.invalid-request", "8.raw-invalid", "81.raw-invalid-id"],
          files=F, raw='"fs/read_text_file"', expect=raw_err(-32600, None)),
        # not ours
        V("raw-response-not-ours", "§8 a response is not ours (null)", ["8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "result": {"content": "x"}}), expect={"raw": None}),
        V("raw-error-response-not-ours", "§8 an error response is not ours (null)", ["8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}), expect={"raw": None}),
        V("raw-null-result-response-not-ours", "§8 a response with result null is not ours", ["8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": "a", "result": None}), expect={"raw": None}),
        V("raw-notification-not-ours", "§8 a notification is not ours (null)", ["8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1"}}), expect={"raw": None}),
        V("raw-fs-notification-not-answered", "§8 notifications are not ours, even with an fs method name", ["8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "method": READ, "params": P}), expect={"raw": None}),
        V("raw-other-method-not-ours", "§8 methods other than the two fs methods are not ours", ["8.raw-not-ours"],
          files=F, raw=rq(1, "session/prompt", {"sessionId": "s1", "prompt": []}), expect={"raw": None}),
        V("raw-initialize-not-ours", "§8 methods other than the two fs methods are not ours", ["8.raw-not-ours"],
          files=F, raw=rq(1, "initialize", {"protocolVersion": 1}), expect={"raw": None}),
        V("raw-similar-method-not-ours", "§8 only the exact fs method names are ours", ["8.raw-not-ours"],
          files=F, raw=rq(1, "fs/read_text_file/", P), expect={"raw": None}),
        V("raw-terminal-method-not-ours", "§8 other client methods are not ours", ["8.raw-not-ours"],
          files=F, raw=rq(1, "terminal/create", {"sessionId": "s1", "command": "ls"}), expect={"raw": None}),
    ]
    return v


def order():
    v = []
    BASE = {A: "alpha\n", "/outside/x.txt": "out\n"}
    o = "§8 checking order: "
    v += [
        V("order-session-id-before-path", o + "params in field order (sessionId before path)", ["8.order"],
          files=BASE, request=req(READ, {"path": "relative.txt"}), expect=invalid("sessionId")),
        V("order-path-before-line", o + "params in field order (path before line)", ["8.order"],
          files=BASE, request=read("relative.txt", line=-1), expect=invalid("path")),
        V("order-line-before-limit", o + "params in field order (line before limit)", ["8.order"],
          files=BASE, request=read(A, line=-1, limit=-1), expect=invalid("line")),
        V("order-limit-before-meta", o + "params in field order (limit before _meta)", ["8.order"],
          files=BASE, request=read(A, limit="x", meta="x"), expect=invalid("limit")),
        V("order-path-before-content", o + "params in field order (path before content)", ["8.order"],
          files=BASE, request=write(""), expect=invalid("path")),
        V("order-content-before-meta", o + "params in field order (content before _meta)", ["8.order"],
          files=BASE, request=write(A, 5, meta=5), expect=invalid("content")),
        V("order-params-before-session-line", o + "params before session", ["8.order"],
          files=BASE, request=read(A, sid="nope", line=1.5), expect=invalid("line")),
        V("order-params-before-session-path", o + "params before session", ["8.order"],
          files=BASE, request=read("C:relative", sid="nope"), expect=invalid("path")),
        V("order-params-before-past-end", o + "a malformed limit is reported before a past-end line", ["8.order", "2.malformed"],
          files=BASE, request=read(A, line=99, limit=-1), expect=invalid("limit")),
        V("order-session-before-roots", o + "session before lexical roots", ["8.order"],
          files=BASE, request=read("/outside/x.txt", sid="nope"), expect=invalid("sessionId")),
        V("order-roots-before-deny", o + "lexical roots before deny list", ["8.order"],
          files=BASE, request=read("/outside/.env"), expect=policy("path_outside_roots", "/outside/.env")),
        V("order-roots-before-not-found", o + "lexical roots before stat", ["8.order"],
          files=BASE, request=read("/outside/missing.txt"), expect=policy("path_outside_roots", "/outside/missing.txt")),
        V("order-deny-before-real-path", o + "deny list before real path: a .env link escaping is denied_by_pattern", ["8.order", "8.deny-realpath"],
          files={**BASE, "/project/.env": link("/outside/x.txt")}, request=read("/project/.env"), expect=policy("denied_by_pattern", "/project/.env")),
        V("order-deny-before-max-write", o + "deny list before maxWriteBytes", ["8.order", "4.max-write"],
          options={"maxWriteBytes": 4}, files=BASE, request=write("/project/.env", "K=VALUE\n"), expect=policy("denied_by_pattern", "/project/.env")),
        V("order-roots-before-max-write", o + "lexical roots before maxWriteBytes", ["8.order", "4.max-write"],
          options={"maxWriteBytes": 4}, files=BASE, request=write("/outside/y.txt", "too long"), expect=policy("path_outside_roots", "/outside/y.txt")),
        V("order-max-write-before-real-path", o + "maxWriteBytes before real path", ["8.order", "4.max-write"],
          options={"maxWriteBytes": 4}, files={**BASE, "/project/l.txt": link("/outside/x.txt")}, request=write("/project/l.txt", "too long"),
          expect={**policy("file_too_large", "/project/l.txt"), "files": {"/outside/x.txt": "out\n"}}),
        V("order-max-write-before-stat", o + "maxWriteBytes before stat (a directory target)", ["8.order", "4.max-write"],
          options={"maxWriteBytes": 4}, files={**BASE, "/project/d": DIR}, request=write("/project/d", "too long"),
          expect=policy("file_too_large", "/project/d")),
        V("order-max-write-before-missing-parent", o + "maxWriteBytes before stat (createParents false)", ["8.order", "4.max-write"],
          options={"maxWriteBytes": 4, "createParents": False}, files=BASE, request=write("/project/no/x.txt", "too long"),
          expect={**policy("file_too_large", "/project/no/x.txt"), "absent": ["/project/no"]}),
        V("order-real-path-before-not-a-file", o + "real path before stat", ["8.order"],
          files={**BASE, "/project/ext": link("/outside"), "/outside/d": DIR}, request=read("/project/ext/d"),
          expect=policy("symlink_escape", "/project/ext/d")),
        V("order-real-path-before-not-found", o + "real path before stat", ["8.order", "8.missing-realpath"],
          files={**BASE, "/project/ext": link("/outside")}, request=read("/project/ext/missing.txt"),
          expect=policy("symlink_escape", "/project/ext/missing.txt")),
        V("order-stat-before-read", o + "stat before read: a directory is not_a_file", ["8.order", "3.non-regular"],
          files={**BASE, "/project/d/x": "x"}, request=read("/project/d", line=1, limit=1), expect=policy("not_a_file", "/project/d")),
        V("order-write-not-found-vs-roots", o + "lexical roots before createParents", ["8.order"],
          options={"createParents": False}, files=BASE, request=write("/elsewhere/deep/x.txt", "x"),
          expect=policy("path_outside_roots", "/elsewhere/deep/x.txt")),
    ]
    return v
