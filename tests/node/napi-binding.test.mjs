// The low-level interface of the N-API addon, exactly as docs/binding-interface.md states it:
// createEngine, Engine, Operation.step/audit/cancel/refuse/abort, dispatch and mcpDispatch,
// runOnDisk on the libuv pool, the agent functions. Nothing here throws for bad input: bad options are
// returned as the error value, and malformed answers, bytes or params and steps after the end
// become `internal` outcomes.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTempDir } from './harness.mjs';
import { headSuite } from './suite-head.mjs';
import { startSuite } from './suite-start.mjs';

const require = createRequire(import.meta.url);
const binding = require('../../npm/node/binding.js');
const { createEngine, Engine, Operation } = binding;

const FULL = { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true };
const MINIMAL = { symlinks: 'none', stat: false, rangedReads: false, write: true, makeDirs: false };

function engine(caps = MINIMAL, options = {}) {
  const e = createEngine(options, caps);
  assert.ok(e instanceof Engine, JSON.stringify(e));
  assert.equal(e.openSession('s', '/p', []), null);
  return e;
}

describe('napi binding: exports', () => {
  test('exactly the interface of docs/binding-interface.md', () => {
    const functions = ['hostInfo', 'invalidParams', 'createEngine', 'clientFsCapabilities', 'toolDefinitions', 'checkToolArguments', 'buildRequest', 'toolResult'];
    // __napiBindingTarget is the loader's (napi build), not the addon's.
    const own = Object.keys(binding).filter((k) => k !== '__napiBindingTarget');
    assert.deepEqual(own.sort(), [...functions, 'Engine', 'Operation'].sort());
    for (const name of functions) assert.equal(typeof binding[name], 'function', name);
    const methods = (C) => Object.getOwnPropertyNames(C.prototype).filter((k) => k !== 'constructor').sort();
    assert.deepEqual(
      methods(Engine),
      ['openSession', 'closeSession', 'openDocument', 'documentReloaded', 'documentSaved', 'documentVersion', 'closeDocument', 'document', 'capabilities', 'start', 'startJson', 'dispatch', 'mcpTools', 'mcpDispatch'].sort(),
    );
    assert.deepEqual(methods(Operation), ['step', 'audit', 'cancel', 'refuse', 'abort', 'runOnDisk', 'stop'].sort());
    // Engines come from createEngine, operations from an engine.
    assert.throws(() => new Engine());
    assert.throws(() => new Operation());
  });

  test('hostInfo(): the driver constants, as the driver tests assume them', () => {
    assert.deepEqual(binding.hostInfo(), {
      readMethod: 'fs/read_text_file',
      writeMethod: 'fs/write_text_file',
      fullCaps: FULL,
      maxDepth: 128,
      maxValues: 1_000_000,
      loneSurrogate: 'is not valid Unicode (a lone surrogate)',
      internal: { kind: 'internal', code: -32603, message: 'Internal error: {message}', data: { errorKind: 'internal' } },
      cancelled: { kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null },
    });
  });

  test('invalidParams(): -32602 naming the field', () => {
    assert.deepEqual(binding.invalidParams('path', 'must be a string'), {
      kind: 'invalid_params',
      code: -32602,
      message: 'Invalid params: path: must be a string',
      data: { field: 'path', reason: 'must be a string' },
    });
  });
});

describe('napi binding: Engine', () => {
  test('a bad option or cap is returned as the wire error, never thrown', () => {
    for (const [options, caps, field] of [
      [{ maxReadBytes: 'lots' }, FULL, 'maxReadBytes'],
      [{}, { ...FULL, symlinks: 'maybe' }, 'caps.symlinks'],
      [{ roots: ['relative'] }, FULL, 'roots'],
    ]) {
      const wire = createEngine(options, caps);
      assert.ok(!(wire instanceof Engine));
      assert.equal(wire.kind, 'invalid_params');
      assert.equal(wire.code, -32602);
      assert.equal(wire.data.field, field);
      assert.match(wire.message, new RegExp(`^Invalid params: ${field.replace('.', '\\.')}: `));
    }
    assert.ok(createEngine(null, FULL) instanceof Engine);
    assert.ok(createEngine(undefined, FULL) instanceof Engine);
    // Missing caps are a storage that can do nothing but whole-file reads.
    assert.deepEqual(createEngine({}, {}).capabilities(), { readTextFile: true, writeTextFile: false });
  });

  test('sessions, documents and capabilities', () => {
    const e = createEngine({}, FULL);
    assert.equal(e.openSession('a', '/p', ['/q']), null);
    assert.deepEqual(e.openSession('a', 'rel', []).data, { field: 'cwd', reason: e.openSession('a', 'rel', []).data.reason });
    assert.equal(e.openSession('a', '/p', ['/q', 3]).data.field, 'additionalDirectories[1]');
    assert.equal(e.openSession('a', '/p', 'not a list').data.field, 'additionalDirectories');
    assert.equal(e.openSession(42, '/p', []).data.field, 'sessionId');
    assert.equal(e.openSession('b', '/p'), null, 'additionalDirectories may be left out');
    assert.equal(e.openDocument('/p/./d.txt', 'text'), null);
    assert.equal(e.document('/p/d.txt'), 'text');
    const version = e.documentVersion('/p/d.txt');
    assert.equal(typeof version, 'number');
    assert.equal(e.documentReloaded('/p/d.txt', 'again'), null);
    assert.equal(e.document('/p/d.txt'), 'again');
    assert.ok(e.documentVersion('/p/d.txt') > version);
    assert.equal(e.documentSaved('/p/d.txt'), true);
    assert.equal(e.documentReloaded('/p/d.txt', 7).data.field, 'text');
    e.closeDocument('/p/d.txt');
    assert.equal(e.document('/p/d.txt'), null);
    assert.equal(e.documentVersion('/p/d.txt'), null);
    assert.equal(e.documentSaved('/p/d.txt'), false);
    assert.equal(e.documentSaved(5), false);
    assert.equal(e.openDocument('d.txt', 'x').kind, 'invalid_params');
    assert.equal(e.openDocument('/p/d.txt', null).data.field, 'text');
    assert.deepEqual(e.capabilities(), { readTextFile: true, writeTextFile: true });
    assert.deepEqual(createEngine({ readOnly: true }, FULL).capabilities(), { readTextFile: true, writeTextFile: false });
    assert.deepEqual(createEngine({}, { ...FULL, write: false }).capabilities(), { readTextFile: true, writeTextFile: false });
    e.closeSession('a');
    e.closeSession(undefined);
  });

  test('start(): an Operation for the fs methods, null otherwise', () => {
    const e = engine();
    assert.ok(e.start('fs/read_text_file', { sessionId: 's', path: '/p/a' }) instanceof Operation);
    assert.ok(e.start('fs/write_text_file', null) instanceof Operation);
    assert.ok(e.start('fs/write_text_file') instanceof Operation);
    assert.equal(e.start('session/prompt', {}), null);
  });

  test('start(): params the binding cannot convert end the request as internal', () => {
    const cyclic = { sessionId: 's', path: '/p/a.txt' };
    cyclic.self = cyclic;
    for (const params of [cyclic, { sessionId: 's', path: '/p/a.txt', f() {} }]) {
      const op = engine().start('fs/read_text_file', params);
      const { done } = op.step();
      assert.equal(done.error.kind, 'internal');
      assert.match(done.error.message, /not JSON/);
      assert.equal('audit' in done, false, 'the audit event is asked for apart');
      assert.equal(op.audit().outcome, 'error');
    }
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
    assert.deepEqual(Object.keys(call).sort(), ['id', 'kind', 'method', 'operation']);
    assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'), {
      kind: 'cancel',
      id: '7',
    });
  });

  test("dispatch(): a call's outcome carries the JSON-RPC reply, with the raw id", () => {
    const e = engine();
    const bad = e.dispatch('{"jsonrpc":"2.0","id":"x\\u0041","method":"fs/read_text_file","params":{}}');
    const { done } = bad.operation.step();
    assert.equal(done.error.code, -32602);
    assert.ok(done.reply.includes('"id":"x\\u0041"'), done.reply);
    assert.deepEqual(JSON.parse(done.reply), { jsonrpc: '2.0', id: 'xA', error: { code: -32602, message: done.error.message, data: done.error.data } });
    const good = e.dispatch('{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}');
    assert.equal(good.operation.step().io.op, 'readAll');
    const ok = good.operation.step({ bytes: true }, new TextEncoder().encode('hi\n')).done;
    assert.deepEqual(ok.result, { content: 'hi\n' });
    assert.deepEqual(JSON.parse(ok.reply), { jsonrpc: '2.0', id: 9, result: { content: 'hi\n' } });
    // A request started by hand has no message to answer.
    const byHand = e.start('fs/read_text_file', {});
    assert.equal('reply' in byHand.step().done, false);
  });

  test("mcpTools() and mcpDispatch(): a tools/call's outcome carries the tool result reply", () => {
    const e = engine();
    const tools = e.mcpTools('s');
    assert.deepEqual(tools.map((t) => t.name).sort(), ['read_text_file', 'write_text_file']);
    assert.match(tools[0].description, /\/p/);
    const list = e.mcpDispatch('s', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    assert.equal(list.kind, 'reply');
    assert.deepEqual(JSON.parse(list.reply).result.tools, tools);
    assert.deepEqual(e.mcpDispatch('s', '{"jsonrpc":"2.0","id":1,"result":{}}'), { kind: 'notMine' });
    assert.deepEqual(e.mcpDispatch('s', '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}'), {
      kind: 'cancel',
      id: '4',
    });
    const call = e.mcpDispatch('s', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: '/p/a.txt' } } }));
    assert.equal(call.kind, 'call');
    assert.equal(call.id, '3');
    assert.equal(call.method, 'fs/read_text_file');
    assert.ok(call.operation instanceof Operation);
    assert.equal(call.operation.step().io.op, 'readAll');
    const { done } = call.operation.step({ bytes: true }, new TextEncoder().encode('hi\n'));
    assert.deepEqual(done.result, { content: 'hi\n' });
    const reply = JSON.parse(done.reply);
    assert.equal(reply.id, 3);
    assert.equal(reply.result.isError, false);
    assert.equal(reply.result.content[0].text, 'hi\n');
    // A failed call is a tool error in the reply, not a JSON-RPC error.
    const missing = e.mcpDispatch('s', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: '/p/a.txt' } } }));
    missing.operation.step();
    const failed = missing.operation.step({ error: { code: 'ENOENT', message: 'gone' } }).done;
    assert.equal(failed.error.kind, 'not_found');
    assert.equal(JSON.parse(failed.reply).result.isError, true);
  });
});

describe('napi binding: Operation.step', () => {
  test('a read names its io and is resumed with bytes (Uint8Array or Buffer)', () => {
    for (const wrap of [(b) => new Uint8Array(b), (b) => Buffer.from(b), (b) => new Uint8Array([0, ...b, 0]).subarray(1, b.length + 1)]) {
      const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2 });
      assert.equal(op.audit(), null, 'no audit event before the request has begun');
      const first = op.step();
      assert.deepEqual(first, { io: { op: 'readAll', path: '/p/a.txt' } });
      assert.equal(op.audit(), null, 'no audit event while the request runs');
      const last = op.step({ bytes: true }, wrap(new TextEncoder().encode('one\ntwo\n')));
      assert.deepEqual(last.done.result, { content: 'two\n' });
      assert.equal(last.done.error, undefined);
      assert.equal(last.done.change, null);
      assert.deepEqual(Object.keys(last.done).sort(), ['change', 'result'], 'the outcome carries no audit event');
      const audit = op.audit();
      assert.equal(audit.op, 'read');
      assert.equal(audit.outcome, 'ok');
      assert.equal(audit.path, '/p/a.txt');
      assert.equal(audit.line, 2);
      assert.equal(audit.durationMs, null, 'the driver stamps the duration');
      assert.deepEqual(op.audit(), audit, 'asked again, the same event');
    }
  });

  test('a write hands its bytes beside the io and asks for approval first', () => {
    const op = engine().start('fs/write_text_file', { sessionId: 's', path: '/p/n.txt', content: 'héllo' });
    let step = op.step();
    assert.equal(step.io.op, 'readAll');
    step = op.step({ error: { code: 'ENOENT', message: 'no such file' } });
    assert.equal(step.io.op, 'approve');
    assert.deepEqual(step.io.change, { sessionId: 's', path: '/p/n.txt', created: true, oldText: null, newText: 'héllo' });
    assert.equal('bytes' in step, false);
    step = op.step({ approved: true });
    // The write names the checked real path and the root it lies under (semantics.md §8.2).
    assert.deepEqual(step.io, { op: 'write', root: '/p', path: '/p/n.txt' });
    assert.ok(step.bytes instanceof Uint8Array);
    assert.equal(Buffer.from(step.bytes).toString('utf8'), 'héllo');
    step = op.step({ done: true });
    assert.deepEqual(step.done.result, {});
    assert.equal(step.done.change.created, true);
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

  test('malformed answers, missing or malformed bytes and steps after the end are internal outcomes', () => {
    for (const [answer, bytes] of [
      [{ bogus: 1 }],
      [{ bytes: true }],
      [null],
      [undefined],
      [42],
      ['bytes'],
      [{ metadata: { kind: 'file' } }],
      [{ approved: 'yes' }],
      [{ bytes: true }, 'not bytes'],
      [{ bytes: true }, {}],
      [{ bytes: true }, 42],
    ]) {
      const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      op.step();
      const r = op.step(answer, bytes);
      const what = `${JSON.stringify(answer)} ${JSON.stringify(bytes)}`;
      assert.equal(r.done.error.kind, 'internal', what);
      assert.equal(r.done.error.code, -32603);
      assert.match(r.done.error.message, /malformed answer/, what);
      assert.equal(op.audit().outcome, 'error');
      assert.equal(op.audit().errorKind, 'internal');
      assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
    }
  });

  test('the first step needs no answer, and ignores one', () => {
    const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    assert.deepEqual(op.step({ bogus: true }, 'not bytes'), { io: { op: 'readAll', path: '/p/a.txt' } });
  });

  test('cancel(): -32800 now, internal afterwards', () => {
    const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    op.step();
    const out = op.cancel();
    assert.equal(out.error.kind, 'cancelled');
    assert.equal(out.error.code, -32800);
    assert.equal('audit' in out, false);
    assert.equal(op.audit().outcome, 'cancelled');
    assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
  });

  test('refuse(): -32602 naming the field, reported like any request; no io after it', () => {
    const op = engine().start('fs/write_text_file', { sessionId: 's', path: '/p/n.txt', content: 'x' });
    const out = op.refuse('content', 'is not valid Unicode (a lone surrogate)');
    assert.deepEqual(out.error, binding.invalidParams('content', 'is not valid Unicode (a lone surrogate)'));
    assert.equal(out.result, undefined);
    assert.equal(out.change, null);
    assert.equal('audit' in out, false);
    assert.equal(op.audit().op, 'write');
    assert.equal(op.audit().outcome, 'error');
    assert.equal(op.audit().errorKind, 'invalid_params');
    assert.equal(op.step().done.error.kind, 'internal');
  });

  test('abort(): the driver broke, internal with its reason', () => {
    const op = engine().start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    op.step();
    const out = op.abort('the storage adapter returned a number');
    assert.equal(out.error.kind, 'internal');
    assert.equal(out.error.code, -32603);
    assert.match(out.error.message, /the storage adapter returned a number/);
    assert.equal('audit' in out, false);
    assert.equal(op.audit().errorKind, 'internal');
    assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.kind, 'internal');
  });
});

headSuite({
  label: 'napi binding',
  read: (params = {}) =>
    engine({ symlinks: 'none', stat: true, rangedReads: true, write: true, makeDirs: false }).start('fs/read_text_file', {
      sessionId: 's',
      path: '/p/a.txt',
      ...params,
    }),
  byteForms: [(b) => b, (b) => Buffer.from(b)],
});

startSuite({
  label: 'napi binding',
  engine() {
    const e = engine({ symlinks: 'none', stat: true, rangedReads: true, write: true, makeDirs: true });
    assert.equal(e.openSession('s', '/p', []), null);
    return e;
  },
});

describe('napi binding: agent functions', () => {
  test('capabilities, tool definitions, requests and tool results', () => {
    assert.deepEqual(binding.clientFsCapabilities({ fs: { readTextFile: true, writeTextFile: 'yes' } }), { readTextFile: true, writeTextFile: false });
    assert.deepEqual(binding.clientFsCapabilities(undefined), { readTextFile: false, writeTextFile: false });
    const tools = binding.toolDefinitions({ readTextFile: true, writeTextFile: true });
    assert.deepEqual(tools.map((t) => t.name).sort(), ['read_text_file', 'write_text_file']);
    assert.deepEqual(binding.toolDefinitions({ readTextFile: true }).map((t) => t.name), ['read_text_file']);
    const request = binding.checkToolArguments('read_text_file', 's', { path: '/p/a.txt', line: 2 });
    assert.equal(request.method, 'fs/read_text_file');
    assert.equal(request.params.sessionId, 's');
    assert.equal(request.params.path, '/p/a.txt');
    assert.equal(binding.checkToolArguments('read_text_file', 's', { path: 7 }).error.code, -32602);
    assert.equal(binding.buildRequest({ readTextFile: true }, 'write_text_file', 's', { path: '/p/a', content: 'x' }).error.code, -32601);
    assert.equal(binding.buildRequest({ writeTextFile: true }, 'write_text_file', 's', { path: '/p/a', content: 'x' }).method, 'fs/write_text_file');
    const ok = binding.toolResult('read_text_file', { path: '/p/a.txt' }, { result: { content: 'hi' } });
    assert.equal(ok.isError, false);
    assert.equal(ok.content[0].text, 'hi');
    assert.equal(binding.toolResult('read_text_file', { path: '/p/a.txt' }, { error: { code: -32002, message: 'gone' } }).isError, true);
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
