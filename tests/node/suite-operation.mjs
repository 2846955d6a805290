// Operation.step/audit/cancel/refuse/abort through a binding's low-level interface
// (docs/binding-interface.md): part of the suite both bindings run (suite-binding.mjs).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { drive, engines, MINIMAL_CAPS, PLAIN_CAPS } from './engines.mjs';
import { plain } from './wire-values.mjs';

const enc = new TextEncoder();

/** `byteForms`: the shapes of bytes the binding takes (functions of a Uint8Array). */
export function operationSuite({ label, binding, byteForms }) {
  const { engine, engineWith } = engines(binding);
  const read = (e, extra = {}) => e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...extra });

  describe(`${label}: Operation`, () => {
    test('steps name their io; a read is resumed with bytes in any form the binding takes', () => {
      const e = engine(PLAIN_CAPS);
      for (const form of byteForms) {
        const bytes = form(enc.encode('one\ntwo\n'));
        const what = Object.prototype.toString.call(bytes);
        const op = read(e, { line: 2 });
        assert.equal(op.audit(), null, 'no audit event before the request has begun');
        assert.deepEqual(op.step(), { io: { op: 'stat', path: '/p/a.txt', follow: true } });
        assert.deepEqual(op.step({ metadata: { kind: 'file', size: 8 } }), { io: { op: 'readAll', path: '/p/a.txt' } });
        assert.equal(op.audit(), null, 'no audit event while the request runs');
        const { done } = op.step({ bytes: true }, bytes);
        assert.deepEqual(done, { result: { content: 'two\n' }, change: null }, `bytes given as ${what}: an absent member is absent, None is null`);
        const audit = op.audit();
        assert.ok(plain(audit));
        assert.equal(audit.op, 'read');
        assert.equal(audit.outcome, 'ok');
        assert.equal(audit.path, '/p/a.txt');
        assert.equal(audit.line, 2);
        assert.equal(audit.durationMs, null, 'the driver stamps the duration');
        assert.deepEqual(op.audit(), audit, 'asked again, the same event');
      }
    });

    test('a write asks for approval first, then hands its bytes beside the io as a Uint8Array copy', () => {
      const op = engine().start('fs/write_text_file', { sessionId: 's', path: '/p/n.txt', content: 'héllo' });
      let step = op.step();
      assert.equal(step.io.op, 'readAll');
      step = op.step({ error: { code: 'ENOENT', message: 'no such file' } });
      assert.equal(step.io.op, 'approve');
      assert.deepEqual(step.io.change, { sessionId: 's', path: '/p/n.txt', created: true, oldText: null, newText: 'héllo' });
      assert.equal('bytes' in step, false);
      step = op.step({ approved: true });
      // The write names the checked real path and the root it lies under (semantics.md §8.2).
      assert.deepEqual(step.io, { op: 'write', root: '/p', path: '/p/n.txt' }, 'the bytes are beside the io, not in it');
      assert.ok(step.bytes instanceof Uint8Array);
      assert.equal(step.bytes.byteLength, step.bytes.buffer.byteLength, 'its own buffer, not a view of engine memory');
      assert.deepEqual([...step.bytes], [...enc.encode('héllo')]);
      const { done } = op.step({ done: true });
      assert.deepEqual(done.result, {});
      assert.deepEqual(done.change, { sessionId: 's', path: '/p/n.txt', created: true, oldText: null, newText: 'héllo' });
    });

    test('host errors are classified by the core: code and DOMException name', () => {
      for (const [error, kind] of [
        [{ code: 'ENOENT', message: 'x' }, 'not_found'],
        [{ name: 'NotFoundError', message: 'x' }, 'not_found'],
        [{ code: 'EACCES', message: 'denied' }, 'permission_denied'],
        [{ name: 'NotAllowedError', message: 'x' }, 'permission_denied'],
        [{ code: 'EIO', message: 'bad disk' }, 'storage_error'],
        [{}, 'storage_error'],
      ]) {
        const op = read(engine());
        op.step();
        assert.equal(op.step({ error }).done.error.kind, kind, JSON.stringify(error));
      }
    });

    test('malformed answers, missing or malformed bytes and steps after the end are internal outcomes', () => {
      const cases = [
        [{ bogus: 1 }],
        [{ bytes: true }],
        [null],
        [undefined],
        [42],
        ['bytes'],
        [() => 1],
        [{ path: 5 }],
        [{ metadata: { kind: 'file' } }],
        [{ metadata: { kind: 'file', size: -1 } }],
        [{ metadata: { kind: 'fifo', size: 1 } }],
        [{ approved: 'yes' }],
        [{ bytes: true }, 'not bytes'],
        [{ bytes: true }, {}],
        [{ bytes: true }, 42],
      ];
      // Each answer where a stat is asked for, and where the whole file is.
      for (const caps of [PLAIN_CAPS, MINIMAL_CAPS]) {
        for (const [answer, bytes] of cases) {
          const op = read(engine(caps));
          op.step();
          const { done } = op.step(answer, bytes);
          const what = `${String(answer)} ${JSON.stringify(answer)} / ${JSON.stringify(bytes)} at stat: ${caps.stat}`;
          assert.ok(done, `${what} ends it`);
          assert.equal(done.error.kind, 'internal', what);
          assert.equal(done.error.code, -32603);
          assert.match(done.error.message, /^Internal error: the driver sent a malformed answer: ./, what);
          assert.deepEqual(done.error.data, { errorKind: 'internal' });
          const audit = op.audit();
          assert.equal(audit.outcome, 'error');
          assert.equal(audit.errorKind, 'internal');
          assert.equal(audit.path, '/p/a.txt', 'the audit still names the request');
          assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal', 'no io after the end');
        }
      }
    });

    test('the first step needs no answer, and ignores one', () => {
      const op = read(engine());
      assert.deepEqual(op.step({ bogus: true }, 'not bytes'), { io: { op: 'readAll', path: '/p/a.txt' } });
    });

    test('cancel() and a step after the end are answers, never throws: -32800 now, internal afterwards', () => {
      const { engine: e, storage } = engineWith({ '/p/a.txt': 'x' });
      const finished = read(e);
      drive(finished, storage);
      assert.equal(finished.step({ metadata: { kind: 'file', size: 1 } }).done.error.kind, 'internal');
      const op = read(e);
      op.step();
      const out = op.cancel();
      assert.deepEqual({ kind: out.error.kind, code: out.error.code }, { kind: 'cancelled', code: -32800 });
      assert.equal('audit' in out, false);
      assert.equal(op.audit().outcome, 'cancelled');
      assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
      const twice = read(e);
      twice.step();
      assert.equal(twice.step().done.error.kind, 'internal', 'a second step without an answer');
    });

    test('refuse(): -32602 naming the field, reported like any request; no io after it', () => {
      const e = engine();
      const refused = read(e, { line: 3, _meta: { traceparent: 't' } });
      const out = refused.refuse('path', 'no');
      assert.deepEqual(out.error, binding.invalidParams('path', 'no'));
      assert.equal(out.result, undefined);
      assert.equal(out.change, null);
      assert.equal('audit' in out, false);
      assert.deepEqual(refused.audit(), {
        op: 'read',
        sessionId: 's',
        path: '/p/a.txt',
        line: 3,
        limit: null,
        bytes: 0,
        outcome: 'error',
        errorKind: 'invalid_params',
        durationMs: null,
        traceparent: 't',
      });
      assert.equal(refused.step().done.error.kind, 'internal', 'no io after a refusal');
      const write = e.start('fs/write_text_file', { sessionId: 's', path: '/p/n.txt', content: 'x' });
      assert.deepEqual(write.refuse('content', 'is not valid Unicode (a lone surrogate)').error, binding.invalidParams('content', 'is not valid Unicode (a lone surrogate)'));
      assert.equal(write.audit().op, 'write');
      assert.equal(write.audit().errorKind, 'invalid_params');
    });

    test('abort(): the driver broke, internal with its reason; no io after it', () => {
      const op = read(engine());
      op.step();
      const out = op.abort('the storage adapter returned a number');
      assert.equal(out.error.kind, 'internal');
      assert.equal(out.error.code, -32603);
      assert.equal(out.error.message, 'Internal error: the storage adapter returned a number');
      assert.equal('audit' in out, false);
      assert.equal(op.audit().outcome, 'error');
      assert.equal(op.audit().errorKind, 'internal');
      assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
    });
  });
}
