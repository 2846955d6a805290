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
import { binding } from '../../npm/wasm/lib/api.mjs';
import { guardBinding } from '../../npm/wasm/lib/engine.mjs';
import * as wasmModule from '../../npm/wasm/pkg/acp_fs_wasm.js';
import { fromOPFS, overlay, realpathByLinks } from '../../npm/adapters/index.mjs';
import { loadVectors, makeTempDir, MapStorage, parityView, runVector } from './harness.mjs';
import { wasmBackends } from './wasm-backends.mjs';
import { headSuite } from './suite-head.mjs';
import { startSuite } from './suite-start.mjs';

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
// The binding (docs/binding-interface.md) as the driver calls it: the guarded module (lib/engine.mjs).

const { createEngine, hostInfo, invalidParams } = binding;

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

/** An engine, failing the test when createEngine answers with an error instead. */
function newEngine(options, caps) {
  const engine = createEngine(options, caps);
  assert.ok(engine instanceof binding.Engine, `createEngine answered ${JSON.stringify(engine)}`);
  return engine;
}

function engineWith(files = {}, options = {}) {
  const storage = new MapStorage({ ranged: false });
  for (const [p, text] of Object.entries(files)) storage.put(p, enc.encode(text));
  const engine = newEngine(options, PLAIN_CAPS);
  assert.equal(engine.openSession('s', '/p', []), null);
  return { engine, storage };
}

/** A wire error (`{kind, code, message, data}`), as a value: never an `Error` carrying JSON. */
function assertWire(value) {
  assert.ok(!(value instanceof Error), 'a wire error value, not an Error');
  assert.deepEqual(Object.keys(value).sort(), ['code', 'data', 'kind', 'message']);
  return value;
}

/** What `fn` threw: a wire error value (a trap in a call whose answer cannot carry an error). */
const thrownWire = (fn) => {
  try {
    fn();
  } catch (e) {
    return assertWire(e);
  }
  assert.fail('did not throw');
};

const plain = (x) => Object.getPrototypeOf(x) === Object.prototype;

describe('binding: Engine', () => {
  test('a bad option or bad caps are the wire error createEngine answers with, never a throw', () => {
    const bad = assertWire(createEngine({ pastEnd: 'sideways' }, PLAIN_CAPS));
    assert.equal(bad.kind, 'invalid_params');
    assert.equal(bad.code, -32602);
    assert.equal(bad.data.field, 'pastEnd');
    assert.ok(!(bad instanceof binding.Engine));
    const caps = assertWire(createEngine({}, { ...PLAIN_CAPS, symlinks: 'sometimes' }));
    assert.equal(caps.data.field, 'caps.symlinks');
    assert.ok(newEngine(null, PLAIN_CAPS) instanceof binding.Engine, 'null options are the defaults');
    assert.ok(newEngine(undefined, {}) instanceof binding.Engine, 'missing caps flags are false');
  });

  test('an option the engine does not know converts, whatever JSON value it is, and is refused by name', () => {
    const unknown = assertWire(createEngine({ pastEnd: 'empty', host: { nested: [1, { deep: [null, 'x'] }] }, big: 10n }, PLAIN_CAPS));
    assert.equal(unknown.data.field, 'host');
    assert.equal(assertWire(createEngine({ big: 10n }, PLAIN_CAPS)).data.field, 'big');
  });

  test('hostInfo: the driver’s constants and the internal template, from the core', () => {
    const info = hostInfo();
    assert.ok(plain(info) && plain(info.fullCaps) && plain(info.internal));
    assert.equal(info.readMethod, 'fs/read_text_file');
    assert.equal(info.writeMethod, 'fs/write_text_file');
    assert.deepEqual(info.fullCaps, { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true });
    assert.equal(info.maxDepth, 128);
    assert.equal(info.maxValues, 1_000_000);
    assert.equal(info.loneSurrogate, 'is not valid Unicode (a lone surrogate)');
    assert.deepEqual(info.internal, { kind: 'internal', code: -32603, message: 'Internal error: {message}', data: { errorKind: 'internal' } });
    info.internal.message = 'changed';
    assert.equal(hostInfo().internal.message, 'Internal error: {message}', 'each caller gets its own copy');
    assert.deepEqual(assertWire(invalidParams('path', 'no')), {
      kind: 'invalid_params',
      code: -32602,
      message: 'Invalid params: path: no',
      data: { field: 'path', reason: 'no' },
    });
  });

  test('sessions and documents report bad input as wire errors, never throws', () => {
    const engine = newEngine(null, PLAIN_CAPS);
    assert.equal(engine.openSession(7, '/p', []).data.field, 'sessionId');
    assert.deepEqual(engine.openSession('s', 42, []).data, { field: 'cwd', reason: 'must be an absolute path string' });
    assert.equal(engine.openSession('s', 'relative', []).data.field, 'cwd');
    assert.equal(engine.openSession('s', '/p', '/q').data.field, 'additionalDirectories');
    assert.equal(engine.openSession('s', '/p', ['/q', 3]).data.field, 'additionalDirectories[1]');
    assert.equal(engine.openSession('s', '/p', undefined), null);
    assert.equal(engine.openSession(Symbol('s'), '/p', []).data.field, 'sessionId', 'no JSON form: named all the same');
    assert.equal(engine.openDocument('rel.txt', 'x').data.field, 'path');
    assert.equal(engine.openDocument('/p/a.txt', 5).data.field, 'text');
    assert.equal(engine.documentReloaded('/p/a.txt', null).data.field, 'text');
    assert.equal(engine.openDocument('/p/./a.txt', 'buffer'), null);
    assert.equal(engine.document('/p/a.txt'), 'buffer', 'documents are keyed by the normalized path');
    assert.equal(engine.document('/p/b.txt'), null);
    assert.equal(engine.document(12), null);
    assert.equal(engine.documentVersion('/p/a.txt'), 1);
    assert.equal(engine.documentVersion(() => 1), null);
    assert.equal(engine.documentSaved('/p/none.txt'), false);
    engine.closeDocument('/p/a.txt');
    assert.equal(engine.document('/p/a.txt'), null);
    engine.closeSession(3); // no session can have a non-string id: nothing to do, nothing thrown
  });

  test('answers are plain JS objects (JSON-compatible)', () => {
    const engine = newEngine({ readOnly: true }, PLAIN_CAPS);
    const caps = engine.capabilities();
    assert.ok(plain(caps));
    assert.deepEqual(caps, { readTextFile: true, writeTextFile: false });
    assert.equal(engine.start('session/new', {}), null);
    assert.equal(engine.start(17, {}), null);
    const err = engine.openSession('s', 'x', []);
    assert.ok(plain(err) && plain(err.data));
    assert.equal(engine.openSession('s', '/p', []), null);
    const tools = engine.mcpTools('s');
    assert.ok(Array.isArray(tools) && tools.every(plain) && plain(tools[0].inputSchema), 'maps are plain objects, not Maps');
  });

  test('params that are JSON values convert as JSON carries them; anything else is the driver’s bug, said so', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
    const start = (params) => engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...params });
    const read = (params) => drive(start(params), storage).outcome;
    assert.deepEqual(read({ line: 2n }).result, { content: 'two\n' }, 'a BigInt is a number');
    assert.deepEqual(read({ line: undefined, limit: null }).result, { content: 'one\ntwo\n' }, 'undefined is absent');
    // The driver leaves functions out and refuses what JSON cannot carry (see "package" below);
    // what still reaches the binding ends the request as an internal error naming the conversion.
    for (const [params, what] of [
      [{ line: 2, _meta: { f: () => 1 } }, /not JSON: invalid type: .*Function/],
      [{ _meta: { n: 2n ** 70n } }, /not JSON: .*BigInt/],
      [{ _meta: { s: Symbol('x') } }, /not JSON: invalid type/],
    ]) {
      const op = start(params);
      const out = drive(op, storage).outcome;
      assert.equal(out.error.kind, 'internal', String(what));
      assert.match(out.error.message, what);
      assert.equal('audit' in out, false, 'the audit event is asked for apart');
      assert.equal(op.audit().outcome, 'error');
    }
    assert.deepEqual(read({}).result, { content: 'one\ntwo\n' }, 'and the engine goes on');
  });

  test('params as deep as serde_json allows convert inside wasm without overflowing its stack', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    const nested = (levels) => {
      let meta = {};
      for (let i = 1; i < levels; i++) meta = { meta };
      return meta;
    };
    // The params object is level 1: `_meta` may nest 127 levels under it (hostInfo().maxDepth).
    for (let round = 0; round < 3; round++) {
      const { outcome } = drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', _meta: nested(127) }), storage);
      assert.deepEqual(outcome.result, { content: 'x' });
    }
    // Options convert as deep: the engine then judges the key (unknown) rather than the depth.
    assert.equal(assertWire(createEngine({ deny: [], extra: nested(127) }, PLAIN_CAPS)).data.field, 'extra');
  });

  test('dispatch classifies raw messages and refuses non-strings with a TypeError', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'hi\n' });
    assert.throws(() => engine.dispatch({ jsonrpc: '2.0' }), TypeError);
    assert.throws(() => engine.mcpDispatch(5, '{}'), TypeError);
    assert.throws(() => engine.mcpTools(null), TypeError);
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
    assert.ok(call.operation instanceof binding.Operation);
    const { outcome } = drive(call.operation, storage);
    assert.deepEqual(outcome.result, { content: 'hi\n' });
    assert.equal(outcome.reply, '{"jsonrpc":"2.0","id":7.50,"result":{"content":"hi\\n"}}', 'the outcome carries the reply');
  });

  test('mcpDispatch: a tools/call comes with its operation, whose outcome carries the tool result', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
    assert.deepEqual(Object.keys(engine.dispatch('{"jsonrpc":"2.0","method":"notifications/initialized"}')), ['kind']);
    const d = engine.mcpDispatch(
      's',
      '{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt","line":2}}}',
    );
    assert.deepEqual({ kind: d.kind, id: d.id, method: d.method }, { kind: 'call', id: '"r"', method: 'fs/read_text_file' });
    assert.equal('call' in d, false, 'no McpCall any more: the reply comes with the outcome');
    const { outcome } = drive(d.operation, storage);
    assert.deepEqual(outcome.result, { content: 'two\n' });
    const reply = JSON.parse(outcome.reply);
    assert.equal(reply.id, 'r');
    assert.deepEqual(reply.result, { content: [{ type: 'text', text: 'two\n' }], isError: false });
    const list = engine.mcpDispatch('s', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    assert.equal(list.kind, 'reply');
    assert.equal(list.operation, undefined);
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
      new Uint8Array(enc.encode(`xx${text}yy`).buffer, 2, 8),
    ];
    for (const bytes of views) {
      const op = read(engine, { line: 2 });
      assert.equal(op.audit(), null, 'no audit event before the request has begun');
      assert.deepEqual(op.step(), { io: { op: 'stat', path: '/p/a.txt', follow: true } });
      assert.deepEqual(op.step({ metadata: { kind: 'file', size: 8 } }), { io: { op: 'readAll', path: '/p/a.txt' } });
      assert.equal(op.audit(), null, 'no audit event while the request runs');
      const done = op.step({ bytes: true }, bytes).done;
      assert.deepEqual(done.result, { content: 'two\n' }, `bytes given as ${Object.prototype.toString.call(bytes)}`);
      assert.equal(done.change, null, 'None is null where the types say so');
      assert.equal('error' in done, false, 'an absent member is absent');
      assert.equal('audit' in done, false, 'the audit event is asked for apart');
      const audit = op.audit();
      assert.ok(plain(audit));
      assert.equal(audit.outcome, 'ok');
      assert.equal(audit.path, '/p/a.txt');
      assert.equal(audit.line, 2);
      assert.equal(audit.durationMs, null, 'the driver stamps the duration');
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
    assert.deepEqual(Object.keys(step.io).sort(), ['op', 'path', 'root'], 'the bytes are beside the io, not in it');
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
      [{ metadata: { kind: 'fifo', size: 1 } }, undefined],
      [{ path: 5 }, undefined],
      [{ bytes: true }, undefined],
      [{ bytes: true }, 'not bytes'],
      [{ bytes: true }, [1, 2, 3]],
      [undefined, undefined],
      [null, undefined],
      [() => 1, undefined],
    ];
    for (const [answer, bytes] of cases) {
      const op = read(engine);
      op.step();
      const done = op.step(answer, bytes).done;
      assert.ok(done, `answer ${String(answer)} / ${String(bytes)} ends it`);
      assert.equal(done.error.kind, 'internal');
      assert.equal(done.error.code, -32603);
      assert.match(done.error.message, /^Internal error: the driver sent a malformed answer: ./);
      assert.deepEqual(done.error.data, { errorKind: 'internal' });
      const audit = op.audit();
      assert.equal(audit.outcome, 'error');
      assert.equal(audit.errorKind, 'internal');
      assert.equal(audit.path, '/p/a.txt', 'the audit still names the request');
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
      { kind: c.error.kind, code: c.error.code, outcome: cancelled.audit().outcome },
      { kind: 'cancelled', code: -32800, outcome: 'cancelled' },
    );
    assert.equal(cancelled.step({ metadata: { kind: 'file', size: 1 } }).done.error.kind, 'internal');
    const twice = read(engine);
    twice.step();
    assert.equal(twice.step().done.error.kind, 'internal', 'a second step without an answer');
  });

  test('refuse and abort end the request, reported like any other; no io after them', () => {
    const { engine } = engineWith();
    const refused = read(engine, { line: 3, _meta: { traceparent: 't' } });
    const r = refused.refuse('path', 'no');
    assert.deepEqual(r.error, { kind: 'invalid_params', code: -32602, message: 'Invalid params: path: no', data: { field: 'path', reason: 'no' } });
    assert.equal(r.change, null);
    assert.equal('audit' in r, false);
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
    assert.equal(refused.step({ metadata: { kind: 'file', size: 1 } }).done.error.kind, 'internal', 'no io after a refusal');
    const aborted = read(engine);
    aborted.step();
    const a = aborted.abort('the driver lost its storage');
    assert.equal(a.error.kind, 'internal');
    assert.equal(a.error.message, 'Internal error: the driver lost its storage');
    assert.equal(aborted.audit().outcome, 'error');
    assert.equal(aborted.audit().errorKind, 'internal');
    const write = engine.start('fs/write_text_file', { sessionId: 's', path: '/p/w.txt', content: 'x' });
    assert.equal(write.refuse('content', 'is not valid Unicode (a lone surrogate)').error.kind, 'invalid_params');
    assert.equal(write.audit().op, 'write');
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
    assert.match(done.error.message, /2147483648 bytes do not fit/);
    const { engine: fresh, storage } = engineWith({ '/p/a.txt': 'still here' });
    assert.deepEqual(drive(read(fresh), storage).outcome.result, { content: 'still here' });
  });
});

headSuite({
  label: 'binding',
  read(params = {}) {
    const engine = newEngine({}, { ...PLAIN_CAPS, rangedReads: true });
    assert.equal(engine.openSession('s', '/p', []), null);
    return engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...params });
  },
  byteForms: [(b) => b, (b) => b.buffer, (b) => Buffer.from(b)],
});

startSuite({
  label: 'binding',
  engine() {
    const engine = newEngine({}, { ...PLAIN_CAPS, rangedReads: true, write: true, makeDirs: true });
    assert.equal(engine.openSession('s', '/p', []), null);
    return engine;
  },
});

describe('binding: traps', () => {
  // A stand-in for the generated module whose calls trap the way wasm does; the guard is what is
  // under test (a real panic cannot be provoked: the binding has no panicking path). Its hostInfo
  // is the real one, so the errors below are the core's template.
  function fakeModule({ panic, ...extra }) {
    const state = { panic, taken: 0, calls: 0, infos: 0, audits: 0 };
    // Operations are the raw engine's numbers.
    class RawEngine {
      start() {
        return 7;
      }
      startJson() {
        return 8;
      }
      step() {
        state.calls += 1;
        throw new WebAssembly.RuntimeError('unreachable');
      }
      audit() {
        state.audits += 1;
        return null;
      }
      cancel() {
        throw new WebAssembly.RuntimeError('unreachable');
      }
      release() {
        throw new Error('recursive use of an object detected which would lead to unsafe aliasing in rust');
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
      hostInfo() {
        state.infos += 1;
        return wasmModule.hostInfo();
      },
      createEngine(options) {
        if (options?.trapHere) throw new WebAssembly.RuntimeError('unreachable');
        return new RawEngine();
      },
      __takePanicMessage() {
        state.taken += 1;
        const p = state.panic;
        state.panic = undefined;
        return p;
      },
      ...extra,
    };
    return { raw, state };
  }

  /** The guarded binding over a fake module, instantiated. */
  function guarded(fake) {
    const g = guardBinding(fake.raw);
    g.ready();
    return g.binding;
  }

  const internal = (message) => ({ kind: 'internal', code: -32603, message: `Internal error: ${message}`, data: { errorKind: 'internal' } });

  test('a panic becomes an internal outcome with its message; the engine keeps serving', () => {
    const fake = fakeModule({ panic: 'panicked at core/src/window.rs:1:1: boom $& $1' });
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    assert.ok(engine instanceof b.Engine);
    const op = engine.start('fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'x', line: 3 });
    const done = op.step().done;
    // `$&` and `$1` are text, not replacement patterns.
    assert.deepEqual(done.error, internal('the wasm engine panicked: panicked at core/src/window.rs:1:1: boom $& $1'));
    assert.equal(done.change, null);
    assert.equal('audit' in done, false);
    // The engine cannot say what the request was: the guard's event echoes the params.
    assert.deepEqual(op.audit(), {
      op: 'write',
      sessionId: 's',
      path: '/p/a.txt',
      line: 3,
      limit: null,
      bytes: 0,
      outcome: 'error',
      errorKind: 'internal',
      durationMs: null,
    });
    assert.equal(op.step({ done: true }).done.error.message, 'Internal error: the operation has already finished');
    assert.equal(op.audit().errorKind, 'internal', 'still the event of the trap');
    assert.equal(fake.state.calls, 1, 'a trapped operation is not entered again');
    assert.equal(fake.state.audits, 0, 'its audit() is not entered either');
    op.free(); // the raw engine is stuck borrowed after a trap: releasing the operation must not throw
    assert.deepEqual(engine.capabilities(), { readTextFile: true, writeTextFile: true }, 'still serving');
    assert.throws(() => engine.dispatch(5), TypeError, 'ordinary errors pass through untouched');
    assert.equal(fake.state.infos, 1, 'the template was fetched once, at load');
  });

  test('startJson is guarded the same way: the audit of a trap echoes the params of its text', () => {
    const fake = fakeModule({ panic: 'boom' });
    const engine = guarded(fake).createEngine({}, FULL_CAPS);
    const op = engine.startJson('fs/read_text_file', '{"sessionId":"s","path":"/p/a.txt","line":2}');
    assert.match(op.step().done.error.message, /the wasm engine panicked: boom/);
    const { sessionId, path, line } = op.audit();
    assert.deepEqual({ sessionId, path, line }, { sessionId: 's', path: '/p/a.txt', line: 2 });
    fake.state.panic = 'again';
    const bad = engine.startJson('fs/read_text_file', '{oops');
    assert.match(bad.step().done.error.message, /the wasm engine panicked: again/);
    assert.equal(bad.audit().path, null, 'text that is not JSON echoes nothing');
    assert.equal(bad.audit().errorKind, 'internal');
  });

  test('any other trap disables the engine: every later call is an internal error value', () => {
    const fake = fakeModule({ panic: undefined });
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    const wire = assertWire(engine.openSession('s', '/p', []));
    assert.equal(wire.kind, 'internal');
    assert.match(wire.message, /^Internal error: the wasm engine trapped \(Maximum call stack size exceeded\) and is disabled/);
    const op = engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    const done = op.step().done;
    assert.equal(done.error.kind, 'internal');
    assert.match(done.error.message, /disabled/);
    assert.equal(op.audit().path, '/p/a.txt');
    assert.equal(op.audit().errorKind, 'internal');
    assert.match(thrownWire(() => engine.capabilities()).message, /disabled/, 'a call with no error in its answer throws the value');
    assert.match(thrownWire(() => engine.dispatch('{}')).message, /disabled/);
    assert.match(assertWire(b.createEngine({}, FULL_CAPS)).message, /disabled/, 'createEngine answers with it, never throws');
    assert.match(assertWire(b.invalidParams('a', 'b')).message, /disabled/);
    assert.equal(b.hostInfo().readMethod, 'fs/read_text_file', 'the constants are still known');
    assert.equal(fake.state.infos, 1, 'a disabled instance is not asked again');
    engine.free(); // not entered: nothing thrown
  });

  test('audit() is guarded too: a trap in it ends the operation, and the event is the guard’s', () => {
    const fake = fakeModule({ panic: 'panicked at core/src/host.rs:1:1: boom' });
    class RawEngine extends fake.raw.Engine {
      audit() {
        throw new WebAssembly.RuntimeError('unreachable');
      }
      step() {
        fake.state.calls += 1;
        return { io: { op: 'readAll', path: '/p/a.txt' } };
      }
      release() {}
    }
    fake.raw.Engine = RawEngine;
    fake.raw.createEngine = () => new RawEngine();
    const b = guarded(fake);
    const op = b.createEngine({}, FULL_CAPS).start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', limit: 5 });
    assert.deepEqual(op.step(), { io: { op: 'readAll', path: '/p/a.txt' } });
    assert.deepEqual(op.audit(), {
      op: 'read',
      sessionId: 's',
      path: '/p/a.txt',
      line: null,
      limit: 5,
      bytes: 0,
      outcome: 'error',
      errorKind: 'internal',
      durationMs: null,
    });
    assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.message, 'Internal error: the operation has already finished');
    assert.equal(fake.state.calls, 1, 'a trapped operation is not entered again');
    op.free();
  });

  test('a trap in createEngine is the internal error value it answers with', () => {
    const b = guarded(fakeModule({ panic: 'bad state' }));
    assert.deepEqual(assertWire(b.createEngine({ trapHere: true }, FULL_CAPS)), internal('the wasm engine panicked: bad state'));
    assert.ok(b.createEngine({}, FULL_CAPS) instanceof b.Engine, 'after a panic it goes on');
  });

  test('an engine made before the module is instantiated says how to fix it', () => {
    const fake = fakeModule({});
    const { binding: early, ready, isReady } = guardBinding(fake.raw);
    assert.equal(isReady(), false);
    assert.throws(() => early.createEngine({}, FULL_CAPS), /not initialized: `await init\(\)` before creating an AcpFs/);
    assert.throws(() => early.hostInfo(), /not initialized: `await init\(\)`/);
    assert.throws(() => early.toolDefinitions({}), /not initialized: `await init\(\)` before calling toolDefinitions/);
    assert.equal(fake.state.infos, 0, 'nothing is asked of a module that is not there');
    ready();
    assert.equal(isReady(), true);
    assert.ok(early.createEngine({}, FULL_CAPS) instanceof early.Engine);
    assert.throws(() => new early.Engine({}), TypeError, 'engines come from createEngine');
  });

  test('the MCP calls, refuse/abort and the agent functions are guarded the same way', () => {
    let panic = 'panicked at core/src/mcp.rs:1:1: boom';
    const trap = () => {
      throw new WebAssembly.RuntimeError('unreachable');
    };
    const fake = fakeModule({
      toolResult: trap,
      checkToolArguments: trap,
      buildRequest: trap,
      __takePanicMessage: () => [panic, (panic = undefined)][0],
    });
    class RawEngine extends fake.raw.Engine {
      mcpTools = trap;
      refuse = trap;
      abort = trap;
      release() {}
      mcpDispatch() {
        return { kind: 'call', id: '1', method: 'fs/write_text_file', operation: 3 };
      }
    }
    fake.raw.Engine = RawEngine;
    fake.raw.createEngine = () => new RawEngine();
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    const d = engine.mcpDispatch('s', '{}');
    assert.ok(d.operation instanceof b.Operation);
    const refused = d.operation.refuse('path', 'no');
    assert.equal(refused.error.kind, 'internal');
    assert.match(refused.error.message, /panicked at core\/src\/mcp\.rs/);
    assert.equal('audit' in refused, false);
    assert.equal(d.operation.audit().op, 'write', 'the audit says which request it was');
    assert.match(d.operation.abort('x').error.message, /already finished/, 'a trapped operation is not entered again');
    d.operation.free();
    // No panic message this time: the instance is disabled.
    assert.match(b.checkToolArguments('read_text_file', 's', {}).error.message, /disabled/, '{error}: the answer carries it');
    assert.match(b.buildRequest({}, 'read_text_file', 's', {}).error.message, /disabled/);
    assert.match(thrownWire(() => b.toolResult('read_text_file', {}, {})).message, /disabled/);
    assert.match(thrownWire(() => engine.mcpTools('s')).message, /disabled/);
    assert.match(thrownWire(() => engine.mcpDispatch('s', '{}')).message, /disabled/);
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
// What the binding no longer does itself: the driver walks every value once (hostInfo()'s limits
// and lone-surrogate rule) before the binding converts it, so no value can overflow the wasm
// stack, hang the conversion, or lose a lone surrogate to U+FFFD. These held at the binding
// before; they hold for the package now.

describe('package: values are walked by the driver before the binding converts them', () => {
  /** A package instance over a Map storage with these files, rooted at /p. */
  function fsWith(files = {}, options = {}) {
    const storage = new MapStorage({ ranged: false });
    for (const [p, text] of Object.entries(files)) storage.put(p, enc.encode(text));
    return { fs: new AcpFs({ storage, roots: ['/p'], ...options }), storage };
  }

  const failure = (promise) =>
    promise.then(
      (r) => assert.fail(`resolved ${JSON.stringify(r)}`),
      (e) => {
        assert.ok(e instanceof AcpFsError, `an AcpFsError, not ${e}`);
        return e;
      },
    );

  const nested = (levels) => {
    let meta = {};
    for (let i = 1; i < levels; i++) meta = { meta };
    return meta;
  };

  test('an unknown option may be anything (functions, cycles, host objects): it is refused by name', async () => {
    const cyclic = {};
    cyclic.self = cyclic;
    for (const [key, value] of [['onSomething', () => 1], ['host', cyclic], ['big', 10n]]) {
      let err;
      try {
        fsWith({}, { pastEnd: 'empty', [key]: value });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AcpFsError, `an AcpFsError, not ${err}`);
      assert.deepEqual([err.code, err.data.field], ['invalid_params', key]);
    }
    const { fs } = fsWith({ '/p/a.txt': 'one\n' }, { pastEnd: 'empty' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 9 }), { content: '' });
  });

  test('an option too deeply nested to convert is a precise error, and the module lives on', async () => {
    let deny = [];
    for (let i = 0; i < 100000; i++) deny = [deny];
    // Repeated: a stack overflow inside wasm would leave the instance corrupt after the first.
    for (let round = 0; round < 3; round++) {
      let err;
      try {
        fsWith({}, { deny });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AcpFsError, `an AcpFsError, not ${err}`);
      assert.equal(err.code, 'invalid_params');
      assert.equal(err.data.field, 'deny');
    }
    const { fs } = fsWith({ '/p/a.txt': 'one\ntwo\n' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 2 }), { content: 'two\n' });
  });

  test('params: a function is left out, as JSON leaves it; a cycle is invalid params naming its field', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'one\ntwo\n' });
    const read = (params) => fs.readTextFile({ sessionId: 's', path: '/p/a.txt', ...params });
    assert.deepEqual(await read({ line: 2, _meta: { f: () => 1 } }), { content: 'two\n' });
    assert.deepEqual(await read({ line: undefined, limit: null }), { content: 'one\ntwo\n' }, 'undefined is absent');
    const cyclic = {};
    cyclic.self = cyclic;
    const refused = await failure(read({ _meta: cyclic }));
    assert.equal(refused.code, 'invalid_params');
    assert.equal(refused.data.field, '_meta', 'the field it sits under');
    assert.match(refused.data.reason, /cyclic/);
  });

  test('a lone surrogate is invalid params naming the field, never silently replaced (§8.1)', async () => {
    const { fs, storage } = fsWith({ '/p/a.txt': 'before' });
    const write = (params) => fs.writeTextFile({ sessionId: 's', path: '/p/a.txt', content: 'ok', ...params });
    for (const [params, field] of [
      [{ content: 'a\uD800b' }, 'content'],
      [{ content: 'end\uDC00' }, 'content'],
      [{ path: '/p/\uD800.txt' }, 'path'],
      [{ _meta: { note: ['x', '\uDBFF'] } }, '_meta'],
    ]) {
      const err = await failure(write(params));
      assert.equal(err.code, 'invalid_params', JSON.stringify(params));
      assert.equal(err.data.field, field);
      assert.match(err.data.reason, /lone surrogate/);
    }
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'before', 'nothing was written');
    assert.deepEqual(await write({ content: 'pair \uD83D\uDE00 kept' }), {}, 'a surrogate pair is text');
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'pair 😀 kept');
    assert.deepEqual(await write({ content: 'a real \uFFFD is text' }), {});
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'a real \uFFFD is text');
    assert.equal((await failure(write({ _meta: { ['k\uD800']: 1 } }))).data.field, '_meta', 'keys are text too');
  });

  test('params as deep as serde_json allows pass; deeper or exploding ones are refused, never overflow', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'x' });
    const read = (params) => fs.readTextFile({ sessionId: 's', path: '/p/a.txt', ...params });
    // The params object is level 1: `_meta` may nest 127 levels under it, as in the N-API binding.
    assert.deepEqual(await read({ _meta: nested(127) }), { content: 'x' });
    assert.match((await failure(read({ _meta: nested(128) }))).data.reason, /nested deeper than 128 levels/);
    // Shared objects: 40 levels of {a: o, b: o} are 40 objects in memory and 2^40 values walked.
    let dag = { leaf: 1 };
    for (let i = 0; i < 40; i++) dag = { a: dag, b: dag };
    assert.match((await failure(read({ _meta: dag }))).data.reason, /more than 1000000 values/);
  });

  test('deeply nested params from an agent are refused, not a stack overflow', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'x' });
    const err = await failure(fs.readTextFile({ sessionId: 's', path: '/p/a.txt', _meta: nested(50000) }));
    assert.equal(err.code, 'invalid_params');
    assert.equal(err.data.field, '_meta');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'x' });
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
