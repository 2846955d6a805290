// The wasm binding (docs/binding-interface.md) as the driver calls it: the guarded module
// (lib/engine.mjs), its engines and operations.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import assert from 'node:assert/strict';
import vm from 'node:vm';
import { describe, test } from 'node:test';
// The Node entry instantiates the module on import, as the tests need it.
import '../../npm/wasm/node.mjs';
import { binding } from '../../npm/wasm/lib/api.mjs';
import { MapStorage } from './harness.mjs';
import { headSuite } from './suite-head.mjs';
import { startSuite } from './suite-start.mjs';
import { assertWire, plain } from './wire-values.mjs';

const enc = new TextEncoder();
const PLAIN_CAPS = { symlinks: 'none', stat: true, rangedReads: false, write: true, makeDirs: true };

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

  test('options the engine does not read may be any JSON value', () => {
    const engine = newEngine({ host: { nested: [1, { deep: [null, 'x'] }] }, big: 10n, pastEnd: 'empty' }, PLAIN_CAPS);
    assert.equal(engine.openSession('s', '/p', []), null);
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
    const options = newEngine({ deny: [], extra: nested(127) }, PLAIN_CAPS);
    assert.equal(options.openSession('s', '/p', []), null);
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
