// The agent side: an agent built with the official TypeScript SDK (@agentclientprotocol/sdk) that
// offers the model acp-fs's tools and turns each tool call into an fs/* request with the helpers
// of @acp-fs/node and @acp-fs/wasm (`agent.*`), against a client whose handlers are @acp-fs/node
// over a real temp dir (or a stub client that misbehaves). What the model would see (tool
// definitions, tool results), what the client received, and what landed on disk.
//
// Also: the shared tool-argument cases (tool-arguments.json) through both packages' agent helpers.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import * as nodePkg from '../../npm/node/index.mjs';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { makeTempDir, subset } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const TOOL_ARGUMENTS = JSON.parse(nodeFs.readFileSync(join(here, '..', 'vectors', 'tools', 'tool-arguments.json'), 'utf8'));

const SESSION = 'sess-1';
const agents = [
  ['@acp-fs/node', nodePkg.agent],
  ['@acp-fs/wasm', wasmPkg.agent],
];

/**
 * An ACP agent (official SDK) over an in-memory ndjson pipe to a client app. The agent learns
 * the client's fs capabilities at `initialize` with `api.clientFsCapabilities`, and `callTool`
 * runs one model tool call: `api.buildRequest` → the client → `api.toolResult`. `received` is
 * every fs method the client was asked.
 */
function connect(api, { clientApp, clientCapabilities }) {
  const toAgent = new TransformStream();
  const toClient = new TransformStream();
  const state = { caps: null, sent: [] };
  const agentApp = acp.agent().onRequest('initialize', (ctx) => {
    state.caps = api.clientFsCapabilities(ctx.params);
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
  });
  const agentConn = agentApp.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const clientConn = clientApp.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  return {
    state,
    initialize: () =>
      clientConn.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities }),
    tools: () => api.toolDefinitions(state.caps),
    async callTool(name, args) {
      let answer;
      try {
        const { method, params } = api.buildRequest(state.caps, name, SESSION, args);
        state.sent.push(method);
        answer = await agentConn.client.request(method, params);
      } catch (e) {
        answer = e;
      }
      return api.toolResult(name, args, answer);
    },
    close() {
      agentConn.close();
      clientConn.close();
    },
  };
}

/** A client app whose fs handlers are an @acp-fs/node `AcpFs`, recording what it was asked. */
function acpFsClient(fs, received) {
  const h = nodePkg.acpClientHandlers(fs, acp.RequestError);
  const record = (handler) => (ctx, options) => {
    received.push(ctx.method);
    return handler(ctx, options);
  };
  return acp.client().onRequest('fs/read_text_file', record(h.readTextFile)).onRequest('fs/write_text_file', record(h.writeTextFile));
}

const text = (result) => result.content.map((c) => c.text);

for (const [label, api] of agents) {
  describe(`official SDK agent using ${label} helpers ⇄ @acp-fs/node client`, () => {
    let dir;
    let project;
    before(() => {
      dir = makeTempDir('acpfs-agent-');
      project = join(dir, 'project');
      nodeFs.mkdirSync(join(project, 'src'), { recursive: true });
      nodeFs.writeFileSync(join(project, 'src', 'main.rs'), 'fn main() {\r\n    hello();\r\n}\r\n');
      nodeFs.writeFileSync(join(project, '.env'), 'SECRET=1\n');
      nodeFs.writeFileSync(join(dir, 'outside.txt'), 'outside\n');
    });
    after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

    function session(options = {}, clientCapabilities) {
      const fs = new nodePkg.AcpFs(options);
      fs.openSession(SESSION, { cwd: project });
      const received = [];
      const c = connect(api, { clientApp: acpFsClient(fs, received), clientCapabilities: clientCapabilities ?? { fs: fs.capabilities() } });
      return { fs, received, c };
    }

    test('the capabilities come from the client’s initialize; tools follow them', async () => {
      const full = session();
      const readOnly = session({ readOnly: true });
      const none = session({}, {});
      try {
        for (const s of [full, readOnly, none]) await s.c.initialize();
        assert.deepEqual(full.c.state.caps, { readTextFile: true, writeTextFile: true });
        assert.deepEqual(full.c.tools().map((t) => t.name), ['read_text_file', 'write_text_file']);
        assert.deepEqual(readOnly.c.state.caps, { readTextFile: true, writeTextFile: false });
        assert.deepEqual(readOnly.c.tools().map((t) => t.name), ['read_text_file']);
        assert.deepEqual(none.c.state.caps, { readTextFile: false, writeTextFile: false });
        assert.deepEqual(none.c.tools(), []);
        // Tool definitions carry a JSON Schema the model can follow.
        const [read, write] = full.c.tools();
        assert.deepEqual(read.inputSchema.required, ['path']);
        assert.deepEqual(Object.keys(read.inputSchema.properties).sort(), ['limit', 'line', 'path']);
        assert.equal(read.inputSchema.additionalProperties, false);
        assert.deepEqual(write.inputSchema.required, ['path', 'content']);
      } finally {
        for (const s of [full, readOnly, none]) s.c.close();
      }
    });

    test('a read-only client: buildRequest refuses the write (-32601) and the agent never sends it', async () => {
      const { c, received } = session({ readOnly: true });
      try {
        await c.initialize();
        const path = join(project, 'never.txt');
        assert.throws(
          () => api.buildRequest(c.state.caps, 'write_text_file', SESSION, { path, content: 'x' }),
          (e) => e.name === 'AcpFsError' && e.code === 'method_not_found' && e.jsonRpcCode === -32601 &&
            subset({ method: 'fs/write_text_file' }, e.data),
        );
        const result = await c.callTool('write_text_file', { path, content: 'x' });
        assert.equal(result.isError, true);
        assert.match(text(result)[0], /fs\/write_text_file/);
        assert.deepEqual(c.state.sent, [], 'nothing was sent');
        assert.deepEqual(received, [], 'the client was asked nothing');
        assert.equal(nodeFs.existsSync(path), false);
        // Reads still go through.
        const read = await c.callTool('read_text_file', { path: join(project, 'src', 'main.rs'), line: 3 });
        assert.deepEqual(read, { content: [{ type: 'text', text: '}\r\n' }], isError: false });
        assert.deepEqual(received, ['fs/read_text_file']);
      } finally {
        c.close();
      }
    });

    test('a client advertising no fs: even reads are refused before sending', async () => {
      const { c, received } = session({}, { fs: { readTextFile: false } });
      try {
        await c.initialize();
        const result = await c.callTool('read_text_file', { path: join(project, 'src', 'main.rs') });
        assert.equal(result.isError, true);
        assert.match(text(result)[0], /fs\/read_text_file/);
        assert.deepEqual(received, []);
      } finally {
        c.close();
      }
    });

    test('a window arrives as the exact text of the lines (CRLF kept)', async () => {
      const { c } = session();
      try {
        await c.initialize();
        const path = join(project, 'src', 'main.rs');
        assert.deepEqual(await c.callTool('read_text_file', { path, line: 2, limit: 1 }), {
          content: [{ type: 'text', text: '    hello();\r\n' }],
          isError: false,
        });
        assert.deepEqual(await c.callTool('read_text_file', { path }), {
          content: [{ type: 'text', text: 'fn main() {\r\n    hello();\r\n}\r\n' }],
          isError: false,
        });
      } finally {
        c.close();
      }
    });

    test('a write: the client’s {} becomes a success text; the file and the change record are there', async () => {
      const changes = [];
      const { c, received } = session({ onChange: (ch) => changes.push(ch) });
      try {
        await c.initialize();
        const path = join(project, 'notes', 'todo.md');
        const result = await c.callTool('write_text_file', { path, content: '- ship\n' });
        assert.deepEqual(result, { content: [{ type: 'text', text: `Wrote ${path} (7 bytes).` }], isError: false });
        assert.equal(nodeFs.readFileSync(path, 'utf8'), '- ship\n');
        // The record names the directory the write made for the file (semantics.md §10.7).
        assert.deepEqual(changes, [{ sessionId: SESSION, path, created: true, oldText: null, newText: '- ship\n', createdDirs: [join(project, 'notes')] }]);
        assert.deepEqual(received, ['fs/write_text_file']);
      } finally {
        c.close();
      }
    });

    test('every client error becomes an isError tool result the model can read', async () => {
      const { c, received } = session({ approveWrite: (change) => !change.path.endsWith('rejected.txt') });
      try {
        await c.initialize();
        const missing = join(project, 'missing.txt');
        const notFound = await c.callTool('read_text_file', { path: missing });
        assert.deepEqual(notFound, { content: [{ type: 'text', text: `File not found: ${missing}` }], isError: true });

        for (const [args, kind] of [
          [{ path: join(dir, 'outside.txt') }, 'path_outside_roots'],
          [{ path: join(project, '.env') }, 'denied_by_pattern'],
          [{ path: join(project, 'src') }, 'not_a_file'],
        ]) {
          const r = await c.callTool('read_text_file', args);
          assert.equal(r.isError, true, JSON.stringify(args));
          assert.ok(text(r)[0].includes(kind), `${text(r)[0]} names ${kind}`);
        }
        const rejected = join(project, 'rejected.txt');
        const r = await c.callTool('write_text_file', { path: rejected, content: 'no' });
        assert.equal(r.isError, true);
        assert.ok(text(r)[0].includes('user_rejected'), text(r)[0]);
        assert.equal(nodeFs.existsSync(rejected), false);
        assert.equal(received.length, 5, 'each of those reached the client');

        // Bad arguments are refused by the agent with the client's own rule, and never sent.
        const relative = await c.callTool('read_text_file', { path: 'src/main.rs' });
        assert.equal(relative.isError, true);
        assert.match(text(relative)[0], /path/);
        const unknown = await c.callTool('read_text_file', { path: missing, sessionId: 'other' });
        assert.equal(unknown.isError, true);
        assert.match(text(unknown)[0], /sessionId/);
        assert.equal(received.length, 5, 'refused arguments never reach the client');
      } finally {
        c.close();
      }
    });

    test('a client that ignores limit: the window is cut and the model is told', async () => {
      const full = 'b\nc\nd\ne\n';
      const answers = [];
      const stub = acp
        .client()
        .onRequest('fs/read_text_file', (ctx) => {
          answers.push(ctx.params);
          return { content: full }; // lines 2.. to the end, whatever limit said
        })
        .onRequest('fs/write_text_file', () => null);
      const c = connect(api, { clientApp: stub, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      try {
        await c.initialize();
        const path = join(project, 'src', 'main.rs');
        const r = await c.callTool('read_text_file', { path, line: 2, limit: 2 });
        assert.deepEqual(answers, [{ sessionId: SESSION, path, line: 2, limit: 2 }]);
        assert.equal(r.isError, false);
        assert.equal(r.content.length, 2);
        assert.equal(r.content[0].text, 'b\nc\n');
        assert.match(r.content[1].text, /more than the 2 lines asked for; showing lines 2-3 only/);
        // A client that honours limit gets its text through untouched, with no note.
        answers.length = 0;
        const exact = await c.callTool('read_text_file', { path, line: 2, limit: 4 });
        assert.deepEqual(exact, { content: [{ type: 'text', text: full }], isError: false });
        // A write answered with null (a lax client) is still a success.
        const w = await c.callTool('write_text_file', { path: join(project, 'w.txt'), content: 'abc' });
        assert.deepEqual(w, { content: [{ type: 'text', text: `Wrote ${join(project, 'w.txt')} (3 bytes).` }], isError: false });
      } finally {
        c.close();
      }
    });

    test('clientFsCapabilities reads a raw initialize message, its params or clientCapabilities; only true counts', () => {
      const fsCaps = { readTextFile: true, writeTextFile: 'yes' };
      const message = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: fsCaps } } };
      for (const value of [message, message.params, message.params.clientCapabilities]) {
        assert.deepEqual(api.clientFsCapabilities(value), { readTextFile: true, writeTextFile: false });
      }
      assert.deepEqual(api.clientFsCapabilities({}), { readTextFile: false, writeTextFile: false });
      assert.deepEqual(api.clientFsCapabilities(null), { readTextFile: false, writeTextFile: false });
    });

    test('toolResult takes every answer shape an agent holds', () => {
      const path = '/p/a.txt';
      const ok = (t) => ({ content: [{ type: 'text', text: t }], isError: false });
      const wrote = ok('Wrote /p/a.txt (3 bytes).');
      const w = { path, content: 'abc' };
      for (const answer of [{}, null, undefined, { jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 1, result: null }]) {
        assert.deepEqual(api.toolResult('write_text_file', w, answer), wrote, JSON.stringify(answer));
      }
      assert.deepEqual(api.toolResult('read_text_file', { path }, { jsonrpc: '2.0', id: 1, result: { content: 'x\n' } }), ok('x\n'));
      const notFound = { content: [{ type: 'text', text: `File not found: ${path}` }], isError: true };
      const error = { code: -32002, message: `Resource not found: ${path}`, data: { uri: path } };
      assert.deepEqual(api.toolResult('read_text_file', { path }, new acp.RequestError(error.code, error.message, error.data)), notFound);
      assert.deepEqual(api.toolResult('read_text_file', { path }, { error }), notFound);
      assert.deepEqual(api.toolResult('read_text_file', { path }, { jsonrpc: '2.0', id: 1, error }), notFound);
      assert.deepEqual(api.toolResult('read_text_file', { path }, new nodePkg.AcpFsError({ kind: 'not_found', ...error })), notFound);
      // An error that is not JSON-RPC (the connection broke) is still a readable error.
      const broken = api.toolResult('read_text_file', { path }, new Error('connection closed'));
      assert.equal(broken.isError, true);
      assert.match(broken.content[0].text, /connection closed/);
      // A read answered without content is an error, not an empty file.
      assert.equal(api.toolResult('read_text_file', { path }, {}).isError, true);
      // An answer JSON cannot carry (a lone surrogate) is reported, never silently replaced.
      const lone = api.toolResult('read_text_file', { path }, { content: 'a\uD800' });
      assert.equal(lone.isError, true);
      assert.match(lone.content[0].text, /lone surrogate/);
    });

    test('the shared tool-argument cases (tool-arguments.json)', () => {
      const both = { readTextFile: true, writeTextFile: true };
      for (const c of TOOL_ARGUMENTS.cases) {
        const sid = TOOL_ARGUMENTS.sessionId;
        for (const [how, run] of [
          ['checkToolArguments', () => api.checkToolArguments(c.tool, sid, c.arguments)],
          ['buildRequest', () => api.buildRequest(both, c.tool, sid, c.arguments)],
        ]) {
          let got;
          try {
            got = run();
          } catch (e) {
            assert.equal(e.name, 'AcpFsError', `${c.name} (${how}): ${e}`);
            got = { error: e.toJsonRpc(), kind: e.code };
          }
          if (c.expect.error) {
            assert.ok(got.error, `${c.name} (${how}): want error ${JSON.stringify(c.expect.error)}, got ${JSON.stringify(got)}`);
            assert.equal(got.kind, 'invalid_params', c.name);
            assert.equal(got.error.code, c.expect.error.code, c.name);
            assert.ok(subset(c.expect.error.data, got.error.data), `${c.name} (${how}): data ${JSON.stringify(got.error.data)}`);
          } else {
            assert.deepStrictEqual(got, { method: c.expect.method, params: c.expect.params }, `${c.name} (${how})`);
          }
        }
      }
    });

    test('arguments JSON cannot carry are -32602 naming the argument (§8.1)', () => {
      for (const [args, field] of [
        [{ path: '/project/\uD800.txt' }, 'path'],
        [{ path: '/project/a.txt', limit: 1, ['x\uDC00']: 1 }, 'x\uFFFD'],
      ]) {
        assert.throws(
          () => api.checkToolArguments('read_text_file', 's1', args),
          (e) => e.code === 'invalid_params' && e.data.field === field && /lone surrogate/.test(e.data.reason),
        );
      }
      const cyclic = { path: '/project/a.txt' };
      cyclic.content = cyclic;
      assert.throws(
        () => api.checkToolArguments('write_text_file', 's1', cyclic),
        (e) => e.code === 'invalid_params' && e.data.field === 'content' && /cyclic/.test(e.data.reason),
      );
      assert.throws(() => api.checkToolArguments(7, 's1', {}), (e) => e.code === 'invalid_params' && e.data.field === 'name');
      assert.throws(() => api.toolDefinitions(true), (e) => e.code === 'invalid_params' && e.data.field === 'caps');
    });
  });
}
