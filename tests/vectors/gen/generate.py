#!/usr/bin/env python3
"""Writes tests/vectors/*.json and tests/vectors/COVERAGE.md (see ../README.md).

    python3 tests/vectors/gen/generate.py          # write
    python3 tests/vectors/gen/generate.py --check  # verify the committed files are up to date

Expectations come from docs/semantics.md: written by hand in sec_*.py, or, for long texts,
computed by vectorlib.ref_window (the window rules of section 2 in a few lines of Python).
No program under test is run. The files it does not write are listed in hand_written.py; it
reads them back for COVERAGE.md and refuses a `*.json` that is in neither list.
"""

import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from vectorlib import READ, dump_vectors, ref_window  # noqa: E402
from rules import RULES, NOT_EXPRESSIBLE, TESTED_ELSEWHERE, NO_VECTOR_YET  # noqa: E402
from hand_written import HAND_WRITTEN  # noqa: E402
import sec_read, sec_paths, sec_deny, sec_enc, sec_write, sec_dispatch, sec_decisions  # noqa: E402

OUT = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(OUT))

def _split(fn, prefixes, long):
    def pick():
        return [x for x in fn() if x[0]["name"].startswith(prefixes) == long]
    return pick


LONG_ENC = ("nul-at-byte-", "invalid-utf8-long-")

FILES = [
    ("read_window.json", sec_read.read_window),
    ("read_window_long.json", sec_read.read_window_long),
    ("read_params.json", sec_read.read_params),
    ("paths.json", sec_paths.paths),
    ("roots_symlinks.json", sec_paths.roots_symlinks),
    ("deny_list.json", sec_deny.deny_list),
    ("encodings.json", _split(sec_enc.encodings, LONG_ENC, False)),
    ("encodings_long.json", _split(sec_enc.encodings, LONG_ENC, True)),
    ("limits.json", sec_write.limits),
    ("writes.json", sec_write.writes),
    ("overlay_approval.json", sec_write.overlay_approval),
    ("capabilities.json", sec_write.capabilities),
    ("dispatch.json", sec_dispatch.dispatch),
    ("order.json", sec_dispatch.order),
    # semantics.md section 8.1
    ("decisions_paths.json", sec_decisions.paths),
    ("decisions_text.json", sec_decisions.text),
    ("decisions_writes.json", sec_decisions.writes),
    ("decisions_deny.json", sec_decisions.deny),
    ("decisions_dispatch.json", sec_decisions.dispatch),
]

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
TOP_KEYS = {"name", "rule", "options", "sessions", "files", "storage", "documents", "hooks", "request", "raw", "expect"}
# Hand-written files may also hold sequences (README.md, "Sequences") and MCP tool calls
# (README.md, "MCP tools").
HAND_TOP_KEYS = TOP_KEYS | {"steps", "tool"}


class Unaccounted(Exception):
    """The folder and the two lists (FILES, hand_written.HAND_WRITTEN) disagree."""


def as_u32(x):
    """The integer a valid line/limit stands for, or None if malformed."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x if 0 <= x <= 0xFFFFFFFF else None
    if isinstance(x, float) and math.isfinite(x) and x == int(x):
        return as_u32(int(x))
    return None


def cross_check_window(v):
    """Re-derive plain-text read expectations with ref_window (catches slips in hand-written ones)."""
    r = v.get("request")
    if not r or r["method"] != READ or not isinstance(r.get("params"), dict):
        return
    if v.get("documents") or v.get("storage") or set(v.get("options", {})) - {"pastEnd", "lenientParams"}:
        return
    if "sessions" in v:
        return
    p = r["params"]
    if not isinstance(p.get("path"), str) or not p["path"].startswith("/project/"):
        return
    if "error" in v["expect"] and v["expect"]["error"]["code"] != -32602:
        return  # policy / not-found vectors
    text = v.get("files", {}).get(p["path"])
    if not isinstance(text, str) or "\u0000" in text[:8192] or p.get("sessionId") != "s1" or "_meta" in p and p["_meta"] is not None:
        return
    lenient = v.get("options", {}).get("lenientParams")
    vals = []
    for k in ("line", "limit"):
        if k not in p or p[k] is None:
            vals.append(None)
            continue
        n = as_u32(p[k])
        if n is None:
            if not lenient:
                return  # a params error vector
            vals.append(None)
        else:
            vals.append(n)
    mode = v.get("options", {}).get("pastEnd", "error")
    got = ref_window(text, vals[0], vals[1], mode)
    e = v["expect"]
    if got[0] == "ok":
        assert e.get("result") == {"content": got[1]}, (v["name"], got, e)
    else:
        msg = "Attempting to read beyond the end of the file, line %d" % got[1]
        assert e.get("error") == {"code": -32602, "message": msg, "data": {"line": got[1], "lineCount": got[2]}}, (v["name"], got, e)


def validate(all_vectors):
    names = set()
    for fname, vecs in all_vectors:
        for v, cov in vecs:
            n = v["name"]
            assert KEBAB.match(n), n
            assert n not in names, "duplicate name " + n
            names.add(n)
            assert set(v) <= TOP_KEYS, (n, set(v) - TOP_KEYS)
            assert v["rule"].startswith("§"), n
            assert ("request" in v) != ("raw" in v), n
            assert v["expect"], n
            e = v["expect"]
            outcome = [k for k in ("result", "error", "raw", "rawError") if k in e]
            assert len(outcome) == 1, (n, outcome)
            if "raw" in v:
                assert outcome[0] in ("raw", "rawError"), n
            else:
                assert outcome[0] in ("result", "error"), n
            assert cov, n
            for c in cov:
                assert c in RULE_IDS, (n, c)
            cross_check_window(v)
    return names


RULE_IDS = {r[0] for r in RULES}


def vector_files_on_disk():
    """Every `*.json` below tests/vectors/ (but not gen/), as a path with `/` separators."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(OUT):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != HERE]
        for f in filenames:
            if f.endswith(".json"):
                found.add(os.path.relpath(os.path.join(dirpath, f), OUT).replace(os.sep, "/"))
    return found


def check_accounted(on_disk):
    """Each vector file is generated or hand-written, never both and never neither."""
    generated = {f for f, _ in FILES}
    hand = {h.name for h in HAND_WRITTEN}
    problems = []
    for f in sorted(generated & hand):
        problems.append("%s is both generated (generate.FILES) and hand-written (hand_written.py)" % f)
    for f in sorted(on_disk - generated - hand):
        problems.append("%s is neither generated (generate.FILES) nor listed in hand_written.py" % f)
    for f in sorted(hand - on_disk):
        problems.append("%s is listed in hand_written.py but does not exist" % f)
    if problems:
        raise Unaccounted("\n".join(problems))


def hand_written_vectors():
    """The hand-written files of vectors, read back: [(file, [(vector, rule ids)])]."""
    out = []
    for h in HAND_WRITTEN:
        if h.coverage is None:
            continue
        with open(os.path.join(OUT, h.name), encoding="utf-8") as fh:
            vecs = json.load(fh)
        assert isinstance(vecs, list), h.name + ": not a JSON array of vectors"
        names = [v.get("name") for v in vecs]
        unmapped = [n for n in names if n not in h.coverage]
        gone = [n for n in h.coverage if n not in names]
        if unmapped or gone:
            raise Unaccounted("%s: vectors without rule ids in hand_written.py: %s; ids for vectors "
                              "not in the file: %s" % (h.name, unmapped or "none", gone or "none"))
        out.append((h.name, [(v, list(h.coverage[v["name"]])) for v in vecs]))
    return out


def validate_hand_written(hand_vectors, names):
    """The README's rules for a vector, on files the generator did not write."""
    for fname, vecs in hand_vectors:
        for v, cov in vecs:
            n = v["name"]
            assert KEBAB.match(n), (fname, n)
            assert n not in names, "duplicate name %s (%s)" % (n, fname)
            names.add(n)
            assert set(v) <= HAND_TOP_KEYS, (fname, n, set(v) - HAND_TOP_KEYS)
            assert isinstance(v.get("rule"), str) and v["rule"].startswith("§"), (fname, n)
            assert len([k for k in ("request", "raw", "steps", "tool") if k in v]) == 1, (fname, n)
            assert isinstance(v.get("expect"), dict), (fname, n)
            assert cov, (fname, n)
            for c in cov:
                assert c in RULE_IDS, (fname, n, c)


def check_tested_elsewhere():
    """Each test COVERAGE.md cites still exists under that name."""
    for rid, tests in TESTED_ELSEWHERE.items():
        assert rid in RULE_IDS, rid
        for path, test in tests:
            with open(os.path.join(REPO, path), encoding="utf-8") as fh:
                assert test in fh.read(), "%s: %s no longer has a test %r" % (rid, path, test)


def elsewhere_note(rid):
    tests = TESTED_ELSEWHERE.get(rid, [])
    return "; ".join("`%s` (`%s`)" % (name, path) for path, name in tests)


COVERAGE_HEAD = """# Coverage: docs/semantics.md → vectors

Generated by `gen/generate.py` from the rule ids each vector declares (the `rule` field of a
vector names its main rule in words; one vector may pin several rules); the vectors of the
hand-written files get theirs from `gen/hand_written.py`. Rules the vector format cannot express
are marked, with the reason; tests outside the vectors that pin a rule are named; a rule a vector
could pin but none does yet is marked *No vector yet*, with the vector it needs.

| § | Rule | Vectors |
|---|---|---|
"""

COVERAGE_TAIL = """
## Readings of the contract the vectors rely on

These outcomes follow from the text but deserve a second look by whoever owns semantics.md:

- **UTF-16 and the NUL test.** §4 says UTF-16 LE/BE with a BOM are decoded; ASCII text in UTF-16
  has a NUL in every other byte. The vectors read the NUL test as applying to text that is not
  UTF-16 with a BOM (`utf16le-bom-decoded` etc. are served); §8.1 confirms UTF-16 *without* a BOM
  is `binary_file` (`utf16-without-bom-is-binary`, `utf16be-without-bom-is-binary`).
- **`maxWriteBytes` error kind.** §4 names no kind; `file_too_large` is the only listed kind that
  fits, so the vectors pin `-32603` + `errorKind: "file_too_large"` (`max-write-*`,
  `order-*-max-write*`). §8.1 fixes the measure and the boundary (inclusive, UTF-8 bytes of
  `content` as sent): `max-write-exactly-at-limit`, `max-write-multibyte-one-over`, …
- **Deny globs and directories.** "Globs on the file name" is read literally: `.env*` does not
  match a directory named `.env.d` (`deny-env-directory-not-file-name`); only a trailing-`/` rule
  names any path component, the last one included (§8.1: `deny-custom-dir-pattern-matches-file`,
  `git-file-write-denied`). `*` matches an empty run (`deny-default-pem-bare`,
  `deny-custom-star-empty-run`).
- **Policy error `path`.** "Policy error data carry the normalized path" is read as the
  normalized *requested* path, also when the cause is found on the real path
  (`symlink-file-escape-read`, `deny-symlink-innocent-name-read`, …), like the change record's
  path (§8.1).
- **`oldText` of a file with a BOM** is its decoded text without the BOM
  (`write-bom-change-new-text-without-bom`), like a read of it.
- **Approval comes after the policy checks and after reading the old text**
  (`approve-not-asked-for-policy-denial`, `approve-not-asked-for-binary-target`): the hook
  receives `oldText`, which cannot exist for a binary file.
- **A line of `4294967295` is valid** (it is a u32) and then past the end
  (`params-line-max-u32-is-valid`); `line + limit` overflowing u32 still stops at the end.
- **`2e0`** is read as an integral JSON float like `3.0` (`raw-read-exponent-line`).
- **`//srv/share/x` is POSIX.** §8 and §8.1 make a leading `//` a `/`, so a UNC look-alike with
  forward slashes is the POSIX path `/srv/share/x`, never compared with UNC roots
  (`posix-double-slash-unc-lookalike`), like `//?/C:/x` (`posix-double-slash-verbatim-form-*`).
- **Case in the normal form.** Only the drive letter changes case when a path is normalized; a
  UNC server or share keeps the case it was sent with and is matched case-insensitively
  (`unc-request-server-share-case-insensitive` expects
  `Resource not found: \\\\SRV\\SHARE\\proj\\missing.txt`).
- **"Refuses every request" follows the checking order.** A storage that cannot resolve symlinks
  answers `symlink_escape` at the real-path step; errors that §8 puts earlier (params, session,
  lexical roots, deny list, `maxWriteBytes`) still win (`realpath-false-*-first`), and the real
  path comes before the overlay, stat and read (`realpath-false-open-document`,
  `realpath-false-missing-file-read`, `realpath-false-directory-read`).
- **Symlink loops** pin only `errorKind: "storage_error"` (code -32603); the hint text is the
  storage's own and is not pinned. A loop in a `.env` name is still `denied_by_pattern`: the deny
  list comes before the real path (`symlink-loop-deny-list-first`).
- **Below a file through a link** (`/project/l/b.txt`, `l` → `a.txt`) is below a regular file:
  `not_found` naming the requested path (`below-file-read-through-symlink-not-found`).
- **Size precedence measures file bytes, then content bytes.** The `maxReadBytes + 3` size test
  is on the stored bytes whatever the encoding, so a 122-byte UTF-16 file with 60 bytes of
  content is refused (`max-read-utf16-size-refused-before-decoding`); the exact bound is on the
  content (`max-read-utf16-content-fits`, `max-read-bom-room-served`).
- **Open documents and line endings.** "Follow the buffer's text" is read with §8's "uses CRLF"
  definition: the buffer's first terminator decides (`overlay-crlf-buffer-first-terminator-decides`),
  content containing `\\r` and `lineEndings: "asIs"` write the content unchanged as for files.
  A buffer-mode write never touches storage, so it creates no parent directory either
  (`overlay-buffer-write-no-file-no-parents`).
- **Raw `-32600` ids.** A batch or a non-object message has no request id, so the answer's id is
  `null` (`raw-batch-invalid-request`, `raw-scalar-message`); an id that is not a string, number
  or null is not valid (`raw-invalid-request-object-id-null`, …).
- **Capabilities.** Only `readOnly: true` and a storage without writes turn `writeTextFile` off;
  a storage without symlinks advertises both methods (`capabilities-storage-without-symlinks`).

## Open questions

Cases the contract still does not determine; no vector pins them.

1. **NUL within the BOM room.** A whole-file read of a file whose size is at most
   `maxReadBytes + 3` but whose content is larger than `maxReadBytes` *and* has a NUL in the
   first 8 KiB (e.g. 101 bytes, no BOM, one NUL): `binary_file` (decoding first) or
   `file_too_large` (the exact content bound first)? §8.1 orders the size test before decoding
   and the content bound "then", but not the content bound against the NUL test.
2. **Two leading U+FEFF in `content`.** For a new file the first is the BOM and the second is
   text, so a read after the write returns `"\\ufeff…"`; §8.1 says `newText` "never starts with
   U+FEFF" *and* "is what a read returns after the write". Which wins?
3. **UNC with forward slashes after `\\\\`** (`\\\\srv/share/x`) and repeated separators
   between server and share (`\\\\srv\\\\share`): separators that collapse, or an
   invalid UNC path (empty share)? The vectors only repeat separators after the share.
4. **Invalid session roots.** §8.1 refuses an invalid `cwd`/root when the session is opened, but
   the vector format cannot say that opening must fail (runners treat it as a failure). Proposal:
   `expect.sessionError: {code, data}` with no request.
5. **A leading U+FEFF in a buffer-mode write.** Does a leading U+FEFF in `content` for a
   buffer-mode write follow the disk file's BOM, or is it dropped/kept as text? (Which buffer a
   write through a symlink reaches is settled: §8.1, `document-*` in `containment.json`.)
6. **Replacing an open document larger than `maxReadBytes`.** §8 refuses replacing a *file*
   larger than `maxReadBytes`; §8.1 says open documents obey `maxReadBytes` like files. Does a
   buffer-mode write over such a buffer fail with `file_too_large`?
7. **Raw edge cases left.** A message with an fs method, a bad `jsonrpc` and no `id` (a
   notification shape): `-32600` or not ours? A well-formed fs request whose only fault is an
   invalid id (`"id": {}`): `-32600`? (A lone surrogate in a message whose method is not ours:
   not ours, §8.1.)
8. **JS-only behaviour.** `-32602` naming the field for a lone surrogate through the JS API,
   the `AcpFsError` shape, `-32800` cancellation (`$/cancel_request`, AbortSignal) and the
   audit event (`_meta.traceparent` in it) are binding tests; the vector format cannot express
   them (see the rows marked *Not expressible*).
"""


def build():
    check_accounted(vector_files_on_disk())
    generated = [(fname, fn()) for fname, fn in FILES]
    names = validate(generated)
    hand = hand_written_vectors()
    validate_hand_written(hand, names)
    check_tested_elsewhere()
    assert not set(NO_VECTOR_YET) - RULE_IDS, set(NO_VECTOR_YET) - RULE_IDS
    outputs = {}
    for fname, vecs in generated:
        text = dump_vectors([v for v, _ in vecs])
        assert json.loads(text) == [v for v, _ in vecs], fname
        outputs[fname] = text
    by_rule = {r[0]: [] for r in RULES}
    all_vectors = generated + hand
    for fname, vecs in all_vectors:
        for v, cov in vecs:
            for c in cov:
                by_rule[c].append(v["name"])
    rows = []
    missing = []
    for rid, sec, text in RULES:
        vs = by_rule[rid]
        cell = ", ".join("`%s`" % n for n in vs)
        if rid in NOT_EXPRESSIBLE:
            note = "*Not expressible as a vector:* " + NOT_EXPRESSIBLE[rid]
            cell = note + (" Related: " + cell if cell else "")
        elif rid in NO_VECTOR_YET:
            assert not vs, "%s has vectors now: drop it from NO_VECTOR_YET" % rid
            cell = "*No vector yet:* " + NO_VECTOR_YET[rid]
        elif not vs and rid not in TESTED_ELSEWHERE:
            missing.append(rid)
        if rid in TESTED_ELSEWHERE:
            sep = " " if cell.endswith(".") else "; " if cell else ""
            cell += sep + "*Tested outside the vectors:* " + elsewhere_note(rid)
        rows.append("| %s | %s | %s |" % (sec, text.replace("|", "\\|"), cell))
    assert not missing, "rules without vectors: %s" % missing
    hand_names = {h.name for h in HAND_WRITTEN}
    counts = ["| `%s` | %d | %s |" % (f, len(vecs), "by hand" if f in hand_names else "generated")
              for f, vecs in all_vectors]
    total = sum(len(vecs) for _, vecs in all_vectors)
    others = ["`%s` is written by hand too and not counted here: %s" % (h.name, h.why)
              for h in HAND_WRITTEN if h.coverage is None]
    summary = ("\n## Files\n\n| file | vectors | written |\n|---|---|---|\n" + "\n".join(counts)
               + "\n| total | %d | |\n" % total + "".join("\n" + o + "\n" for o in others))
    outputs["COVERAGE.md"] = COVERAGE_HEAD + "\n".join(rows) + "\n" + summary + COVERAGE_TAIL
    return outputs, total, len(names)


def main():
    try:
        outputs, total, _ = build()
    except Unaccounted as e:
        print(e, file=sys.stderr)
        sys.exit(1)
    check = "--check" in sys.argv
    stale = []
    for fname, text in outputs.items():
        path = os.path.join(OUT, fname)
        if check:
            try:
                with open(path, encoding="utf-8") as fh:
                    if fh.read() != text:
                        stale.append(fname)
            except FileNotFoundError:
                stale.append(fname)
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    if check:
        if stale:
            # A generated file is never edited by hand: the change belongs in gen/.
            print("stale: %s (generated files differ from what gen/ writes; change gen/ and run "
                  "python3 tests/vectors/gen/generate.py)" % ", ".join(stale), file=sys.stderr)
            sys.exit(1)
        print("up to date: %d vectors" % total)
    else:
        print("wrote %d files, %d vectors" % (len(outputs), total))


if __name__ == "__main__":
    main()
