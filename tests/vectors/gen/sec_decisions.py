"""decisions_*.json: the rules of docs/semantics.md section 8.1 ("Further decisions").

One function per output file. Expectations are derived from the bullet each vector names in
its `rule`; the rule ids are those of rules.py ("81.*").
"""

from vectorlib import (V, READ, WRITE, read, write, ok, err, invalid, policy, not_found, method_off,
                       OK_WRITE, change, hexb, link, caps, window_expect)
from sec_dispatch import msg, rq, resp_ok, raw_err

A = "/project/a.txt"
FA = {A: "alpha\n", "/project/sub/b.txt": "beta\n", "/outside/secret.txt": "secret\n"}

NOSYM = {"symlinks": False}
WIN_S = {"s1": {"cwd": "C:\\proj", "additionalDirectories": []}}
WIN_F = {"C:\\proj\\a.txt": "win\n", "C:\\proj\\sub\\b.txt": "sub\n"}
UNC_S = {"s1": {"cwd": "\\\\srv\\share\\proj", "additionalDirectories": []}}
UNC_F = {"\\\\srv\\share\\proj\\a.txt": "unc\n"}

BOM = b"\xef\xbb\xbf"
LE = b"\xff\xfe"
BE = b"\xfe\xff"


def u16le(s):
    return LE + s.encode("utf-16-le")


def u16be(s):
    return BE + s.encode("utf-16-be")


def storage_error():
    return err(-32603, errorKind="storage_error")


def sess(cwd, *extra):
    return {"s1": {"cwd": cwd, "additionalDirectories": list(extra)}}


# ------------------------------------------------------------------ paths, roots, symlinks

def paths():
    v = []
    bs = "§8.1 backslashes in POSIX paths are refused (-32602 field path)"
    v += [
        V("posix-backslash-dotdot-refused", bs + ": /project/..\\..\\etc would escape on a Windows host", ["81.posix-backslash", "3.invalid-path"],
          files=FA, request=read("/project/..\\..\\etc\\passwd"), expect=invalid("path")),
        V("posix-backslash-in-name-refused", bs + " (also inside a file name)", ["81.posix-backslash"],
          files=FA, request=read("/project/a\\b.txt"), expect=invalid("path")),
        V("posix-backslash-trailing-refused", bs + " (a trailing backslash)", ["81.posix-backslash"],
          files=FA, request=read("/project/a.txt\\"), expect=invalid("path")),
        V("posix-backslash-write-refused", bs + " (write; nothing created)", ["81.posix-backslash"],
          files=FA, request=write("/project/sub\\new.txt", "x"),
          expect={**invalid("path"), "absent": ["/project/sub/new.txt"], "change": None}),
        V("posix-backslash-before-session", bs + "; a params error comes before the session check", ["81.posix-backslash", "8.order"],
          files=FA, request=read("/x\\y.txt", sid="nope"), expect=invalid("path")),
        V("posix-backslash-lenient-still-refused", bs + "; lenientParams relaxes optional fields only", ["81.posix-backslash", "8.required-strict"],
          options={"lenientParams": True}, files=FA, request=read("/project/..\\a.txt"), expect=invalid("path")),
        V("posix-backslash-in-windows-session-refused", bs + " (whatever the session's roots)", ["81.posix-backslash"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("/proj\\a.txt"), expect=invalid("path")),
    ]
    ds = "§8.1 a leading // stays /: //?/C:/x is the POSIX path /?/C:/x"
    v += [
        V("posix-double-slash-verbatim-form-outside", ds, ["81.double-slash", "8.path-posix", "8.policy-path"],
          files=FA, request=read("//?/C:/x"), expect=policy("path_outside_roots", "/?/C:/x")),
        V("posix-double-slash-verbatim-form-write-outside", ds + " (write; nothing created)", ["81.double-slash"],
          files=FA, request=write("//?/C:/x", "x"),
          expect={**policy("path_outside_roots", "/?/C:/x"), "absent": ["/?/C:/x"], "change": None}),
        V("posix-double-slash-device-form-outside", ds + "; //./pipe/x is /pipe/x (. dropped)", ["81.double-slash", "8.path-posix"],
          files=FA, request=read("//./pipe/x"), expect=policy("path_outside_roots", "/pipe/x")),
        V("posix-double-slash-verbatim-form-is-a-plain-file", ds + " (served like any POSIX file under /)", ["81.double-slash"],
          sessions=sess("/"), files={"/?/C:/x": "q\n"}, request=read("//?/C:/x"), expect=ok("q\n")),
        V("posix-double-slash-verbatim-form-not-a-drive-path", ds + ": it is never compared with a drive root", ["81.double-slash", "81.mixed-styles"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("//?/C:/proj/a.txt"),
          expect=policy("path_outside_roots", "/?/C:/proj/a.txt")),
        V("posix-double-slash-unc-lookalike", ds + ": //srv/share/x is the POSIX path /srv/share/x, not UNC", ["81.double-slash", "8.path-posix"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=read("//srv/share/proj/a.txt"),
          expect=policy("path_outside_roots", "/srv/share/proj/a.txt")),
    ]
    wf = "§8.1 Windows forms"
    v += [
        V("windows-repeated-backslashes", wf + ": repeated separators collapse", ["81.windows-forms", "8.path-windows"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("C:\\\\proj\\\\\\a.txt"), expect=ok("win\n")),
        V("windows-repeated-forward-slashes", wf + ": repeated separators collapse (/)", ["81.windows-forms"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("C://proj//sub//b.txt"), expect=ok("sub\n")),
        V("windows-trailing-backslash", wf + ": a trailing separator is dropped", ["81.windows-forms"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("C:\\proj\\a.txt\\"), expect=ok("win\n")),
        V("windows-trailing-slash-directory", wf + ": trailing separator dropped; the directory is not_a_file (normalized path in data)", ["81.windows-forms", "8.policy-path", "3.non-regular"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("c:/proj/sub/"), expect=policy("not_a_file", "C:\\proj\\sub")),
        V("windows-drive-root-dotdot", wf + ": C:\\.. is C:\\", ["81.windows-forms", "3.lexical"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("C:\\..\\proj\\a.txt"), expect=ok("win\n")),
        V("windows-drive-root-dotdot-many", wf + ": .. stops at the drive root", ["81.windows-forms"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("c:/../../../proj/sub/b.txt"), expect=ok("sub\n")),
        V("windows-dotdot-stops-at-drive-root-outside", wf + ": .. stops at the drive root (normalized path in data)", ["81.windows-forms", "8.policy-path"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("C:\\proj\\..\\..\\..\\Windows\\win.ini"),
          expect=policy("path_outside_roots", "C:\\Windows\\win.ini")),
        V("windows-drive-root-dotdot-normal-form", wf + ": c:\\.. normalizes to C:\\", ["81.windows-forms", "8.policy-path"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=read("c:\\.."), expect=policy("path_outside_roots", "C:\\")),
        V("windows-write-trailing-separators", wf + ": trailing separators dropped (write, change path)", ["81.windows-forms", "81.change-path"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=write("C:\\proj\\new.txt\\\\", "n\n"),
          expect={**OK_WRITE, "files": {"C:\\proj\\new.txt": "n\n"}, "change": change("C:\\proj\\new.txt", None, "n\n")}),
        V("windows-write-repeated-separators", wf + ": repeated separators collapse (write over a file)", ["81.windows-forms", "81.change-path"],
          sessions=WIN_S, files=WIN_F, storage=NOSYM, request=write("C:\\proj\\\\sub//b.txt", "B\n"),
          expect={**OK_WRITE, "files": {"C:\\proj\\sub\\b.txt": "B\n"}, "change": change("C:\\proj\\sub\\b.txt", "sub\n", "B\n")}),
        V("unc-repeated-separators", wf + ": repeated separators collapse in a UNC path", ["81.windows-forms", "8.path-unc"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=read("\\\\srv\\share\\\\proj\\\\\\a.txt"), expect=ok("unc\n")),
        V("unc-trailing-separator", wf + ": a trailing separator is dropped in a UNC path", ["81.windows-forms", "8.path-unc"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=read("\\\\srv\\share\\proj\\a.txt\\"), expect=ok("unc\n")),
        V("unc-dotdot-never-above-share-write", wf + ": .. never climbs above a UNC share (write; normalized path in data)", ["81.windows-forms", "8.path-unc"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=write("\\\\srv\\share\\proj\\..\\..\\..\\other\\x.txt", "x"),
          expect={**policy("path_outside_roots", "\\\\srv\\share\\other\\x.txt"), "change": None}),
    ]
    uc = "§8.1 UNC server and share compare case-insensitively"
    v += [
        V("unc-root-server-share-case-insensitive", uc, ["81.unc-case", "3.roots"],
          sessions=sess("\\\\SRV\\Share\\proj"), files=UNC_F, storage=NOSYM, request=read("\\\\srv\\share\\proj\\a.txt"), expect=ok("unc\n")),
        V("unc-request-server-share-case-insensitive", uc + " (an upper-case request is inside: not_found, not outside)", ["81.unc-case", "6.not-found"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=read("\\\\SRV\\SHARE\\proj\\missing.txt"),
          expect=not_found("\\\\SRV\\SHARE\\proj\\missing.txt")),
        V("unc-root-path-case-insensitive", uc + ", like the rest of the path", ["81.unc-case"],
          sessions=sess("\\\\srv\\share\\PROJ"), files=UNC_F, storage=NOSYM, request=read("\\\\srv\\share\\proj\\a.txt"), expect=ok("unc\n")),
        V("unc-other-server-outside", uc + "; another server is outside", ["81.unc-case", "8.path-unc"],
          sessions=UNC_S, files=UNC_F, storage=NOSYM, request=read("\\\\other\\share\\proj\\a.txt"),
          expect=policy("path_outside_roots", "\\\\other\\share\\proj\\a.txt")),
    ]
    sn = "§8.1 a session cwd and every root are normalized like request paths"
    v += [
        V("session-cwd-trailing-slash", sn + " (trailing /)", ["81.session-normalized"],
          sessions=sess("/project/"), files=FA, request=read(A), expect=ok("alpha\n")),
        V("session-cwd-trailing-slash-prefix-trick", sn + " (trailing /; /project2 is still outside)", ["81.session-normalized", "3.roots"],
          sessions=sess("/project/"), files={**FA, "/project2/a.txt": "two\n"}, request=read("/project2/a.txt"),
          expect=policy("path_outside_roots", "/project2/a.txt")),
        V("session-cwd-trailing-slash-write", sn + " (trailing /; write)", ["81.session-normalized"],
          sessions=sess("/project/"), files=FA, request=write("/project/new.txt", "n\n"),
          expect={**OK_WRITE, "files": {"/project/new.txt": "n\n"}, "change": change("/project/new.txt", None, "n\n")}),
        V("session-cwd-dotdot", sn + " (.. resolved)", ["81.session-normalized"],
          sessions=sess("/work/../project"), files=FA, request=read(A), expect=ok("alpha\n")),
        V("session-cwd-dotdot-parent-not-a-root", sn + " (/work/../project is /project: /work is outside)", ["81.session-normalized", "3.roots"],
          sessions=sess("/work/../project"), files={**FA, "/work/x.txt": "w\n"}, request=read("/work/x.txt"),
          expect=policy("path_outside_roots", "/work/x.txt")),
        V("session-cwd-double-slash-and-dot", sn + " (// and . )", ["81.session-normalized"],
          sessions=sess("//project/./"), files=FA, request=read("/project/sub/b.txt"), expect=ok("beta\n")),
        V("session-cwd-dotdot-above-slash", sn + " (/.. is /)", ["81.session-normalized"],
          sessions=sess("/../project"), files=FA, request=read(A), expect=ok("alpha\n")),
        V("session-additional-directory-trailing-slash", sn + " (additionalDirectories too)", ["81.session-normalized", "3.roots"],
          sessions=sess("/project", "/lib/"), files={**FA, "/lib/util.txt": "util\n"}, request=read("/lib/util.txt"), expect=ok("util\n")),
        V("session-additional-directory-dotdot", sn + " (additionalDirectories with ..)", ["81.session-normalized"],
          sessions=sess("/project", "/project/../lib"), files={**FA, "/lib/util.txt": "util\n"}, request=read("/lib/util.txt"), expect=ok("util\n")),
        V("session-extra-roots-trailing-slash", sn + " (host extra roots too)", ["81.session-normalized", "3.roots"],
          options={"extraRoots": ["/shared/"]}, files={**FA, "/shared/x.txt": "shared\n"}, request=read("/shared/x.txt"), expect=ok("shared\n")),
        V("session-default-roots-dotdot", sn + " (the default policy's roots too)", ["81.session-normalized", "3.unknown-session"],
          sessions={}, options={"roots": ["/x/../project/"]}, files=FA, request=read(A, sid="any"), expect=ok("alpha\n")),
        V("session-windows-cwd-forward-slashes", sn + " (c:/proj/ is C:\\proj)", ["81.session-normalized", "8.path-windows"],
          sessions=sess("c:/proj/"), files=WIN_F, storage=NOSYM, request=read("C:\\proj\\a.txt"), expect=ok("win\n")),
        V("session-windows-cwd-dotdot", sn + " (C:\\work\\..\\proj is C:\\proj)", ["81.session-normalized"],
          sessions=sess("C:\\work\\..\\proj"), files=WIN_F, storage=NOSYM, request=read("C:\\proj\\sub\\b.txt"), expect=ok("sub\n")),
        V("session-windows-cwd-dotdot-parent-outside", sn + " (C:\\work is not a root)", ["81.session-normalized"],
          sessions=sess("C:\\work\\..\\proj"), files=WIN_F, storage=NOSYM, request=read("C:\\work\\x.txt"),
          expect=policy("path_outside_roots", "C:\\work\\x.txt")),
        V("session-unc-cwd-trailing-separator", sn + " (UNC with a trailing separator)", ["81.session-normalized", "8.path-unc"],
          sessions=sess("\\\\srv\\share\\proj\\"), files=UNC_F, storage=NOSYM, request=read("\\\\srv\\share\\proj\\a.txt"), expect=ok("unc\n")),
    ]
    mx = "§8.1 a session may mix styles; each path is compared with roots of its style"
    MIX = sess("/project", "C:\\proj")
    MIX_F = {A: "alpha\n", **WIN_F}
    v += [
        V("mixed-styles-drive-path-served", mx, ["81.mixed-styles"],
          sessions=MIX, files=MIX_F, storage=NOSYM, request=read("c:/proj/a.txt"), expect=ok("win\n")),
        V("mixed-styles-posix-path-served", mx, ["81.mixed-styles"],
          sessions=MIX, files=MIX_F, storage=NOSYM, request=read(A), expect=ok("alpha\n")),
        V("mixed-styles-posix-spelling-of-drive-outside", mx + " (/C:/proj is a POSIX path)", ["81.mixed-styles", "8.policy-path"],
          sessions=MIX, files=MIX_F, storage=NOSYM, request=read("/C:/proj/a.txt"), expect=policy("path_outside_roots", "/C:/proj/a.txt")),
        V("mixed-styles-drive-path-not-under-posix-root", mx + " (C:\\project is not under /project)", ["81.mixed-styles"],
          sessions=MIX, files=MIX_F, storage=NOSYM, request=read("C:\\project\\a.txt"), expect=policy("path_outside_roots", "C:\\project\\a.txt")),
        V("mixed-styles-unc-cwd-posix-extra", mx + " (UNC cwd, POSIX additional directory)", ["81.mixed-styles"],
          sessions=sess("\\\\srv\\share\\proj", "/project"), files={**UNC_F, A: "alpha\n"}, storage=NOSYM, request=read(A), expect=ok("alpha\n")),
        V("mixed-styles-write-drive-path", mx + " (write)", ["81.mixed-styles", "81.change-path"],
          sessions=MIX, files=MIX_F, storage=NOSYM, request=write("C:/proj/new.txt", "n\n"),
          expect={**OK_WRITE, "files": {"C:\\proj\\new.txt": "n\n"}, "change": change("C:\\proj\\new.txt", None, "n\n")}),
    ]
    bf = "§8.1 below a regular file"
    v += [
        V("below-file-read-not-found", bf + ": reads are not_found", ["81.below-file", "6.not-found"],
          files=FA, request=read("/project/a.txt/b.txt"), expect=not_found("/project/a.txt/b.txt")),
        V("below-file-read-deep-not-found", bf + ": reads are not_found (deeper)", ["81.below-file"],
          files=FA, request=read("/project/a.txt/x/y.txt"), expect=not_found("/project/a.txt/x/y.txt")),
        V("below-file-read-through-symlink-not-found", bf + ": reads are not_found (the file is reached through a link)", ["81.below-file", "3.realpath"],
          files={**FA, "/project/l": link("a.txt")}, request=read("/project/l/b.txt"), expect=not_found("/project/l/b.txt")),
        V("below-file-write-not-a-file", bf + ": writes are not_a_file; the file is unchanged", ["81.below-file", "8.write-dir"],
          files=FA, request=write("/project/a.txt/b.txt", "x"),
          expect={**policy("not_a_file", "/project/a.txt/b.txt"), "files": {A: "alpha\n"}, "change": None}),
        V("below-file-write-deep-not-a-file", bf + ": writes are not_a_file (deeper; nothing created)", ["81.below-file"],
          files=FA, request=write("/project/a.txt/x/y.txt", "x"),
          expect={**policy("not_a_file", "/project/a.txt/x/y.txt"), "files": {A: "alpha\n"}, "change": None}),
        V("below-file-write-create-parents-false", bf + ": writes are not_a_file (the parent exists, it is a file)", ["81.below-file"],
          options={"createParents": False}, files=FA, request=write("/project/a.txt/b.txt", "x"),
          expect={**policy("not_a_file", "/project/a.txt/b.txt"), "files": {A: "alpha\n"}}),
    ]
    lp = "§8.1 symlink loops are storage_error"
    LOOP = {**FA, "/project/l1": link("/project/l2"), "/project/l2": link("/project/l1")}
    v += [
        V("symlink-loop-read-storage-error", lp, ["81.symlink-loop", "6.storage-error"],
          files=LOOP, request=read("/project/l1"), expect=storage_error()),
        V("symlink-self-loop-read-storage-error", lp + " (a link to itself)", ["81.symlink-loop"],
          files={**FA, "/project/self": link("self")}, request=read("/project/self"), expect=storage_error()),
        V("symlink-loop-directory-component-read", lp + " (a looping directory component)", ["81.symlink-loop"],
          files={**FA, "/project/loop": link("/project/loop")}, request=read("/project/loop/x.txt"), expect=storage_error()),
        V("symlink-loop-write-storage-error", lp + " (write; nothing written)", ["81.symlink-loop"],
          files=LOOP, request=write("/project/l1", "x"), expect={**storage_error(), "files": {A: "alpha\n"}, "change": None}),
        V("symlink-loop-write-new-file-below", lp + " (new file below a loop; nothing created)", ["81.symlink-loop"],
          files={**FA, "/project/loop": link("/project/loop")}, request=write("/project/loop/new.txt", "x"),
          expect={**storage_error(), "change": None}),
        V("symlink-loop-deny-list-first", lp + "; the deny list comes before the real path", ["81.symlink-loop", "8.order"],
          files={**FA, "/project/.env": link(".env")}, request=read("/project/.env"), expect=policy("denied_by_pattern", "/project/.env")),
    ]
    rf = "§8.1 a storage that has symlinks but cannot resolve them refuses every request with symlink_escape"
    RF = {"realpath": False}
    v += [
        V("realpath-false-plain-file-read", rf + ", even with no link in sight", ["81.realpath-false", "3.fail-closed"],
          storage=RF, files=FA, request=read(A), expect=policy("symlink_escape", A)),
        V("realpath-false-plain-file-write", rf + " (write over a plain file; unchanged)", ["81.realpath-false"],
          storage=RF, files=FA, request=write(A, "x"), expect={**policy("symlink_escape", A), "files": {A: "alpha\n"}, "change": None}),
        V("realpath-false-new-file-write", rf + " (new file; nothing created)", ["81.realpath-false"],
          storage=RF, files=FA, request=write("/project/new/x.txt", "x"),
          expect={**policy("symlink_escape", "/project/new/x.txt"), "absent": ["/project/new/x.txt", "/project/new"], "change": None}),
        V("realpath-false-missing-file-read", rf + " (before stat: not not_found)", ["81.realpath-false", "8.order"],
          storage=RF, files=FA, request=read("/project/missing.txt"), expect=policy("symlink_escape", "/project/missing.txt")),
        V("realpath-false-directory-read", rf + " (before stat: not not_a_file)", ["81.realpath-false", "8.order"],
          storage=RF, files=FA, request=read("/project/sub"), expect=policy("symlink_escape", "/project/sub")),
        V("realpath-false-open-document", rf + " (real path before overlay)", ["81.realpath-false", "8.order", "5.overlay-read"],
          storage=RF, files=FA, documents={A: "buffer\n"}, request=read(A), expect=policy("symlink_escape", A)),
        V("realpath-false-outside-roots-first", rf + "; lexical roots come first", ["81.realpath-false", "8.order"],
          storage=RF, files=FA, request=read("/outside/secret.txt"), expect=policy("path_outside_roots", "/outside/secret.txt")),
        V("realpath-false-deny-list-first", rf + "; the deny list comes first", ["81.realpath-false", "8.order"],
          storage=RF, files={**FA, "/project/.env": "S=1\n"}, request=read("/project/.env"), expect=policy("denied_by_pattern", "/project/.env")),
        V("realpath-false-params-first", rf + "; params come first", ["81.realpath-false", "8.order"],
          storage=RF, files=FA, request=read("a.txt"), expect=invalid("path")),
        V("realpath-false-max-write-first", rf + "; maxWriteBytes comes first", ["81.realpath-false", "8.order"],
          storage=RF, options={"maxWriteBytes": 4}, files=FA, request=write(A, "too long"),
          expect={**policy("file_too_large", A), "files": {A: "alpha\n"}}),
    ]
    return v


# ------------------------------------------------------------------ decoding and sizes

ROWS20 = "".join("row-%05d\n" % i for i in range(1, 21))
ROWS10 = ROWS20[:100]
assert len(ROWS10.encode()) == 100
BIG = "/project/big.txt"
MR = {"maxReadBytes": 100}


def too_large(path):
    return policy("file_too_large", path)


def text():
    v = []
    dp = "§8.1 decoding precedence"
    bad = lambda p: policy("not_utf8", p)  # noqa: E731
    binary = lambda p: policy("binary_file", p)  # noqa: E731
    v += [
        V("nul-and-invalid-utf8-is-binary", dp + ": the NUL test comes first (binary_file beats not_utf8)", ["81.decode-precedence", "4.nul"],
          files={A: hexb(b"ab\x00cd\xff\n")}, request=read(A), expect=binary(A)),
        V("invalid-utf8-before-nul-is-binary", dp + ": the NUL test comes first, wherever the invalid byte is", ["81.decode-precedence"],
          files={A: hexb(b"caf\xe9 \x00\n")}, request=read(A), expect=binary(A)),
        V("nul-and-invalid-utf8-after-window-is-binary", dp + ": the NUL test looks at the first 8 KiB always", ["81.decode-precedence", "8.nul-8k"],
          files={A: hexb(b"ok\n\xe9\x00\n")}, request=read(A, limit=1), expect=binary(A)),
        V("nul-and-invalid-utf8-write-refused-binary", dp + " (write over it is refused as binary_file; unchanged)", ["81.decode-precedence", "8.write-unreadable"],
          files={A: hexb(b"\xe9\x00x")}, request=write(A, "text\n"), expect={**binary(A), "files": {A: hexb(b"\xe9\x00x")}, "change": None}),
        V("utf16le-odd-length-not-utf8", dp + ": UTF-16 LE with a BOM and an odd byte count is not_utf8", ["81.decode-precedence", "4.utf16-read"],
          files={A: hexb(LE + b"a\x00b")}, request=read(A), expect=bad(A)),
        V("utf16be-odd-length-not-utf8", dp + ": UTF-16 BE with a BOM and an odd byte count is not_utf8", ["81.decode-precedence"],
          files={A: hexb(BE + b"\x00a\x00")}, request=read(A), expect=bad(A)),
        V("utf16le-lone-high-surrogate-not-utf8", dp + ": a lone high surrogate in UTF-16 LE is not_utf8", ["81.decode-precedence"],
          files={A: hexb(u16le("a") + b"\x00\xd8" + "b\n".encode("utf-16-le"))}, request=read(A), expect=bad(A)),
        V("utf16le-lone-high-surrogate-at-end-not-utf8", dp + ": a high surrogate at the end of UTF-16 LE is not_utf8", ["81.decode-precedence"],
          files={A: hexb(u16le("a\n") + b"\x3d\xd8")}, request=read(A), expect=bad(A)),
        V("utf16be-lone-low-surrogate-not-utf8", dp + ": a lone low surrogate in UTF-16 BE is not_utf8", ["81.decode-precedence"],
          files={A: hexb(u16be("a") + b"\xdc\x00" + "\n".encode("utf-16-be"))}, request=read(A), expect=bad(A)),
        V("utf16le-reversed-surrogates-not-utf8", dp + ": a low surrogate before a high one is not_utf8", ["81.decode-precedence"],
          files={A: hexb(u16le("x") + b"\x00\xdc\x00\xd8" + "\n".encode("utf-16-le"))}, request=read(A), expect=bad(A)),
        V("utf16le-lone-surrogate-outside-window-not-utf8", dp + ": UTF-16 is decoded whole, so a bad unit after the window is not_utf8", ["81.decode-precedence", "8.utf16-whole"],
          files={A: hexb(u16le("one\ntwo\n") + b"\x00\xd8" + "\n".encode("utf-16-le"))}, request=read(A, line=1, limit=1), expect=bad(A)),
        V("utf16-invalid-write-refused", dp + " (write over invalid UTF-16 is refused as not_utf8; unchanged)", ["81.decode-precedence", "8.write-unreadable"],
          files={A: hexb(LE + b"a\x00b")}, request=write(A, "text\n"), expect={**bad(A), "files": {A: hexb(LE + b"a\x00b")}, "change": None}),
        V("utf16be-without-bom-is-binary", dp + ": UTF-16 BE without a BOM is binary_file", ["81.decode-precedence", "4.nul"],
          files={A: hexb("abc\n".encode("utf-16-be"))}, request=read(A), expect=binary(A)),
    ]
    sp = "§8.1 size precedence"
    v += [
        V("max-read-size-before-nul", sp + ": a whole read of maxReadBytes+4 bytes with a NUL is file_too_large (size first)", ["81.size-precedence", "8.max-read"],
          options=MR, files={BIG: "x" * 10 + "\u0000" + "x" * 93}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-size-before-nul-at-start", sp + ": the size refusal comes before the NUL test", ["81.size-precedence"],
          options=MR, files={BIG: hexb(b"\x00" + ROWS20.encode()[1:])}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-size-before-invalid-utf16", sp + ": the size refusal comes before decoding (invalid UTF-16)", ["81.size-precedence"],
          options=MR, files={BIG: hexb(LE + b"a\x00" * 60 + b"\x00\xd8")}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-bom-room-served", sp + ": a BOM + exactly maxReadBytes of content (103 bytes) is served", ["81.size-precedence", "81.limits-inclusive", "4.bom-read"],
          options=MR, files={BIG: hexb(BOM + ROWS10.encode())}, request=read(BIG), expect=ok(ROWS10)),
        V("max-read-bom-room-one-over", sp + ": a BOM + maxReadBytes+1 of content (104 bytes) is file_too_large", ["81.size-precedence"],
          options=MR, files={BIG: hexb(BOM + ROWS10.encode() + b"x")}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-103-bytes-without-bom-too-large", sp + ": within the BOM room the content bound is checked exactly (103 bytes, no BOM)", ["81.size-precedence"],
          options=MR, files={BIG: ROWS10 + "xyz"}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-utf16-size-refused-before-decoding", sp + ": a 122-byte UTF-16 file is refused from its size (content would be 60 bytes)", ["81.size-precedence"],
          options=MR, files={BIG: hexb(u16le("x" * 60))}, request=read(BIG), expect=too_large(BIG)),
        V("max-read-utf16-content-fits", sp + ": a 102-byte UTF-16 file whose content (50 bytes) fits is served", ["81.size-precedence", "4.utf16-read"],
          options=MR, files={BIG: hexb(u16le("x" * 50))}, request=read(BIG), expect=ok("x" * 50)),
        V("max-read-window-nul-still-binary", sp + " applies to whole-file reads; a window of a large file still gets the NUL test", ["81.size-precedence", "8.nul-8k"],
          options=MR, files={BIG: ROWS20[:150] + "\u0000" + ROWS20[151:]}, request=read(BIG, line=1, limit=1), expect=binary(BIG)),
    ]
    li = "§8.1 maxReadBytes and maxWriteBytes are inclusive"
    mw = "§8.1 maxWriteBytes counts the UTF-8 bytes of content as sent"
    MW = {"maxWriteBytes": 20}
    N = "/project/new.txt"
    v += [
        V("max-read-multibyte-exactly-at-limit", li + ": 50 two-byte characters (100 bytes) are served whole", ["81.limits-inclusive"],
          options=MR, files={BIG: "é" * 50}, request=read(BIG), expect=ok("é" * 50)),
        V("max-write-exactly-at-limit", li + ": content of exactly maxWriteBytes is written", ["81.limits-inclusive", "4.max-write"],
          options=MW, files={A: "a"}, request=write(N, "x" * 20),
          expect={**OK_WRITE, "files": {N: "x" * 20}, "change": change(N, None, "x" * 20)}),
        V("max-write-multibyte-exactly-at-limit", li + " (10 two-byte characters = 20 bytes)", ["81.limits-inclusive", "81.max-write-measure"],
          options=MW, files={A: "a"}, request=write(N, "é" * 10), expect={**OK_WRITE, "files": {N: "é" * 10}}),
        V("max-write-multibyte-one-over", li + " (21 bytes refused; nothing created)", ["81.limits-inclusive", "81.max-write-measure"],
          options=MW, files={A: "a"}, request=write(N, "é" * 10 + "x"),
          expect={**too_large(N), "absent": [N], "change": None}),
        V("max-write-counts-content-before-crlf", mw + ": 20 bytes sent, 26 written as CRLF, allowed", ["81.max-write-measure", "4.crlf-write"],
          options=MW, files={A: "a\r\n"}, request=write(A, "ab\n" * 6 + "xx"),
          expect={**OK_WRITE, "files": {A: "ab\r\n" * 6 + "xx"}, "change": change(A, "a\r\n", "ab\r\n" * 6 + "xx")}),
        V("max-write-counts-content-not-utf16", mw + ": 20 bytes sent, 42 written as UTF-16, allowed", ["81.max-write-measure", "4.encoding-write"],
          options=MW, files={A: hexb(u16le("old\n"))}, request=write(A, "x" * 20),
          expect={**OK_WRITE, "files": {A: hexb(u16le("x" * 20))}}),
        V("max-write-utf16-target-one-over", mw + ": 21 bytes sent to a UTF-16 file are refused", ["81.max-write-measure"],
          options=MW, files={A: hexb(u16le("old\n"))}, request=write(A, "x" * 21),
          expect={**too_large(A), "files": {A: hexb(u16le("old\n"))}}),
        V("max-write-leading-bom-counts", mw + ": a leading U+FEFF counts its 3 bytes (21 bytes refused)", ["81.max-write-measure", "81.bom-write"],
          options=MW, files={A: "a"}, request=write(N, "\ufeff" + "x" * 18), expect={**too_large(N), "absent": [N]}),
        V("max-write-leading-bom-at-limit", mw + ": U+FEFF + 17 bytes = 20 is written (as a BOM)", ["81.max-write-measure", "81.bom-write"],
          options=MW, files={A: "a"}, request=write(N, "\ufeff" + "x" * 17),
          expect={**OK_WRITE, "files": {N: hexb(BOM + b"x" * 17)}, "change": change(N, None, "x" * 17)}),
    ]
    dm = "§8.1 open documents obey maxReadBytes like files"
    U = "/project/untitled.txt"
    v += [
        V("overlay-max-read-whole-too-large", dm + ": a whole read of a larger buffer is file_too_large", ["81.doc-max-read", "5.overlay-read"],
          options=MR, files={A: "small\n"}, documents={A: "x" * 101}, request=read(A), expect=too_large(A)),
        V("overlay-max-read-exactly-at-limit", dm + ": a buffer of exactly maxReadBytes is served", ["81.doc-max-read", "81.limits-inclusive"],
          options=MR, files={A: "small\n"}, documents={A: ROWS10}, request=read(A), expect=ok(ROWS10)),
        V("overlay-max-read-window-fits", dm + ": a window of a larger buffer is served when it fits", ["81.doc-max-read"],
          options=MR, files={A: "small\n"}, documents={A: ROWS20}, request=read(A, line=3, limit=2), expect=window_expect(ROWS20, 3, 2)),
        V("overlay-max-read-window-too-large", dm + ": a window whose content does not fit is file_too_large", ["81.doc-max-read"],
          options=MR, files={A: "small\n"}, documents={A: ROWS20}, request=read(A, line=1, limit=11), expect=too_large(A)),
        V("overlay-max-read-counts-bytes", dm + ": 51 two-byte characters (102 bytes) of an unsaved buffer are too large", ["81.doc-max-read"],
          options=MR, documents={U: "é" * 51}, request=read(U), expect=too_large(U)),
    ]
    bw = "§8.1 BOM on write: the existing file decides"
    v += [
        V("write-bom-new-file-written-as-bom", bw + ": for a new file a leading U+FEFF is written as a BOM; newText without it", ["81.bom-write", "5.change"],
          files={A: "a"}, request=write(N, "\ufeffhello\n"),
          expect={**OK_WRITE, "files": {N: hexb(BOM + b"hello\n")}, "change": change(N, None, "hello\n")}),
        V("write-bom-only-new-file", bw + ": content of only U+FEFF creates a file of only a BOM; newText is empty", ["81.bom-write"],
          files={A: "a"}, request=write(N, "\ufeff"), expect={**OK_WRITE, "files": {N: hexb(BOM)}, "change": change(N, None, "")}),
        V("write-bom-existing-without-bom-dropped", bw + ": an existing file without BOM stays without; newText without U+FEFF", ["81.bom-write", "4.encoding-write"],
          files={A: "old\n"}, request=write(A, "\ufeffnew\n"), expect={**OK_WRITE, "files": {A: "new\n"}, "change": change(A, "old\n", "new\n")}),
        V("write-bom-existing-crlf-without-bom-dropped", bw + ": dropped, and CRLF still preserved", ["81.bom-write", "4.crlf-write"],
          files={A: "a\r\n"}, request=write(A, "\ufeffx\ny\n"), expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}, "change": change(A, "a\r\n", "x\r\ny\r\n")}),
        V("write-bom-existing-with-bom-crlf", bw + ": an existing BOM file keeps one BOM; CRLF preserved; newText without U+FEFF", ["81.bom-write", "4.bom-write"],
          files={A: hexb(BOM + b"a\r\n")}, request=write(A, "\ufeffx\ny\n"),
          expect={**OK_WRITE, "files": {A: hexb(BOM + b"x\r\ny\r\n")}, "change": change(A, "a\r\n", "x\r\ny\r\n")}),
        V("write-bom-existing-with-bom-empty-content", bw + ": an existing BOM file written with empty content keeps its BOM", ["81.bom-write", "4.bom-write"],
          files={A: hexb(BOM + b"old\n")}, request=write(A, ""), expect={**OK_WRITE, "files": {A: hexb(BOM)}, "change": change(A, "old\n", "")}),
        V("write-bom-existing-utf16le-kept", bw + ": a UTF-16 LE file keeps its encoding and one BOM", ["81.bom-write", "4.encoding-write"],
          files={A: hexb(u16le("old\n"))}, request=write(A, "\ufeffnew\n"),
          expect={**OK_WRITE, "files": {A: hexb(u16le("new\n"))}, "change": change(A, "old\n", "new\n")}),
        V("write-bom-existing-utf16be-kept", bw + ": a UTF-16 BE file keeps its encoding and one BOM", ["81.bom-write", "4.encoding-write"],
          files={A: hexb(u16be("old\n"))}, request=write(A, "\ufeffnew\n"),
          expect={**OK_WRITE, "files": {A: hexb(u16be("new\n"))}, "change": change(A, "old\n", "new\n")}),
        V("write-feff-not-leading-is-text", bw + ": only a leading U+FEFF is the BOM; later it is text", ["81.bom-write"],
          files={A: "a"}, request=write(N, "a\ufeffb\n"),
          expect={**OK_WRITE, "files": {N: hexb("a\ufeffb\n".encode())}, "change": change(N, None, "a\ufeffb\n")}),
    ]
    return v


# ------------------------------------------------------------------ writes, overlay, approval, deny

def writes():
    v = []
    F = {A: "alpha\n", "/project/sub/b.txt": "beta\n"}
    cp = "§8.1 change records name the requested (normalized) path, also through a symlink"
    v += [
        V("change-path-through-file-symlink", cp, ["81.change-path", "8.resolved-io"],
          files={**F, "/project/link": link("/project/a.txt")}, request=write("/project/link", "changed\n"),
          expect={**OK_WRITE, "files": {A: "changed\n"}, "change": change("/project/link", "alpha\n", "changed\n")}),
        V("change-path-through-relative-symlink", cp + " (relative link)", ["81.change-path"],
          files={**F, "/project/sub/l": link("../a.txt")}, request=write("/project/sub/l", "changed\n"),
          expect={**OK_WRITE, "files": {A: "changed\n"}, "change": change("/project/sub/l", "alpha\n", "changed\n")}),
        V("change-path-through-directory-symlink", cp + " (symlinked directory, existing file)", ["81.change-path"],
          files={**F, "/project/alias": link("/project/sub")}, request=write("/project/alias/b.txt", "B\n"),
          expect={**OK_WRITE, "files": {"/project/sub/b.txt": "B\n"}, "change": change("/project/alias/b.txt", "beta\n", "B\n")}),
        V("change-path-through-directory-symlink-new-file", cp + " (symlinked directory, new file)", ["81.change-path", "8.missing-realpath"],
          files={**F, "/project/alias": link("/project/sub")}, request=write("/project/alias/new.txt", "n\n"),
          expect={**OK_WRITE, "files": {"/project/sub/new.txt": "n\n"}, "change": change("/project/alias/new.txt", None, "n\n")}),
        V("change-path-normalized-through-symlink", cp + " (the requested path normalized, not resolved)", ["81.change-path", "3.lexical"],
          files={**F, "/project/link": link("/project/a.txt")}, request=write("/project/./sub/../link", "c\n"),
          expect={**OK_WRITE, "files": {A: "c\n"}, "change": change("/project/link", "alpha\n", "c\n")}),
        V("change-path-root-is-symlink", cp + " (the root itself is a link)", ["81.change-path"],
          files={"/project": link("/real/project"), "/real/project/a.txt": "real\n"}, request=write(A, "new\n"),
          expect={**OK_WRITE, "files": {"/real/project/a.txt": "new\n"}, "change": change(A, "real\n", "new\n")}),
    ]
    dn = "§8.1 a buffer-mode write to an open document whose file does not exist: created false, oldText the buffer"
    U = "/project/untitled.txt"
    v += [
        V("overlay-buffer-write-no-file", dn, ["81.doc-no-file", "8.doc-write"],
          files=F, documents={U: "draft\n"}, hooks={"documentWrite": "buffer"}, request=write(U, "agent\n"),
          expect={**OK_WRITE, "absent": [U], "documents": {U: "agent\n"}, "change": change(U, "draft\n", "agent\n", created=False)}),
        V("overlay-buffer-write-no-file-empty-buffer", dn + " (an empty buffer)", ["81.doc-no-file"],
          files=F, documents={U: ""}, request=write(U, "agent\n"),
          expect={**OK_WRITE, "absent": [U], "documents": {U: "agent\n"}, "change": change(U, "", "agent\n", created=False)}),
        V("overlay-buffer-write-no-file-no-parents", dn + "; storage untouched: no parent directory is created", ["81.doc-no-file", "8.doc-write"],
          files=F, documents={"/project/new/dir/u.txt": "d\n"}, request=write("/project/new/dir/u.txt", "e\n"),
          expect={**OK_WRITE, "absent": ["/project/new/dir/u.txt", "/project/new"], "documents": {"/project/new/dir/u.txt": "e\n"},
                  "change": change("/project/new/dir/u.txt", "d\n", "e\n", created=False)}),
    ]
    le = "§8.1 line endings for open documents follow the buffer's text"
    v += [
        V("overlay-crlf-buffer-gets-crlf", le + ": CRLF buffer (LF file) → CRLF written into it", ["81.doc-line-endings", "8.doc-write", "8.change-text"],
          files={A: "a\nb\n"}, documents={A: "a\r\nb\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "a\nb\n"}, "documents": {A: "x\r\ny\r\n"}, "change": change(A, "a\r\nb\r\n", "x\r\ny\r\n", created=False)}),
        V("overlay-lf-buffer-over-crlf-file", le + ": LF buffer (CRLF file) → content as is", ["81.doc-line-endings"],
          files={A: "a\r\nb\r\n"}, documents={A: "a\nb\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "a\r\nb\r\n"}, "documents": {A: "x\ny\n"}, "change": change(A, "a\nb\n", "x\ny\n", created=False)}),
        V("overlay-crlf-buffer-no-file", le + " (a buffer with no file in storage)", ["81.doc-line-endings", "81.doc-no-file"],
          files=F, documents={U: "a\r\n"}, request=write(U, "x\ny\n"),
          expect={**OK_WRITE, "absent": [U], "documents": {U: "x\r\ny\r\n"}, "change": change(U, "a\r\n", "x\r\ny\r\n", created=False)}),
        V("overlay-crlf-buffer-write-through", le + " (writeThrough: CRLF buffer and CRLF file both get CRLF)", ["81.doc-line-endings", "8.doc-write"],
          files={A: "a\r\nb\r\n"}, documents={A: "a\r\nb\r\n"}, hooks={"documentWrite": "writeThrough"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}, "documents": {A: "x\r\ny\r\n"}, "change": change(A, "a\r\nb\r\n", "x\r\ny\r\n", created=False)}),
        V("overlay-crlf-buffer-first-terminator-decides", le + "; the buffer's first terminator decides (here \\n)", ["81.doc-line-endings", "8.crlf-first"],
          files={A: "a\r\nb\r\n"}, documents={A: "a\nb\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "documents": {A: "x\ny\n"}}),
        V("overlay-crlf-buffer-content-with-cr-as-is", le + "; content containing \\r is written as is", ["81.doc-line-endings", "4.crlf-write"],
          files={A: "a\r\n"}, documents={A: "a\r\n"}, request=write(A, "x\r\ny\n"),
          expect={**OK_WRITE, "documents": {A: "x\r\ny\n"}}),
        V("overlay-crlf-buffer-line-endings-as-is", le + "; lineEndings asIs writes the content unchanged", ["81.doc-line-endings", "4.crlf-write"],
          options={"lineEndings": "asIs"}, files={A: "a\r\n"}, documents={A: "a\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "documents": {A: "x\ny\n"}, "change": change(A, "a\r\n", "x\ny\n", created=False)}),
    ]
    ap = "§8.1 no directory is created and nothing is written before the approval hook answers yes"
    v += [
        V("approve-false-nested-new-file-no-parents", ap + ": a rejected nested new file leaves no directory", ["81.approval-first", "5.approval"],
          files=F, hooks={"approve": False}, request=write("/project/new/deep/x.txt", "x\n"),
          expect={**policy("user_rejected", "/project/new/deep/x.txt"), "absent": ["/project/new/deep/x.txt", "/project/new/deep", "/project/new"], "change": None}),
        V("approve-false-write-through-unsaved-document", ap + ": a rejected writeThrough to an unsaved document leaves no file and the buffer", ["81.approval-first", "5.overlay-write"],
          files=F, documents={U: "draft\n"}, hooks={"approve": False, "documentWrite": "writeThrough"}, request=write(U, "agent\n"),
          expect={**policy("user_rejected", U), "absent": [U], "documents": {U: "draft\n"}, "change": None}),
        V("approve-true-nested-new-file-parents-created", ap + " (approved: the parents are created)", ["81.approval-first", "5.create"],
          files=F, hooks={"approve": True}, request=write("/project/new/deep/x.txt", "x\n"),
          expect={**OK_WRITE, "files": {"/project/new/deep/x.txt": "x\n"}, "change": change("/project/new/deep/x.txt", None, "x\n", dirs=["/project/new", "/project/new/deep"])}),
    ]
    cm = "§8.1 with createParents false a missing parent is Resource not found: <requested path>"
    NP = {"createParents": False}
    v += [
        V("create-parents-false-message-names-file", cm, ["81.create-parents-message", "8.create-parents-false", "6.not-found"],
          options=NP, files=F, request=write("/project/nodir/x.txt", "x"),
          expect={**not_found("/project/nodir/x.txt"), "absent": ["/project/nodir"], "change": None}),
        V("create-parents-false-message-deep", cm + " (several missing levels: still the requested path)", ["81.create-parents-message"],
          options=NP, files=F, request=write("/project/a/b/c.txt", "x"),
          expect={**not_found("/project/a/b/c.txt"), "absent": ["/project/a"]}),
        V("create-parents-false-message-normalized", cm + " (normalized)", ["81.create-parents-message", "3.lexical"],
          options=NP, files=F, request=write("/project/./nodir/../nodir2//x.txt", "x"),
          expect={**not_found("/project/nodir2/x.txt"), "absent": ["/project/nodir2"]}),
    ]
    nul = "§8.1 a write must not create what reads refuse: a NUL in the first 8 KiB of the text after a leading U+FEFF is -32602 field content"
    N = "/project/n.txt"
    head = "a" * 8191
    v += [
        V("write-nul-at-byte-0-refused", nul, ["81.write-nul", "4.nul"],
          files=F, request=write(N, "\u0000abc"), expect={**invalid("content"), "absent": [N], "change": None}),
        V("write-nul-at-byte-8191-refused", nul + " (the last byte of the head)", ["81.write-nul"],
          files=F, request=write(N, head + "\u0000"), expect={**invalid("content"), "absent": [N], "change": None}),
        V("write-nul-at-byte-8192-written", nul + " (a NUL after the head is text, as reads say)", ["81.write-nul"],
          files=F, request=write(N, head + "a\u0000z"),
          expect={**OK_WRITE, "files": {N: head + "a\u0000z"}, "change": change(N, None, head + "a\u0000z")}),
        V("write-nul-existing-file-unchanged", nul + " (an existing file is left as it was)", ["81.write-nul"],
          files=F, request=write(A, "x\u0000"), expect={**invalid("content"), "files": {A: "alpha\n"}, "change": None}),
        V("write-nul-after-bom-refused", nul + " (right after a BOM)", ["81.write-nul", "81.bom-write"],
          files=F, request=write(N, "\ufeff\u0000"), expect={**invalid("content"), "absent": [N]}),
        V("write-nul-after-dropped-bom-refused", nul + " (byte 8194 as sent, 8191 once the BOM is dropped for a file without one)", ["81.write-nul", "81.bom-write"],
          files=F, request=write(A, "\ufeff" + head + "\u0000"), expect={**invalid("content"), "files": {A: "alpha\n"}}),
        V("write-nul-into-bom-file-refused", nul + " (a BOM'd file: the BOM is part of the sniffed head)", ["81.write-nul"],
          files={**F, "/project/bom.txt": hexb(BOM + b"x")}, request=write("/project/bom.txt", "a" * 8188 + "\u0000"),
          expect={**invalid("content"), "files": {"/project/bom.txt": hexb(BOM + b"x")}}),
        V("write-nul-after-bom-past-head-written", nul + " (BOM then 8192 bytes: the NUL is past the head)", ["81.write-nul", "81.bom-write"],
          files=F, request=write(N, "\ufeff" + head + "a\u0000"),
          expect={**OK_WRITE, "files": {N: hexb(BOM + (head + "a\u0000").encode())}}),
        V("write-nul-into-utf16-file-refused", nul + " (decided before the target is known, so also for a UTF-16 file)", ["81.write-nul"],
          files={**F, "/project/u16.txt": hexb(u16le("x"))}, request=write("/project/u16.txt", "a\u0000"),
          expect={**invalid("content"), "files": {"/project/u16.txt": hexb(u16le("x"))}}),
        V("write-nul-lenient-still-refused", nul + "; lenientParams relaxes optional fields only", ["81.write-nul", "8.required-strict"],
          options={"lenientParams": True}, files=F, request=write(N, "\u0000"), expect={**invalid("content"), "absent": [N]}),
    ]
    return v


def deny():
    v = []
    D = "denied_by_pattern"
    BASE = {A: "alpha\n"}
    dc = "§8.1 deny rules are ASCII case-insensitive"
    for (name, path, pat) in [
        ("deny-case-env-upper", "/project/.ENV", ".env*"),
        ("deny-case-env-local-mixed", "/project/.Env.Local", ".env*"),
        ("deny-case-pem-upper", "/project/certs/CERT.PEM", "*.pem"),
        ("deny-case-key-mixed", "/project/tls/Server.Key", "*.key"),
        ("deny-case-id-rsa-upper", "/project/ID_RSA", "id_rsa*"),
        ("deny-case-id-rsa-pub-mixed", "/project/keys/Id_Rsa.PUB", "id_rsa*"),
    ]:
        v.append(V(name, "%s (%s)" % (dc, pat), ["81.deny-case", "8.deny-default"],
                   files={**BASE, path: "secret\n"}, request=read(path), expect=policy(D, path)))
    v += [
        V("deny-case-env-upper-write", dc + " (write; nothing created)", ["81.deny-case"],
          files=BASE, request=write("/project/.ENV", "K=V\n"), expect={**policy(D, "/project/.ENV"), "absent": ["/project/.ENV"], "change": None}),
        V("deny-case-git-dir-write-denied", dc + " (write:.git/ on .GIT/)", ["81.deny-case", "8.deny-dir", "8.deny-write"],
          files={**BASE, "/project/.GIT/config": "[core]\n"}, request=write("/project/.GIT/config", "x"),
          expect={**policy(D, "/project/.GIT/config"), "files": {"/project/.GIT/config": "[core]\n"}}),
        V("deny-case-git-dir-read-allowed", dc + "; write:.git/ still limits the rule to writes", ["81.deny-case", "8.deny-write"],
          files={**BASE, "/project/.Git/config": "[core]\n"}, request=read("/project/.Git/config"), expect=ok("[core]\n")),
        V("deny-case-custom-pattern-upper", dc + " (an upper-case pattern matches a lower-case name)", ["81.deny-case", "8.deny-glob"],
          options={"deny": ["*.LOG"]}, files={**BASE, "/project/app.log": "l\n"}, request=read("/project/app.log"), expect=policy(D, "/project/app.log")),
        V("deny-case-custom-dir-pattern", dc + " (directory patterns too)", ["81.deny-case", "8.deny-dir"],
          options={"deny": ["Build/"]}, files={**BASE, "/project/build/out.txt": "o\n"}, request=read("/project/build/out.txt"),
          expect=policy(D, "/project/build/out.txt")),
        V("deny-case-ascii-only", dc + ": only ASCII letters fold (É is not é)", ["81.deny-case", "8.deny-glob"],
          options={"deny": ["é*.txt"]}, files={**BASE, "/project/É1.txt": "s\n"}, request=read("/project/É1.txt"), expect=ok("s\n")),
        V("deny-case-symlink-real-path", dc + " (on the real path too)", ["81.deny-case", "8.deny-realpath"],
          files={**BASE, "/project/.ENV": "S=1\n", "/project/notes.txt": link(".ENV")}, request=read("/project/notes.txt"),
          expect=policy(D, "/project/notes.txt")),
        V("deny-case-windows-path", dc + " (Windows path)", ["81.deny-case", "8.path-windows"],
          sessions=WIN_S, files={**WIN_F, "C:\\proj\\.ENV": "K=V\n"}, storage=NOSYM, request=read("c:/proj/.ENV"),
          expect=policy(D, "C:\\proj\\.ENV")),
    ]
    dl = "§8.1 a trailing-/ rule names a path component anywhere, the last one included"
    WT = {A: "alpha\n", "/project/wt/.git": "gitdir: /repo/.git/worktrees/wt\n"}
    v += [
        V("git-file-write-denied", dl + ": write:.git/ refuses writing a .git file (worktree pointer); unchanged", ["81.deny-dir-last", "8.deny-write"],
          files=WT, request=write("/project/wt/.git", "gitdir: /evil\n"),
          expect={**policy(D, "/project/wt/.git"), "files": {"/project/wt/.git": "gitdir: /repo/.git/worktrees/wt\n"}, "change": None}),
        V("git-file-read-allowed", dl + "; write: limits it to writes, so reading a .git file is allowed", ["81.deny-dir-last", "8.deny-write"],
          files=WT, request=read("/project/wt/.git"), expect=ok("gitdir: /repo/.git/worktrees/wt\n")),
        V("git-file-create-denied", dl + ": creating a .git file is refused; nothing created", ["81.deny-dir-last"],
          files=BASE, request=write("/project/sub/.git", "gitdir: /evil\n"), expect={**policy(D, "/project/sub/.git"), "absent": ["/project/sub/.git"]}),
        V("git-file-write-case-denied", dl + " (and case-insensitive: .GIT)", ["81.deny-dir-last", "81.deny-case"],
          files=BASE, request=write("/project/.GIT", "x"), expect={**policy(D, "/project/.GIT"), "absent": ["/project/.GIT"]}),
        V("git-directory-write-denied-before-stat", dl + ": a write to the .git directory itself is denied_by_pattern (deny list before stat)", ["81.deny-dir-last", "8.order"],
          files={**BASE, "/project/.git/config": "[core]\n"}, request=write("/project/.git", "x"), expect=policy(D, "/project/.git")),
        V("git-file-write-trailing-slash", dl + " (the normalized path has .git last)", ["81.deny-dir-last", "8.path-posix"],
          files=BASE, request=write("/project/.git/", "x"), expect={**policy(D, "/project/.git"), "absent": ["/project/.git"]}),
        V("deny-custom-dir-pattern-matches-file-write", dl + " (a custom dir pattern refuses creating a file of that name)", ["81.deny-dir-last"],
          options={"deny": ["build/"]}, files=BASE, request=write("/project/build", "x"), expect={**policy(D, "/project/build"), "absent": ["/project/build"]}),
        V("deny-custom-dir-glob-matches-file", dl + " (directory globs too)", ["81.deny-dir-last", "8.deny-glob"],
          options={"deny": ["cache-*/"]}, files={**BASE, "/project/cache-v2": "c\n"}, request=read("/project/cache-v2"), expect=policy(D, "/project/cache-v2")),
    ]
    return v


# ------------------------------------------------------------------ responses, raw dispatcher, capabilities

def dispatch():
    v = []
    F = {A: "x", "/project/lines.txt": "one\ntwo\nthree\n", "/project/empty.txt": ""}
    P = {"sessionId": "s1", "path": A}
    TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    me = "§8.1 responses carry no _meta of their own"
    v += [
        V("meta-traceparent-read-result-exact", me + ": a read with _meta.traceparent answers exactly {content}", ["81.meta-response", "1.read-params"],
          files=F, request=read(A, meta={"traceparent": TP}), expect=ok("x")),
        V("meta-traceparent-window-result-exact", me + " (windowed read)", ["81.meta-response"],
          files=F, request=read("/project/lines.txt", line=2, limit=1, meta={"traceparent": TP, "tracestate": "vendor=1"}), expect=ok("two\n")),
        V("meta-traceparent-write-result-exact", me + ": a write with _meta.traceparent answers exactly {}", ["81.meta-response", "1.write-response"],
          files=F, request=write(A, "y", meta={"traceparent": TP}), expect={**OK_WRITE, "files": {A: "y"}}),
        V("meta-traceparent-raw-read-exact", me + " (raw: the whole reply)", ["81.meta-response", "8.raw-id"],
          files=F, raw=rq(1, READ, {**P, "_meta": {"traceparent": TP}}), expect={"raw": resp_ok(1, {"content": "x"})}),
        V("meta-traceparent-raw-write-exact", me + " (raw write: the whole reply)", ["81.meta-response", "1.write-response"],
          files=F, raw=rq(2, WRITE, {**P, "content": "y", "_meta": {"traceparent": TP}}), expect={"raw": resp_ok(2, {}), "files": {A: "y"}}),
    ]
    pe = "§8.1 past-end error data is exactly {line, lineCount}"

    def past_end_reply(id_, line, count):
        return {"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": "Attempting to read beyond the end of the file, line %d" % line,
                                                       "data": {"line": line, "lineCount": count}}}
    v += [
        V("past-end-raw-exact-data", pe + " (raw: the whole reply)", ["81.past-end-data", "2.past-end-error"],
          files=F, raw=rq(6, READ, {"sessionId": "s1", "path": "/project/lines.txt", "line": 9}), expect={"raw": past_end_reply(6, 9, 4)}),
        V("past-end-raw-exact-data-with-limit", pe + " (raw, with a limit)", ["81.past-end-data"],
          files=F, raw=rq("p", READ, {"sessionId": "s1", "path": "/project/lines.txt", "line": 6, "limit": 2}), expect={"raw": past_end_reply("p", 6, 4)}),
        V("past-end-raw-exact-data-empty-file", pe + " (raw, empty file)", ["81.past-end-data"],
          files=F, raw=rq(7, READ, {"sessionId": "s1", "path": "/project/empty.txt", "line": 2}), expect={"raw": past_end_reply(7, 2, 1)}),
    ]
    zc = "§8.1 zedCompat outside-roots reads answer exactly like a missing file"
    Z = {"zedCompat": True}
    ZF = {**F, "/outside/secret.txt": "secret\n"}
    v += [
        V("zed-compat-outside-raw-exact", zc + " (raw: the whole reply)", ["81.zed-compat", "6.zed-compat"],
          options=Z, files=ZF, raw=rq(3, READ, {"sessionId": "s1", "path": "/outside/secret.txt"}),
          expect={"raw": {"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "Resource not found: /outside/secret.txt",
                                                                 "data": {"uri": "/outside/secret.txt"}}}}),
        V("zed-compat-outside-normalized", zc + " (the normalized path)", ["81.zed-compat", "3.lexical"],
          options=Z, files=ZF, request=read("/project/../outside/secret.txt"), expect=not_found("/outside/secret.txt")),
        V("zed-compat-outside-window", zc + " (a windowed read)", ["81.zed-compat"],
          options=Z, files=ZF, request=read("/outside/secret.txt", line=1, limit=1), expect=not_found("/outside/secret.txt")),
    ]
    rp = "§8.1 raw: a request without params is -32602 field params"
    v += [
        V("raw-read-without-params", rp, ["81.raw-no-params", "8.params-object"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "method": READ}), expect=raw_err(-32602, 1, field="params")),
        V("raw-write-without-params", rp + " (write; nothing written)", ["81.raw-no-params"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": "w", "method": WRITE}), expect={**raw_err(-32602, "w", field="params"), "files": {A: "x"}}),
        V("raw-read-params-null", rp + " (params null is not an object either)", ["81.raw-no-params", "8.params-object"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 2, "method": READ, "params": None}), expect=raw_err(-32602, 2, field="params")),
        V("raw-write-without-params-read-only", rp + "; the capability check comes first (-32601)", ["81.raw-no-params", "8.order", "8.capability-off"],
          options={"readOnly": True}, files=F, raw=msg({"jsonrpc": "2.0", "id": 3, "method": WRITE}), expect=raw_err(-32601, 3, method=WRITE)),
    ]
    ni = "§8.1 raw: \"id\": null is a request and is answered with id null"
    v += [
        V("raw-null-id-read", ni, ["81.raw-null-id", "8.raw-id"],
          files=F, raw=rq(None, READ, P), expect={"raw": resp_ok(None, {"content": "x"})}),
        V("raw-null-id-write", ni + " (write happens)", ["81.raw-null-id", "1.write-response"],
          files=F, raw=rq(None, WRITE, {**P, "content": "y"}), expect={"raw": resp_ok(None, {}), "files": {A: "y"}}),
        V("raw-null-id-error", ni + " (an error reply too)", ["81.raw-null-id"],
          files=F, raw=rq(None, READ, {"sessionId": "nope", "path": A}), expect=raw_err(-32602, None, field="sessionId")),
        V("raw-null-id-not-found-exact", ni + " (not_found, the whole reply)", ["81.raw-null-id", "6.not-found"],
          files=F, raw=rq(None, READ, {"sessionId": "s1", "path": "/project/missing.txt"}),
          expect={"raw": {"jsonrpc": "2.0", "id": None, "error": {"code": -32002, "message": "Resource not found: /project/missing.txt",
                                                                    "data": {"uri": "/project/missing.txt"}}}}),
    ]
    cc = "§8.1 raw: $/cancel_request is not answered by handle()"
    v += [
        V("raw-cancel-request-notification", cc, ["81.raw-cancel", "8.raw-not-ours"],
          files=F, raw=msg({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}), expect={"raw": None}),
        V("raw-cancel-request-with-id", cc + " (even sent with an id)", ["81.raw-cancel"],
          files=F, raw=rq(2, "$/cancel_request", {"requestId": 1}), expect={"raw": None}),
        V("raw-cancel-request-without-params", cc + " (even malformed)", ["81.raw-cancel"],
          files=F, raw=msg({"jsonrpc": "2.0", "method": "$/cancel_request"}), expect={"raw": None}),
    ]
    om = "§8.1 raw: a message with another method is not ours whatever else is wrong with it"
    v += [
        V("raw-other-method-bad-jsonrpc", om + " (jsonrpc 1.0)", ["81.raw-other-method", "8.raw-not-ours"],
          files=F, raw='{"jsonrpc":"1.0","id":1,"method":"initialize"}', expect={"raw": None}),
        V("raw-other-method-missing-jsonrpc", om + " (no jsonrpc)", ["81.raw-other-method"],
          files=F, raw=msg({"id": 1, "method": "session/prompt", "params": {}}), expect={"raw": None}),
        V("raw-other-method-invalid-id", om + " (an object id)", ["81.raw-other-method"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize"}), expect={"raw": None}),
        V("raw-other-method-params-string", om + " (params a string)", ["81.raw-other-method"],
          files=F, raw=msg({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": "x"}), expect={"raw": None}),
        V("raw-cancel-request-bad-jsonrpc", om + " ($/cancel_request with jsonrpc 1.0)", ["81.raw-other-method", "81.raw-cancel"],
          files=F, raw=msg({"jsonrpc": "1.0", "method": "$/cancel_request", "params": {"requestId": 1}}), expect={"raw": None}),
    ]
    ii = "§8.1 raw: a -32600 answer carries the request's id when that id is valid, else null"
    v += [
        V("raw-invalid-request-string-id-echoed", ii + " (string id)", ["81.raw-invalid-id", "6.invalid-request"],
          files=F, raw=msg({"jsonrpc": "1.0", "id": "abc", "method": READ, "params": P}), expect=raw_err(-32600, "abc")),
        V("raw-invalid-request-zero-id-echoed", ii + " (id 0)", ["81.raw-invalid-id"],
          files=F, raw=msg({"id": 0, "method": WRITE, "params": {**P, "content": "y"}}), expect={**raw_err(-32600, 0), "files": {A: "x"}}),
        V("raw-invalid-request-object-id-null", ii + " (an object id is not valid: null)", ["81.raw-invalid-id"],
          files=F, raw=msg({"jsonrpc": "1.0", "id": {"x": 1}, "method": READ, "params": P}), expect=raw_err(-32600, None)),
        V("raw-invalid-request-array-id-null", ii + " (an array id is not valid: null)", ["81.raw-invalid-id"],
          files=F, raw=msg({"jsonrpc": "1.0", "id": [1], "method": READ, "params": P}), expect=raw_err(-32600, None)),
        V("raw-invalid-request-boolean-id-null", ii + " (a boolean id is not valid: null)", ["81.raw-invalid-id"],
          files=F, raw=msg({"id": True, "method": READ, "params": P}), expect=raw_err(-32600, None)),
        V("raw-invalid-request-null-id", ii + " (id null stays null)", ["81.raw-invalid-id", "81.raw-null-id"],
          files=F, raw=msg({"jsonrpc": "2.1", "id": None, "method": READ, "params": P}), expect=raw_err(-32600, None)),
    ]
    ls = "§8.1 raw: a lone surrogate escape inside params is -32602 naming the params member it is under, id echoed"
    W = lambda content, id_=1, path="/project/n.txt": '{"jsonrpc":"2.0","id":%s,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"%s","content":"%s"}}' % (id_, path, content)  # noqa: E731
    R = lambda params, id_=3, extra="": '{"jsonrpc":"2.0","id":%s,"method":"fs/read_text_file","params":%s%s}' % (id_, params, extra)  # noqa: E731
    NA = {"absent": ["/project/n.txt"]}
    v += [
        V("raw-lone-high-surrogate-in-content", ls + "; nothing written", ["81.raw-lone-surrogate", "6.invalid-params"],
          files=F, raw=W("a\\ud800b"), expect={**raw_err(-32602, 1, field="content"), **NA}),
        V("raw-lone-low-surrogate-in-content", ls + " (low surrogate)", ["81.raw-lone-surrogate"],
          files=F, raw=W("\\udc00"), expect={**raw_err(-32602, 1, field="content"), **NA}),
        V("raw-reversed-surrogates-in-content", ls + " (low before high)", ["81.raw-lone-surrogate"],
          files=F, raw=W("\\udc00\\ud800"), expect={**raw_err(-32602, 1, field="content"), **NA}),
        V("raw-lone-surrogate-at-end-of-content", ls + " (high surrogate last)", ["81.raw-lone-surrogate"],
          files=F, raw=W("ok\\ud83d"), expect={**raw_err(-32602, 1, field="content"), **NA}),
        V("raw-high-surrogate-then-escaped-char", ls + " (a high surrogate followed by another escape)", ["81.raw-lone-surrogate"],
          files=F, raw=W("\\ud83d\\n"), expect={**raw_err(-32602, 1, field="content"), **NA}),
        V("raw-lone-surrogate-existing-file-unchanged", ls + " (an existing file is unchanged)", ["81.raw-lone-surrogate"],
          files=F, raw=W("\\ud800", 2, A), expect={**raw_err(-32602, 2, field="content"), "files": {A: "x"}}),
        V("raw-lone-surrogate-in-path", ls + " (in the path)", ["81.raw-lone-surrogate"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/\\ud800.txt"}'), expect=raw_err(-32602, 3, field="path")),
        V("raw-lone-surrogate-in-session-id", ls + " (in the sessionId)", ["81.raw-lone-surrogate"],
          files=F, raw=R('{"sessionId":"s\\udfff","path":"/project/a.txt"}', '"q"'), expect=raw_err(-32602, "q", field="sessionId")),
        V("raw-lone-surrogate-nested-in-meta", ls + " (nested: the top-level member is named)", ["81.raw-lone-surrogate"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","_meta":{"a":["\\ud800"]}}'), expect=raw_err(-32602, 3, field="_meta")),
        V("raw-lone-surrogate-in-unknown-param", ls + " (an unknown member of params is still named)", ["81.raw-lone-surrogate"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","extra":"\\ud800"}'), expect=raw_err(-32602, 3, field="extra")),
        V("raw-lone-surrogate-in-param-name", ls + " (in a member's name: named with U+FFFD in its place)", ["81.raw-lone-surrogate"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","x\\ud800":1}'), expect=raw_err(-32602, 3, field="x\ufffd")),
        V("raw-lone-surrogate-before-field-order", ls + " (checked before the fields in order, as the JS API does)", ["81.raw-lone-surrogate", "8.order"],
          files=F, raw=R('{"sessionId":5,"path":"/project/\\ud800"}'), expect=raw_err(-32602, 3, field="path")),
        V("raw-lone-surrogate-params-not-object", ls + " (params itself a string: field params)", ["81.raw-lone-surrogate"],
          files=F, raw=R('"\\ud800"'), expect=raw_err(-32602, 3, field="params")),
        V("raw-lone-surrogate-write-capability-first", ls + "; the capability check still comes first (-32601)", ["81.raw-lone-surrogate", "8.order"],
          options={"readOnly": True}, files=F, raw=W("\\ud800"), expect={**raw_err(-32601, 1, method=WRITE), **NA}),
        V("raw-lone-surrogate-in-id", "§8.1 raw: a lone surrogate in the id itself cannot be echoed: -32700, id null", ["81.raw-lone-surrogate", "8.raw-parse", "6.parse"],
          files=F, raw='{"jsonrpc":"2.0","id":"\\ud800","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32700, None)),
        V("raw-surrogate-pair-escape-written", "§8.1 a valid surrogate pair escape is one character (written as UTF-8)", ["81.raw-lone-surrogate", "1.write-response"],
          files=F, raw=W("\\ud83d\\ude00"), expect={"raw": resp_ok(1, {}), "files": {"/project/n.txt": "😀"}}),
    ]
    le = "§8.1 raw: a lone surrogate escape elsewhere in a request (a member, its name, the method) is -32600, id echoed"
    v += [
        V("raw-lone-surrogate-in-unknown-member", le + " (an unknown top-level member)", ["81.raw-lone-surrogate-envelope", "6.invalid-request"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt"}', 4, ',"extra":"\\ud800"'), expect=raw_err(-32600, 4)),
        V("raw-lone-surrogate-in-member-name", le + " (a top-level member's name)", ["81.raw-lone-surrogate-envelope"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt"}', '"n"', ',"\\udc00":1'), expect=raw_err(-32600, "n")),
        V("raw-lone-surrogate-in-method", le + " (the method)", ["81.raw-lone-surrogate-envelope"],
          files=F, raw='{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file\\ud800","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32600, 5)),
        V("raw-lone-surrogate-unknown-member-write-not-done", le + "; nothing written", ["81.raw-lone-surrogate-envelope"],
          files=F, raw='{"jsonrpc":"2.0","id":6,"x":["\\ud800"],"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/n.txt","content":"y"}}',
          expect={**raw_err(-32600, 6), **NA}),
        V("raw-lone-surrogate-fs-notification-not-answered", "§8.1 raw: a notification is never answered, whatever is in it", ["81.raw-lone-surrogate-envelope", "8.raw-not-ours"],
          files=F, raw='{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/n.txt","content":"\\ud800"}}',
          expect={"raw": None, **NA}),
        V("raw-other-method-lone-surrogate", om + " (a lone surrogate in its params or members)", ["81.raw-other-method", "81.raw-lone-surrogate-envelope"],
          files=F, raw='{"jsonrpc":"2.0","id":1,"method":"session/prompt","x":"\\ud800","params":{"text":"\\ud800"}}', expect={"raw": None}),
    ]
    nr = "§8.1 raw: a number beyond f64's range is judged as the too-large number it is: -32602 naming the field, id echoed"
    v += [
        V("raw-line-1e400", nr + " (line 1e400)", ["81.raw-number-range", "2.malformed"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":1e400}', 7), expect=raw_err(-32602, 7, field="line")),
        V("raw-line-minus-1e400", nr + " (line -1e400)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":-1e400}', 7), expect=raw_err(-32602, 7, field="line")),
        V("raw-line-400-digits", nr + " (a 400-digit line)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":%s}' % ("9" * 400), '"d"'), expect=raw_err(-32602, "d", field="line")),
        V("raw-line-2-pow-64", nr + " (line 2^64)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":18446744073709551616}', 7), expect=raw_err(-32602, 7, field="line")),
        V("raw-limit-1e400", nr + " (limit 1e400)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","limit":1E+400}', 8), expect=raw_err(-32602, 8, field="limit")),
        V("raw-limit-minus-400-digits", nr + " (a negative 400-digit limit)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","limit":-%s}' % ("1" * 400), 8), expect=raw_err(-32602, 8, field="limit")),
        V("raw-line-1e400-lenient-is-absent", nr + "; lenientParams treats it as absent like any malformed line", ["81.raw-number-range", "2.lenient"],
          options={"lenientParams": True}, files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":1e400,"limit":1}', 9),
          expect={"raw": resp_ok(9, {"content": "one\n"})}),
        V("raw-limit-1e400-lenient-is-absent", nr + "; lenientParams treats it as absent like any malformed limit", ["81.raw-number-range", "2.lenient"],
          options={"lenientParams": True}, files=F, raw=R('{"sessionId":"s1","path":"/project/lines.txt","line":2,"limit":-1e400}', 9),
          expect={"raw": resp_ok(9, {"content": "two\nthree\n"})}),
        V("raw-session-id-1e400", nr + " (a required string field)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":1e400,"path":"/project/a.txt"}', 10), expect=raw_err(-32602, 10, field="sessionId")),
        V("raw-content-1e400", nr + " (write content; nothing written)", ["81.raw-number-range"],
          files=F, raw='{"jsonrpc":"2.0","id":11,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/n.txt","content":1e400}}',
          expect={**raw_err(-32602, 11, field="content"), **NA}),
        V("raw-number-range-field-order", nr + " (fields in order: the bad path first)", ["81.raw-number-range", "8.order"],
          files=F, raw=R('{"sessionId":"s1","path":"rel.txt","line":1e400}', 12), expect=raw_err(-32602, 12, field="path")),
        V("raw-number-range-in-meta-ignored", nr + " (inside _meta, an object like any other: served)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","_meta":{"n":[1e400]}}', 13), expect={"raw": resp_ok(13, {"content": "x"})}),
        V("raw-number-range-unknown-param-ignored", nr + " (an unknown member of params is ignored)", ["81.raw-number-range", "8.unknown-fields"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","extra":-1e999}', 14), expect={"raw": resp_ok(14, {"content": "x"})}),
        V("raw-number-range-unknown-member-ignored", nr + " (an unknown top-level member is ignored)", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt"}', 15, ',"extra":1e400'), expect={"raw": resp_ok(15, {"content": "x"})}),
        V("raw-number-range-in-jsonrpc", nr + " (jsonrpc 1e400 is not \"2.0\": -32600)", ["81.raw-number-range", "6.invalid-request"],
          files=F, raw='{"jsonrpc":1e400,"id":16,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32600, 16)),
        V("raw-params-nested-too-deep", "§8.1 raw: params nested deeper than 128 levels is -32602 naming the member, id echoed", ["81.raw-number-range"],
          files=F, raw=R('{"sessionId":"s1","path":"/project/a.txt","_meta":{"a":%s1%s}}' % ("[" * 200, "]" * 200), 17),
          expect=raw_err(-32602, 17, field="_meta")),
    ]
    tw = "§8.1 raw: a message naming an envelope member twice is -32700 with id null"
    v += [
        V("raw-id-twice", tw + " (two ids: which to answer cannot be known)", ["81.raw-envelope-twice", "8.raw-parse", "6.parse"],
          files=F, raw='{"jsonrpc":"2.0","id":21,"id":22,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32700, None)),
        V("raw-method-twice", tw + " (two methods, even the same one)", ["81.raw-envelope-twice", "8.raw-parse"],
          files=F, raw='{"jsonrpc":"2.0","id":23,"method":"fs/read_text_file","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32700, None)),
        V("raw-params-twice", tw + " (two params: nothing is written)", ["81.raw-envelope-twice", "8.raw-parse"],
          files=F, raw='{"jsonrpc":"2.0","id":24,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/n.txt","content":"a"},"params":{"sessionId":"s1","path":"/project/n.txt","content":"b"}}',
          expect={**raw_err(-32700, None), **NA}),
        V("raw-other-member-twice", "§8.1 raw: another member named twice is not a fault: served", ["81.raw-envelope-twice"],
          files=F, raw='{"jsonrpc":"2.0","id":25,"x":1,"x":2,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect={"raw": resp_ok(25, {"content": "x"})}),
    ]
    # serde_json's `Value` takes an object whose only member is named this for the JSON text in
    # that member's string: the dispatcher must not, an object is an object.
    tok = '{"$serde_json::private::RawValue":"\\"/project/a.txt\\""}'
    ob = "§8.1 raw: a member's value is what its JSON is: an object stays an object whatever its members are named"
    v += [
        V("raw-path-object-named-like-a-raw-value", ob + " (path: must be a string)", ["1.read-params", "81.raw-object-member"],
          files=F, raw=R('{"sessionId":"s1","path":%s}' % tok, 18), expect=raw_err(-32602, 18, field="path")),
        V("raw-method-object-named-like-a-raw-value", ob + " (the method: must be a string, -32600)", ["81.raw-object-member", "6.invalid-request"],
          files=F, raw='{"jsonrpc":"2.0","id":19,"method":{"$serde_json::private::RawValue":"\\"fs/read_text_file\\""},"params":{"sessionId":"s1","path":"/project/a.txt"}}',
          expect=raw_err(-32600, 19)),
        V("raw-content-object-named-like-a-raw-value", ob + " (content: must be a string, nothing written)", ["1.write-params", "81.raw-object-member"],
          files=F, raw='{"jsonrpc":"2.0","id":20,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/n.txt","content":{"$serde_json::private::RawValue":"\\"y\\""}}}',
          expect={**raw_err(-32602, 20, field="content"), **NA}),
    ]
    cp = "§1/§8 capabilities() advertises what is wired"
    v += [
        V("capabilities-default-both", cp + ": by default both methods", ["1.capabilities"],
          files={A: "x"}, request=read(A), expect={**ok("x"), "capabilities": caps(True, True)}),
        V("capabilities-read-only", cp + ": readOnly makes writeTextFile false", ["1.capabilities", "8.capability-off"],
          options={"readOnly": True}, files={A: "x"}, request=read(A), expect={**ok("x"), "capabilities": caps(True, False)}),
        V("capabilities-read-only-false", cp + ": readOnly false keeps writeTextFile", ["1.capabilities"],
          options={"readOnly": False}, files={A: "x"}, request=read(A), expect={**ok("x"), "capabilities": caps(True, True)}),
        V("capabilities-storage-without-write", cp + ": a storage without writes makes writeTextFile false", ["1.capabilities", "8.capability-off"],
          storage={"write": False}, files={A: "x"}, request=read(A), expect={**ok("x"), "capabilities": caps(True, False)}),
        V("capabilities-storage-without-write-write-answer", cp + ": and the write method answers -32601", ["1.capabilities", "8.capability-off"],
          storage={"write": False}, files={A: "x"}, request=write(A, "y"), expect={**method_off(), "files": {A: "x"}, "capabilities": caps(True, False)}),
        V("capabilities-storage-without-symlinks", cp + ": a storage without symlinks still reads and writes", ["1.capabilities"],
          storage={"symlinks": False}, files={A: "x"}, request=read(A), expect={**ok("x"), "capabilities": caps(True, True)}),
    ]
    return v


# ------------------------------------------------------------------ agent quirks (§8)

def agents():
    """A session opened for an agent with a known bug (`agent`, semantics.md §8 "Agent quirks")."""
    gem = {"cwd": "/project", "additionalDirectories": [], "agent": "gemini-cli"}
    G = {"s1": gem}
    GF = FA
    q = "§8 agent quirks: a gemini-cli session answers a whole-file read of a missing file with \"\""
    s = "§8 agent quirks: only a whole-file read of a missing file changes in a gemini-cli session"
    d = "§8 agent quirks: without `agent` a missing file is -32002"
    new = "/project/new.txt"
    return [
        V("gemini-missing-file-reads-empty", q, ["8.agent-gemini"],
          sessions=G, files=GF, request=read(new), expect={**ok(""), "absent": [new]}),
        V("gemini-missing-file-line-one-reads-empty", q + " (line 1 and no limit is the whole file)", ["8.agent-gemini", "2.line-default"],
          sessions=G, files=GF, request=read(new, line=1), expect=ok("")),
        V("gemini-missing-parents-read-empty", q + " (its directories missing too)", ["8.agent-gemini", "8.missing-realpath"],
          sessions=G, files=GF, request=read("/project/new/dir/x.txt"), expect={**ok(""), "absent": ["/project/new"]}),
        V("gemini-below-file-reads-empty", q + " (a regular file where a parent should be: no file there)", ["8.agent-gemini", "81.below-file"],
          sessions=G, files=GF, request=read("/project/a.txt/x.txt"), expect={**ok(""), "files": {A: "alpha\n"}}),
        V("gemini-missing-file-no-symlinks-reads-empty", q + " (a storage without symlinks)", ["8.agent-gemini"],
          sessions=G, files=GF, storage=NOSYM, request=read(new), expect=ok("")),
        V("gemini-existing-file-as-ever", s + ": an existing file is its text", ["8.agent-scope"],
          sessions=G, files=GF, request=read(A), expect=ok("alpha\n")),
        V("gemini-missing-window-line-not-found", s + ": a window (line 2) of a missing file is -32002", ["8.agent-scope"],
          sessions=G, files=GF, request=read(new, line=2), expect=not_found(new)),
        V("gemini-missing-window-limit-not-found", s + ": a window (limit) of a missing file is -32002", ["8.agent-scope"],
          sessions=G, files=GF, request=read(new, limit=10), expect=not_found(new)),
        V("gemini-directory-not-a-file", s + ": a directory is not_a_file", ["8.agent-scope", "3.non-regular"],
          sessions=G, files=GF, request=read("/project/sub"), expect=policy("not_a_file", "/project/sub")),
        V("gemini-denied-missing-file-denied", s + ": a denied name is denied_by_pattern, present or not", ["8.agent-scope", "3.deny"],
          sessions=G, files=GF, request=read("/project/.env"), expect=policy("denied_by_pattern", "/project/.env")),
        V("gemini-outside-roots-denied", s + ": a path outside the roots is path_outside_roots", ["8.agent-scope", "3.roots"],
          sessions=G, files=GF, request=read("/outside/new.txt"), expect=policy("path_outside_roots", "/outside/new.txt")),
        V("gemini-outside-roots-zed-compat-not-found", s + ": under zedCompat a path outside the roots is still -32002", ["8.agent-scope", "6.zed-compat"],
          options={"zedCompat": True}, sessions=G, files=GF, request=read("/outside/new.txt"), expect=not_found("/outside/new.txt")),
        V("gemini-dangling-symlink-escape", s + ": a dangling symlink is symlink_escape", ["8.agent-scope", "8.dangling"],
          sessions=G, files={**GF, "/project/dangling": link("/project/missing.txt")}, request=read("/project/dangling"),
          expect=policy("symlink_escape", "/project/dangling")),
        V("gemini-unresolvable-storage-fails-closed", s + ": a storage that cannot resolve symlinks still fails closed", ["8.agent-scope", "81.realpath-false"],
          sessions=G, files=GF, storage={"realpath": False}, request=read(new), expect=policy("symlink_escape", new)),
        V("gemini-open-document-without-file", s + ": an open document is read, file or not", ["8.agent-scope", "5.overlay-read"],
          sessions=G, files=GF, documents={new: "unsaved\n"}, request=read(new), expect=ok("unsaved\n")),
        V("gemini-write-creates-as-ever", s + ": a write to a missing file creates it", ["8.agent-scope", "5.create"],
          sessions=G, files=GF, request=write(new, "made\n"),
          expect={**OK_WRITE, "files": {new: "made\n"}, "change": change(new, None, "made\n")}),
        V("agent-absent-missing-file-not-found", d, ["8.agent-default", "6.not-found"],
          files=GF, request=read(new), expect=not_found(new)),
        V("agent-other-session-missing-file-not-found", d + " (another session on the same engine is gemini-cli)", ["8.agent-default"],
          sessions={"s1": gem, "s2": {"cwd": "/project", "additionalDirectories": []}}, files=GF,
          request=read(new, sid="s2"), expect=not_found(new)),
        V("agent-default-policy-missing-file-not-found", d + " (a session the host never opened: the default policy)", ["8.agent-default", "3.unknown-session"],
          options={"roots": ["/project"]}, sessions={}, files=GF, request=read(new, sid="unopened"), expect=not_found(new)),
    ]
