// The edits the editor bindings apply for an agent's write (npm/shared/text-edits.mjs): applied
// to the old text they give the new one, in order and apart, and they touch only what changed,
// so an editor's selection and the user's lines elsewhere stay where they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textEdits } from '../../npm/shared/text-edits.mjs';

const apply = (text, edits) => {
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.from) + e.insert;
    at = e.to;
  }
  return out + text.slice(at);
};

test('random texts: the edits make the new text, ascending and not overlapping', () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ['a', 'b', '\n', 'x\n', 'foo bar\n', '\r\n', 'é', '😀'];
  const make = (n) => Array.from({ length: n }, () => pieces[Math.floor(rnd() * pieces.length)]).join('');
  for (let i = 0; i < 2000; i++) {
    const a = make(Math.floor(rnd() * 40));
    const cut = Math.floor(rnd() * a.length);
    const b = rnd() < 0.5 ? make(Math.floor(rnd() * 40)) : a.slice(0, cut) + make(3) + a.slice(Math.floor(rnd() * a.length));
    const edits = textEdits(a, b);
    assert.equal(apply(a, edits), b, JSON.stringify({ a, b, edits }));
    for (let k = 1; k < edits.length; k++) assert.ok(edits[k].from >= edits[k - 1].to, JSON.stringify(edits));
  }
  assert.deepEqual(textEdits('same\n', 'same\n'), []);
});

test('two distant changes are two small edits, not one replacement of everything between', () => {
  const old = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('');
  const next = old.replace('line 10\n', 'line 10 user\n').replace('line 150\n', 'line 150 agent\n');
  const edits = textEdits(old, next);
  assert.deepEqual(
    edits.map((e) => e.insert),
    [' user', ' agent'],
  );
  assert.equal(apply(old, edits), next);
});

test('a rewrite of a large file is one bounded replacement', () => {
  const a = Array.from({ length: 20_000 }, (_, i) => `a${i}\n`).join('');
  const b = Array.from({ length: 20_000 }, (_, i) => `b${i}\n`).join('');
  const edits = textEdits(a, b);
  assert.equal(apply(a, edits), b);
  assert.equal(edits.length, 1);
});
