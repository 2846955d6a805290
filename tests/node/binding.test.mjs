// The low-level interface of the N-API addon, exactly as docs/binding-interface.md states it:
// Engine, Operation.step/cancel, dispatch, and runOnDisk on the libuv pool. Nothing here may throw
// out of an operation: malformed answers and steps after the end become `internal` outcomes.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTempDir } from './harness.mjs';

const require = createRequire(import.meta.url);
const { Engine, Operation } = require('../../npm/node/binding.js');

const FULL = { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true };
const MINIMAL = { symlinks: 'none', stat: false, rangedReads: false, write: true, makeDirs: false };

function engine(caps = MINIMAL, options = {}) {
  const e = new Engine(options, caps);
  assert.equal(e.openSession('s', '/p', []), null);
  return e;
}

describe('napi binding: Engine', () => {
  test('a bad option or cap throws an Error whose message is the wire error', () => {
    for (const [options, caps, field] of [
      [{ maxReadBytes: 'lots' }, FULL, 'maxReadBytes'],
      [{}, { ...FULL, symlinks: 'maybe' }, 'caps.symlinks'],
      [{ roots: ['relative'] }, FULL, 'roots'],
    ]) {
      assert.throws(
        () => new Engine(options, caps),
        (e) => {
          const wire = JSON.parse(e.message);
          assert.equal(wire.kind, 'invalid_params');
          assert.equal(wire.code, -32602);
          assert.equal(wire.data.field, field);
          return true;
        },
      );
    }
    assert.doesNotThrow(() => new Engine(null, FULL));
    assert.doesNotThrow(() => new Engine(undefined, FULL));
  });

  test('sessions, documents and capabilities', () => {
    const e = new Engine({}, FULL);
    assert.equal(e.openSession('a', '/p', ['/q']), null);
    assert.deepEqual(e.openSession('a', 'rel', []).data, { field: 'cwd', reason: e.openSession('a', 'rel', []).data.reason });
    assert.equal(e.openSession('a', '/p', ['/q', 3]).data.field, 'additionalDirectories[1]');
    assert.equal(e.openDocument('/p/./d.txt', 'text'), null);
    assert.equal(e.document('/p/d.txt'), 'text');
    e.closeDocument('/p/d.txt');
    assert.equal(e.document('/p/d.txt'), null);
    assert.equal(e.openDocument('d.txt', 'x').kind, 'invalid_params');
    assert.deepEqual(e.capabilities(), { readTextFile: true, writeTextFile: true });
    assert.deepEqual(new Engine({ readOnly: true }, FULL).capabilities(), { readTextFile: true, writeTextFile: false });
    assert.deepEqual(new Engine({}, { ...FULL, write: false }).capabilities(), { readTextFile: true, writeTextFile: false });
    e.closeSession('a');
  });

  test('start(): an Operation for the fs methods, null otherwise', () => {
    const e = engine();
    assert.ok(e.start('fs/read_text_file', { sessionId: 's', path: '/p/a' }) instanceof Operation);
    assert.ok(e.start('fs/write_text_file', null) instanceof Operation);
    assert.equal(e.start('session/prompt', {}), null);
  });

  test('dispatch(): the four kinds, ids as raw JSON text', () => {
    const e = engine();
    assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","id":1,"result":{}}'), { kind: 'notMine' });
    const reply = e.dispatch('{oops');
    assert.equal(reply.kind, 'reply');
    assert.equal(JSON.parse(reply.reply).error.code, -32700);
    const call = e.dispatch('{"jsonrpc":"2.0","id":"x\\u0041","method":"fs/read_text_file","params":{}}');
    assert.equal(call.kind, 'call');
    assert.equal(call.id, '"x\\u0041"');
    assert.equal(call.method, 'fs/read_text_file');
    assert.ok(call.operation instanceof Operation);
    assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'), {
      kind: 'cancel',
      id: '7',
    });
  });
});

describe('napi binding: Operation.step', () => {
  test('a read names its io and is resumed with bytes (Uint8Array or Buffer)', () => {
    for (const wrap of [(b) => new Uint8Array(b), (b) => Buffer.from(b)]) {
      const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2 });
      const first = op.step();
      assert.deepEqual(first, { io: { op: 'readAll', path: '/p/a.txt' } });
      const last = op.step({ bytes: true }, wrap(new TextEncoder().encode('one\ntwo\n')));
      assert.deepEqual(last.done.result, { content: 'two\n' });
      assert.equal(last.done.error, undefined);
      assert.equal(last.done.change, null);
      assert.equal(last.done.audit.op, 'read');
      assert.equal(last.done.audit.outcome, 'ok');
    }
  });

  test('a write hands its bytes beside the io and asks for approval first', () => {
    const op = engine().start('fs/write_text_file', { sessionId: 's', path: '/p/n.txt', content: 'héllo' });
    let step = op.step();
    assert.equal(step.io.op, 'readAll');
    step = op.step({ error: { code: 'ENOENT', message: 'no such file' } });
    assert.equal(step.io.op, 'approve');
    assert.deepEqual(step.io.change, { sessionId: 's', path: '/p/n.txt', created: true, oldText: null, newText: 'héllo' });
    step = op.step({ approved: true });
    // The write names the checked real path and the root it lies under (semantics.md §8.2).
    assert.deepEqual(step.io, { op: 'write', root: '/p', path: '/p/n.txt' });
    assert.ok(step.bytes instanceof Uint8Array);
    assert.equal(Buffer.from(step.bytes).toString('utf8'), 'héllo');
    step = op.step({ done: true });
    assert.deepEqual(step.done.result, {});
    assert.equal(step.done.change.created, true);
  });

  test('host errors are classified by code or name', () => {
    for (const [error, kind] of [
      [{ code: 'EACCES', message: 'denied' }, 'permission_denied'],
      [{ name: 'NotFoundError' }, 'not_found'],
      [{ code: 'EIO', message: 'bad disk' }, 'storage_error'],
      [{}, 'storage_error'],
    ]) {
      const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      op.step();
      assert.equal(op.step({ error }).done.error.kind, kind);
    }
  });

  test('malformed answers, missing bytes and steps after the end are internal outcomes', () => {
    for (const [answer, bytes] of [[{ bogus: 1 }], [{ bytes: true }], [null], [42], [{ metadata: { kind: 'file' } }]]) {
      const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      op.step();
      const r = op.step(answer, bytes);
      assert.equal(r.done.error.kind, 'internal', JSON.stringify(answer));
      assert.equal(r.done.error.code, -32603);
      assert.equal(r.done.audit.outcome, 'error');
      assert.equal(r.done.audit.errorKind, 'internal');
      assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
    }
  });

  test('cancel(): -32800 now, internal afterwards', () => {
    const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    op.step();
    const out = op.cancel();
    assert.equal(out.error.kind, 'cancelled');
    assert.equal(out.error.code, -32800);
    assert.equal(out.audit.outcome, 'cancelled');
    assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
  });
});

describe('napi binding: Operation.runOnDisk', () => {
  let dir;
  before(() => {
    dir = makeTempDir('acpfs-binding-');
    nodeFs.writeFileSync(join(dir, 'a.txt'), 'one\r\ntwo\r\n');
  });
  after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

  const diskEngine = () => {
    const e = new Engine({}, FULL);
    e.openSession('s', dir, []);
    return e;
  };

  test('reads run to the end on the pool', async () => {
    const op = diskEngine().start('fs/read_text_file', { sessionId: 's', path: join(dir, 'a.txt'), line: 2 });
    const r = await op.runOnDisk();
    assert.deepEqual(r.done.result, { content: 'two\r\n' });
  });

  test('writes stop for the host (approve) and resume with its answer', async () => {
    const path = join(dir, 'sub', 'w.txt');
    const op = diskEngine().start('fs/write_text_file', { sessionId: 's', path, content: 'x\n' });
    const asked = await op.runOnDisk();
    assert.equal(asked.io.op, 'approve');
    assert.equal(asked.io.change.path, path);
    assert.equal(nodeFs.existsSync(path), false);
    const done = await op.runOnDisk({ approved: true });
    assert.deepEqual(done.done.result, {});
    assert.equal(nodeFs.readFileSync(path, 'utf8'), 'x\n');
  });

  test('a refusal and a cancel leave the disk untouched', async () => {
    const path = join(dir, 'never.txt');
    const e = diskEngine();
    const refused = e.start('fs/write_text_file', { sessionId: 's', path, content: 'x' });
    await refused.runOnDisk();
    assert.equal((await refused.runOnDisk({ approved: false })).done.error.kind, 'user_rejected');
    const cancelled = e.start('fs/write_text_file', { sessionId: 's', path, content: 'x' });
    await cancelled.runOnDisk();
    assert.equal(cancelled.cancel().error.kind, 'cancelled');
    // A step after the end, like any other: internal, and no io.
    assert.equal((await cancelled.runOnDisk({ approved: true })).done.error.kind, 'internal');
    assert.equal(nodeFs.existsSync(path), false);
  });

  test('many operations run side by side', async () => {
    const e = diskEngine();
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        e.start('fs/read_text_file', { sessionId: 's', path: join(dir, 'a.txt'), line: 1 + (i % 2), limit: 1 }).runOnDisk(),
      ),
    );
    results.forEach((r, i) => assert.deepEqual(r.done.result, { content: i % 2 ? 'two\r\n' : 'one\r\n' }));
  });

  test('a malformed host answer on the disk path is an internal outcome', async () => {
    const op = diskEngine().start('fs/write_text_file', { sessionId: 's', path: join(dir, 'm.txt'), content: 'x' });
    await op.runOnDisk();
    assert.equal((await op.runOnDisk({ approved: 'yes' })).done.error.kind, 'internal');
  });
});
