// The inbox (bindings-wasm/src/inbox.rs, written by lib/guard.mjs): an io's answer crosses into
// wasm as a small layout, no longer as JSON text, and must be read exactly as its JSON form was
// (docs/binding-interface.md: an answer is a JSON value): what JSON leaves out or changes
// (undefined members, NaN, toJSON, class instances, boxed values) as JSON.stringify has it, what
// has no JSON text (a bigint, a cycle) refused as any malformed answer is, and every mistake of
// form reported with the core's one text for an answer the binding could not convert.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// The Node entry instantiates the module on import; the binding is its guarded interface.
import '../../npm/wasm/node.mjs';
import { binding } from '../../npm/wasm/lib/fs.mjs';
import { engines, PLAIN_CAPS } from './engines.mjs';

const { engine } = engines(binding);
/** A storage with ranged reads and no symlinks: a read's first io is its `open`. */
const RANGED_CAPS = { ...PLAIN_CAPS, rangedReads: true };

/** The core's text for an answer the binding could not convert (core/src/host/operation.rs). */
const NOT_AN_ANSWER = /^Internal error: the driver sent a malformed answer: it is not an answer object, or a member has the wrong type$/;

/** What a read's step after its first io answers to `answer` (PLAIN_CAPS: a stat; RANGED_CAPS: an open). */
function afterFirst(caps, answer) {
  const op = engine(caps).start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
  op.step();
  return op.step(answer);
}

const STATED = { io: { op: 'readAll', path: '/p/a.txt' } };
const meta = { kind: 'file', size: 3 };

function nested(levels) {
  let v = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

const cyclic = { metadata: { ...meta } };
cyclic.metadata.self = cyclic;

/** [what, answer, expected: STATED or the error message's pattern], at a stat. */
const AT_STAT = [
  ['members no one reads, of any form', { metadata: meta, bogus: [1, { x: '\ud800' }, [[[]]], -2.5, 2 ** 70], '': null }, STATED],
  ['members JSON leaves out', { metadata: { ...meta, links: undefined, modifiedMs: () => 1, fileId: Symbol('x') }, error: undefined }, STATED],
  ['a null member is absent', { metadata: meta, error: null, path: null }, STATED],
  ['NaN is null', { metadata: { ...meta, size: NaN } }, NOT_AN_ANSWER],
  ['Infinity is null', { metadata: { ...meta, size: -Infinity } }, NOT_AN_ANSWER],
  ['a string is no number', { metadata: { ...meta, size: '3' } }, NOT_AN_ANSWER],
  ['-0 is 0', { metadata: { ...meta, links: -0 } }, STATED],
  ['beyond 2^64 is a number all the same', { metadata: { ...meta, modifiedMs: 2 ** 70 } }, STATED],
  ['a negative count is the core\'s to refuse', { metadata: { ...meta, links: -1 } }, /malformed answer: metadata\.links is negative$/],
  ['an enum as an object of its variant', { metadata: { ...meta, kind: { file: null } } }, STATED],
  ['an enum as an object of two variants', { metadata: { ...meta, kind: { file: null, directory: null } } }, NOT_AN_ANSWER],
  ['a unit variant with a value', { metadata: { ...meta, kind: { file: 1 } } }, NOT_AN_ANSWER],
  ['a struct as an array of its members', { metadata: ['file', 3, null, null, null, null] }, STATED],
  ['an array with more than the struct has', { metadata: ['file', 3, null, null, null, null, 'more'] }, NOT_AN_ANSWER],
  ['an array with fewer', { metadata: ['file', 3] }, NOT_AN_ANSWER],
  ['the answer is an object, never an array', [meta], NOT_AN_ANSWER],
  ['a lone surrogate in text that is read', { metadata: { ...meta, kind: 'fi\ud800le' } }, NOT_AN_ANSWER],
  ['a lone surrogate in a member name', { '\udc00': 1, metadata: meta }, NOT_AN_ANSWER],
  ['boxed values are their values', { metadata: { ...meta, fileId: new String('7:42'), modifiedMs: new Number(2), kind: new String('file') } }, STATED],
  ['toJSON decides', { metadata: meta, toJSON: () => ({ bogus: 1 }) }, /malformed answer: it answers nothing$/],
  ['toJSON decides, for the better', { toJSON: () => ({ metadata: meta }) }, STATED],
  ['a toJSON member', { metadata: { kind: { toJSON: () => 'file' }, size: 3 } }, STATED],
  ['a Date is its text', new Date(0), NOT_AN_ANSWER],
  ['no prototype', Object.assign(Object.create(null), { metadata: meta }), STATED],
  ['a class instance is its own members', new (class { constructor() { this.metadata = meta; } get ignored() { return 1; } })(), STATED],
  ['a bigint has no JSON', { metadata: { ...meta, size: 3n } }, NOT_AN_ANSWER],
  ['a cycle has no JSON', cyclic, NOT_AN_ANSWER],
  ['a getter that throws', { metadata: meta, get bogus() { throw new Error('no'); } }, NOT_AN_ANSWER],
  ['nesting deeper than the layout writes, where no one reads it', { metadata: meta, bogus: nested(300) }, STATED],
  ['nesting deeper than the layout writes, where it is read', { metadata: nested(300) }, NOT_AN_ANSWER],
  ['a function', () => ({ metadata: meta }), NOT_AN_ANSWER],
  ['a string', 'metadata', NOT_AN_ANSWER],
  ['a number', 42, NOT_AN_ANSWER],
  ['text long enough to grow the room, not all ASCII', { metadata: meta, bogus: 'é\u{1F600}'.repeat(50_000), more: 'x'.repeat(70_000) }, STATED],
];

const READ_AT = { io: { op: 'readAt', file: 4, offset: 0, length: 16384 } };

/** At an open: the file's number is a u32, read as serde_json read its JSON digits. */
const AT_OPEN = [
  ['a file number', { file: 4, metadata: meta }, READ_AT],
  ['a whole float is the integer', { file: 4.0, metadata: meta }, READ_AT],
  ['a fraction is no file number', { file: 4.5, metadata: meta }, NOT_AN_ANSWER],
  ['a negative one', { file: -1, metadata: meta }, NOT_AN_ANSWER],
  ['one past u32', { file: 2 ** 32, metadata: meta }, NOT_AN_ANSWER],
  ['a boolean', { file: true, metadata: meta }, NOT_AN_ANSWER],
];

function check(caps, [what, answer, expected]) {
  const got = afterFirst(caps, answer);
  if (expected instanceof RegExp) {
    assert.equal(got.done?.error?.kind, 'internal', `${what}: ${JSON.stringify(got)}`);
    assert.equal(got.done.error.code, -32603);
    assert.match(got.done.error.message, expected, what);
  } else assert.deepEqual(got, expected, what);
  // The contract: the answer is read as its JSON form.
  let json;
  try {
    json = JSON.stringify(answer);
  } catch {
    // No JSON text: refused above.
  }
  if (json !== undefined) assert.deepEqual(afterFirst(caps, JSON.parse(json)), got, `${what}: as its JSON form`);
}

describe('wasm inbox: an answer is read as its JSON form', () => {
  test('at a stat: members, numbers, enums, structs, text and values JSON changes', () => {
    for (const c of AT_STAT) check(PLAIN_CAPS, c);
  });

  test('at an open: the file number', () => {
    for (const c of AT_OPEN) check(RANGED_CAPS, c);
  });

  test('an answer with bytes: the bytes and the answer both arrive, whichever grows the memory', () => {
    const e = engine(PLAIN_CAPS);
    for (const size of [0, 3, 1 << 20, 24 << 20]) {
      const op = e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2, limit: 1 });
      op.step();
      op.step({ metadata: { kind: 'file', size: size + 2 } });
      const bytes = new Uint8Array(size + 2).fill(0x61);
      bytes[size] = 0x0a;
      bytes[size + 1] = 0x62;
      const { done } = op.step({ bytes: true, bogus: 'ü'.repeat(size >> 4) }, bytes);
      assert.deepEqual(done, { result: { content: 'b' }, change: null }, `${size} bytes`);
    }
  });
});
