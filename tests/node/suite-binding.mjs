// The low-level interface of a binding, exactly as docs/binding-interface.md states it: one suite
// for the napi addon (napi-binding.test.mjs) and the guarded wasm module (wasm-binding.test.mjs),
// which must agree word for word: createEngine, Engine, dispatch and mcpDispatch and the agent
// functions here; Operation.step/audit/cancel/refuse/abort (suite-operation.mjs), the open's head
// (suite-head.mjs) and startJson (suite-start.mjs) beside it. Nothing here throws for bad input:
// bad options are returned as the error value, and malformed answers, bytes or params and steps
// after the end become `internal` outcomes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { drive, engines, FULL_CAPS, PLAIN_CAPS } from './engines.mjs';
import { headSuite } from './suite-head.mjs';
import { operationSuite } from './suite-operation.mjs';
import { startSuite } from './suite-start.mjs';
import { assertWire, plain } from './wire-values.mjs';

/**
 * Registers the suite. `binding` is the low-level interface; `methods` the methods its classes
 * have beyond the shared ones (`{Engine: [...], Operation: [...]}`), and `functions` its
 * functions beyond them; `byteForms` the shapes of bytes it takes (functions of a Uint8Array).
 */
export function bindingSuite({ label, binding, methods, functions: own = [], byteForms }) {
  const { Engine, Operation } = binding;
  const { newEngine, engine, engineWith } = engines(binding);
  const read = (e, extra = {}) => e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...extra });

  describe(`${label}: exports`, () => {
    test('exactly the interface of docs/binding-interface.md', () => {
      const functions = ['hostInfo', 'invalidParams', 'createEngine', 'clientFsCapabilities', 'toolDefinitions', 'checkToolArguments', 'buildRequest', 'toolResult', ...own];
      // `__`-names are a loader's (napi build's __napiBindingTarget), not the interface's.
      const keys = Object.keys(binding).filter((k) => !k.startsWith('__'));
      assert.deepEqual(keys.sort(), [...functions, 'Engine', 'Operation'].sort());
      for (const name of functions) assert.equal(typeof binding[name], 'function', name);
      const methodsOf = (C) => Object.getOwnPropertyNames(C.prototype).filter((k) => k !== 'constructor').sort();
      assert.deepEqual(
        methodsOf(Engine),
        ['openSession', 'closeSession', 'openDocument', 'documentReloaded', 'documentSaved', 'documentVersion', 'closeDocument', 'document', 'capabilities', 'start', 'startJson', 'dispatch', 'mcpTools', 'mcpDispatch', ...methods.Engine].sort(),
      );
      assert.deepEqual(methodsOf(Operation), ['step', 'audit', 'cancel', 'refuse', 'abort', ...methods.Operation].sort());
      // Engines come from createEngine.
      assert.throws(() => new Engine());
    });

    test('hostInfo(): the driver constants and the internal template, from the core', () => {
      const info = binding.hostInfo();
      assert.ok(plain(info) && plain(info.fullCaps) && plain(info.internal));
      assert.deepEqual(info, {
        readMethod: 'fs/read_text_file',
        writeMethod: 'fs/write_text_file',
        fullCaps: FULL_CAPS,
        maxDepth: 128,
        maxValues: 1_000_000,
        loneSurrogate: 'is not valid Unicode (a lone surrogate)',
        internal: { kind: 'internal', code: -32603, message: 'Internal error: {message}', data: { errorKind: 'internal' } },
        cancelled: { kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null },
      });
      info.internal.message = 'changed';
      assert.equal(binding.hostInfo().internal.message, 'Internal error: {message}', 'each caller gets its own copy');
    });

    test('invalidParams(): -32602 naming the field', () => {
      assert.deepEqual(assertWire(binding.invalidParams('path', 'must be a string')), {
        kind: 'invalid_params',
        code: -32602,
        message: 'Invalid params: path: must be a string',
        data: { field: 'path', reason: 'must be a string' },
      });
    });
  });

  describe(`${label}: Engine`, () => {
    test('a bad option or cap is returned as the wire error, never thrown', () => {
      for (const [options, caps, field] of [
        [{ maxReadBytes: 'lots' }, FULL_CAPS, 'maxReadBytes'],
        [{ pastEnd: 'sideways' }, PLAIN_CAPS, 'pastEnd'],
        [{}, { ...FULL_CAPS, symlinks: 'maybe' }, 'caps.symlinks'],
        [{ roots: ['relative'] }, FULL_CAPS, 'roots'],
      ]) {
        const wire = assertWire(binding.createEngine(options, caps));
        assert.ok(!(wire instanceof Engine));
        assert.equal(wire.kind, 'invalid_params');
        assert.equal(wire.code, -32602);
        assert.equal(wire.data.field, field);
        assert.match(wire.message, new RegExp(`^Invalid params: ${field.replace('.', '\\.')}: `));
      }
      assert.ok(newEngine(null, FULL_CAPS) instanceof Engine, 'null options are the defaults');
      assert.ok(newEngine(undefined, FULL_CAPS) instanceof Engine);
      // Missing caps flags are false: a storage that can do nothing but whole-file reads.
      assert.deepEqual(newEngine({}, {}).capabilities(), { readTextFile: true, writeTextFile: false });
    });

    test('an option the engine does not know converts, whatever JSON value it is, and is refused by name', () => {
      const unknown = assertWire(binding.createEngine({ pastEnd: 'empty', host: { nested: [1, { deep: [null, 'x'] }] }, big: 10n }, PLAIN_CAPS));
      assert.equal(unknown.data.field, 'host');
      assert.equal(assertWire(binding.createEngine({ big: 10n }, PLAIN_CAPS)).data.field, 'big');
    });

    test('sessions and documents: bad input is a wire error, never a throw', () => {
      const e = newEngine({}, FULL_CAPS);
      assert.equal(e.openSession('a', '/p', ['/q']), null);
      assert.equal(e.openSession('b', '/p'), null, 'additionalDirectories may be left out');
      assert.equal(e.openSession('c', '/p', undefined), null);
      assert.equal(e.openSession(42, '/p', []).data.field, 'sessionId');
      assert.deepEqual(e.openSession('a', 42, []).data, { field: 'cwd', reason: 'must be an absolute path string' });
      assert.equal(e.openSession('a', 'rel', []).data.field, 'cwd');
      assert.equal(e.openSession('a', '/p', 'not a list').data.field, 'additionalDirectories');
      assert.equal(e.openSession('a', '/p', ['/q', 3]).data.field, 'additionalDirectories[1]');
      assert.equal(e.openDocument('/p/./d.txt', 'text'), null);
      assert.equal(e.document('/p/d.txt'), 'text', 'documents are keyed by the normalized path');
      assert.equal(e.documentVersion('/p/d.txt'), 1);
      assert.equal(e.documentReloaded('/p/d.txt', 'again'), null);
      assert.equal(e.document('/p/d.txt'), 'again');
      assert.ok(e.documentVersion('/p/d.txt') > 1);
      assert.equal(e.documentSaved('/p/d.txt'), true);
      assert.equal(e.documentReloaded('/p/d.txt', 7).data.field, 'text');
      assert.equal(e.documentReloaded('/p/d.txt', null).data.field, 'text');
      e.closeDocument('/p/d.txt');
      assert.equal(e.document('/p/d.txt'), null);
      assert.equal(e.documentVersion('/p/d.txt'), null);
      assert.equal(e.documentSaved('/p/d.txt'), false);
      assert.equal(e.document('/p/none.txt'), null);
      assert.equal(e.document(12), null);
      assert.equal(e.documentSaved(5), false);
      assert.equal(e.openDocument('d.txt', 'x').data.field, 'path');
      assert.equal(e.openDocument('/p/d.txt', null).data.field, 'text');
      assert.equal(e.openDocument('/p/d.txt', 5).data.field, 'text');
      assert.deepEqual(e.capabilities(), { readTextFile: true, writeTextFile: true });
      assert.deepEqual(newEngine({ readOnly: true }, FULL_CAPS).capabilities(), { readTextFile: true, writeTextFile: false });
      assert.deepEqual(newEngine({}, { ...FULL_CAPS, write: false }).capabilities(), { readTextFile: true, writeTextFile: false });
      e.closeSession('a');
      e.closeSession(undefined);
      e.closeSession(3); // no session can have a non-string id: nothing to do, nothing thrown
    });

    test('answers are plain JS objects (JSON-compatible)', () => {
      const e = engine(PLAIN_CAPS, { readOnly: true });
      const caps = e.capabilities();
      assert.ok(plain(caps));
      assert.deepEqual(caps, { readTextFile: true, writeTextFile: false });
      const err = e.openSession('t', 'x', []);
      assert.ok(plain(err) && plain(err.data));
      const tools = e.mcpTools('s');
      assert.ok(Array.isArray(tools) && tools.every(plain) && plain(tools[0].inputSchema), 'maps are plain objects, not Maps');
    });

    test('start(): an Operation for the fs methods, null otherwise', () => {
      const e = engine();
      assert.ok(e.start('fs/read_text_file', { sessionId: 's', path: '/p/a' }) instanceof Operation);
      assert.ok(e.start('fs/write_text_file', null) instanceof Operation);
      assert.ok(e.start('fs/write_text_file') instanceof Operation);
      assert.equal(e.start('session/prompt', {}), null);
    });

    test('start(): params convert as JSON carries them; anything else ends the request as internal', () => {
      const { engine: e, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
      const start = (params) => read(e, params);
      const outcome = (params) => drive(start(params), storage).outcome;
      assert.deepEqual(outcome({ line: 2n }).result, { content: 'two\n' }, 'a BigInt is a number');
      assert.deepEqual(outcome({ line: undefined, limit: null }).result, { content: 'one\ntwo\n' }, 'undefined is absent');
      // The driver leaves functions out and refuses what JSON cannot carry (suite-driver.mjs);
      // what still reaches the binding ends the request as an internal error naming the conversion.
      for (const params of [{ f() {} }, { line: 2, _meta: { f: () => 1 } }, { _meta: { s: Symbol('x') } }]) {
        const op = start(params);
        const done = drive(op, storage).outcome;
        assert.equal(done.error.kind, 'internal', Object.keys(params).join());
        assert.match(done.error.message, /not JSON/);
        assert.equal('audit' in done, false, 'the audit event is asked for apart');
        assert.equal(op.audit().outcome, 'error');
      }
      assert.deepEqual(outcome({}).result, { content: 'one\ntwo\n' }, 'and the engine goes on');
    });

    test("start(), startJson(): an object is an object, even one named like serde_json's raw value", () => {
      // serde_json's `Value` reads {"$serde_json::private::RawValue": "<json>"} as that JSON;
      // params are not read through it, as values or as text (semantics.md §8.1).
      const { engine: e, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
      const path = { '$serde_json::private::RawValue': '"/p/a.txt"' };
      const starts = {
        values: () => read(e, { path }),
        text: () => e.startJson('fs/read_text_file', JSON.stringify({ sessionId: 's', path })),
      };
      for (const [form, start] of Object.entries(starts)) {
        const { error } = drive(start(), storage).outcome;
        assert.deepEqual(error?.data, { field: 'path', reason: 'must be a string' }, form);
      }
    });

    test('dispatch(): the four kinds, ids as raw JSON text; a message that is not a string throws', () => {
      const e = engine();
      // A driver bug, not bad input from an agent: every message the driver passes on is text.
      assert.throws(() => e.dispatch({ jsonrpc: '2.0' }));
      assert.throws(() => e.mcpDispatch(5, '{}'));
      assert.throws(() => e.mcpTools(null));
      assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","id":1,"result":{}}'), { kind: 'notMine' });
      assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}'), { kind: 'notMine' });
      assert.deepEqual(Object.keys(e.dispatch('{"jsonrpc":"2.0","method":"notifications/initialized"}')), ['kind']);
      const reply = e.dispatch('{oops');
      assert.equal(reply.kind, 'reply');
      assert.equal(JSON.parse(reply.reply).error.code, -32700);
      const call = e.dispatch('{"jsonrpc":"2.0","id":"x\\u0041","method":"fs/read_text_file","params":{}}');
      assert.equal(call.kind, 'call');
      assert.equal(call.id, '"x\\u0041"');
      assert.equal(call.method, 'fs/read_text_file');
      assert.ok(call.operation instanceof Operation);
      assert.deepEqual(Object.keys(call).sort(), ['id', 'kind', 'method', 'operation']);
      assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'), { kind: 'cancel', id: '7' });
      assert.deepEqual(e.dispatch('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a"}}'), { kind: 'cancel', id: '"a"' });
    });

    test("dispatch(): a call's outcome carries the JSON-RPC reply, with the raw id", () => {
      const { engine: e, storage } = engineWith({ '/p/a.txt': 'hi\n' });
      const bad = e.dispatch('{"jsonrpc":"2.0","id":"x\\u0041","method":"fs/read_text_file","params":{}}');
      const { done } = bad.operation.step();
      assert.equal(done.error.code, -32602);
      assert.ok(done.reply.includes('"id":"x\\u0041"'), done.reply);
      assert.deepEqual(JSON.parse(done.reply), { jsonrpc: '2.0', id: 'xA', error: { code: -32602, message: done.error.message, data: done.error.data } });
      const good = e.dispatch('{"jsonrpc":"2.0","id":7.50,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}');
      assert.equal(good.id, '7.50', 'the id is kept byte for byte');
      const { outcome } = drive(good.operation, storage);
      assert.equal('result' in outcome, false, 'the reply stands for the result: it crosses once');
      assert.equal(outcome.reply, '{"jsonrpc":"2.0","id":7.50,"result":{"content":"hi\\n"}}');
      // A request started by hand has no message to answer.
      assert.equal('reply' in e.start('fs/read_text_file', {}).step().done, false);
    });

    test("mcpTools() and mcpDispatch(): a tools/call comes with its operation, whose outcome carries the tool result", () => {
      const { engine: e, storage } = engineWith({ '/p/a.txt': 'one\ntwo\n' });
      const tools = e.mcpTools('s');
      // This storage cannot list, move or make one directory: the tools that need those are left
      // out (semantics.md §10.2), the rest are offered.
      assert.deepEqual(tools.map((t) => t.name).sort(), [
        'edit_file', 'get_file_info', 'list_allowed_directories', 'read_file', 'read_media_file',
        'read_multiple_files', 'read_text_file', 'write_file', 'write_text_file',
      ]);
      assert.match(tools[0].description, /\/p/);
      const list = e.mcpDispatch('s', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
      assert.equal(list.kind, 'reply');
      assert.equal(list.operation, undefined);
      assert.deepEqual(JSON.parse(list.reply).result.tools, tools);
      assert.deepEqual(e.mcpDispatch('s', '{"jsonrpc":"2.0","id":1,"result":{}}'), { kind: 'notMine' });
      assert.deepEqual(e.mcpDispatch('s', '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}'), { kind: 'cancel', id: '4' });
      const call = e.mcpDispatch('s', '{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt","line":2}}}');
      assert.deepEqual({ kind: call.kind, id: call.id, method: call.method }, { kind: 'call', id: '"r"', method: 'fs/read_text_file' });
      assert.ok(call.operation instanceof Operation);
      assert.equal('call' in call, false, 'no McpCall: the reply comes with the outcome');
      const { outcome } = drive(call.operation, storage);
      assert.equal('result' in outcome, false, 'the reply stands for the result: it crosses once');
      const reply = JSON.parse(outcome.reply);
      assert.equal(reply.id, 'r');
      assert.deepEqual(reply.result, { content: [{ type: 'text', text: 'two\n' }], structuredContent: { content: 'two\n' }, isError: false });
      // A failed call is a tool error in the reply, not a JSON-RPC error.
      const missing = e.mcpDispatch('s', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: '/p/none.txt' } } }));
      const failed = drive(missing.operation, storage).outcome;
      assert.equal(failed.error.kind, 'not_found');
      assert.equal(JSON.parse(failed.reply).result.isError, true);
    });
  });

  operationSuite({ label, binding, byteForms });

  describe(`${label}: agent functions`, () => {
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

  headSuite({
    label,
    read: (params = {}) => read(engine({ ...PLAIN_CAPS, rangedReads: true, makeDirs: false }), params),
    byteForms,
  });

  startSuite({ label, engine: () => engine({ ...PLAIN_CAPS, rangedReads: true }) });
}
