"""encodings.json: decoding on read, encoding and line endings on write."""

from vectorlib import V, read, write, ok, err, policy, OK_WRITE, change, hexb, window_expect, past_end

A = "/project/a.txt"
BOM = b"\xef\xbb\xbf"
LE = b"\xff\xfe"
BE = b"\xfe\xff"


def u16le(s):
    return LE + s.encode("utf-16-le")


def u16be(s):
    return BE + s.encode("utf-16-be")


def bad(path):
    return policy("not_utf8", path)


def binary(path):
    return policy("binary_file", path)


# 8 KiB NUL boundary texts
ROW64 = "x" * 63 + "\n"                                       # 64 bytes
NUL_AT_8191 = ROW64 * 127 + "x" * 63 + "\u0000" + "\nmore\n"  # NUL is byte 8191 (the last of the first 8 KiB)
NUL_AT_8192 = ROW64 * 128 + "\u0000\n" + "tail\n"             # NUL is byte 8192 (the first after 8 KiB)
assert NUL_AT_8191.encode().index(b"\x00") == 8191
assert NUL_AT_8192.encode().index(b"\x00") == 8192

# invalid UTF-8 after the window in a text longer than a storage chunk
MED_ROWS = ["%02d: %s\n" % (i, ("línea ✓ 行 " * (22 if i % 3 == 0 else 2))) for i in range(1, 13)]
MED_OK = "".join(MED_ROWS).encode()
MED_BAD_ROW = 10
MED_BAD = b"".join(r.encode() if i + 1 != MED_BAD_ROW else b"10: bad \xff byte\n" for i, r in enumerate(MED_ROWS))
assert len(MED_BAD) > 1000


def encodings():
    v = []
    # --- UTF-8 BOM on read
    v += [
        V("utf8-bom-removed", "§4 a UTF-8 BOM is removed from the content", ["4.bom-read"],
          files={A: hexb(BOM + b"hello\nworld\n")}, request=read(A), expect=ok("hello\nworld\n")),
        V("utf8-bom-removed-window-line-1", "§4 a UTF-8 BOM is removed (window on line 1)", ["4.bom-read"],
          files={A: hexb(BOM + b"hello\nworld\n")}, request=read(A, line=1, limit=1), expect=ok("hello\n")),
        V("utf8-bom-window-line-2", "§4 the BOM does not shift lines", ["4.bom-read"],
          files={A: hexb(BOM + b"hello\nworld\n")}, request=read(A, line=2), expect=ok("world\n")),
        V("utf8-bom-only-file-is-empty", "§4 a file of only a BOM is the empty text", ["4.bom-read", "2.past-end-range"],
          files={A: hexb(BOM)}, request=read(A), expect=ok("")),
        V("utf8-bom-only-file-line-2-errors", "§4/§2 a file of only a BOM has lineCount 1", ["4.bom-read", "2.past-end-error"],
          files={A: hexb(BOM)}, request=read(A, line=2),
          expect=err(-32602, "Attempting to read beyond the end of the file, line 2", line=2, lineCount=1)),
        V("utf8-bom-crlf-kept", "§4 BOM removed, CRLF kept", ["4.bom-read", "2.exact-substring"],
          files={A: hexb(BOM + b"a\r\nb\r\n")}, request=read(A, line=2), expect=ok("b\r\n")),
        V("utf8-bom-in-middle-kept", "§4 only a leading BOM is a BOM; U+FEFF later is text", ["4.bom-read", "2.exact-substring"],
          files={A: hexb(b"a\n" + BOM + b"b\n")}, request=read(A, line=2), expect=ok("\ufeffb\n")),
    ]
    # --- UTF-16 with BOM
    v += [
        V("utf16le-bom-decoded", "§4 UTF-16 LE with BOM is decoded", ["4.utf16-read"],
          files={A: hexb(u16le("héllo\nwörld\n"))}, request=read(A), expect=ok("héllo\nwörld\n")),
        V("utf16be-bom-decoded", "§4 UTF-16 BE with BOM is decoded", ["4.utf16-read"],
          files={A: hexb(u16be("héllo\nwörld\n"))}, request=read(A), expect=ok("héllo\nwörld\n")),
        V("utf16le-window", "§8 UTF-16 decoded whole; the window applies to the text", ["4.utf16-read", "8.utf16-whole"],
          files={A: hexb(u16le("one\ntwo\nthree\n"))}, request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("utf16be-crlf-window", "§8 UTF-16 decoded whole; CRLF kept", ["4.utf16-read", "8.utf16-whole", "2.exact-substring"],
          files={A: hexb(u16be("one\r\ntwo\r\nthree\r\n"))}, request=read(A, line=2, limit=2), expect=ok("two\r\nthree\r\n")),
        V("utf16le-surrogate-pair", "§4 UTF-16 surrogate pairs decode to one character", ["4.utf16-read"],
          files={A: hexb(u16le("😀 ok\n🎉\n"))}, request=read(A, line=2), expect=ok("🎉\n")),
        V("utf16le-cjk", "§4 UTF-16 LE with BOM is decoded", ["4.utf16-read"],
          files={A: hexb(u16le("中文\n"))}, request=read(A), expect=ok("中文\n")),
        V("utf16le-past-end", "§2 past-end counts the decoded text's \\n", ["8.utf16-whole", "2.past-end-error"],
          files={A: hexb(u16le("a\nb\n"))}, request=read(A, line=4),
          expect=err(-32602, "Attempting to read beyond the end of the file, line 4", line=4, lineCount=3)),
        V("utf16le-empty-after-bom", "§4 a UTF-16 BOM alone is the empty text", ["4.utf16-read"],
          files={A: hexb(LE)}, request=read(A), expect=ok("")),
        V("utf16-without-bom-is-binary", "§4 without a BOM UTF-16 text has NULs in the first 8 KiB: binary_file", ["4.nul", "81.decode-precedence"],
          files={A: hexb("abc\n".encode("utf-16-le"))}, request=read(A), expect=binary(A)),
    ]
    # --- NUL / binary
    v += [
        V("nul-binary-file", "§4 a NUL in the first 8 KiB: binary_file", ["4.nul", "6.policy"],
          files={A: hexb(b"BIN\x00\x01\x02\x03data\n")}, request=read(A), expect=binary(A)),
        V("nul-first-byte", "§4 a NUL in the first 8 KiB: binary_file", ["4.nul"],
          files={A: "\u0000abc\n"}, request=read(A), expect=binary(A)),
        V("nul-after-window-in-first-8kib", "§8 the NUL test looks at the first 8 KiB always, also past the window", ["8.nul-8k"],
          files={A: "a\nb\u0000\n"}, request=read(A, line=1, limit=1), expect=binary(A)),
        V("nul-with-limit-0", "§8 the NUL test looks at the first 8 KiB always (limit 0)", ["8.nul-8k"],
          files={A: "a\nb\u0000\n"}, request=read(A, limit=0), expect=binary(A)),
        V("nul-at-byte-8191-binary", "§8 NUL at byte 8191 is in the first 8 KiB (window ends before it)", ["8.nul-8k", "4.nul"],
          files={A: NUL_AT_8191}, request=read(A, line=1, limit=1), expect=binary(A)),
        V("nul-at-byte-8192-not-binary", "§8 NUL at byte 8192 is after the first 8 KiB: not binary", ["8.nul-8k"],
          files={A: NUL_AT_8192}, request=read(A, line=1, limit=1), expect=ok(ROW64)),
        V("nul-at-byte-8192-window-contains-it", "§8 after 8 KiB a NUL is just valid UTF-8", ["8.nul-8k", "4.strict-utf8"],
          files={A: NUL_AT_8192}, request=read(A, line=128), expect=window_expect(NUL_AT_8192, 128)),
        V("nul-at-byte-8192-tail", "§8 after 8 KiB a NUL is just valid UTF-8", ["8.nul-8k"],
          files={A: NUL_AT_8192}, request=read(A, line=130), expect=ok("tail\n")),
        V("nul-write-over-binary-refused", "§8 writing over a binary file is refused; file unchanged", ["8.write-unreadable", "4.nul"],
          files={A: hexb(b"\x00\x01\x02\x03")}, request=write(A, "text\n"),
          expect={**binary(A), "files": {A: hexb(b"\x00\x01\x02\x03")}, "change": None}),
    ]
    # --- strict UTF-8
    v += [
        V("invalid-utf8-not-utf8", "§4 invalid UTF-8 is not_utf8 (never lossy)", ["4.strict-utf8", "6.policy"],
          files={A: hexb(b"ok\n\xff\xfe bad\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-latin1", "§4 Latin-1 bytes are not UTF-8", ["4.strict-utf8"],
          files={A: hexb(b"caf\xe9\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-truncated-at-eof", "§4 a truncated sequence at the end is invalid", ["4.strict-utf8"],
          files={A: hexb(b"abc\xe4\xb8")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-encoded-surrogate", "§4 strict UTF-8: encoded surrogates are invalid", ["4.strict-utf8"],
          files={A: hexb(b"a\xed\xa0\x80b\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-overlong", "§4 strict UTF-8: overlong encodings are invalid", ["4.strict-utf8"],
          files={A: hexb(b"a\xc0\xafb\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-lone-continuation", "§4 strict UTF-8: a lone continuation byte is invalid", ["4.strict-utf8"],
          files={A: hexb(b"a\x80b\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-above-max-code-point", "§4 strict UTF-8: code points above U+10FFFF are invalid", ["4.strict-utf8"],
          files={A: hexb(b"a\xf4\x90\x80\x80\n")}, request=read(A), expect=bad(A)),
        V("valid-utf8-four-byte", "§4 valid 4-byte UTF-8 is decoded", ["4.strict-utf8"],
          files={A: hexb("𝄞 🎉\n".encode())}, request=read(A), expect=ok("𝄞 🎉\n")),
        V("invalid-utf8-after-window-served", "§8 bytes after the window are never read: invalid UTF-8 there is no error", ["8.utf8-window", "2.cost"],
          files={A: hexb(b"one\ntwo\n\xff\xff\n")}, request=read(A, line=1, limit=2), expect=ok("one\ntwo\n")),
        V("invalid-utf8-right-after-window-newline", "§8 the window ends after its last \\n; the next byte is after it", ["8.utf8-window"],
          files={A: hexb(b"one\n\xfftwo\n")}, request=read(A, limit=1), expect=ok("one\n")),
        V("invalid-utf8-after-window-limit-0", "§8 a limit-0 window ends where it starts", ["8.utf8-window", "2.limit-zero"],
          files={A: hexb(b"one\n\xff\n")}, request=read(A, line=2, limit=0), expect=ok("")),
        V("invalid-utf8-inside-window", "§8 strict UTF-8 is checked up to the end of the window", ["8.utf8-window", "4.strict-utf8"],
          files={A: hexb(b"one\nt\xffo\nthree\n")}, request=read(A, line=2, limit=1), expect=bad(A)),
        V("invalid-utf8-before-window", "§8 bytes before the window are counted, not validated: the window after an invalid row is served", ["8.utf8-window"],
          files={A: hexb(b"\xff\ntwo\nthree\n")}, request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("invalid-utf8-before-window-whole-read-refused", "§8 a whole-file read validates every byte: the same file is not_utf8", ["8.utf8-window", "4.strict-utf8"],
          files={A: hexb(b"\xff\ntwo\nthree\n")}, request=read(A), expect=bad(A)),
        V("invalid-utf8-before-window-write-refused", "§8 a write reads the file whole: replacing a file whose early rows are invalid is refused; file unchanged", ["8.utf8-window", "8.write-unreadable"],
          files={A: hexb(b"\xff\ntwo\nthree\n")}, request=write(A, "new\n"),
          expect={**bad(A), "files": {A: hexb(b"\xff\ntwo\nthree\n")}, "change": None}),
        V("invalid-utf8-truncated-before-window-served", "§8 \\n never occurs inside a multi-byte sequence: a sequence cut by a newline before the window is not seen", ["8.utf8-window"],
          files={A: hexb(b"one\xe4\xb8\ntwo\n")}, request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("invalid-utf8-before-window-to-end-served", "§8 a window to the end after an invalid row is served", ["8.utf8-window"],
          files={A: hexb(b"caf\xe9\r\ntwo\r\nthree")}, request=read(A, line=2), expect=ok("two\r\nthree")),
        V("invalid-utf8-before-and-inside-window", "§8 the window's own bytes are still validated after an invalid row before it", ["8.utf8-window", "4.strict-utf8"],
          files={A: hexb(b"\xff\ntwo\n\xfe\n")}, request=read(A, line=2), expect=bad(A)),
        V("invalid-utf8-before-window-past-end", "§8 a start row past the end after invalid rows is the past-end error (rows are counted, not validated)", ["8.utf8-window", "2.past-end-error"],
          files={A: hexb(b"\xff\ntwo\n")}, request=read(A, line=5), expect=past_end(5, 3)),
        V("invalid-utf8-before-window-with-bom", "§8 with a UTF-8 BOM, rows before the window are counted, not validated", ["8.utf8-window", "4.bom-read"],
          files={A: hexb(BOM + b"\xc0\xaf\ntwo\n")}, request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("nul-before-window-still-binary", "§8 the NUL test looks at the first 8 KiB always, also before the window", ["8.nul-8k", "4.nul"],
          files={A: hexb(b"a\x00\ntwo\n")}, request=read(A, line=2, limit=1), expect=binary(A)),
        V("utf16le-lone-surrogate-before-window-not-utf8", "§8 UTF-16 is decoded whole: a bad unit before the window is not_utf8", ["8.utf16-whole", "81.decode-precedence"],
          files={A: hexb(LE + b"\x00\xd8\x0a\x00" + "two\n".encode("utf-16-le"))}, request=read(A, line=2, limit=1), expect=bad(A)),
        V("invalid-utf8-window-to-end", "§8 a window without limit reaches the end: invalid UTF-8 there is an error", ["8.utf8-window"],
          files={A: hexb(b"one\ntwo\n\xff\n")}, request=read(A, line=2), expect=bad(A)),
        V("invalid-utf8-truncated-after-window", "§8 a truncated sequence after the window is not read", ["8.utf8-window"],
          files={A: hexb("one\n日本".encode()[:-1])}, request=read(A, limit=1), expect=ok("one\n")),
        V("invalid-utf8-in-last-window-line", "§8 the last line of the window is checked, including its terminator", ["8.utf8-window"],
          files={A: hexb(b"one\ntwo\xff\nthree\n")}, request=read(A, limit=2), expect=bad(A)),
        V("invalid-utf8-long-after-window-served", "§8 invalid UTF-8 after the window of a long text (chunk crossing)", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=2, limit=5),
          expect=window_expect(MED_OK.decode(), 2, 5)),
        V("invalid-utf8-long-window-ending-just-before", "§8 the window ends just before the invalid row", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=9, limit=1),
          expect=window_expect(MED_OK.decode(), 9, 1)),
        V("invalid-utf8-long-window-over-it", "§8 a window over the invalid row is not_utf8", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=8, limit=4), expect=bad(A)),
        V("invalid-utf8-long-window-after-it", "§8 a window after the invalid row is served (bytes before it are counted, not validated)", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=11), expect=ok("".join(MED_ROWS[10:]))),
        V("invalid-utf8-long-window-starting-on-it", "§8 a window starting on the invalid row is not_utf8", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=10, limit=1), expect=bad(A)),
        V("invalid-utf8-long-window-after-it-limit", "§8 a window right after the invalid row of a long text is served", ["8.utf8-window", "2.cost"],
          files={A: hexb(MED_BAD)}, request=read(A, line=11, limit=1), expect=ok(MED_ROWS[10])),
        V("not-utf8-write-refused", "§8 writing over a file that is not valid text is refused; file unchanged", ["8.write-unreadable", "4.strict-utf8"],
          files={A: hexb(b"caf\xe9\n")}, request=write(A, "café\n"),
          expect={**bad(A), "files": {A: hexb(b"caf\xe9\n")}, "change": None}),
    ]
    # --- writes: BOM, encodings
    v += [
        V("write-bom-kept", "§4 if the existing file had a BOM it is written again", ["4.bom-write"],
          files={A: hexb(BOM + b"old\n")}, request=write(A, "new\n"), expect={**OK_WRITE, "files": {A: hexb(BOM + b"new\n")}}),
        V("write-bom-not-doubled", "§4 the BOM is never doubled (content starting with U+FEFF)", ["4.bom-write", "81.bom-write"],
          files={A: hexb(BOM + b"old\n")}, request=write(A, "\ufeffnew\n"), expect={**OK_WRITE, "files": {A: hexb(BOM + b"new\n")}}),
        V("write-bom-change-new-text-without-bom", "§8 change newText is the text as stored, without the BOM", ["8.change-text", "4.bom-write", "81.bom-write"],
          files={A: hexb(BOM + b"old\n")}, request=write(A, "\ufeffnew\n"),
          expect={**OK_WRITE, "files": {A: hexb(BOM + b"new\n")}, "change": change(A, "old\n", "new\n")}),
        V("write-bom-and-crlf-kept", "§4 BOM and CRLF of the existing file are both kept", ["4.bom-write", "4.crlf-write"],
          files={A: hexb(BOM + b"a\r\nb\r\n")}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: hexb(BOM + b"x\r\ny\r\n")}}),
        V("write-no-bom-not-added", "§4 a file without BOM gets none", ["4.bom-write", "4.encoding-write"],
          files={A: "old\n"}, request=write(A, "new ✓\n"), expect={**OK_WRITE, "files": {A: hexb("new ✓\n".encode())}}),
        V("write-created-file-is-utf8-without-bom", "§4 a new file is UTF-8 without BOM", ["4.encoding-write", "5.create"],
          files={A: "a"}, request=write("/project/new.txt", "ünï ✓\n"), expect={**OK_WRITE, "files": {"/project/new.txt": hexb("ünï ✓\n".encode())}}),
        V("write-utf16le-kept", "§4 the encoding of the existing file is kept (UTF-16 LE)", ["4.encoding-write"],
          files={A: hexb(u16le("old\n"))}, request=write(A, "new ✓ 😀\n"), expect={**OK_WRITE, "files": {A: hexb(u16le("new ✓ 😀\n"))}}),
        V("write-utf16be-kept", "§4 the encoding of the existing file is kept (UTF-16 BE)", ["4.encoding-write"],
          files={A: hexb(u16be("old\n"))}, request=write(A, "new ✓\n"), expect={**OK_WRITE, "files": {A: hexb(u16be("new ✓\n"))}}),
        V("write-utf16le-crlf-kept", "§4 UTF-16 and CRLF of the existing file are both kept", ["4.encoding-write", "4.crlf-write"],
          files={A: hexb(u16le("a\r\nb\r\n"))}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: hexb(u16le("x\r\ny\r\n"))}}),
    ]
    # --- writes: line endings
    crlf = "§4 existing CRLF file and content without \\r: \\n is written as \\r\\n"
    v += [
        V("write-crlf-preserved", crlf, ["4.crlf-write", "8.change-text"],
          files={A: "a\r\nb\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}, "change": change(A, "a\r\nb\r\n", "x\r\ny\r\n")}),
        V("write-crlf-preserved-no-final-newline", crlf, ["4.crlf-write"],
          files={A: "a\r\nb"}, request=write(A, "x\ny"), expect={**OK_WRITE, "files": {A: "x\r\ny"}}),
        V("write-crlf-preserved-blank-lines", crlf, ["4.crlf-write"],
          files={A: "a\r\n"}, request=write(A, "\n\nz\n"), expect={**OK_WRITE, "files": {A: "\r\n\r\nz\r\n"}}),
        V("write-crlf-empty-content", crlf + " (nothing to convert)", ["4.crlf-write"],
          files={A: "a\r\n"}, request=write(A, ""), expect={**OK_WRITE, "files": {A: ""}, "change": change(A, "a\r\n", "")}),
        V("write-crlf-single-line-content", crlf + " (no \\n to convert)", ["4.crlf-write"],
          files={A: "a\r\n"}, request=write(A, "one line"), expect={**OK_WRITE, "files": {A: "one line"}}),
        V("write-crlf-first-terminator-decides-crlf", "§8 uses CRLF = the first line terminator is \\r\\n", ["8.crlf-first", "4.crlf-write"],
          files={A: "a\r\nb\nc\n"}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}}),
        V("write-crlf-first-terminator-decides-lf", "§8 uses CRLF = the first line terminator is \\r\\n (here \\n)", ["8.crlf-first"],
          files={A: "a\nb\r\nc\r\n"}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\ny\n"}}),
        V("write-crlf-lone-cr-is-not-crlf", "§8 a lone \\r is not a terminator: the file does not use CRLF", ["8.crlf-first", "2.terminators"],
          files={A: "a\rb\n"}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\ny\n"}}),
        V("write-crlf-no-terminator-existing", "§8 an existing file without terminator does not use CRLF", ["8.crlf-first"],
          files={A: "abc"}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\ny\n"}}),
        V("write-crlf-empty-existing", "§8 an empty existing file does not use CRLF", ["8.crlf-first"],
          files={A: ""}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\ny\n"}, "change": change(A, "", "x\ny\n")}),
        V("write-crlf-content-with-crlf-as-is", "§4 content containing \\r is written as is", ["4.crlf-write"],
          files={A: "a\r\nb\r\n"}, request=write(A, "x\r\ny\n"),
          expect={**OK_WRITE, "files": {A: "x\r\ny\n"}, "change": change(A, "a\r\nb\r\n", "x\r\ny\n")}),
        V("write-crlf-content-with-lone-cr-as-is", "§4 content containing \\r is written as is", ["4.crlf-write"],
          files={A: "a\r\nb\r\n"}, request=write(A, "x\ry\nz\n"), expect={**OK_WRITE, "files": {A: "x\ry\nz\n"}}),
        V("write-lf-file-not-converted", "§4 an LF file: content written as is", ["4.crlf-write"],
          files={A: "a\nb\n"}, request=write(A, "x\ny\n"), expect={**OK_WRITE, "files": {A: "x\ny\n"}}),
        V("write-lf-file-crlf-content-as-is", "§4 content with \\r\\n on an LF file is written as is", ["4.crlf-write"],
          files={A: "a\nb\n"}, request=write(A, "x\r\ny\r\n"), expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}}),
        V("write-new-file-no-conversion", "§4 a created file has no existing line ending: content as is", ["4.crlf-write", "5.create"],
          files={A: "a\r\n"}, request=write("/project/new.txt", "x\ny\n"),
          expect={**OK_WRITE, "files": {"/project/new.txt": "x\ny\n"}, "change": change("/project/new.txt", None, "x\ny\n")}),
        V("write-line-endings-as-is-option", "§4 lineEndings \"asIs\" writes the content unchanged", ["4.crlf-write"],
          options={"lineEndings": "asIs"}, files={A: "a\r\nb\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "x\ny\n"}, "change": change(A, "a\r\nb\r\n", "x\ny\n")}),
        V("write-line-endings-preserve-explicit", "§4 lineEndings \"preserve\" is the default behaviour", ["4.crlf-write"],
          options={"lineEndings": "preserve"}, files={A: "a\r\nb\r\n"}, request=write(A, "x\ny\n"),
          expect={**OK_WRITE, "files": {A: "x\r\ny\r\n"}}),
    ]
    return v
