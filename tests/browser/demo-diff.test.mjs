// The demo's line diff (approval prompt, change list): right ops, line numbers and hunks, CRLF
// shown as lines, a created file as all additions, and bounded work on huge rewrites.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, diffStats, hunks, splitLines } from '../../examples/browser-demo/src/diff.mjs';

const show = (ops) => ops.map((o) => `${o.type}${o.a ?? '.'}:${o.b ?? '.'} ${o.text ?? o.skipped}`);

test('diffLines: an insertion and a replacement, numbered on both sides', () => {
  const ops = diffLines('a\nb\nc\nd\n', 'a\nB\nc\nnew\nd\n');
  assert.deepEqual(show(ops), [' 1:1 a', '-2:. b', '+.:2 B', ' 3:3 c', '+.:4 new', ' 4:5 d']);
  assert.deepEqual(diffStats(ops), { added: 2, removed: 1 });
});

test('diffLines: a created file is all additions; CRLF lines compare as lines', () => {
  assert.deepEqual(show(diffLines(null, 'x\ny\n')), ['+.:1 x', '+.:2 y']);
  assert.deepEqual(splitLines('one\r\ntwo\r\n'), ['one', 'two']);
  assert.deepEqual(diffStats(diffLines('one\r\ntwo\r\n', 'one\r\n2\r\n')), { added: 1, removed: 1 });
  assert.deepEqual(splitLines('no newline'), ['no newline']);
  assert.deepEqual(splitLines(''), ['']);
});

test('hunks: context around changes, skipped runs counted', () => {
  const old = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n');
  const ops = diffLines(old, old.replace('l15', 'L15'));
  const h = hunks(ops, 2);
  assert.deepEqual(show(h), ['….:. 12', ' 13:13 l13', ' 14:14 l14', '-15:. l15', '+.:15 L15', ' 16:16 l16', ' 17:17 l17', '….:. 13']);
});

test('diffLines: a 20,000-line rewrite degrades to remove/add instead of a 400M-cell table', () => {
  const a = Array.from({ length: 20_000 }, (_, i) => `a${i}`).join('\n');
  const b = Array.from({ length: 20_000 }, (_, i) => `b${i}`).join('\n');
  const s = diffStats(diffLines(a, b));
  assert.deepEqual(s, { added: 20_000, removed: 20_000 });
});
