"""read_window.json and read_params.json."""

from vectorlib import (ABSENT, READ, WRITE, V, read, write, req, ok, err, invalid, past_end,
                       window_expect, OK_WRITE, change)

A = "/project/a.txt"
T4 = "one\ntwo\nthree\nfour\n"   # 4 x "\n" -> lineCount 5
T3 = "one\ntwo\nthree"           # 2 x "\n" -> lineCount 3


def f(text, path=A):
    return {path: text}


# ------------------------------------------------------------------ long texts (chunk crossing)

def long_text():
    """40 rows ending in "\\n"; every 5th row is long (> 200 bytes), rows mix 1-4 byte UTF-8."""
    parts = ["alpha beta", "日本語のテキスト", "🎉🎊 party", "éèêë àâ", "Ω≈ç√∫ ≤≥", "mixed ✓ 中文 😀 ok"]
    rows = []
    for i in range(1, 41):
        p = parts[i % len(parts)]
        if i % 5 == 0:
            body = p + " "
            while len(body.encode()) < 230:
                body += p + " "
        else:
            body = p * (i % 4 + 1)
        rows.append("%02d: %s\n" % (i, body))
    return "".join(rows)


LONG = long_text()
assert len(LONG.encode()) > 2500 and LONG.count("\n") == 40

LONG_CRLF = LONG.replace("\n", "\r\n")

ONE_LINE = ("0123456789abcdef✓" * 100)  # one 1,900-byte line, no terminator

HUGE_ROW = "start\n" + ("界" * 1000) + "\n" + "after\n" + "last"  # row 2 is 3,001 bytes


def read_window():
    v = []
    R = "§2 window"
    # --- basic windows on a text ending in \n
    v += [
        V("window-whole-file-no-line-no-limit", "§2 line and limit absent: the whole text", ["2.line-default", "2.limit-default", "2.exact-substring"],
          files=f(T4), request=read(A), expect=ok(T4)),
        V("window-line-2-to-end", "§2 limit absent means to the end", ["2.limit-default"],
          files=f(T4), request=read(A, line=2), expect=ok("two\nthree\nfour\n")),
        V("window-line-2-limit-2", "§2 window keeps terminators (exact substring)", ["2.exact-substring", "2.terminators"],
          files=f(T4), request=read(A, line=2, limit=2), expect=ok("two\nthree\n")),
        V("window-line-1-limit-1", "§2 window of one line keeps its \\n", ["2.exact-substring"],
          files=f(T4), request=read(A, line=1, limit=1), expect=ok("one\n")),
        V("window-limit-without-line", "§2 line absent means 1; limit applies", ["2.line-default"],
          files=f(T4), request=read(A, limit=2), expect=ok("one\ntwo\n")),
        V("window-line-0-means-1", "§2 line 0 means 1", ["2.line-default"],
          files=f(T4), request=read(A, line=0, limit=2), expect=ok("one\ntwo\n")),
        V("window-line-0-no-limit", "§2 line 0 means 1, limit absent means to the end", ["2.line-default", "2.limit-default"],
          files=f(T4), request=read(A, line=0), expect=ok(T4)),
        V("window-line-null-means-1", "§2 line null means 1", ["2.line-default"],
          files=f(T4), request=read(A, line=None, limit=1), expect=ok("one\n")),
        V("window-limit-null-to-end", "§2 limit null means to the end", ["2.limit-default"],
          files=f(T4), request=read(A, line=3, limit=None), expect=ok("three\nfour\n")),
        V("window-line-null-limit-null", "§2 line null and limit null: whole text", ["2.line-default", "2.limit-default"],
          files=f(T4), request=read(A, line=None, limit=None), expect=ok(T4)),
        V("window-limit-0-is-empty", "§2 limit 0 returns \"\" (never everything)", ["2.limit-zero"],
          files=f(T4), request=read(A, limit=0), expect=ok("")),
        V("window-limit-0-mid-file", "§2 limit 0 returns \"\"", ["2.limit-zero"],
          files=f(T4), request=read(A, line=3, limit=0), expect=ok("")),
        V("window-line-0-limit-0", "§2 line 0 means 1; limit 0 returns \"\"", ["2.limit-zero", "2.line-default"],
          files=f(T4), request=read(A, line=0, limit=0), expect=ok("")),
        V("window-limit-larger-than-rest", "§2 a limit beyond the end stops at the end", ["2.limit-default", "2.exact-substring"],
          files=f(T4), request=read(A, line=3, limit=100), expect=ok("three\nfour\n")),
        V("window-last-line", "§2 last terminated line", ["2.exact-substring"],
          files=f(T4), request=read(A, line=4, limit=1), expect=ok("four\n")),
        V("window-line-n-plus-1-after-final-newline", "§2 line n+1 on a text ending in \\n gives \"\"", ["2.past-end-range"],
          files=f(T4), request=read(A, line=5), expect=ok("")),
        V("window-line-n-plus-1-with-limit", "§2 line n+1 on a text ending in \\n gives \"\"", ["2.past-end-range"],
          files=f(T4), request=read(A, line=5, limit=3), expect=ok("")),
        V("window-line-beyond-errors", "§2 start row beyond (number of \\n)+1 is -32602 with line and lineCount", ["2.past-end-error"],
          files=f(T4), request=read(A, line=6), expect=past_end(6, 5)),
        V("window-line-far-beyond-errors", "§2 start row beyond the end is -32602", ["2.past-end-error"],
          files=f(T4), request=read(A, line=1000, limit=1), expect=past_end(1000, 5)),
        V("window-beyond-with-limit-0-errors", "§2 the start row is checked even when limit is 0", ["2.past-end-error", "2.limit-zero"],
          files=f(T4), request=read(A, line=7, limit=0), expect=past_end(7, 5)),
    ]
    # --- final segment without terminator
    v += [
        V("window-no-final-newline-whole", "§2 a final segment without terminator is a line", ["2.terminators", "2.exact-substring"],
          files=f(T3), request=read(A), expect=ok(T3)),
        V("window-final-segment-is-a-line", "§2 a final segment without terminator is a line", ["2.terminators"],
          files=f(T3), request=read(A, line=3), expect=ok("three")),
        V("window-final-segment-limit-1", "§2 the final segment has no terminator to keep", ["2.terminators", "2.exact-substring"],
          files=f(T3), request=read(A, line=3, limit=1), expect=ok("three")),
        V("window-into-final-segment", "§2 window ending in the final segment", ["2.terminators"],
          files=f(T3), request=read(A, line=2, limit=5), expect=ok("two\nthree")),
        V("window-no-final-newline-beyond-errors", "§2 rows are 1..(number of \\n)+1: line 4 of 2 newlines is past the end", ["2.past-end-error"],
          files=f(T3), request=read(A, line=4), expect=past_end(4, 3)),
        V("window-single-line-no-newline", "§2 a text without \\n is one line", ["2.terminators"],
          files=f("hello"), request=read(A, line=1, limit=1), expect=ok("hello")),
        V("window-single-line-no-newline-line-2-errors", "§2 a text without \\n has lineCount 1", ["2.past-end-error"],
          files=f("hello"), request=read(A, line=2), expect=past_end(2, 1)),
    ]
    # --- empty file, newline-only files
    v += [
        V("window-empty-file-whole", "§2 an empty file has one empty line", ["2.terminators", "2.past-end-range"],
          files=f(""), request=read(A), expect=ok("")),
        V("window-empty-file-line-1", "§2 line 1 of an empty file gives \"\"", ["2.past-end-range"],
          files=f(""), request=read(A, line=1), expect=ok("")),
        V("window-empty-file-line-1-limit-3", "§2 line 1 of an empty file gives \"\"", ["2.past-end-range"],
          files=f(""), request=read(A, line=1, limit=3), expect=ok("")),
        V("window-empty-file-limit-0", "§2 limit 0 returns \"\"", ["2.limit-zero"],
          files=f(""), request=read(A, limit=0), expect=ok("")),
        V("window-empty-file-line-2-errors", "§2 an empty file has lineCount 1; line 2 is past the end", ["2.past-end-error"],
          files=f(""), request=read(A, line=2), expect=past_end(2, 1)),
        V("window-only-newline-line-1", "§2 \"\\n\" has two rows; row 1 is \"\\n\"", ["2.terminators"],
          files=f("\n"), request=read(A, line=1, limit=1), expect=ok("\n")),
        V("window-only-newline-line-2", "§2 line n+1 after a final \\n gives \"\"", ["2.past-end-range"],
          files=f("\n"), request=read(A, line=2), expect=ok("")),
        V("window-only-newline-line-3-errors", "§2 \"\\n\" has lineCount 2", ["2.past-end-error"],
          files=f("\n"), request=read(A, line=3), expect=past_end(3, 2)),
        V("window-blank-lines", "§2 empty lines are lines", ["2.terminators"],
          files=f("\n\n\n"), request=read(A, line=2, limit=1), expect=ok("\n")),
        V("window-blank-lines-n-plus-1", "§2 line n+1 after a final \\n gives \"\"", ["2.past-end-range"],
          files=f("\n\n\n"), request=read(A, line=4, limit=1), expect=ok("")),
        V("window-blank-lines-beyond-errors", "§2 lineCount is number of \\n + 1", ["2.past-end-error"],
          files=f("\n\n\n"), request=read(A, line=5), expect=past_end(5, 4)),
    ]
    # --- CRLF, lone CR, other characters that are not terminators
    C = "a\r\nb\r\nc\r\n"
    v += [
        V("window-crlf-kept-whole", "§2 CRLF is kept (nothing normalized)", ["2.exact-substring"],
          files=f(C), request=read(A), expect=ok(C)),
        V("window-crlf-kept-in-window", "§2 \\r\\n is one terminator and is kept", ["2.terminators", "2.exact-substring"],
          files=f(C), request=read(A, line=2, limit=1), expect=ok("b\r\n")),
        V("window-crlf-two-lines", "§2 \\r\\n is one terminator", ["2.terminators"],
          files=f(C), request=read(A, line=1, limit=2), expect=ok("a\r\nb\r\n")),
        V("window-crlf-n-plus-1", "§2 line n+1 after a final \\r\\n gives \"\"", ["2.past-end-range"],
          files=f(C), request=read(A, line=4), expect=ok("")),
        V("window-crlf-beyond-errors", "§2 lineCount counts \\n (a \\r\\n counts once)", ["2.past-end-error"],
          files=f(C), request=read(A, line=5), expect=past_end(5, 4)),
        V("window-lone-cr-not-terminator", "§2 a lone \\r is not a terminator", ["2.terminators"],
          files=f("a\rb\rc\nd"), request=read(A, line=1, limit=1), expect=ok("a\rb\rc\n")),
        V("window-lone-cr-second-row", "§2 a lone \\r is not a terminator", ["2.terminators"],
          files=f("a\rb\rc\nd"), request=read(A, line=2), expect=ok("d")),
        V("window-lone-cr-line-count", "§2 a lone \\r does not add a row", ["2.terminators", "2.past-end-error"],
          files=f("a\rb\rc\nd"), request=read(A, line=3), expect=past_end(3, 2)),
        V("window-lone-cr-at-end-kept", "§2 a final lone \\r is part of the final segment", ["2.terminators", "2.exact-substring"],
          files=f("x\ny\r"), request=read(A, line=2), expect=ok("y\r")),
        V("window-old-mac-text-is-one-line", "§2 a lone \\r is not a terminator", ["2.terminators", "2.past-end-error"],
          files=f("a\rb\rc\r"), request=read(A, line=2), expect=past_end(2, 1)),
        V("window-mixed-endings", "§2 mixed endings kept as they are", ["2.terminators", "2.exact-substring"],
          files=f("a\r\nb\nc\rd\r\ne"), request=read(A, line=2, limit=2), expect=ok("b\nc\rd\r\n")),
        V("window-cr-before-crlf", "§2 \\r\\r\\n: one terminator, the first \\r is text", ["2.terminators"],
          files=f("x\r\r\ny\n"), request=read(A, line=1, limit=1), expect=ok("x\r\r\n")),
        V("window-unicode-separators-not-terminators", "§2 only \\n ends a line (U+2028, U+0085, \\v, \\f do not)", ["2.terminators"],
          files=f("a\u2028b\u0085c\u000bd\u000ce\nf"), request=read(A, line=2), expect=ok("f")),
        V("window-unicode-separators-kept", "§2 only \\n ends a line; other separators kept", ["2.terminators", "2.exact-substring"],
          files=f("a\u2028b\u0085c\u000bd\u000ce\nf"), request=read(A, line=1, limit=1), expect=ok("a\u2028b\u0085c\u000bd\u000ce\n")),
        V("window-whitespace-kept", "§2 nothing is trimmed", ["2.exact-substring"],
          files=f("a  \n\tb\t\n  \n"), request=read(A, line=1, limit=2), expect=ok("a  \n\tb\t\n")),
    ]
    # --- multi-byte UTF-8
    M = "héllo\n日本語テキスト\n🎉 party 🎊\nend"
    v += [
        V("window-utf8-cjk-and-emoji", "§2 windows over multi-byte UTF-8", ["2.exact-substring"],
          files=f(M), request=read(A, line=2, limit=2), expect=ok("日本語テキスト\n🎉 party 🎊\n")),
        V("window-utf8-emoji-to-end", "§2 windows over multi-byte UTF-8", ["2.exact-substring", "2.terminators"],
          files=f(M), request=read(A, line=3), expect=ok("🎉 party 🎊\nend")),
        V("window-utf8-first-line", "§2 windows over multi-byte UTF-8", ["2.exact-substring"],
          files=f(M), request=read(A, limit=1), expect=ok("héllo\n")),
        V("window-utf8-zwj-sequence", "§2 windows over multi-byte UTF-8 (ZWJ emoji kept intact)", ["2.exact-substring"],
          files=f("👨\u200d👩\u200d👧 family\n次の行\n"), request=read(A, line=1, limit=1), expect=ok("👨\u200d👩\u200d👧 family\n")),
        V("window-utf8-past-end-counts-newlines", "§2 lineCount counts \\n, not characters or bytes", ["2.past-end-error"],
          files=f(M), request=read(A, line=5), expect=past_end(5, 4)),
    ]
    # --- pastEnd: "empty"
    E = {"pastEnd": "empty"}
    v += [
        V("past-end-empty-option-beyond", "§2 pastEnd \"empty\" returns \"\" past the end", ["2.past-end-empty"],
          options=E, files=f(T4), request=read(A, line=6), expect=ok("")),
        V("past-end-empty-option-far-beyond", "§2 pastEnd \"empty\" returns \"\" past the end", ["2.past-end-empty"],
          options=E, files=f(T4), request=read(A, line=99, limit=3), expect=ok("")),
        V("past-end-empty-option-in-range-unchanged", "§2 pastEnd \"empty\" changes nothing inside the range", ["2.past-end-empty"],
          options=E, files=f(T4), request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("past-end-empty-option-empty-file", "§2 pastEnd \"empty\" on an empty file", ["2.past-end-empty"],
          options=E, files=f(""), request=read(A, line=2), expect=ok("")),
        V("past-end-empty-option-no-final-newline", "§2 pastEnd \"empty\" past the final segment", ["2.past-end-empty"],
          options=E, files=f(T3), request=read(A, line=4, limit=1), expect=ok("")),
        V("past-end-empty-option-malformed-line-still-errors", "§2 pastEnd does not relax parameter checks", ["2.past-end-empty", "2.malformed"],
          options=E, files=f(T4), request=read(A, line=-1), expect=invalid("line")),
    ]
    return v


def read_window_long():
    """Windows over texts longer than a storage chunk: rows > 200 bytes, multi-byte characters
    split by chunk boundaries. Expectations computed by ref_window (section 2 transcribed)."""
    v = []
    L = "/project/long.txt"
    lf = {L: LONG}
    for (name, line, limit) in [
        ("long-window-whole", ABSENT, ABSENT),
        ("long-window-line-1-limit-1", 1, 1),
        ("long-window-line-5-limit-1-long-row", 5, 1),
        ("long-window-line-7-limit-3", 7, 3),
        ("long-window-line-9-limit-3-across-long-row", 9, 3),
        ("long-window-line-20-to-end", 20, ABSENT),
        ("long-window-line-38-limit-10-beyond-rest", 38, 10),
        ("long-window-line-40-last", 40, 1),
        ("long-window-line-41-n-plus-1", 41, ABSENT),
        ("long-window-line-42-errors", 42, ABSENT),
        ("long-window-line-15-limit-0", 15, 0),
    ]:
        ln = None if line is ABSENT else line
        lm = None if limit is ABSENT else limit
        cov = ["2.cost", "2.exact-substring"]
        if name.endswith("errors"):
            cov = ["2.cost", "2.past-end-error"]
        v.append(V(name, "§2 window over a long multi-byte text (crosses storage chunks)", cov,
                   files=lf, request=read(L, line=line, limit=limit), expect=window_expect(LONG, ln, lm)))
    LC = "/project/long-crlf.txt"
    for (name, line, limit) in [
        ("long-crlf-window-line-10-limit-5", 10, 5),
        ("long-crlf-window-line-35-to-end", 35, ABSENT),
        ("long-crlf-window-line-41-n-plus-1", 41, 2),
    ]:
        ln = None if line is ABSENT else line
        lm = None if limit is ABSENT else limit
        v.append(V(name, "§2 CRLF kept in windows over a long text", ["2.cost", "2.terminators", "2.exact-substring"],
                   files={LC: LONG_CRLF}, request=read(LC, line=line, limit=limit), expect=window_expect(LONG_CRLF, ln, lm)))
    O = "/project/one-line.txt"
    v += [
        V("long-single-line-whole", "§2 one long line without terminator is one line", ["2.cost", "2.terminators"],
          files={O: ONE_LINE}, request=read(O, line=1, limit=1), expect=ok(ONE_LINE)),
        V("long-single-line-line-2-errors", "§2 one long line without terminator: lineCount 1", ["2.cost", "2.past-end-error"],
          files={O: ONE_LINE}, request=read(O, line=2), expect=past_end(2, 1)),
    ]
    H = "/project/huge-row.txt"
    v += [
        V("long-row-window-after-it", "§2 the window starts after a 3 KB row", ["2.cost", "2.terminators"],
          files={H: HUGE_ROW}, request=read(H, line=3, limit=1), expect=window_expect(HUGE_ROW, 3, 1)),
        V("long-row-window-is-it", "§2 a window of one 3 KB row", ["2.cost", "2.exact-substring"],
          files={H: HUGE_ROW}, request=read(H, line=2, limit=1), expect=window_expect(HUGE_ROW, 2, 1)),
        V("long-row-window-final-segment", "§2 final segment after a 3 KB row", ["2.cost", "2.terminators"],
          files={H: HUGE_ROW}, request=read(H, line=4), expect=ok("last")),
    ]
    return v


def read_params():
    v = []
    F = f(T4)
    # --- malformed line / limit, strict
    for (name, val, what) in [
        ("line-negative", -1, "negative"),
        ("line-fractional", 1.5, "fractional"),
        ("line-string", "2", "a string"),
        ("line-too-large", 4294967296, "> u32"),
        ("line-boolean", True, "a boolean"),
        ("line-array", [2], "an array"),
        ("line-object", {}, "an object"),
    ]:
        v.append(V("params-" + name, "§2 malformed line (%s) is -32602 naming the field" % what,
                   ["2.malformed", "6.invalid-params"], files=F, request=read(A, line=val), expect=invalid("line")))
    for (name, val, what) in [
        ("limit-negative", -1, "negative"),
        ("limit-fractional", 0.5, "fractional"),
        ("limit-string", "1", "a string"),
        ("limit-too-large", 4294967296, "> u32"),
        ("limit-boolean", False, "a boolean"),
        ("limit-array", [], "an array"),
    ]:
        v.append(V("params-" + name, "§2 malformed limit (%s) is -32602 naming the field; never the whole file" % what,
                   ["2.malformed", "6.invalid-params"], files=F, request=read(A, line=2, limit=val), expect=invalid("limit")))
    v += [
        V("params-line-float-integral", "§8 integers may arrive as floats with no fraction (3.0)", ["8.float-integral"],
          files=F, request=read(A, line=3.0), expect=ok("three\nfour\n")),
        V("params-limit-float-integral", "§8 integers may arrive as floats with no fraction (2.0)", ["8.float-integral"],
          files=F, request=read(A, line=2, limit=2.0), expect=ok("two\nthree\n")),
        V("params-line-zero-float", "§8 0.0 is the integer 0, which means line 1", ["8.float-integral", "2.line-default"],
          files=F, request=read(A, line=0.0, limit=1), expect=ok("one\n")),
        V("params-line-max-u32-is-valid", "§2 4294967295 is a valid u32 line (then past the end)", ["2.malformed", "2.past-end-error"],
          files=F, request=read(A, line=4294967295), expect=past_end(4294967295, 5)),
        V("params-limit-max-u32-is-valid", "§2 4294967295 is a valid u32 limit", ["2.malformed", "2.limit-default"],
          files=F, request=read(A, line=2, limit=4294967295), expect=ok("two\nthree\nfour\n")),
        V("params-line-plus-limit-overflows-u32", "§2 line + limit beyond u32 still stops at the end", ["2.limit-default"],
          files=F, request=read(A, line=3, limit=4294967295), expect=ok("three\nfour\n")),
    ]
    # --- lenient
    Lo = {"lenientParams": True}
    v += [
        V("lenient-line-negative-is-absent", "§2 lenientParams: malformed line treated as absent (line 1)", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=-1, limit=1), expect=ok("one\n")),
        V("lenient-line-fractional-is-absent", "§2 lenientParams: fractional line treated as absent", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=2.5, limit=1), expect=ok("one\n")),
        V("lenient-line-string-is-absent", "§2 lenientParams: a string line is absent, not coerced", ["2.lenient"],
          options=Lo, files=F, request=read(A, line="3", limit=1), expect=ok("one\n")),
        V("lenient-line-too-large-is-absent", "§2 lenientParams: line > u32 treated as absent", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=4294967296, limit=1), expect=ok("one\n")),
        V("lenient-limit-negative-is-absent", "§2 lenientParams: malformed limit treated as absent (to the end)", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=3, limit=-1), expect=ok("three\nfour\n")),
        V("lenient-limit-string-is-absent", "§2 lenientParams: a string limit is absent, not coerced", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=2, limit="1"), expect=ok("two\nthree\nfour\n")),
        V("lenient-limit-fractional-is-absent", "§2 lenientParams: fractional limit treated as absent", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=2, limit=1.5), expect=ok("two\nthree\nfour\n")),
        V("lenient-limit-too-large-is-absent", "§2 lenientParams: limit > u32 treated as absent", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=4, limit=4294967296), expect=ok("four\n")),
        V("lenient-both-malformed", "§2 lenientParams: both treated as absent", ["2.lenient"],
          options=Lo, files=F, request=read(A, line={}, limit=[]), expect=ok(T4)),
        V("lenient-valid-values-used", "§2 lenientParams changes nothing for valid values", ["2.lenient"],
          options=Lo, files=F, request=read(A, line=2, limit=1), expect=ok("two\n")),
        V("lenient-float-integral-used", "§8 3.0 is an integer, also in lenient mode", ["2.lenient", "8.float-integral"],
          options=Lo, files=F, request=read(A, line=3.0, limit=1.0), expect=ok("three\n")),
        V("lenient-limit-0-still-empty", "§2 limit 0 is valid, so lenient mode still returns \"\"", ["2.lenient", "2.limit-zero"],
          options=Lo, files=F, request=read(A, limit=0), expect=ok("")),
        V("lenient-past-end-still-errors", "§2 a valid line past the end is still -32602 in lenient mode", ["2.lenient", "2.past-end-error"],
          options=Lo, files=F, request=read(A, line=6), expect=past_end(6, 5)),
        V("lenient-missing-session-id", "§8 required fields missing are -32602 even with lenientParams", ["8.required-strict"],
          options=Lo, files=F, request=req(READ, {"path": A}), expect=invalid("sessionId")),
        V("lenient-session-id-number", "§8 required fields mistyped are -32602 even with lenientParams", ["8.required-strict"],
          options=Lo, files=F, request=read(A, sid=1), expect=invalid("sessionId")),
        V("lenient-missing-path", "§8 required fields missing are -32602 even with lenientParams", ["8.required-strict"],
          options=Lo, files=F, request=read(), expect=invalid("path")),
        V("lenient-path-number", "§8 required fields mistyped are -32602 even with lenientParams", ["8.required-strict"],
          options=Lo, files=F, request=read(7), expect=invalid("path")),
        V("lenient-relative-path", "§3 path checks are not relaxed by lenientParams", ["8.required-strict", "3.invalid-path"],
          options=Lo, files=F, request=read("a.txt"), expect=invalid("path")),
        V("lenient-params-not-object", "§8 params not an object is -32602 field params, also lenient", ["8.params-object", "8.required-strict"],
          options=Lo, files=F, request=req(READ, [A]), expect=invalid("params")),
        V("lenient-meta-string-ignored", "§8 _meta neither object nor null is ignored in lenient mode", ["8.meta", "2.lenient"],
          options=Lo, files=F, request=read(A, meta="x"), expect=ok(T4)),
        V("lenient-meta-array-ignored", "§8 _meta neither object nor null is ignored in lenient mode", ["8.meta"],
          options=Lo, files=F, request=read(A, line=4, meta=[1]), expect=ok("four\n")),
        V("lenient-write-missing-content", "§8 required content missing is -32602 even with lenientParams", ["8.required-strict", "1.write-params"],
          options=Lo, files=F, request=write(A), expect=invalid("content")),
        V("lenient-write-content-number", "§8 required content mistyped is -32602 even with lenientParams", ["8.required-strict", "1.write-params"],
          options=Lo, files=F, request=write(A, 42), expect={**invalid("content"), "files": F}),
        V("lenient-write-meta-string-ignored", "§8 _meta ignored in lenient mode (write)", ["8.meta"],
          options=Lo, files=F, request=write(A, "new\n", meta="x"),
          expect={**OK_WRITE, "files": {A: "new\n"}}),
    ]
    # --- required fields, params shape, _meta, unknown fields (strict)
    v += [
        V("params-missing-session-id", "§1 sessionId is required", ["1.read-params", "6.invalid-params"],
          files=F, request=req(READ, {"path": A}), expect=invalid("sessionId")),
        V("params-session-id-number", "§1 sessionId must be a string", ["1.read-params"],
          files=F, request=read(A, sid=1), expect=invalid("sessionId")),
        V("params-session-id-null", "§1 sessionId must be a string", ["1.read-params"],
          files=F, request=read(A, sid=None), expect=invalid("sessionId")),
        V("params-missing-path", "§1 path is required", ["1.read-params"],
          files=F, request=read(), expect=invalid("path")),
        V("params-path-null", "§1 path must be a string", ["1.read-params"],
          files=F, request=read(None), expect=invalid("path")),
        V("params-path-number", "§1 path must be a string", ["1.read-params"],
          files=F, request=read(5), expect=invalid("path")),
        V("params-path-array", "§1 path must be a string", ["1.read-params"],
          files=F, request=read([A]), expect=invalid("path")),
        V("params-array", "§8 params that is not an object is field params", ["8.params-object"],
          files=F, request=req(READ, ["s1", A]), expect=invalid("params")),
        V("params-string", "§8 params that is not an object is field params", ["8.params-object"],
          files=F, request=req(READ, "s1"), expect=invalid("params")),
        V("params-null", "§8 params that is not an object is field params", ["8.params-object"],
          files=F, request=req(READ, None), expect=invalid("params")),
        V("params-number", "§8 params that is not an object is field params", ["8.params-object"],
          files=F, request=req(READ, 1), expect=invalid("params")),
        V("params-write-array", "§8 params that is not an object is field params (write)", ["8.params-object"],
          files=F, request=req(WRITE, ["s1", A, "x"]), expect={**invalid("params"), "files": F}),
        V("params-meta-string", "§8 _meta neither object nor null is -32602 field _meta (strict)", ["8.meta"],
          files=F, request=read(A, meta="x"), expect=invalid("_meta")),
        V("params-meta-array", "§8 _meta neither object nor null is -32602 field _meta (strict)", ["8.meta"],
          files=F, request=read(A, meta=[]), expect=invalid("_meta")),
        V("params-meta-number", "§8 _meta neither object nor null is -32602 field _meta (strict)", ["8.meta"],
          files=F, request=read(A, meta=0), expect=invalid("_meta")),
        V("params-meta-boolean", "§8 _meta neither object nor null is -32602 field _meta (strict)", ["8.meta"],
          files=F, request=read(A, meta=False), expect=invalid("_meta")),
        V("params-meta-null-accepted", "§1 _meta may be null", ["1.read-params", "8.meta"],
          files=F, request=read(A, line=4, meta=None), expect=ok("four\n")),
        V("params-meta-object-accepted", "§1 _meta may be an object", ["1.read-params", "8.meta"],
          files=F, request=read(A, line=4, meta={"vendor.example/x": {"y": 1}}), expect=ok("four\n")),
        V("params-write-meta-string", "§8 _meta neither object nor null is -32602 (write, strict)", ["8.meta", "1.write-params"],
          files=F, request=write(A, "new\n", meta="x"), expect={**invalid("_meta"), "files": F}),
        V("params-unknown-fields-ignored", "§8 unknown extra fields are ignored", ["8.unknown-fields"],
          files=F, request=read(A, line=4, encoding="latin1", offset=3), expect=ok("four\n")),
        V("params-unknown-fields-ignored-write", "§8 unknown extra fields are ignored (write)", ["8.unknown-fields"],
          files=F, request=write(A, "new\n", line=2, append=True),
          expect={**OK_WRITE, "files": {A: "new\n"}, "change": change(A, T4, "new\n")}),
        V("params-unknown-session", "§8 unknown session is -32602 field sessionId", ["8.unknown-session", "3.unknown-session"],
          files=F, request=read(A, sid="nope"), expect=invalid("sessionId")),
        V("params-unknown-session-empty-string", "§8 unknown session is -32602 field sessionId", ["8.unknown-session"],
          files=F, request=read(A, sid=""), expect=invalid("sessionId")),
        V("params-unknown-session-write", "§8 unknown session is -32602; nothing written", ["8.unknown-session"],
          files=F, request=write("/project/new.txt", "x", sid="nope"),
          expect={**invalid("sessionId"), "absent": ["/project/new.txt"], "change": None}),
    ]
    return v
