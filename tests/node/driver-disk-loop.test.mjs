// The shared driver over a native-disk binding whose disk loop the test holds (a fake): an abort
// while the loop works never calls `cancel()`, which would block the JS thread on the loop, but
// `stop()`, and the request ends as the loop says: cancelled, or with the write it had started.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAcpFs } from '../../npm/shared/driver.mjs';

const cancelled = { kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null };
const info = {
  readMethod: 'fs/read_text_file',
  writeMethod: 'fs/write_text_file',
  fullCaps: { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true },
  maxDepth: 128,
  maxValues: 1_000_000,
  loneSurrogate: 'is not valid Unicode (a lone surrogate)',
  internal: { kind: 'internal', code: -32603, message: 'Internal error: {message}', data: { errorKind: 'internal' } },
  cancelled,
};

/** An AcpFs whose one request's disk loop runs until `finish(step)`; `calls` lists what the driver asked. */
function heldLoop() {
  const calls = [];
  let finish;
  const op = {
    runOnDisk() {
      calls.push('runOnDisk');
      return new Promise((resolve) => {
        finish = resolve;
      });
    },
    stop: () => calls.push('stop'),
    cancel() {
      calls.push('cancel');
      return { error: cancelled, change: null };
    },
    audit: () => null,
  };
  const engine = { openSession: () => null, capabilities: () => ({}), start: () => op, startJson: () => op };
  const binding = { hostInfo: () => info, invalidParams: () => ({}), createEngine: () => engine };
  const fs = new (createAcpFs(binding, { nativeDisk: true }))({});
  return { fs, calls, finish: (step) => finish(step) };
}

const write = { sessionId: 's', path: '/p/a.txt', content: 'new\n' };

test('an abort while the disk loop works stops it and ends as the loop says: cancelled', async () => {
  const { fs, calls, finish } = heldLoop();
  const controller = new AbortController();
  let settled = false;
  const request = fs.writeTextFile(write, { signal: controller.signal }).finally(() => {
    settled = true;
  });
  await new Promise(setImmediate);
  controller.abort();
  await new Promise(setImmediate);
  assert.deepEqual(calls, ['runOnDisk', 'stop'], 'stopped, not cancelled: cancel() would wait for the loop');
  assert.equal(settled, false, 'the io in progress is not abandoned');
  finish({ done: { error: cancelled, change: null } });
  const e = await request.catch((x) => x);
  assert.equal(e.code, 'cancelled');
  assert.deepEqual(calls, ['runOnDisk', 'stop']);
});

test('an abort after the disk loop started writing ends with the write it did', async () => {
  const { fs, calls, finish } = heldLoop();
  const controller = new AbortController();
  const request = fs.writeTextFile(write, { signal: controller.signal });
  await new Promise(setImmediate);
  controller.abort();
  const change = { path: '/p/a.txt', oldText: null, newText: 'new\n' };
  finish({ done: { result: {}, change } });
  assert.deepEqual(await request, {});
  assert.deepEqual(calls, ['runOnDisk', 'stop']);
});
