// The open carries the head (semantics.md §8.2), through a binding's low-level interface: one
// suite for the napi addon and the wasm module (run by suite-binding.mjs), which must agree word
// for word.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

const enc = new TextEncoder();
const OPEN = { op: 'open', root: '/p', path: '/p/a.txt', head: 16384 };
const text = 'one\ntwo\n';

/**
 * `read(params)` starts an `fs/read_text_file` of `/p/a.txt` (session `s`, root `/p`) on an
 * engine with ranged reads; `byteForms` are the shapes of bytes the binding takes.
 */
export function headSuite({ label, read, byteForms }) {
  describe(`${label}: the open carries the head`, () => {
    test('an open answered with the whole file as its head ends the read: no readAt', () => {
      for (const form of byteForms) {
        const op = read({ line: 2 });
        assert.deepEqual(op.step(), { io: OPEN });
        const bytes = form(enc.encode(text));
        const last = op.step({ file: 0, metadata: { kind: 'file', size: 8 }, bytes: true }, bytes);
        assert.deepEqual(last, { done: { result: { content: 'two\n' }, change: null } }, Object.prototype.toString.call(bytes));
        assert.equal(op.audit().outcome, 'ok');
        assert.equal(op.audit().bytes, 4, 'the text returned');
      }
      // Without the head, the same read takes its first chunk with a readAt, as before.
      const op = read({ line: 2 });
      op.step();
      assert.deepEqual(op.step({ file: 0, metadata: { kind: 'file', size: 8 } }), { io: { op: 'readAt', file: 0, offset: 0, length: 16384 } });
      assert.deepEqual(op.step({ bytes: true }, enc.encode(text)).done.result, { content: 'two\n' });
    });

    test('a head shorter than the file is its first chunk: the reads go on where it ended', () => {
      const line = `${'x'.repeat(99)}\n`;
      const whole = enc.encode(line.repeat(200)); // 20000 bytes
      const op = read();
      assert.deepEqual(op.step(), { io: OPEN });
      let step = op.step({ file: 0, metadata: { kind: 'file', size: whole.length }, bytes: true }, whole.subarray(0, 16384));
      assert.equal(step.io?.op, 'readAt', JSON.stringify(step));
      assert.equal(step.io.file, 0);
      assert.equal(step.io.offset, 16384, 'on from the end of the head, not from 0');
      while (step.io) {
        assert.equal(step.io.op, 'readAt');
        step = op.step({ bytes: true }, whole.subarray(step.io.offset, step.io.offset + step.io.length));
      }
      assert.deepEqual(step.done.result, { content: line.repeat(200) });
    });

    test('a head longer than asked for is a storage error', () => {
      const op = read();
      op.step();
      const { done } = op.step({ file: 0, metadata: { kind: 'file', size: 20000 }, bytes: true }, new Uint8Array(16385).fill(0x61));
      assert.equal(done.error.kind, 'storage_error');
      assert.equal('result' in done, false);
      assert.equal(op.audit().errorKind, 'storage_error');
      assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal', 'no io after the end');
    });

    test('head bytes without an open file, or announced and not sent, are malformed answers', () => {
      for (const [answer, bytes, why] of [
        [{ file: null, metadata: { kind: 'file', size: 8 }, bytes: true }, enc.encode(text), /bytes came with metadata but no open file/],
        [{ file: null, metadata: { kind: 'directory', size: 0 }, bytes: true }, new Uint8Array(1), /bytes came with metadata but no open file/],
        [{ file: 0, metadata: { kind: 'file', size: 8 }, bytes: true }, undefined, /malformed answer/],
      ]) {
        const op = read();
        op.step();
        const { done } = op.step(answer, bytes);
        const what = JSON.stringify(answer);
        assert.equal(done.error.kind, 'internal', what);
        assert.equal(done.error.code, -32603);
        assert.match(done.error.message, /^Internal error: the driver sent a malformed answer: ./, what);
        assert.match(done.error.message, why, what);
        assert.equal(op.audit().errorKind, 'internal');
      }
    });
  });
}
