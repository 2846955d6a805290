// ACP v2: acp-fs as the session's MCP server over real transports (issue 12). The official MCP
// SDK client (`@modelcontextprotocol/sdk`) against `fs.serveMcp(key, {transport: 'http'})`
// (Streamable HTTP on 127.0.0.1), `fs.serveMcp(key, {transport: 'stdio'})` (the shipped relay,
// spawned as an agent would, over a private Unix socket) and `fs.mcpOverAcp(key)` (MCP carried by
// `mcp/message` over a real ACP ndjson connection pair, the official ACP SDK on both sides), for
// @acp-fs/node (native disk) and @acp-fs/wasm in Node (fs.promises), each over a real temp dir.
// Then a full ACP prompt turn in which a scripted agent calls the client's tools over ACP.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as nodePkg from '../../npm/node/index.mjs';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { makeTempDir } from './harness.mjs';
import { AcpMcpTransport, acpPair } from './mcp-clients.mjs';

const KEY = 'editor-key-1'; // the host's key: session/new has not happened yet when we serve

const packages = [
  ['@acp-fs/node, native disk', nodePkg, () => undefined],
  ['@acp-fs/wasm in Node, fs.promises', wasmPkg, () => nodeFs.promises],
];

function refused(port) {
  return new Promise((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port });
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', (e) => resolve(e.code === 'ECONNREFUSED'));
  });
}

const text = (r) => r.content.map((c) => c.text).join('\n');

for (const [label, pkg, storage] of packages) {
  describe(`serving MCP to ACP v2 agents (${label})`, () => {
    let dir;
    let project;
    before(() => {
      dir = makeTempDir('acpfs-mcp-serve-');
      project = join(dir, 'project');
      nodeFs.mkdirSync(join(project, 'src'), { recursive: true });
      nodeFs.writeFileSync(join(project, 'src', 'main.rs'), 'fn main() {\r\n    hello();\r\n}\r\n');
      nodeFs.writeFileSync(join(dir, 'outside.txt'), 'outside\n');
    });
    after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

    /** An AcpFs with the host's key open; approvals wait until `release()` answers them. */
    function makeFs() {
      const seen = { approvals: [], changes: [], audits: [], waiting: [] };
      const fs = new pkg.AcpFs({
        storage: storage(),
        approveWrite: (change) =>
          new Promise((resolve) => {
            seen.approvals.push(change);
            seen.waiting.push(resolve);
          }),
        onChange: (change) => seen.changes.push(change),
        onAudit: (event) => seen.audits.push(event),
      });
      fs.openSession(KEY, { cwd: project });
      return { fs, seen };
    }

    /** The transports under test: serve, connect an official MCP SDK client, close. */
    const transports = {
      async http(fs) {
        const server = await fs.serveMcp(KEY, { transport: 'http', name: 'files' });
        const d = server.declaration;
        return {
          server,
          async client(headers = Object.fromEntries(d.headers.map((h) => [h.name, h.value]))) {
            const client = new Client({ name: 'test-agent', version: '1.0.0' });
            await client.connect(new StreamableHTTPClientTransport(new URL(d.url), { requestInit: { headers } }));
            return client;
          },
        };
      },
      async stdio(fs) {
        const server = await fs.serveMcp(KEY, { transport: 'stdio', name: 'files' });
        const d = server.declaration;
        return {
          server,
          async client(env = Object.fromEntries(d.env.map((e) => [e.name, e.value]))) {
            const client = new Client({ name: 'test-agent', version: '1.0.0' });
            await client.connect(new StdioClientTransport({ command: d.command, args: d.args, env, stderr: 'pipe' }));
            return client;
          },
        };
      },
      async acp(fs) {
        const server = fs.mcpOverAcp(KEY, { name: 'files' });
        const pair = acpPair(
          // As docs/mcp.md wires it: toRequestError keeps the binding's outer codes (-33001, -32602, -32800).
          acp.client().onRequest('mcp/message', (ctx) =>
            server.handleMessage(ctx.params, ctx).catch((e) => Promise.reject(pkg.toRequestError(e, acp.RequestError))),
          ),
        );
        const caller = new acp.McpOverAcpCaller({ clientInfo: { name: 'test-agent', version: '1.0.0' } });
        return {
          server,
          pair,
          caller,
          async client(serverId = server.declaration.serverId) {
            const client = new Client({ name: 'test-agent', version: '1.0.0' });
            await client.connect(new AcpMcpTransport(caller, pair.agentConn.client, serverId));
            return client;
          },
          done: () => pair.close(),
        };
      },
    };

    for (const [kind, serve] of Object.entries(transports)) {
      test(`${kind}: the declaration, tools, a window, a missing file, outside the roots, a held write, reconnecting`, async () => {
        const { fs, seen } = makeFs();
        const t = await serve(fs);
        try {
          const d = t.server.declaration;
          if (kind === 'http') {
            assert.equal(d.type, 'http');
            assert.match(d.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
            assert.equal(d.headers.length, 1);
            assert.equal(d.headers[0].name, 'Authorization');
            assert.match(d.headers[0].value, /^Bearer [A-Za-z0-9_-]{43}$/);
          } else if (kind === 'stdio') {
            assert.equal(d.command, process.execPath);
            assert.equal(d.args.length, 2);
            assert.match(d.args[0], /mcp-relay\.mjs$/);
            assert.ok(nodeFs.existsSync(d.args[0]), 'the relay script ships beside the driver');
            assert.ok(Array.isArray(d.env) && d.env.some((e) => e.name === 'ACP_FS_MCP_TOKEN'));
            const mode = nodeFs.statSync(join(d.args[1], '..')).mode & 0o777;
            assert.equal(mode, 0o700, 'the socket lives in a private directory');
          } else {
            assert.deepEqual(Object.keys(d).sort(), ['name', 'serverId', 'type']);
            assert.equal(d.type, 'acp');
            assert.ok(acp.isMcpServerAcp(d));
          }
          assert.equal(d.name, 'files');
          // The declaration is plain JSON, ready to send in session/new as it is.
          assert.deepEqual(JSON.parse(JSON.stringify(d)), { ...d, ...(d.headers ? { headers: [...d.headers] } : {}), ...(d.args ? { args: [...d.args], env: [...d.env] } : {}) });

          const client = await t.client();
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((x) => x.name).slice(0, 2), ['read_text_file', 'write_text_file']);
          assert.ok(tools[0].description.includes(project));

          const main = join(project, 'src', 'main.rs');
          assert.deepEqual(await client.callTool({ name: 'read_text_file', arguments: { path: main, line: 2, limit: 1 } }), {
            content: [{ type: 'text', text: '    hello();\r\n' }],
            structuredContent: { content: '    hello();\r\n' },
            isError: false,
          });
          const missing = join(project, 'missing.txt');
          const m = await client.callTool({ name: 'read_text_file', arguments: { path: missing } });
          assert.equal(m.isError, true);
          assert.equal(text(m), `File not found: ${missing}`);
          const o = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'outside.txt') } });
          assert.equal(o.isError, true);
          assert.match(text(o), /path_outside_roots/);

          // A write waits for the user's answer: nothing on disk, no response, until approved.
          const target = join(project, `new-${kind}.md`);
          let answered = false;
          const write = client.callTool({ name: 'write_text_file', arguments: { path: target, content: '# new\n' } }).finally(() => {
            answered = true;
          });
          while (seen.waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
          await new Promise((r) => setTimeout(r, 50));
          if (answered) assert.fail(`answered before the approval: ${JSON.stringify(await write.catch((e) => String(e)))}`);
          assert.equal(nodeFs.existsSync(target), false);
          seen.waiting.shift()(true);
          assert.deepEqual(await write, { content: [{ type: 'text', text: `Wrote ${target} (6 bytes).` }], isError: false });
          assert.equal(nodeFs.readFileSync(target, 'utf8'), '# new\n');
          const record = { sessionId: KEY, path: target, created: true, oldText: null, newText: '# new\n' };
          assert.deepEqual(seen.approvals, [record]);
          assert.deepEqual(seen.changes, [record]);
          assert.deepEqual(
            seen.audits.map((a) => [a.op, a.sessionId, a.outcome]),
            [
              ['read', KEY, 'ok'],
              ['read', KEY, 'error'],
              ['read', KEY, 'error'],
              ['write', KEY, 'ok'],
            ],
          );
          await client.close();

          // The declaration stays valid: an agent whose MCP client restarted connects again.
          const again = await t.client();
          assert.ok((await again.listTools()).tools.some((x) => x.name === 'write_text_file'));
          await again.close();
        } finally {
          await t.server.close();
          t.done?.();
        }
      });
    }

    test('http: no token, a wrong token, a foreign Origin or Host reach no tool', async () => {
      const { fs, seen } = makeFs();
      const t = await transports.http(fs);
      try {
        const { url, headers } = t.server.declaration;
        const good = headers[0].value;
        const call = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'write_text_file', arguments: { path: join(project, 'evil.md'), content: 'x' } },
        });
        const post = (h) =>
          fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...h }, body: call });
        assert.equal((await post({})).status, 401);
        assert.equal((await post({ authorization: `${good}x` })).status, 401);
        assert.equal((await post({ authorization: good.slice(0, -1) })).status, 401);
        assert.equal((await post({ authorization: good.replace('Bearer ', 'Basic ') })).status, 401);
        assert.equal((await post({ authorization: good, origin: 'http://evil.example' })).status, 403);
        assert.equal((await post({ authorization: good, origin: 'null' })).status, 403);
        // A rebinding page's requests carry its own name as Host.
        const { request } = await import('node:http');
        const status = await new Promise((resolve, reject) => {
          const u = new URL(url);
          const req = request({ host: '127.0.0.1', port: u.port, path: u.pathname, method: 'POST', headers: { host: `evil.example:${u.port}`, authorization: good, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
            res.resume();
            resolve(res.statusCode);
          });
          req.on('error', reject);
          req.end(call);
        });
        assert.equal(status, 403);
        // The official client with a wrong token fails to connect.
        await assert.rejects(t.client({ Authorization: 'Bearer nope' }));
        assert.deepEqual(seen.audits, [], 'no request reached the engine');
        assert.deepEqual(seen.approvals, []);
        assert.equal(nodeFs.existsSync(join(project, 'evil.md')), false);
        // A loopback Origin with the token is served.
        const ok = post({ authorization: good, origin: 'http://localhost:5173' });
        while (seen.waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
        seen.waiting.shift()(false);
        const res = await ok;
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.equal(body.id, 1);
        assert.equal(body.result.isError, true);
        assert.match(body.result.content[0].text, /user_rejected/);
        assert.equal(seen.approvals.length, 1);
      } finally {
        await t.server.close();
      }
    });

    test('http: close() stops serving; the port refuses connections; a client call fails', async () => {
      const { fs } = makeFs();
      const t = await transports.http(fs);
      const client = await t.client();
      assert.ok((await client.listTools()).tools.some((x) => x.name === 'write_text_file'));
      await t.server.close();
      await t.server.close(); // idempotent
      assert.equal(t.server.closed, true);
      await assert.rejects(client.listTools());
      assert.equal(await refused(Number(new URL(t.server.declaration.url).port)), true);
      await client.close().catch(() => {});
    });

    test('stdio: a wrong or absent token is dropped unanswered; close() removes the socket', async () => {
      const { fs, seen } = makeFs();
      const t = await transports.stdio(fs);
      const [, socketPath] = t.server.declaration.args;
      try {
        // The relay with a wrong token, or none: no MCP session comes up.
        await assert.rejects(t.client({ ACP_FS_MCP_TOKEN: 'wrong' }));
        const noToken = spawn(process.execPath, [t.server.declaration.args[0], socketPath], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
        const [code] = await new Promise((resolve) => noToken.on('exit', (...a) => resolve(a)));
        assert.equal(code, 2);
        // A raw connection that skips the token: closed without an answer.
        const raw = netConnect(socketPath);
        let got = '';
        raw.on('data', (c) => (got += c));
        raw.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: join(project, 'src', 'main.rs') } } })}\n`);
        await new Promise((resolve) => raw.on('close', resolve));
        assert.equal(got, '');
        assert.deepEqual(seen.audits, [], 'no request reached the engine');

        // `echo request | relay`: stdin ends at once, and the answer still comes back.
        const piped = spawn(process.execPath, t.server.declaration.args, {
          env: Object.fromEntries(t.server.declaration.env.map((e) => [e.name, e.value])),
        });
        let out = '';
        piped.stdout.on('data', (c) => (out += c));
        piped.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: join(project, 'src', 'main.rs'), line: 3 } } })}\n`);
        assert.equal(await new Promise((resolve) => piped.on('exit', resolve)), 0);
        assert.deepEqual(JSON.parse(out), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '}\r\n' }], structuredContent: { content: '}\r\n' }, isError: false } });
        assert.equal(seen.audits.length, 1);
        seen.audits.length = 0;

        // Connected; then close(): the agent's relay exits, the socket and its directory are gone.
        const client = await t.client();
        assert.ok((await client.listTools()).tools.some((x) => x.name === 'write_text_file'));
        const closedByServer = new Promise((resolve) => (client.onclose = resolve));
        await t.server.close();
        await closedByServer;
        await assert.rejects(client.listTools());
        assert.equal(nodeFs.existsSync(socketPath), false);
        assert.equal(nodeFs.existsSync(join(socketPath, '..')), false);
        await assert.rejects(t.client(), 'a relay spawned after close() finds nothing to connect to');
      } finally {
        await t.server.close();
      }
    });

    test('acp: close() then a call fails (-33001); an unknown serverId is -33001; bad envelopes -32602', async () => {
      const { fs, seen } = makeFs();
      const t = await transports.acp(fs);
      try {
        const client = await t.client();
        assert.ok((await client.listTools()).tools.some((x) => x.name === 'write_text_file'));
        const wrong = await t.client('not-ours').catch((e) => e);
        assert.match(String(wrong?.message), /unavailable/i);
        await assert.rejects(t.server.handleMessage({ serverId: t.server.declaration.serverId, method: 'tools/list' }), (e) => e.jsonRpcCode === -32602);
        await t.server.close();
        await assert.rejects(client.listTools(), /-33001|unavailable/i);
        await assert.rejects(
          t.server.handleMessage({ serverId: t.server.declaration.serverId, requestId: 'x', method: 'tools/list' }),
          (e) => e.jsonRpcCode === -33001,
        );
        assert.deepEqual(seen.audits, []);
      } finally {
        t.done();
      }
    });

    test('mcpServerFor: acp if the agent offers it, else http, else stdio', () => {
      const { fs } = makeFs();
      assert.equal(fs.mcpServerFor(KEY, { mcpCapabilities: { acp: true, http: true } }), 'acp');
      assert.equal(fs.mcpServerFor(KEY, { mcpCapabilities: { http: true, sse: true } }), 'http');
      assert.equal(fs.mcpServerFor(KEY, { mcpCapabilities: { sse: true } }), 'stdio');
      assert.equal(fs.mcpServerFor(KEY, {}), 'stdio');
      assert.equal(fs.mcpServerFor(KEY, undefined), 'stdio');
    });

    test('a full ACP prompt turn: the agent reads and writes through the declared acp MCP server', async () => {
      const { fs, seen } = makeFs();
      const files = fs.mcpOverAcp(KEY, { name: 'files' });
      const provider = new acp.McpOverAcpProvider();
      const caller = new acp.McpOverAcpCaller({ clientInfo: { name: 'scripted-agent', version: '1.0.0' } });
      const main = join(project, 'src', 'main.rs');
      const agentSaw = { mcpServers: null, tools: null, read: null, write: null };
      const agentApp = acp
        .agent()
        .onRequest('initialize', () => ({
          protocolVersion: acp.PROTOCOL_VERSION,
          agentCapabilities: { mcpCapabilities: { acp: true, http: true } },
        }))
        .onRequest('session/new', (ctx) => {
          agentSaw.mcpServers = ctx.params.mcpServers;
          return { sessionId: 'agent-session-7' };
        })
        .onRequest('session/prompt', async (ctx) => {
          const server = agentSaw.mcpServers.find((s) => s.type === 'acp');
          const call = (method, params) => caller.request(ctx.client, server.serverId, method, params);
          agentSaw.tools = await call('tools/list', {});
          agentSaw.read = await call('tools/call', { name: 'read_text_file', arguments: { path: main, line: 1, limit: 1 } });
          agentSaw.write = await call('tools/call', { name: 'write_text_file', arguments: { path: join(project, 'turn.md'), content: 'hi\n' } });
          return { stopReason: 'end_turn' };
        });
      let registration;
      const clientApp = acp.client().onRequest('mcp/message', provider.handleRequest).onNotification('session/update', () => {});
      const pair = acpPair(clientApp, agentApp);
      try {
        const init = await pair.clientConn.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
        // Open (done in makeFs), serve, then session/new with the declaration.
        assert.equal(fs.mcpServerFor(KEY, init.agentCapabilities), 'acp');
        registration = provider.registerServer(pair.clientConn.agent, { ...files.declaration, handler: files.handler });
        assert.deepEqual(registration.declaration, files.declaration);
        const { sessionId } = await pair.clientConn.agent.request('session/new', { cwd: project, mcpServers: [files.declaration] });
        assert.equal(sessionId, 'agent-session-7');
        const turn = pair.clientConn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'edit' }] });
        while (seen.waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
        seen.waiting.shift()(true);
        assert.deepEqual(await turn, { stopReason: 'end_turn' });
        assert.deepEqual(agentSaw.mcpServers, [files.declaration]);
        assert.deepEqual(agentSaw.tools.result.tools.map((x) => x.name).slice(0, 2), ['read_text_file', 'write_text_file']);
        assert.deepEqual(agentSaw.read, { result: { content: [{ type: 'text', text: 'fn main() {\r\n' }], structuredContent: { content: 'fn main() {\r\n' }, isError: false } });
        assert.equal(agentSaw.write.result.isError, false);
        assert.equal(nodeFs.readFileSync(join(project, 'turn.md'), 'utf8'), 'hi\n');
        assert.deepEqual(seen.changes.map((c) => [c.sessionId, c.path]), [[KEY, join(project, 'turn.md')]]);
      } finally {
        await registration?.dispose();
        await files.close();
        pair.close();
      }
    });
  });
}
