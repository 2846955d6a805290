// The shared driver facing a misbehaving binding (a fake Engine): whatever the binding throws or
// answers, requests settle as rejected AcpFsErrors with code `internal`, never as crashes or
// hangs. The real bindings do not misbehave on purpose, so only a fake can show this.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpFsError, createAcpFs } from '../../npm/shared/driver.mjs';

const audit = { op: 'read', sessionId: 's', path: '/p/a', line: null, limit: null, bytes: 0, outcome: 'ok' };

function fakeEngine(operation) {
  return class FakeEngine {
    openSession() {
      return null;
    }
    capabilities() {
      return { readTextFile: true, writeTextFile: true };
    }
    start() {
      return operation();
    }
    dispatch(message) {
      return JSON.parse(message).kind;
    }
  };
}

const storage = { readFile: () => 'x' };

test('a binding that throws while stepping gives an internal AcpFsError', async () => {
  const boom = new Error('binding exploded');
  const AcpFs = createAcpFs({
    Engine: fakeEngine(() => ({
      step() {
        throw boom;
      },
      cancel: () => ({ error: { kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null }, change: null, audit }),
    })),
  });
  const fs = new AcpFs({ storage });
  const e = await fs.readTextFile({ sessionId: 's', path: '/p/a' }).catch((x) => x);
  assert.ok(e instanceof AcpFsError);
  assert.equal(e.code, 'internal');
  assert.equal(e.jsonRpcCode, -32603);
  assert.equal(e.cause, boom);
});

test('a binding that rejects on the disk path gives an internal AcpFsError', async () => {
  const AcpFs = createAcpFs({
    Engine: fakeEngine(() => ({ runOnDisk: () => Promise.reject(new Error('pool gone')) })),
    nativeDisk: true,
  });
  const fs = new AcpFs({});
  const e = await fs.writeTextFile({ sessionId: 's', path: '/p/a', content: '' }).catch((x) => x);
  assert.equal(e.code, 'internal');
});

test('a binding that returns no operation, or an unknown dispatch kind, gives internal', async () => {
  const AcpFs = createAcpFs({ Engine: fakeEngine(() => null) });
  const fs = new AcpFs({ storage });
  assert.equal((await fs.readTextFile({ sessionId: 's', path: '/p/a' }).catch((x) => x)).code, 'internal');
  const e = await fs.handle('{"kind":"weird"}').catch((x) => x);
  assert.ok(e instanceof AcpFsError);
  assert.equal(e.code, 'internal');
});

test('the engine asking the host for a storage io is answered as a storage failure, not a crash', async () => {
  const answers = [];
  const AcpFs = createAcpFs({
    Engine: fakeEngine(() => ({
      runOnDisk(answer) {
        answers.push(answer);
        return Promise.resolve(
          answer === undefined
            ? { io: { op: 'readAll', path: '/p/a' } }
            : { done: { result: { content: 'ok' }, change: null, audit: { ...audit } } },
        );
      },
    })),
    nativeDisk: true,
  });
  const fs = new AcpFs({});
  assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a' }), { content: 'ok' });
  assert.equal(answers.length, 2);
  assert.equal(typeof answers[1].error.message, 'string');
});

test('createAcpFs needs an Engine; without nativeDisk a storage is required', () => {
  assert.throws(() => createAcpFs({}), TypeError);
  const AcpFs = createAcpFs({ Engine: fakeEngine(() => null) });
  assert.throws(() => new AcpFs({}), (e) => e instanceof AcpFsError && e.data.field === 'storage');
});
