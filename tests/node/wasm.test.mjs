// @acp-fs/wasm in Node: every behaviour vector on every storage a browser IDE would hand it (plain
// objects sync and async, memfs, ZenFS in memory, the package's adapters, fs.promises), each
// meeting the vector's expectations and all of them agreeing; then the binding's own promises
// (conversion errors, malformed answers, traps), the adapters, and the packed package.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { after, describe, test } from 'node:test';
import { memfs } from 'memfs';
import { nodeToFsa } from 'memfs/lib/node-to-fsa/index.js';
import { AcpFs, AcpFsError, init } from '../../npm/wasm/node.mjs';
import { Engine } from '../../npm/wasm/lib/api.mjs';
import { guardBinding } from '../../npm/wasm/lib/engine.mjs';
import { fromOPFS, overlay, realpathByLinks } from '../../npm/adapters/index.mjs';
import { loadVectors, makeTempDir, MapStorage, parityView, runVector } from './harness.mjs';
import { wasmBackends } from './wasm-backends.mjs';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const enc = new TextEncoder();
const FULL_CAPS = { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true };
const PLAIN_CAPS = { symlinks: 'none', stat: true, rangedReads: false, write: true, makeDirs: true };

// ---------------------------------------------------------------------------------------------
// Vectors.

const all = loadVectors();
const byFile = new Map();
for (const x of all) byFile.set(x.file, [...(byFile.get(x.file) ?? []), x]);
const skips = new Map();
let ran = 0;

test('the vector set is there', () => {
  assert.ok(all.length >= 150, `the contract needs at least 150 vectors, found ${all.length}`);
});

for (const [file, vectors] of byFile) {
  describe(`vectors ${file}`, () => {
    for (const { vector } of vectors) {
      test(vector.name, async () => {
        const views = [];
        const failures = [];
        for (const backend of Object.values(wasmBackends)) {
          const run = await runVector(AcpFs, vector, backend);
          if (run.skip) {
            const key = `${backend.name}: ${run.skip}`;
            skips.set(key, (skips.get(key) ?? 0) + 1);
            continue;
          }
          ran += 1;
          failures.push(...run.failures.map((f) => `[${backend.name}] ${f}`));
          views.push([backend.name, parityView(run)]);
        }
        assert.ok(views.length > 0, 'no backend could run this vector');
        assert.deepEqual(failures, [], failures.join('\n'));
        const [firstName, first] = views[0];
        for (const [name, view] of views.slice(1)) {
          assert.deepStrictEqual(view, first, `${name} differs from ${firstName}`);
        }
      });
    }
  });
}

after(() => {
  const lines = [...skips].sort().map(([k, n]) => `  ${n} × ${k}`);
  console.log(`wasm vector runs: ${ran} across ${Object.keys(wasmBackends).length} backends; skipped:\n${lines.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------
// The binding (docs/binding-interface.md) as the driver calls it.

/** Runs an operation against a MapStorage by hand, the way the driver does. */
function drive(op, storage) {
  let step = op.step();
  const ios = [];
  while (!step.done) {
    ios.push(step.io);
    const { io } = step;
    let answer;
    let bytes;
    try {
      if (io.op === 'stat') {
        const st = storage.stat(io.path);
        answer = { metadata: { kind: st.isFile() ? 'file' : 'directory', size: st.size } };
      } else if (io.op === 'readAll') {
        answer = { bytes: true };
        bytes = storage.readFile(io.path);
      } else if (io.op === 'write') {
        storage.writeFile(io.path, step.bytes);
        answer = { done: true };
      } else if (io.op === 'makeDirs') {
        storage.mkdir(io.path, { recursive: true });
        answer = { done: true };
      } else if (io.op === 'approve') answer = { approved: true };
      else throw new Error(`unexpected io ${io.op}`);
    } catch (e) {
      answer = { error: { code: e.code, message: e.message } };
    }
    step = op.step(answer, bytes);
  }
  return { outcome: step.done, ios };
}

function engineWith(files = {}, options = {}) {
  const storage = new MapStorage({ ranged: false });
  for (const [p, text] of Object.entries(files)) storage.put(p, enc.encode(text));
  const engine = new Engine(options, PLAIN_CAPS);
  assert.equal(engine.openSession('s', '/p', []), null);
  return { engine, storage };
}

const wireOf = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, 'throws an Error');
    return JSON.parse(e.message);
  }
  assert.fail('did not throw');
};

const plain = (x) => Object.getPrototypeOf(x) === Object.prototype;

describe('binding: Engine', () => {
  test('a bad option or bad caps throw an Error carrying the wire error', () => {
    const bad = wireOf(() => new Engine({ pastEnd: 'sideways' }, PLAIN_CAPS));
    assert.equal(bad.kind, 'invalid_params');
    assert.equal(bad.code, -32602);
    assert.equal(bad.data.field, 'pastEnd');
    const caps = wireOf(() => new Engine({}, { ...PLAIN_CAPS, symlinks: 'sometimes' }));
    assert.equal(caps.data.field, 'caps.symlinks');
  });

  test('options the engine does not read may be anything (functions, cycles, host objects)', () => {
    const cyclic = {};
    cyclic.self = cyclic;
    const engine = new Engine({ onSomething: () => 1, host: cyclic, big: 10n, pastEnd: 'empty' }, PLAIN_CAPS);
    assert.equal(engine.openSession('s', '/p', []), null);
  });

  test('an option too deeply nested to convert is a precise error, and the module lives on', () => {
    let deny = [];
    for (let i = 0; i < 100000; i++) deny = [deny];
    // Repeated: a stack overflow inside wasm would leave the instance corrupt after the first.
    for (let round = 0; round < 3; round++) {
      const err = wireOf(() => new Engine({ deny }, PLAIN_CAPS));
      assert.equal(err.kind, 'invalid_params');
      assert.equal(err.data.field, 'deny');
    }
    const { engine, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
    const { outcome } = drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2 }), storage);
    assert.deepEqual(outcome.result, { content: 'two\n' });
  });

  test('sessions and documents report bad input as wire errors, never throws', () => {
    const engine = new Engine(null, PLAIN_CAPS);
    assert.equal(engine.openSession(7, '/p', []).data.field, 'sessionId');
    assert.deepEqual(engine.openSession('s', 42, []).data, { field: 'cwd', reason: 'must be an absolute path string' });
    assert.equal(engine.openSession('s', 'relative', []).data.field, 'cwd');
    assert.equal(engine.openSession('s', '/p', '/q').data.field, 'additionalDirectories');
    assert.equal(engine.openSession('s', '/p', ['/q', 3]).data.field, 'additionalDirectories[1]');
    assert.equal(engine.openSession('s', '/p', undefined), null);
    assert.equal(engine.openDocument('rel.txt', 'x').data.field, 'path');
    assert.equal(engine.openDocument('/p/a.txt', 5).data.field, 'text');
    assert.equal(engine.openDocument('/p/./a.txt', 'buffer'), null);
    assert.equal(engine.document('/p/a.txt'), 'buffer', 'documents are keyed by the normalized path');
    assert.equal(engine.document('/p/b.txt'), null);
    assert.equal(engine.document(12), null);
    engine.closeDocument('/p/a.txt');
    assert.equal(engine.document('/p/a.txt'), null);
    engine.closeSession(3); // no session can have a non-string id: nothing to do, nothing thrown
  });

  test('answers are plain JS objects (JSON-compatible)', () => {
    const engine = new Engine({ readOnly: true }, PLAIN_CAPS);
    const caps = engine.capabilities();
    assert.ok(plain(caps));
    assert.deepEqual(caps, { readTextFile: true, writeTextFile: false });
    assert.equal(engine.start('session/new', {}), null);
    assert.equal(engine.start(17, {}), null);
    const err = engine.openSession('s', 'x', []);
    assert.ok(plain(err) && plain(err.data));
  });

  test('params convert as the N-API binding converts them; what has no JSON form is invalid params', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
    const read = (params) => drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...params }), storage).outcome;
    assert.deepEqual(read({ line: 2n }).result, { content: 'two\n' }, 'a BigInt is a number');
    assert.deepEqual(read({ line: undefined, limit: null }).result, { content: 'one\ntwo\n' }, 'undefined is absent');
    assert.deepEqual(read({ line: 2, _meta: { f: () => 1 } }).result, { content: 'two\n' }, 'a function is left out, as JSON leaves it');
    const cyclic = {};
    cyclic.self = cyclic;
    const refused = read({ _meta: cyclic });
    assert.equal(refused.error.kind, 'invalid_params');
    assert.equal(refused.error.data.field, '_meta', 'the field it sits under');
    assert.match(refused.error.data.reason, /cyclic/);
    assert.equal(read({ _meta: { n: 2n ** 70n } }).error.data.field, 'params', 'a BigInt beyond 64 bits has no JSON form');
  });

  test('a lone surrogate is invalid params naming the field, never silently replaced (§8.1)', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'before' });
    const write = (params) =>
      drive(engine.start('fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'ok', ...params }), storage).outcome;
    for (const [params, field] of [
      [{ content: 'a\uD800b' }, 'content'],
      [{ content: 'end\uDC00' }, 'content'],
      [{ path: '/p/\uD800.txt' }, 'path'],
      [{ _meta: { note: ['x', '\uDBFF'] } }, '_meta'],
    ]) {
      const out = write(params);
      assert.equal(out.error?.kind, 'invalid_params', JSON.stringify(params));
      assert.equal(out.error.data.field, field);
      assert.match(out.error.data.reason, /lone surrogate/);
    }
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'before', 'nothing was written');
    assert.deepEqual(write({ content: 'pair \uD83D\uDE00 kept' }).result, {}, 'a surrogate pair is text');
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'pair 😀 kept');
    assert.deepEqual(write({ content: 'a real \uFFFD is text' }).result, {});
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'a real \uFFFD is text');
    assert.equal(write({ _meta: { ['k\uD800']: 1 } }).error.data.field, '_meta', 'keys are text too');
  });

  test('params as deep as serde_json allows pass; deeper or exploding ones are refused, never overflow', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    const nested = (levels) => {
      let meta = {};
      for (let i = 1; i < levels; i++) meta = { meta };
      return meta;
    };
    const read = (params) => drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...params }), storage).outcome;
    // The params object is level 1: `_meta` may nest 127 levels under it, as in the N-API binding.
    assert.deepEqual(read({ _meta: nested(127) }).result, { content: 'x' });
    assert.match(read({ _meta: nested(128) }).error.data.reason, /nested deeper than 128 levels/);
    // Shared objects: 40 levels of {a: o, b: o} are 40 objects in memory and 2^40 values walked.
    let dag = { leaf: 1 };
    for (let i = 0; i < 40; i++) dag = { a: dag, b: dag };
    assert.match(read({ _meta: dag }).error.data.reason, /more than 1000000 values/);
  });

  test('deeply nested params from an agent are refused, not a stack overflow', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    let meta = {};
    for (let i = 0; i < 50000; i++) meta = { meta };
    const { outcome } = drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', _meta: meta }), storage);
    assert.equal(outcome.error.kind, 'invalid_params');
    assert.equal(outcome.error.data.field, '_meta');
    const again = drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' }), storage);
    assert.deepEqual(again.outcome.result, { content: 'x' });
  });

  test('dispatch classifies raw messages and refuses non-strings with a TypeError', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'hi\n' });
    assert.throws(() => engine.dispatch({ jsonrpc: '2.0' }), TypeError);
    assert.deepEqual(engine.dispatch('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}'), { kind: 'notMine' });
    const reply = engine.dispatch('{oops');
    assert.equal(reply.kind, 'reply');
    assert.equal(JSON.parse(reply.reply).error.code, -32700);
    assert.deepEqual(engine.dispatch('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a"}}'), {
      kind: 'cancel',
      id: '"a"',
    });
    const call = engine.dispatch(
      '{"jsonrpc":"2.0","id":7.50,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}',
    );
    assert.equal(call.kind, 'call');
    assert.equal(call.id, '7.50', 'the id is kept byte for byte');
    assert.equal(call.method, 'fs/read_text_file');
    assert.deepEqual(drive(call.operation, storage).outcome.result, { content: 'hi\n' });
  });
});

describe('binding: Operation', () => {
  const read = (engine, extra = {}) => engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...extra });

  test('steps name their io; bytes go in as Uint8Array, ArrayBuffer, other views or another realm', () => {
    const { engine } = engineWith();
    const text = 'one\ntwo\n';
    const views = [
      enc.encode(text),
      enc.encode(text).buffer,
      new DataView(enc.encode(`xx${text}`).buffer, 2),
      vm.runInNewContext('new Uint8Array([111,110,101,10,116,119,111,10])'),
      Buffer.from(text),
    ];
    for (const bytes of views) {
      const op = read(engine, { line: 2 });
      assert.deepEqual(op.step(), { io: { op: 'stat', path: '/p/a.txt', follow: true } });
      assert.deepEqual(op.step({ metadata: { kind: 'file', size: 8 } }), { io: { op: 'readAll', path: '/p/a.txt' } });
      const done = op.step({ bytes: true }, bytes).done;
      assert.deepEqual(done.result, { content: 'two\n' }, `bytes given as ${Object.prototype.toString.call(bytes)}`);
      assert.equal(done.audit.outcome, 'ok');
      assert.equal(done.audit.durationMs, null, 'the driver stamps the duration');
    }
  });

  test('a write hands out its bytes as a Uint8Array copy', () => {
    const { engine } = engineWith();
    const op = engine.start('fs/write_text_file', { sessionId: 's', path: '/p/new.txt', content: 'héllo' });
    let step = op.step();
    while (!step.done && step.io.op !== 'write') {
      const { io } = step;
      if (io.op === 'stat') step = op.step({ error: { code: 'ENOENT', message: 'gone' } });
      else if (io.op === 'approve') step = op.step({ approved: true });
      else if (io.op === 'makeDirs') step = op.step({ done: true });
      else assert.fail(`unexpected io ${io.op}`);
    }
    assert.equal(step.io.op, 'write');
    assert.ok(step.bytes instanceof Uint8Array);
    assert.equal(step.bytes.byteLength, step.bytes.buffer.byteLength, 'its own buffer, not a view of wasm memory');
    assert.deepEqual([...step.bytes], [...enc.encode('héllo')]);
    const done = op.step({ done: true }).done;
    assert.deepEqual(done.result, {});
    assert.deepEqual(done.change, { sessionId: 's', path: '/p/new.txt', created: true, oldText: null, newText: 'héllo' });
  });

  test('a malformed answer ends the operation with an internal error', () => {
    const { engine } = engineWith();
    const cases = [
      [{ bogus: 1 }, undefined],
      [{ metadata: { kind: 'file', size: -1 } }, undefined],
      [{ bytes: true }, undefined],
      [{ bytes: true }, 'not bytes'],
      [{ bytes: true }, [1, 2, 3]],
      [undefined, undefined],
      [() => 1, undefined],
    ];
    for (const [answer, bytes] of cases) {
      const op = read(engine);
      op.step();
      const done = op.step(answer, bytes).done;
      assert.ok(done, `answer ${String(answer)} / ${String(bytes)} ends it`);
      assert.equal(done.error.kind, 'internal');
      assert.equal(done.error.code, -32603);
      assert.deepEqual(done.error.data, { errorKind: 'internal' });
      assert.equal(done.audit.outcome, 'error');
      assert.equal(done.audit.errorKind, 'internal');
      assert.equal(done.audit.path, '/p/a.txt', 'the audit still names the request');
      assert.equal(op.step({ metadata: { kind: 'file', size: 1 } }).done.error.kind, 'internal', 'no io after the end');
    }
  });

  test('host errors are classified by the core: code and DOMException name', () => {
    const { engine } = engineWith();
    const outcomes = [
      [{ code: 'ENOENT', message: 'x' }, 'not_found'],
      [{ name: 'NotFoundError', message: 'x' }, 'not_found'],
      [{ name: 'NotAllowedError', message: 'x' }, 'permission_denied'],
      [{ code: 'EIO', message: 'disk on fire' }, 'storage_error'],
    ];
    for (const [error, kind] of outcomes) {
      const op = read(engine);
      op.step();
      assert.equal(op.step({ error }).done.error.kind, kind, JSON.stringify(error));
    }
  });

  test('a step after the end and cancel are answers, never throws', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    const op = read(engine);
    drive(op, storage);
    const after = op.step({ metadata: { kind: 'file', size: 1 } }).done;
    assert.equal(after.error.kind, 'internal');
    const cancelled = read(engine);
    cancelled.step();
    const c = cancelled.cancel();
    assert.deepEqual(
      { kind: c.error.kind, code: c.error.code, outcome: c.audit.outcome },
      { kind: 'cancelled', code: -32800, outcome: 'cancelled' },
    );
    assert.equal(cancelled.step({ metadata: { kind: 'file', size: 1 } }).done.error.kind, 'internal');
    const twice = read(engine);
    twice.step();
    assert.equal(twice.step().done.error.kind, 'internal', 'a second step without an answer');
  });

  test('a file larger than the engine can hold is a storage error, not an abort', () => {
    const { engine } = engineWith();
    const op = read(engine);
    op.step();
    op.step({ metadata: { kind: 'file', size: 1 } });
    // 2 GiB of zero pages: reserved, never touched, more than a wasm32 Vec can hold.
    const huge = new Uint8Array(2 ** 31);
    const done = op.step({ bytes: true }, huge).done;
    assert.equal(done.error.kind, 'storage_error');
    assert.match(done.error.message, /do not fit/);
    const { engine: fresh, storage } = engineWith({ '/p/a.txt': 'still here' });
    assert.deepEqual(drive(read(fresh), storage).outcome.result, { content: 'still here' });
  });
});

describe('binding: traps', () => {
  // A stand-in for the generated module whose calls trap the way wasm does; the guard is what is
  // under test (a real panic cannot be provoked: the binding has no panicking path).
  function fakeModule({ panic }) {
    const state = { panic, taken: 0, calls: 0 };
    class RawOperation {
      step() {
        state.calls += 1;
        throw new WebAssembly.RuntimeError('unreachable');
      }
      cancel() {
        throw new WebAssembly.RuntimeError('unreachable');
      }
      free() {
        throw new Error('recursive use of an object detected which would lead to unsafe aliasing in rust');
      }
    }
    class RawEngine {
      constructor(options) {
        if (options?.trapHere) throw new WebAssembly.RuntimeError('unreachable');
      }
      start() {
        return new RawOperation();
      }
      openSession() {
        throw new RangeError('Maximum call stack size exceeded');
      }
      capabilities() {
        return { readTextFile: true, writeTextFile: true };
      }
      dispatch(message) {
        if (typeof message !== 'string') throw new TypeError('dispatch: the message must be a string');
        return { kind: 'notMine' };
      }
    }
    const raw = {
      Engine: RawEngine,
      __takePanicMessage() {
        state.taken += 1;
        const p = state.panic;
        state.panic = undefined;
        return p;
      },
    };
    return { raw, state };
  }

  test('a panic becomes an internal outcome with its message; the engine keeps serving', () => {
    const { raw, state } = fakeModule({ panic: 'panicked at core/src/window.rs:1:1: boom' });
    const { Engine: Guarded } = guardBinding(raw, () => true);
    const engine = new Guarded({}, FULL_CAPS);
    const op = engine.start('fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'x', line: 3 });
    const done = op.step().done;
    assert.deepEqual(done.error, {
      kind: 'internal',
      code: -32603,
      message: 'Internal error: the wasm engine panicked: panicked at core/src/window.rs:1:1: boom',
      data: { errorKind: 'internal' },
    });
    assert.equal(done.change, null);
    assert.deepEqual(
      { op: done.audit.op, sessionId: done.audit.sessionId, path: done.audit.path, outcome: done.audit.outcome },
      { op: 'write', sessionId: 's', path: '/p/a.txt', outcome: 'error' },
    );
    assert.equal(op.step({ done: true }).done.error.message, 'Internal error: the operation has already finished');
    assert.equal(state.calls, 1, 'a trapped operation is not entered again');
    op.free(); // the raw object is stuck borrowed after a trap: freeing it must not throw
    assert.deepEqual(engine.capabilities(), { readTextFile: true, writeTextFile: true }, 'still serving');
    assert.throws(() => engine.dispatch(5), TypeError, 'ordinary errors pass through untouched');
  });

  test('any other trap disables the engine: every later call is an internal error', () => {
    const { raw } = fakeModule({ panic: undefined });
    const { Engine: Guarded } = guardBinding(raw, () => true);
    const engine = new Guarded({}, FULL_CAPS);
    const wire = engine.openSession('s', '/p', []);
    assert.equal(wire.kind, 'internal');
    assert.match(wire.message, /trapped \(Maximum call stack size exceeded\) and is disabled/);
    const done = engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' }).step().done;
    assert.equal(done.error.kind, 'internal');
    assert.match(done.error.message, /disabled/);
    const thrownWire = wireOf(() => engine.capabilities());
    assert.equal(thrownWire.kind, 'internal');
    assert.equal(wireOf(() => new Guarded({}, FULL_CAPS)).kind, 'internal');
  });

  test('a trap in the constructor throws a wire error the driver turns into an AcpFsError', () => {
    const { raw } = fakeModule({ panic: 'bad state' });
    const { Engine: Guarded } = guardBinding(raw, () => true);
    const wire = wireOf(() => new Guarded({ trapHere: true }, FULL_CAPS));
    assert.equal(wire.message, 'Internal error: the wasm engine panicked: bad state');
  });

  test('an engine made before the module is instantiated says how to fix it', () => {
    const { raw } = fakeModule({});
    const { Engine: Guarded } = guardBinding(raw, () => false);
    assert.match(wireOf(() => new Guarded({}, FULL_CAPS)).message, /not initialized: `await init\(\)`/);
  });

  test('the MCP calls, Operation.fail and the agent functions are guarded the same way', () => {
    let panic = 'panicked at core/src/mcp.rs:1:1: boom';
    const trap = () => {
      throw new WebAssembly.RuntimeError('unreachable');
    };
    class RawOperation {
      fail = trap;
      free() {}
    }
    class RawCall {
      respond = trap;
      free() {}
    }
    class RawEngine {
      mcpTools = trap;
      mcpDispatch() {
        return { kind: 'call', method: 'fs/write_text_file', operation: new RawOperation(), call: new RawCall() };
      }
    }
    const raw = { Engine: RawEngine, toolResult: trap, __takePanicMessage: () => [panic, (panic = undefined)][0] };
    const { Engine: Guarded, functions } = guardBinding(raw, () => true);
    const engine = new Guarded({}, FULL_CAPS);
    const d = engine.mcpDispatch('s', '{}');
    const failed = d.operation.fail({ kind: 'invalid_params', code: -32602, message: 'x', data: null });
    assert.equal(failed.error.kind, 'internal');
    assert.match(failed.error.message, /panicked at core\/src\/mcp\.rs/);
    assert.equal(failed.audit.op, 'write', 'the audit says which request it was');
    assert.equal(wireOf(() => d.call.respond({ result: {} })).kind, 'internal', 'a trap while replying throws a wire error');
    d.call.free();
    assert.match(wireOf(() => d.call.respond({ result: {} })).message, /already been answered and freed/);
    assert.match(wireOf(() => functions.toolResult('read_text_file', {}, {})).message, /disabled/, 'a trap that is not a panic disables the engine');
    assert.match(wireOf(() => engine.mcpTools('s')).message, /disabled/);
    const early = guardBinding(raw, () => false).functions;
    assert.match(wireOf(() => early.toolDefinitions({})).message, /not initialized: `await init\(\)` before calling toolDefinitions/);
  });
});

// ---------------------------------------------------------------------------------------------
// The package API over wasm (the shared driver is tested with @acp-fs/node; here: what crosses
// the wasm boundary).

describe('package', () => {
  test('Node needs no init; init() is there for isomorphic code', async () => {
    await init();
    const fs = new AcpFs({ storage: { readFile: () => 'a\nb\n' }, roots: ['/'] });
    assert.deepEqual(await fs.readTextFile({ sessionId: 'any', path: '/x.txt', line: 2 }), { content: 'b\n' });
    assert.deepEqual(fs.capabilities(), { readTextFile: true, writeTextFile: false });
  });

  test('a storage failure rejects with an AcpFsError whose cause is the host error', async () => {
    const hostError = Object.assign(new Error('the disk is on fire'), { code: 'EIO' });
    const fs = new AcpFs({
      storage: {
        readFile: () => {
          throw hostError;
        },
      },
      roots: ['/'],
    });
    const err = await fs.readTextFile({ sessionId: 's', path: '/a.txt' }).then(
      () => assert.fail('resolved'),
      (e) => e,
    );
    assert.ok(err instanceof AcpFsError);
    assert.equal(err.code, 'storage_error');
    assert.equal(err.jsonRpcCode, -32603);
    assert.equal(err.cause, hostError);
  });

  test('a 10 MB file round-trips through the boundary unchanged', async () => {
    const storage = new MapStorage();
    const text = 'ünïcödé line\r\n'.repeat(700_000);
    const fs = new AcpFs({ storage, roots: ['/'], maxWriteBytes: 20 << 20, maxReadBytes: 20 << 20 });
    assert.deepEqual(await fs.writeTextFile({ sessionId: 's', path: '/big.txt', content: text }), {});
    assert.equal((await fs.readTextFile({ sessionId: 's', path: '/big.txt' })).content, text);
    const last = await fs.readTextFile({ sessionId: 's', path: '/big.txt', line: 700_000 });
    assert.equal(last.content, 'ünïcödé line\r\n');
  });

  test('npm pack is self-contained: the tarball resolves, runs and type-checks through its exports', () => {
    const dir = makeTempDir('acpfs-pack-');
    try {
      const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        cwd: join(ROOT, 'npm', 'wasm'),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const [{ filename, files }] = JSON.parse(out);
      const names = files.map((f) => f.path);
      for (const f of ['node.mjs', 'index.mjs', 'shared/driver.mjs', 'pkg/acp_fs_wasm_bg.wasm', 'adapters/index.mjs', 'types/acp-fs.d.ts']) {
        assert.ok(names.includes(f), `the tarball has ${f}`);
      }
      const modules = join(dir, 'app', 'node_modules', '@acp-fs');
      nodeFs.mkdirSync(modules, { recursive: true });
      execFileSync('tar', ['-xzf', join(dir, filename), '-C', modules]);
      nodeFs.renameSync(join(modules, 'package'), join(modules, 'wasm'));
      nodeFs.writeFileSync(
        join(dir, 'app', 'main.mjs'),
        `import { AcpFs } from '@acp-fs/wasm';
import { overlay } from '@acp-fs/wasm/adapters';
const wasm = import.meta.resolve('@acp-fs/wasm/acp_fs_wasm_bg.wasm');
const fs = new AcpFs({ storage: overlay((p) => (p === '/a.txt' ? 'unsaved\\n' : null), { readFile: () => 'saved\\n' }), roots: ['/'] });
const r = await fs.readTextFile({ sessionId: 's', path: '/a.txt' });
console.log(JSON.stringify({ content: r.content, wasm: wasm.endsWith('/pkg/acp_fs_wasm_bg.wasm') }));
`,
      );
      const printed = execFileSync(process.execPath, ['main.mjs'], { cwd: join(dir, 'app'), encoding: 'utf8' });
      assert.deepEqual(JSON.parse(printed), { content: 'unsaved\n', wasm: true });
      // The types resolve through the same exports, and are types (misuse is an error).
      nodeFs.writeFileSync(join(dir, 'app', 'package.json'), '{"type":"module"}');
      nodeFs.writeFileSync(
        join(dir, 'app', 'check.ts'),
        `import AcpFsDefault, { AcpFs, init, type AcpFsStorage } from '@acp-fs/wasm';
import { fromOPFS, overlay, realpathByLinks } from '@acp-fs/wasm/adapters';
await init();
const storage: AcpFsStorage = overlay((p) => (p === '/a' ? 'x' : null), { readFile: () => 'y' });
const fs: AcpFs = new AcpFsDefault({ storage, approveWrite: async (c) => c.newText.length < 10 });
const content: string = (await fs.readTextFile({ sessionId: 's', path: '/a', line: 1 })).content;
declare const dir: FileSystemDirectoryHandle;
export const opfs: AcpFsStorage = fromOPFS(dir);
export const real: Promise<string> = realpathByLinks({ lstat: () => ({ isSymbolicLink: () => false, isDirectory: () => true }), readlink: () => '' }, '/');
// @ts-expect-error sessionId is a string
await fs.readTextFile({ sessionId: 1, path: '/a' });
// @ts-expect-error the lookup answers text
overlay(() => 5, storage);
export { content };
`,
      );
      const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
      const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
      execFileSync(tsc, [...args, '--lib', 'es2022,dom', 'check.ts'], { cwd: join(dir, 'app'), encoding: 'utf8' });
    } finally {
      nodeFs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Adapters (their vector runs are above; these pin what vectors cannot say).

describe('adapters', () => {
  test('overlay: reads and windows see the buffer, writes go to the base', async () => {
    const base = new MapStorage();
    base.put('/p/a.txt', enc.encode('saved 1\nsaved 2\n'));
    base.put('/p/b.txt', enc.encode('b on disk\n'));
    const buffers = new Map([['/p/a.txt', 'unsaved 1\nunsaved 2\nunsaved 3\n']]);
    const storage = overlay(async (p) => buffers.get(p), base);
    // The overlay reports no modification times, so after a windowed read a write could not be
    // judged (semantics.md §9: stale_write); this test is about where reads and writes go.
    const fs = new AcpFs({ storage, roots: ['/p'], onConflict: 'overwrite' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 3 }), { content: 'unsaved 3\n' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/b.txt' }), { content: 'b on disk\n' });
    await fs.writeTextFile({ sessionId: 's', path: '/p/a.txt', content: 'agent\n' });
    assert.equal(Buffer.from(base.files.get('/p/a.txt')).toString(), 'agent\n');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'unsaved 1\nunsaved 2\nunsaved 3\n' });
    buffers.delete('/p/a.txt'); // the user closed the buffer
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'agent\n' });
    buffers.set('/p/new.txt', 'never saved\n');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/new.txt' }), { content: 'never saved\n' });
  });

  test('overlay over a handle-reading base keeps ranged reads', async () => {
    const { vol } = memfs({ '/p/a.txt': 'disk\n' });
    const p = vol.promises;
    const storage = overlay((path) => (path === '/p/b.txt' ? `${'x'.repeat(100)}\n`.repeat(2000) : undefined), {
      readFile: (path) => p.readFile(path),
      stat: (path) => p.stat(path),
      open: (path, flags) => p.open(path, flags),
    });
    assert.equal(typeof storage.open, 'function');
    const fs = new AcpFs({ storage, roots: ['/p'] });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/b.txt', line: 2000 }), { content: `${'x'.repeat(100)}\n` });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'disk\n' });
  });

  test('fromOPFS: DOMExceptions become the error a disk would give, the DOMException kept as cause', async () => {
    const { fs } = memfs({ '/p/a.txt': 'hello', '/p/d/x.txt': 'x' });
    const storage = fromOPFS(nodeToFsa(fs, '/', { mode: 'readwrite' }));
    const failure = async (fn) => {
      try {
        await fn();
      } catch (e) {
        return e;
      }
      assert.fail('did not fail');
    };
    const missing = await failure(() => storage.readFile('/p/none.txt'));
    assert.equal(missing.code, 'ENOENT');
    assert.equal(missing.cause?.name, 'NotFoundError');
    assert.equal((await failure(() => storage.readFile('/p/d'))).code, 'EISDIR');
    assert.equal((await failure(() => storage.stat('/p/a.txt/x'))).code, 'ENOTDIR');
    assert.equal((await failure(() => storage.writeFile('/p/d', enc.encode('x')))).code, 'EISDIR');
    assert.equal((await failure(() => storage.readFile('C:\\p\\a.txt'))).code, 'ENOENT');
    assert.equal((await storage.stat('/')).isDirectory(), true);
    assert.equal((await storage.stat('/p/a.txt')).size, 5);
    assert.deepEqual([...(await storage.readRange('/p/a.txt', 1, 3))], [...enc.encode('ell')]);
    await storage.mkdir('/q/r', { recursive: true });
    await storage.writeFile('/q/r/new.txt', enc.encode('new'));
    assert.equal(fs.readFileSync('/q/r/new.txt', 'utf8'), 'new');
  });

  test('realpathByLinks: relative and absolute links, chains, loops, dangling links', async () => {
    const { vol } = memfs({ '/a/f.txt': 'x' });
    vol.symlinkSync('f.txt', '/a/rel');
    vol.symlinkSync('/a', '/abs');
    vol.symlinkSync('../abs/rel', '/a/chain');
    vol.symlinkSync('loop2', '/a/loop1');
    vol.symlinkSync('loop1', '/a/loop2');
    vol.symlinkSync('/nowhere/x', '/a/dangling');
    const fs = { lstat: (p) => vol.lstatSync(p), readlink: (p) => vol.readlinkSync(p) };
    assert.equal(await realpathByLinks(fs, '/a/rel'), '/a/f.txt');
    assert.equal(await realpathByLinks(fs, '/abs/chain'), '/a/f.txt');
    assert.equal(await realpathByLinks(fs, '/abs/../a/./f.txt'), '/a/f.txt');
    await assert.rejects(realpathByLinks(fs, '/a/loop1'), { code: 'ELOOP' });
    await assert.rejects(realpathByLinks(fs, '/a/dangling'), { code: 'ENOENT' });
  });
});
