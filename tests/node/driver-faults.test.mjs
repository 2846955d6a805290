// The shared driver over a fake binding, for what the real ones cannot be made to do on demand:
// misbehave (whatever the binding throws or answers, requests settle as rejected AcpFsErrors
// with code `internal`, never as crashes or hangs), or hold a native disk loop mid-io.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpFsError, createAcpFs } from '../../npm/shared/index.mjs';

const audit = { op: 'read', sessionId: 's', path: '/p/a', line: null, limit: null, bytes: 0, outcome: 'ok', durationMs: null };

// What the real bindings' hostInfo()/invalidParams() give (the core's host::info), so the driver's
// templates are the ones it would use. The real ones are checked against these in binding tests.
const info = {
  readMethod: 'fs/read_text_file',
  writeMethod: 'fs/write_text_file',
  fullCaps: { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true },
  maxDepth: 128,
  maxValues: 1_000_000,
  loneSurrogate: 'is not valid Unicode (a lone surrogate)',
  internal: { kind: 'internal', code: -32603, message: 'Internal error: {message}', data: { errorKind: 'internal' } },
  cancelled: { kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null },
};
const invalidParams = (field, reason) => ({
  kind: 'invalid_params',
  code: -32602,
  message: `Invalid params: ${field}: ${reason}`,
  data: { field, reason },
});

/** A binding whose engine starts `operation()` for every request. */
function fakeBinding(operation) {
  const FakeEngine = class FakeEngine {
    openSession() {
      return null;
    }
    capabilities() {
      return { readTextFile: true, writeTextFile: true };
    }
    start() {
      return operation();
    }
    startJson() {
      return operation();
    }
    dispatch(message) {
      return JSON.parse(message).kind;
    }
  };
  return { hostInfo: () => info, invalidParams, createEngine: () => new FakeEngine() };
}

const storage = { readFile: () => 'x' };

test('a binding that throws while stepping gives an internal AcpFsError', async () => {
  const boom = new Error('binding exploded');
  const AcpFs = createAcpFs(
    fakeBinding(() => ({
      step() {
        throw boom;
      },
      audit: () => ({ ...audit, outcome: 'error', errorKind: 'internal' }),
      cancel: () => ({ error: info.cancelled, change: null }),
    })),
  );
  const fs = new AcpFs({ storage });
  const e = await fs.readTextFile({ sessionId: 's', path: '/p/a' }).catch((x) => x);
  assert.ok(e instanceof AcpFsError);
  assert.equal(e.code, 'internal');
  assert.equal(e.jsonRpcCode, -32603);
  assert.equal(e.cause, boom);
});

test('a binding that rejects on the disk path gives an internal AcpFsError', async () => {
  const AcpFs = createAcpFs(fakeBinding(() => ({ runOnDisk: () => Promise.reject(new Error('pool gone')), audit: () => ({ ...audit }) })), {
    nativeDisk: true,
  });
  const fs = new AcpFs({});
  const e = await fs.writeTextFile({ sessionId: 's', path: '/p/a', content: '' }).catch((x) => x);
  assert.equal(e.code, 'internal');
});

test('a binding that returns no operation, or an unknown dispatch kind, gives internal', async () => {
  const AcpFs = createAcpFs(fakeBinding(() => null));
  const fs = new AcpFs({ storage });
  assert.equal((await fs.readTextFile({ sessionId: 's', path: '/p/a' }).catch((x) => x)).code, 'internal');
  const e = await fs.handle('{"kind":"weird"}').catch((x) => x);
  assert.ok(e instanceof AcpFsError);
  assert.equal(e.code, 'internal');
});

test('the engine asking the host for a storage io is answered as a storage failure, not a crash', async () => {
  const answers = [];
  const AcpFs = createAcpFs(
    fakeBinding(() => ({
      runOnDisk(answer) {
        answers.push(answer);
        return Promise.resolve(
          answer === undefined ? { io: { op: 'readAll', path: '/p/a' } } : { done: { result: { content: 'ok' }, change: null } },
        );
      },
      audit: () => ({ ...audit }),
    })),
    { nativeDisk: true },
  );
  const fs = new AcpFs({});
  assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a' }), { content: 'ok' });
  assert.equal(answers.length, 2);
  assert.equal(typeof answers[1].error.message, 'string');
});

test('createAcpFs needs a binding; without nativeDisk a storage is required', () => {
  assert.throws(() => createAcpFs({}), TypeError);
  const AcpFs = createAcpFs(fakeBinding(() => null));
  assert.throws(() => new AcpFs({}), (e) => e instanceof AcpFsError && e.data.field === 'storage');
});

/** An operation reading `x` from storage, logging every binding call in `calls`. */
function loggedRead(calls, auditImpl = () => ({ ...audit, bytes: 1 })) {
  let steps = 0;
  return {
    step(answer, bytes) {
      calls.push('step');
      steps += 1;
      if (steps === 1) return { io: { op: 'readAll', path: '/p/a' } };
      assert.deepEqual(answer, { bytes: true });
      return { done: { result: { content: new TextDecoder().decode(bytes) }, change: null } };
    },
    audit() {
      calls.push('audit');
      return auditImpl();
    },
    free() {
      calls.push('free');
    },
  };
}

test('the audit event is asked of the ended operation, before it is freed, only for a host that keeps a log', async () => {
  const calls = [];
  const AcpFs = createAcpFs(fakeBinding(() => loggedRead(calls)));
  const events = [];
  const logged = new AcpFs({ storage, onAudit: (event) => events.push(event) });
  assert.deepEqual(await logged.readTextFile({ sessionId: 's', path: '/p/a' }), { content: 'x' });
  assert.deepEqual(calls, ['step', 'step', 'audit', 'free']);
  assert.equal(events.length, 1);
  const { durationMs, ...rest } = events[0];
  assert.deepEqual(rest, { op: 'read', sessionId: 's', path: '/p/a', line: null, limit: null, bytes: 1, outcome: 'ok' }, 'the event audit() gave');
  assert.equal(typeof durationMs, 'number', 'the driver stamps the duration');
  assert.ok(durationMs >= 0);
  // Without onAudit the event is never converted.
  calls.length = 0;
  const unlogged = new AcpFs({ storage });
  assert.deepEqual(await unlogged.readTextFile({ sessionId: 's', path: '/p/a' }), { content: 'x' });
  assert.deepEqual(calls, ['step', 'step', 'free']);
});

test('an operation whose audit() throws or gives null still settles, with no audit event', async () => {
  for (const auditImpl of [
    () => {
      throw new Error('binding broke');
    },
    () => null,
  ]) {
    const calls = [];
    const AcpFs = createAcpFs(fakeBinding(() => loggedRead(calls, auditImpl)));
    const events = [];
    const fs = new AcpFs({ storage, onAudit: (event) => events.push(event) });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a' }), { content: 'x' });
    assert.deepEqual(calls, ['step', 'step', 'audit', 'free']);
    assert.deepEqual(events, []);
  }
});

// A native-disk binding whose disk loop the test holds: an abort while the loop works never calls
// `cancel()`, which would block the JS thread on the loop, but `stop()`, and the request ends as
// the loop says: cancelled, or with the write it had started.

/** An AcpFs whose one request's disk loop runs until `finish(step)`; `calls` lists what the driver asked. */
function heldDiskLoop() {
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
      return { error: info.cancelled, change: null };
    },
    audit: () => null,
  };
  const fs = new (createAcpFs(fakeBinding(() => op), { nativeDisk: true }))({});
  return { fs, calls, finish: (step) => finish(step) };
}

const write = { sessionId: 's', path: '/p/a.txt', content: 'new\n' };

test('an abort while the disk loop works stops it and ends as the loop says: cancelled', async () => {
  const { fs, calls, finish } = heldDiskLoop();
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
  finish({ done: { error: info.cancelled, change: null } });
  const e = await request.catch((x) => x);
  assert.equal(e.code, 'cancelled');
  assert.deepEqual(calls, ['runOnDisk', 'stop']);
});

test('an abort after the disk loop started writing ends with the write it did', async () => {
  const { fs, calls, finish } = heldDiskLoop();
  const controller = new AbortController();
  const request = fs.writeTextFile(write, { signal: controller.signal });
  await new Promise(setImmediate);
  controller.abort();
  const change = { path: '/p/a.txt', oldText: null, newText: 'new\n' };
  finish({ done: { result: {}, change } });
  assert.deepEqual(await request, {});
  assert.deepEqual(calls, ['runOnDisk', 'stop']);
});
