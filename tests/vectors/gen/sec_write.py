"""limits.json, writes.json, overlay_approval.json, capabilities.json."""

from vectorlib import (V, read, write, req, ok, err, invalid, policy, not_found, method_off, OK_WRITE,
                       change, hexb, link, DIR, SPECIAL, WRITE, window_expect)

A = "/project/a.txt"

# 20 rows of exactly 10 bytes: 200 bytes, lineCount 21
ROWS20 = "".join("row-%05d\n" % i for i in range(1, 21))
assert len(ROWS20.encode()) == 200
ROWS10 = ROWS20[:100]  # exactly 100 bytes
BIG = "/project/big.txt"
MR = {"maxReadBytes": 100}


def too_large(path):
    return policy("file_too_large", path)


def limits():
    v = []
    v += [
        V("max-read-whole-file-too-large", "§4 maxReadBytes: a whole-file read past it is file_too_large", ["4.max-read", "8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-whole-file-one-byte-over", "§4 maxReadBytes: 101 bytes is past 100", ["4.max-read", "8.max-read"],
          options=MR, files={BIG: ROWS10 + "x"}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-whole-file-exactly-at-limit", "§4 maxReadBytes: a file of exactly the limit is served", ["4.max-read", "8.max-read", "81.limits-inclusive"],
          options=MR, files={BIG: ROWS10}, request=read(BIG), expect=ok(ROWS10)),
        V("max-read-line-1-without-limit-too-large", "§8 a window whose content does not fit is file_too_large", ["8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=1), expect=too_large(BIG)),
        V("max-read-window-fits", "§4 windowed reads of larger files are still served", ["4.max-read", "8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=5, limit=3), expect=window_expect(ROWS20, 5, 3)),
        V("max-read-window-exactly-at-limit", "§8 a window is served as long as its own content fits (100 of 100)", ["8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=1, limit=10), expect=ok(ROWS10)),
        V("max-read-window-one-row-too-many", "§8 a window whose content exceeds maxReadBytes is file_too_large", ["8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=1, limit=11), expect=too_large(BIG)),
        V("max-read-window-tail-fits", "§8 a window to the end is served if its content fits", ["8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=11), expect=ok(ROWS20[100:])),
        V("max-read-window-tail-too-large", "§8 a window to the end is refused if its content does not fit", ["8.max-read"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=10), expect=too_large(BIG)),
        V("max-read-window-limit-0", "§8 an empty window always fits", ["8.max-read", "2.limit-zero"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, limit=0), expect=ok("")),
        V("max-read-window-n-plus-1", "§8 the empty row after the final \\n fits", ["8.max-read", "2.past-end-range"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=21), expect=ok("")),
        V("max-read-window-past-end", "§2 past the end is still -32602 under maxReadBytes", ["8.max-read", "2.past-end-error"],
          options=MR, files={BIG: ROWS20}, request=read(BIG, line=22, limit=1),
          expect=err(-32602, "Attempting to read beyond the end of the file, line 22", line=22, lineCount=21)),
        V("max-read-refused-from-size-before-reading", "§8 a whole-file read is refused from its size before it is read (invalid UTF-8 never seen)", ["8.max-read", "8.order", "81.size-precedence"],
          options=MR, files={BIG: hexb(ROWS20.encode()[:-2] + b"\xff\n")}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-long-multibyte-window", "§8 a window of a large multi-byte file is served when it fits", ["8.max-read", "2.cost"],
          options={"maxReadBytes": 1000}, files={BIG: "".join("%03d %s\n" % (i, "日本語" * 8) for i in range(1, 101))},
          request=read(BIG, line=40, limit=5),
          expect=window_expect("".join("%03d %s\n" % (i, "日本語" * 8) for i in range(1, 101)), 40, 5)),
        V("max-read-long-multibyte-whole", "§4 whole read of a file past maxReadBytes", ["4.max-read"],
          options={"maxReadBytes": 1000}, files={BIG: "".join("%03d %s\n" % (i, "日本語" * 8) for i in range(1, 101))},
          request=read(BIG), expect=too_large(BIG)),
        V("max-read-counts-bytes-not-characters", "§4 maxReadBytes counts bytes: 60 characters of 2 bytes exceed 100", ["4.max-read"],
          options=MR, files={BIG: "é" * 60}, request=read(BIG), expect=too_large(BIG)),
        # maxWriteBytes
        V("max-write-too-large", "§4 maxWriteBytes bounds writes: nothing created", ["4.max-write", "81.limits-inclusive"],
          options={"maxWriteBytes": 20}, files={A: "a"}, request=write("/project/new.txt", "x" * 21),
          expect={**too_large("/project/new.txt"), "absent": ["/project/new.txt"], "change": None}),
        V("max-write-under-limit", "§4 maxWriteBytes: smaller content is written", ["4.max-write"],
          options={"maxWriteBytes": 20}, files={A: "a"}, request=write("/project/new.txt", "x" * 10),
          expect={**OK_WRITE, "files": {"/project/new.txt": "x" * 10}}),
        V("max-write-counts-bytes", "§4 maxWriteBytes counts bytes: 15 two-byte characters exceed 20", ["4.max-write"],
          options={"maxWriteBytes": 20}, files={A: "a"}, request=write("/project/new.txt", "é" * 15),
          expect={**too_large("/project/new.txt"), "absent": ["/project/new.txt"]}),
        V("max-write-overwrite-unchanged", "§4 maxWriteBytes: an existing file is left unchanged", ["4.max-write"],
          options={"maxWriteBytes": 20}, files={A: "old\n"}, request=write(A, "y" * 50),
          expect={**too_large(A), "files": {A: "old\n"}}),
        V("write-over-file-larger-than-max-read", "§8 replacing a file larger than maxReadBytes is refused; file unchanged", ["8.write-unreadable"],
          options=MR, files={BIG: ROWS20}, request=write(BIG, "small\n"),
          expect={**too_large(BIG), "files": {BIG: ROWS20}, "change": None}),
        V("write-over-file-at-max-read-allowed", "§8 a file of exactly maxReadBytes can be replaced", ["8.write-unreadable", "8.max-read"],
          options=MR, files={BIG: ROWS10}, request=write(BIG, "small\n"),
          expect={**OK_WRITE, "files": {BIG: "small\n"}, "change": change(BIG, ROWS10, "small\n")}),
    ]
    return v


def writes():
    v = []
    F = {A: "alpha\n", "/project/sub/b.txt": "beta\n"}
    v += [
        V("write-creates-missing-file", "§5 the file is created if missing", ["5.create", "5.change", "1.write-response"],
          files=F, request=write("/project/new.txt", "hello\n"),
          expect={**OK_WRITE, "files": {"/project/new.txt": "hello\n", A: "alpha\n"},
                  "change": change("/project/new.txt", None, "hello\n", created=True)}),
        V("write-overwrites-existing-file", "§5 change record carries the old text", ["5.change", "1.write-response"],
          files=F, request=write(A, "omega\n"),
          expect={**OK_WRITE, "files": {A: "omega\n"}, "change": change(A, "alpha\n", "omega\n", created=False)}),
        V("write-response-is-empty-object", "§1 the write response is {} (never null)", ["1.write-response"],
          files=F, request=write(A, "x"), expect=OK_WRITE),
        V("write-creates-parent-directories", "§5 parent directories are created inside the roots (default)", ["5.create"],
          files=F, request=write("/project/a/b/c/d.txt", "deep\n"),
          expect={**OK_WRITE, "files": {"/project/a/b/c/d.txt": "deep\n"}, "change": change("/project/a/b/c/d.txt", None, "deep\n", dirs=["/project/a", "/project/a/b", "/project/a/b/c"])}),
        V("write-creates-parents-explicit-true", "§5 createParents true", ["5.create"],
          options={"createParents": True}, files=F, request=write("/project/x/y.txt", "y\n"),
          expect={**OK_WRITE, "files": {"/project/x/y.txt": "y\n"}}),
        V("write-create-parents-false-missing-parent", "§8/§8.1 createParents false: a missing parent is Resource not found: <requested path>", ["8.create-parents-false", "5.create", "81.create-parents-message"],
          options={"createParents": False}, files=F, request=write("/project/nodir/x.txt", "x"),
          expect={**not_found("/project/nodir/x.txt"), "absent": ["/project/nodir/x.txt", "/project/nodir"], "change": None}),
        V("write-create-parents-false-existing-parent", "§5 createParents false still creates the file itself", ["5.create"],
          options={"createParents": False}, files=F, request=write("/project/sub/new.txt", "n\n"),
          expect={**OK_WRITE, "files": {"/project/sub/new.txt": "n\n"}, "change": change("/project/sub/new.txt", None, "n\n")}),
        V("write-to-directory-not-a-file", "§8 a write to a directory is not_a_file", ["8.write-dir", "3.non-regular"],
          files=F, request=write("/project/sub", "x"), expect={**policy("not_a_file", "/project/sub"), "files": {"/project/sub/b.txt": "beta\n"}, "change": None}),
        V("write-to-empty-directory-not-a-file", "§8 a write to a directory is not_a_file", ["8.write-dir"],
          files={**F, "/project/empty": DIR}, request=write("/project/empty", "x"), expect=policy("not_a_file", "/project/empty")),
        V("write-to-root-directory-not-a-file", "§8 a write to a directory is not_a_file (the root)", ["8.write-dir"],
          files=F, request=write("/project/", "x"), expect=policy("not_a_file", "/project")),
        V("write-empty-content-creates-empty-file", "§5 empty content creates an empty file", ["5.create", "5.change"],
          files=F, request=write("/project/empty.txt", ""),
          expect={**OK_WRITE, "files": {"/project/empty.txt": ""}, "change": change("/project/empty.txt", None, "")}),
        V("write-empty-content-truncates", "§5 empty content empties an existing file", ["5.change"],
          files=F, request=write(A, ""), expect={**OK_WRITE, "files": {A: ""}, "change": change(A, "alpha\n", "")}),
        V("write-unicode-content", "§4 content is stored as UTF-8", ["5.create", "4.encoding-write"],
          files=F, request=write("/project/u.txt", "héllo 日本語 🎉\n"),
          expect={**OK_WRITE, "files": {"/project/u.txt": "héllo 日本語 🎉\n"}}),
        V("write-same-content", "§5 a write of the same text still yields a change record", ["5.change"],
          files=F, request=write(A, "alpha\n"), expect={**OK_WRITE, "files": {A: "alpha\n"}, "change": change(A, "alpha\n", "alpha\n")}),
        V("write-keeps-other-files", "§5 a write touches only its file", ["5.create"],
          files=F, request=write(A, "new\n"), expect={**OK_WRITE, "files": {A: "new\n", "/project/sub/b.txt": "beta\n"}}),
        V("write-missing-content", "§1 content is required", ["1.write-params", "6.invalid-params"],
          files=F, request=write(A), expect={**invalid("content"), "files": {A: "alpha\n"}, "change": None}),
        V("write-content-null", "§1 content must be a string", ["1.write-params"],
          files=F, request=write(A, None), expect={**invalid("content"), "files": {A: "alpha\n"}}),
        V("write-content-number", "§1 content must be a string", ["1.write-params"],
          files=F, request=write(A, 12), expect={**invalid("content"), "files": {A: "alpha\n"}}),
        V("write-content-object", "§1 content must be a string", ["1.write-params"],
          files=F, request=write(A, {"text": "x"}), expect={**invalid("content"), "files": {A: "alpha\n"}}),
        V("write-missing-path", "§1 path is required (write)", ["1.write-params"],
          files=F, request=req(WRITE, {"sessionId": "s1", "content": "x"}), expect=invalid("path")),
        V("write-missing-session-id", "§1 sessionId is required (write)", ["1.write-params"],
          files=F, request=req(WRITE, {"path": A, "content": "x"}), expect={**invalid("sessionId"), "files": {A: "alpha\n"}}),
        V("write-meta-object-accepted", "§1 _meta may be an object (write)", ["1.write-params"],
          files=F, request=write(A, "m\n", meta={"x": 1}), expect={**OK_WRITE, "files": {A: "m\n"}}),
        V("write-meta-null-accepted", "§1 _meta may be null (write)", ["1.write-params"],
          files=F, request=write(A, "m\n", meta=None), expect={**OK_WRITE, "files": {A: "m\n"}}),
        V("write-into-existing-subdirectory", "§5 a new file in an existing directory; siblings untouched", ["5.create"],
          files=F, request=write("/project/sub/c.txt", "c\n"),
          expect={**OK_WRITE, "files": {"/project/sub/c.txt": "c\n", "/project/sub/b.txt": "beta\n"}}),
    ]
    return v


def overlay_approval():
    v = []
    DISK = "disk one\ndisk two\n"
    BUF = "buffer one\nbuffer two\nbuffer three\n"
    F = {A: DISK, "/project/b.txt": "bee\n"}
    DOC = {A: BUF}
    v += [
        V("overlay-read-prefers-open-document", "§5 reads prefer a document the host has open", ["5.overlay-read"],
          files=F, documents=DOC, request=read(A), expect=ok(BUF)),
        V("overlay-read-window-on-buffer", "§5 the window applies to the buffer text", ["5.overlay-read", "2.exact-substring"],
          files=F, documents=DOC, request=read(A, line=2, limit=1), expect=ok("buffer two\n")),
        V("overlay-read-buffer-beyond-disk-length", "§5 rows come from the buffer, not the disk", ["5.overlay-read"],
          files=F, documents=DOC, request=read(A, line=3), expect=ok("buffer three\n")),
        V("overlay-read-past-end-uses-buffer", "§2 lineCount is the buffer's", ["5.overlay-read", "2.past-end-error"],
          files=F, documents={A: "b\n"}, request=read(A, line=3),
          expect=err(-32602, "Attempting to read beyond the end of the file, line 3", line=3, lineCount=2)),
        V("overlay-read-crlf-buffer-exact", "§2 buffer text returned exactly", ["5.overlay-read", "2.exact-substring"],
          files=F, documents={A: "x\r\ny\r\n"}, request=read(A, line=2), expect=ok("y\r\n")),
        V("overlay-read-empty-buffer", "§5 an open empty buffer is the empty text", ["5.overlay-read"],
          files=F, documents={A: ""}, request=read(A), expect=ok("")),
        V("overlay-read-other-file-from-disk", "§5 files that are not open are read from storage", ["5.overlay-read"],
          files=F, documents=DOC, request=read("/project/b.txt"), expect=ok("bee\n")),
        V("overlay-read-unsaved-new-document", "§8 overlay before stat: an open document not yet on disk is served", ["5.overlay-read", "8.order"],
          files=F, documents={"/project/untitled.txt": "draft\n"}, request=read("/project/untitled.txt"), expect=ok("draft\n")),
        V("overlay-read-over-binary-disk-file", "§8 overlay before stat/read: the buffer is served even if the disk file is binary", ["5.overlay-read", "8.order"],
          files={A: hexb(b"\x00\x01")}, documents={A: "text now\n"}, request=read(A), expect=ok("text now\n")),
        V("overlay-read-normalized-path", "§3 the normalized path finds the open document", ["5.overlay-read", "3.lexical"],
          files=F, documents=DOC, request=read("/project/sub/../a.txt", limit=1), expect=ok("buffer one\n")),
        V("overlay-outside-roots-denied", "§5 policy applies to open documents: outside the roots", ["5.overlay-read", "3.roots"],
          files=F, documents={"/elsewhere/open.txt": "x\n"}, request=read("/elsewhere/open.txt"),
          expect=policy("path_outside_roots", "/elsewhere/open.txt")),
        V("overlay-denied-pattern", "§5 policy applies to open documents: deny list", ["5.overlay-read", "3.deny"],
          files=F, documents={"/project/.env": "K=V\n"}, request=read("/project/.env"), expect=policy("denied_by_pattern", "/project/.env")),
        V("overlay-symlink-escape-before-overlay", "§8 real path before overlay: an open document behind an escaping link is denied", ["8.order", "5.overlay-read"],
          files={**F, "/project/l.txt": link("/outside/x.txt"), "/outside/x.txt": "out\n"}, documents={"/project/l.txt": "buffer\n"},
          request=read("/project/l.txt"), expect=policy("symlink_escape", "/project/l.txt")),
        V("overlay-unknown-session", "§3 an open document does not bypass the session check", ["5.overlay-read", "8.unknown-session"],
          files=F, documents=DOC, request=read(A, sid="nope"), expect=invalid("sessionId")),
        # writes to open documents
        V("overlay-write-buffer-mode", "§8 documentWrite buffer: the overlay takes the text, storage untouched", ["5.overlay-write", "8.doc-write", "8.change-text"],
          files=F, documents=DOC, hooks={"documentWrite": "buffer"}, request=write(A, "agent\n"),
          expect={**OK_WRITE, "files": {A: DISK}, "documents": {A: "agent\n"}, "change": change(A, BUF, "agent\n", created=False)}),
        V("overlay-write-default-is-buffer", "§8 the default documentWrite answer is buffer", ["5.overlay-write", "8.doc-write"],
          files=F, documents=DOC, request=write(A, "agent\n"),
          expect={**OK_WRITE, "files": {A: DISK}, "documents": {A: "agent\n"}}),
        V("overlay-write-through", "§8 documentWrite writeThrough: buffer and storage both get the text", ["5.overlay-write", "8.doc-write", "8.change-text"],
          files=F, documents=DOC, hooks={"documentWrite": "writeThrough"}, request=write(A, "agent\n"),
          expect={**OK_WRITE, "files": {A: "agent\n"}, "documents": {A: "agent\n"}, "change": change(A, BUF, "agent\n", created=False)}),
        V("overlay-write-other-file-goes-to-storage", "§5 writes to files that are not open go to storage", ["5.overlay-write"],
          files=F, documents=DOC, request=write("/project/b.txt", "B\n"),
          expect={**OK_WRITE, "files": {"/project/b.txt": "B\n", A: DISK}, "documents": {A: BUF}, "change": change("/project/b.txt", "bee\n", "B\n")}),
        V("overlay-write-outside-roots-denied", "§5 policy applies to open documents (write)", ["5.overlay-write", "3.roots"],
          files=F, documents={"/elsewhere/open.txt": "x\n"}, request=write("/elsewhere/open.txt", "y\n"),
          expect={**policy("path_outside_roots", "/elsewhere/open.txt"), "documents": {"/elsewhere/open.txt": "x\n"}, "change": None}),
        V("overlay-write-denied-pattern", "§5 policy applies to open documents (write, deny list)", ["5.overlay-write", "3.deny"],
          files=F, documents={"/project/.env": "K=V\n"}, request=write("/project/.env", "K=W\n"),
          expect={**policy("denied_by_pattern", "/project/.env"), "documents": {"/project/.env": "K=V\n"}}),
        # approval
        V("approve-false-overwrite-rejected", "§5 a refused approval is user_rejected; file unchanged, no change record", ["5.approval", "6.policy"],
          files=F, hooks={"approve": False}, request=write(A, "new\n"),
          expect={**policy("user_rejected", A), "files": {A: DISK}, "change": None}),
        V("approve-false-create-rejected", "§5 a refused approval is user_rejected; nothing created", ["5.approval", "81.approval-first"],
          files=F, hooks={"approve": False}, request=write("/project/new.txt", "new\n"),
          expect={**policy("user_rejected", "/project/new.txt"), "absent": ["/project/new.txt"], "change": None}),
        V("approve-true-written", "§5 an approved write is written", ["5.approval", "5.change"],
          files=F, hooks={"approve": True}, request=write(A, "new\n"),
          expect={**OK_WRITE, "files": {A: "new\n"}, "change": change(A, DISK, "new\n")}),
        V("approve-false-reads-unaffected", "§5 the approval hook is for writes only", ["5.approval"],
          files=F, hooks={"approve": False}, request=read(A), expect=ok(DISK)),
        V("approve-false-open-document-unchanged", "§5 a refused write to an open document leaves the buffer", ["5.approval", "5.overlay-write"],
          files=F, documents=DOC, hooks={"approve": False, "documentWrite": "writeThrough"}, request=write(A, "agent\n"),
          expect={**policy("user_rejected", A), "files": {A: DISK}, "documents": {A: BUF}, "change": None}),
        V("approve-not-asked-for-policy-denial", "§8 policy errors come first: an outside path is path_outside_roots", ["5.approval", "8.order"],
          files=F, hooks={"approve": False}, request=write("/outside/x.txt", "x"),
          expect={**policy("path_outside_roots", "/outside/x.txt"), "absent": ["/outside/x.txt"]}),
        V("approve-not-asked-for-binary-target", "§8 a binary target is refused as binary_file before any approval", ["5.approval", "8.write-unreadable"],
          files={A: hexb(b"\x00bin")}, hooks={"approve": False}, request=write(A, "x"),
          expect={**policy("binary_file", A), "files": {A: hexb(b"\x00bin")}}),
    ]
    return v


def capabilities():
    v = []
    F = {A: "alpha\n"}
    RO = {"readOnly": True}
    NW = {"write": False}
    v += [
        V("read-only-write-method-not-found", "§8 readOnly: fs/write_text_file answers -32601 {method}", ["8.capability-off", "6.method-not-found"],
          options=RO, files=F, request=write(A, "x"), expect={**method_off(), "files": F, "change": None}),
        V("read-only-write-new-file-not-created", "§8 readOnly: nothing is created", ["8.capability-off"],
          options=RO, files=F, request=write("/project/new.txt", "x"), expect={**method_off(), "absent": ["/project/new.txt"]}),
        V("read-only-read-served", "§8 readOnly leaves reads on", ["8.capability-off"],
          options=RO, files=F, request=read(A), expect=ok("alpha\n")),
        V("storage-without-write-method-not-found", "§1/§8 a storage without writes: -32601 {method}", ["8.capability-off", "1.capabilities", "6.method-not-found"],
          storage=NW, files=F, request=write(A, "x"), expect={**method_off(), "files": F}),
        V("storage-without-write-read-served", "§8 a storage without writes still serves reads", ["8.capability-off"],
          storage=NW, files=F, request=read(A), expect=ok("alpha\n")),
        V("read-only-before-params", "§8 capability is checked first: even invalid params give -32601", ["8.capability-off", "8.order"],
          options=RO, files=F, request=req(WRITE, []), expect=method_off()),
        V("read-only-before-missing-fields", "§8 capability is checked first", ["8.capability-off", "8.order"],
          options=RO, files=F, request=req(WRITE, {}), expect=method_off()),
        V("read-only-before-session", "§8 capability before session", ["8.capability-off", "8.order"],
          options=RO, files=F, request=write(A, "x", sid="nope"), expect=method_off()),
        V("read-only-before-roots", "§8 capability before roots", ["8.capability-off", "8.order"],
          options=RO, files=F, request=write("/outside/x.txt", "x"), expect=method_off()),
        V("storage-without-write-before-deny", "§8 capability before the deny list", ["8.capability-off", "8.order"],
          storage=NW, files=F, request=write("/project/.env", "x"), expect=method_off()),
        V("read-only-false-writes", "§8 readOnly false: writes are served", ["8.capability-off"],
          options={"readOnly": False}, files=F, request=write(A, "x"), expect={**OK_WRITE, "files": {A: "x"}}),
    ]
    return v
