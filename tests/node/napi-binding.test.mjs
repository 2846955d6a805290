// The N-API addon's low-level interface (docs/binding-interface.md): the suite both bindings share
// (suite-binding.mjs), then what only the addon has: offsets past 4 GiB and runOnDisk, the disk
// loop on the libuv pool.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTempDir } from './harness.mjs';
import { engines, FULL_CAPS as FULL } from './engines.mjs';
import { bindingSuite } from './suite-binding.mjs';

const require = createRequire(import.meta.url);
const binding = require('../../npm/node/binding.js');
const { createEngine, Operation } = binding;
const { engine } = engines(binding);

bindingSuite({
  label: 'napi binding',
  binding,
  methods: { Engine: [], Operation: ['runOnDisk', 'stop'] },
  byteForms: [(b) => b, (b) => Buffer.from(b), (b) => new Uint8Array([0, ...b, 0]).subarray(1, b.length + 1)],
});

describe('napi binding: Operation', () => {
  test('operations come from an engine, never from new', () => {
    assert.throws(() => new Operation());
  });

  test('cyclic params end the request as internal: the conversion stops at its depth limit', () => {
    // The wasm binding never sees one: the driver refuses cycles first (wasm-values.test.mjs).
    const cyclic = { sessionId: 's', path: '/p/a.txt' };
    cyclic.self = cyclic;
    const op = engine().start('fs/read_text_file', cyclic);
    const { done } = op.step();
    assert.equal(done.error.kind, 'internal');
    assert.match(done.error.message, /not JSON/);
    assert.equal(op.audit().outcome, 'error');
  });

  test('offsets past 4 GiB are numbers, not BigInts (as the generated types say)', () => {
    const op = engine({ symlinks: 'none', stat: true, rangedReads: true }).start('fs/read_text_file', { sessionId: 's', path: '/p/big.log', line: 2, limit: 1 });
    assert.deepEqual(op.step().io, { op: 'open', root: '/p', path: '/p/big.log', head: 16384 });
    // Answered without a head: the first chunk is read with a readAt, as before.
    let step = op.step({ file: 0, metadata: { kind: 'file', size: 2 ** 32 + 2 ** 21 } });
    assert.deepEqual(step.io, { op: 'readAt', file: 0, offset: 0, length: 16384 });
    const chunk = Buffer.alloc(1 << 20, 0x61); // one long first line: the engine reads on
    while (step.io?.op === 'readAt' && step.io.offset <= 2 ** 32) step = op.step({ bytes: true }, chunk.subarray(0, step.io.length));
    assert.equal(step.io?.op, 'readAt', JSON.stringify(step));
    assert.equal(typeof step.io.offset, 'number');
    assert.ok(step.io.offset > 2 ** 32);
    assert.equal(typeof step.io.length, 'number');
    assert.equal(op.cancel().error.kind, 'cancelled');
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
    const e = createEngine({}, FULL);
    assert.equal(e.openSession('s', dir, []), null);
    return e;
  };

  test('reads run to the end on the pool', async () => {
    const op = diskEngine().start('fs/read_text_file', { sessionId: 's', path: join(dir, 'a.txt'), line: 2 });
    const pending = op.runOnDisk();
    assert.ok(pending instanceof Promise);
    const r = await pending;
    assert.deepEqual(r.done.result, { content: 'two\r\n' });
    assert.equal('audit' in r.done, false);
    assert.equal(op.audit().outcome, 'ok');
    assert.equal(op.audit().line, 2);
  });

  test('writes stop for the host (approve) and resume with its answer', async () => {
    const path = join(dir, 'sub', 'w.txt');
    const op = diskEngine().start('fs/write_text_file', { sessionId: 's', path, content: 'x\n' });
    const asked = await op.runOnDisk();
    assert.equal(asked.io.op, 'approve');
    assert.equal(asked.io.change.path, path);
    assert.equal('bytes' in asked, false);
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

  test('a cancel while the pool works: what the pool reports is what the disk holds', async () => {
    for (let i = 0; i < 8; i += 1) {
      const path = join(dir, `raced-${i}.txt`);
      const op = diskEngine().start('fs/write_text_file', { sessionId: 's', path, content: 'x' });
      assert.equal((await op.runOnDisk()).io.op, 'approve');
      const running = op.runOnDisk({ approved: true });
      if (i % 2) await new Promise((resolve) => setImmediate(resolve));
      // cancel() waits for the pool's step: the pool either saw the cancel before its io (and
      // wrote nothing) or had finished, and then cancel() reports the write as it happened.
      const cancel = op.cancel();
      const settled = (await running).done;
      if (cancel.error) {
        assert.equal(cancel.error.kind, 'cancelled');
        assert.ok(['cancelled', 'internal'].includes(settled.error?.kind), JSON.stringify(settled));
        assert.equal(nodeFs.existsSync(path), false);
      } else {
        assert.deepEqual(cancel.result, {});
        assert.equal(cancel.change.newText, 'x', 'the change record comes with it');
        assert.deepEqual(settled.result, {});
        assert.equal(nodeFs.readFileSync(path, 'utf8'), 'x');
      }
    }
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
    const r = await op.runOnDisk({ approved: 'yes' });
    assert.equal(r.done.error.kind, 'internal');
    assert.match(r.done.error.message, /malformed answer/);
    assert.equal(nodeFs.existsSync(join(dir, 'm.txt')), false);
  });
});
