"""Helpers for writing acp-fs behaviour vectors (see ../README.md).

Nothing here runs or imports the engine. Expectations are written by hand from
docs/semantics.md; for long generated texts they are computed by `ref_window`, a
direct transcription of the window rules of semantics.md section 2.
"""

import json
import unicodedata

ABSENT = object()  # a parameter that is not sent at all (as opposed to JSON null)

READ = "fs/read_text_file"
WRITE = "fs/write_text_file"

DEFAULT_SESSIONS = {"s1": {"cwd": "/project", "additionalDirectories": []}}


# ---------------------------------------------------------------- building vectors

def V(name, rule, cov, *, options=None, sessions=None, files=None, storage=None,
      documents=None, hooks=None, request=None, raw=None, expect):
    """One vector. `cov` lists the rule ids (see rules.py) it pins; it is not emitted."""
    assert (request is None) != (raw is None), name
    v = {"name": name, "rule": rule}
    if options is not None:
        v["options"] = options
    if sessions is not None:
        v["sessions"] = sessions
    if files is not None:
        v["files"] = files
    if storage is not None:
        v["storage"] = storage
    if documents is not None:
        v["documents"] = documents
    if hooks is not None:
        v["hooks"] = hooks
    if request is not None:
        v["request"] = request
    else:
        v["raw"] = raw
    order = ["result", "error", "raw", "rawError", "files", "absent", "change", "documents", "capabilities"]
    assert set(expect) <= set(order), (name, expect.keys())
    v["expect"] = {k: expect[k] for k in order if k in expect}
    return (v, list(cov))


def params(**kw):
    out = {}
    for k, val in kw.items():
        if val is ABSENT:
            continue
        out["_meta" if k == "meta" else k] = val
    return out


def read(path=ABSENT, sid="s1", line=ABSENT, limit=ABSENT, meta=ABSENT, **extra):
    p = params(sessionId=sid, path=path, line=line, limit=limit, meta=meta)
    p.update(extra)
    return {"method": READ, "params": p}


def write(path=ABSENT, content=ABSENT, sid="s1", meta=ABSENT, **extra):
    p = params(sessionId=sid, path=path, content=content, meta=meta)
    p.update(extra)
    return {"method": WRITE, "params": p}


def req(method, p):
    return {"method": method, "params": p}


def ok(content):
    return {"result": {"content": content}}


OK_WRITE = {"result": {}}


def err(code, message=None, **data):
    e = {"code": code}
    if message is not None:
        e["message"] = message
    if data:
        e["data"] = data
    return {"error": e}


def invalid(field):
    return err(-32602, field=field)


def policy(kind, path):
    return err(-32603, errorKind=kind, path=path)


def not_found(path):
    return err(-32002, f"Resource not found: {path}", uri=path)


def past_end(line, line_count):
    return err(-32602, f"Attempting to read beyond the end of the file, line {line}",
               line=line, lineCount=line_count)


def caps(read_text=True, write_text=True):
    """expect.capabilities: what capabilities() answers."""
    return {"readTextFile": read_text, "writeTextFile": write_text}


def method_off():
    return err(-32601, method=WRITE)


def change(path, old, new, created=None, sid="s1", dirs=None):
    if created is None:
        created = old is None
    out = {"sessionId": sid, "path": path, "created": created, "oldText": old, "newText": new}
    if dirs:
        out["createdDirs"] = dirs  # the parents the write made, outermost first (§5, for undo)
    return out


def hexb(b):
    return {"hex": bytes(b).hex()}


def link(target):
    return {"symlink": target}


DIR = {"dir": True}
SPECIAL = {"special": True}


# ---------------------------------------------------------------- reference window

def ref_window(text, line=None, limit=None, past_end_mode="error"):
    """Section 2, transcribed: rows end with "\\n" (kept), rows are numbered
    1..count("\\n")+1, line None/0 -> 1, limit None -> to the end, limit 0 -> "".
    Returns ("ok", content) or ("past_end", line, lineCount)."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    line_count = len(starts)  # number of "\n" + 1
    start_row = 1 if line in (None, 0) else line
    if start_row > line_count:
        if past_end_mode == "empty":
            return ("ok", "")
        return ("past_end", start_row, line_count)
    s = starts[start_row - 1]
    if limit is None:
        e = len(text)
    else:
        end_row = start_row - 1 + limit  # 0-based index of the first row not included
        e = starts[end_row] if end_row < line_count else len(text)
    return ("ok", text[s:e])


def window_expect(text, line=None, limit=None, past_end_mode="error"):
    r = ref_window(text, line, limit, past_end_mode)
    if r[0] == "ok":
        return ok(r[1])
    return past_end(r[1], r[2])


# ---------------------------------------------------------------- output

def _escape_invisible(s):
    out = []
    for ch in s:
        o = ord(ch)
        if o >= 0x7F and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn"):
            if o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out)


def compact(value):
    return _escape_invisible(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


def dump_vectors(vectors):
    """One vector per block, one top-level key per line, values compact."""
    blocks = []
    for v in vectors:
        lines = ["  {"]
        keys = list(v.keys())
        for i, k in enumerate(keys):
            comma = "," if i < len(keys) - 1 else ""
            lines.append("    %s: %s%s" % (json.dumps(k), compact(v[k]), comma))
        lines.append("  }")
        blocks.append("\n".join(lines))
    return "[\n" + ",\n".join(blocks) + "\n]\n"
