// The MCP surface (`fs.mcpHandler(sessionId)`) with the official MCP TypeScript SDK as the client:
// `@modelcontextprotocol/sdk`'s `Client` over its linked in-memory transport, the server side of
// which hands every message to `handle` and sends back what it answers. Run against
// @acp-fs/node (native disk and fs.promises) and @acp-fs/wasm (fs.promises), each over a real temp
// dir: tool listing, exact windows, writes with approval and change records, denials as
// `isError` results, and the same audit events as fs/* requests.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import * as nodePkg from '../../npm/node/index.mjs';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { makeTempDir } from './harness.mjs';

const SESSION = 'sess-1';

/** An MCP client connected to `mcp.handle` through the SDK's linked in-memory transports. */
async function connectClient(mcp) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const failures = [];
  serverSide.onmessage = (message) => {
    mcp.handle(message).then(
      (reply) => (reply === null ? undefined : serverSide.send(reply)),
      (e) => failures.push(e),
    );
  };
  await serverSide.start();
  const client = new Client({ name: 'acp-fs-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    failures,
    close: () => client.close(),
  };
}

const setups = [
  ['@acp-fs/node, native disk', nodePkg.AcpFs, () => undefined],
  ['@acp-fs/node, fs.promises', nodePkg.AcpFs, () => nodeFs.promises],
  ['@acp-fs/wasm, fs.promises', wasmPkg.AcpFs, () => nodeFs.promises],
];

for (const [label, AcpFs, storage] of setups) {
  describe(`official MCP SDK client ⇄ fs.mcpHandler (${label})`, () => {
    let dir;
    let project;
    let lib;
    before(() => {
      dir = makeTempDir('acpfs-mcp-');
      project = join(dir, 'project');
      lib = join(dir, 'lib');
      nodeFs.mkdirSync(join(project, 'src'), { recursive: true });
      nodeFs.mkdirSync(lib);
      nodeFs.writeFileSync(join(project, 'src', 'main.rs'), 'fn main() {\r\n    hello();\r\n}\r\n');
      nodeFs.writeFileSync(join(project, 'notes.md'), 'one\ntwo\nthree\n');
      nodeFs.writeFileSync(join(project, '.env'), 'SECRET=1\n');
      nodeFs.writeFileSync(join(dir, 'outside.txt'), 'outside\n');
    });
    after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

    /** An AcpFs with the session open and every hook recorded. */
    function makeFs(options = {}) {
      const seen = { approvals: [], changes: [], audits: [] };
      const fs = new AcpFs({
        storage: storage(),
        approveWrite: (change) => {
          seen.approvals.push(change);
          return !change.path.endsWith('rejected.txt');
        },
        onChange: (change) => seen.changes.push(change),
        onAudit: (event) => seen.audits.push(event),
        ...options,
      });
      fs.openSession(SESSION, { cwd: project, additionalDirectories: [lib] });
      return { fs, seen };
    }

    test('listTools: both tools, the session’s roots in the descriptions, JSON Schema inputs', async () => {
      const { fs } = makeFs();
      const mcp = fs.mcpHandler(SESSION);
      const { client, failures, close } = await connectClient(mcp);
      try {
        assert.equal(client.getServerVersion()?.name, 'acp-fs');
        assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).slice(0, 2), ['read_text_file', 'write_text_file']);
        assert.ok(tools.some((t) => t.name === 'list_allowed_directories'));
        for (const t of tools) {
          const changes = ['write_text_file', 'write_file', 'edit_file', 'create_directory', 'move_file'];
          assert.equal(t.annotations.readOnlyHint, !changes.includes(t.name), t.name);
          assert.ok(t.description.includes(project) && t.description.includes(lib), t.description);
          assert.equal(t.inputSchema.type, 'object');
          assert.equal(t.inputSchema.additionalProperties, false);
        }
        assert.deepEqual(tools[0].inputSchema.required, ['path']);
        assert.deepEqual(Object.keys(tools[0].inputSchema.properties).sort(), ['head', 'limit', 'line', 'path', 'tail']);
        assert.deepEqual(tools[1].inputSchema.required, ['path', 'content']);
        assert.deepEqual(tools, mcp.tools(), 'what tools() says is what the client lists');
        assert.deepEqual(await client.ping(), {});
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('callTool read: the exact text of the window; one audit event per call', async () => {
      const { fs, seen } = makeFs();
      const { client, failures, close } = await connectClient(fs.mcpHandler(SESSION));
      try {
        const path = join(project, 'src', 'main.rs');
        assert.deepEqual(await client.callTool({ name: 'read_text_file', arguments: { path, line: 2, limit: 1 } }), {
          content: [{ type: 'text', text: '    hello();\r\n' }],
          structuredContent: { content: '    hello();\r\n' },
          isError: false,
        });
        assert.deepEqual(await client.callTool({ name: 'read_text_file', arguments: { path: join(project, 'notes.md'), line: 3 } }), {
          content: [{ type: 'text', text: 'three\n' }],
          structuredContent: { content: 'three\n' },
          isError: false,
        });
        assert.equal(seen.audits.length, 2);
        assert.deepEqual(
          seen.audits.map(({ op, sessionId, path: p, line, limit, outcome }) => ({ op, sessionId, path: p, line, limit, outcome })),
          [
            { op: 'read', sessionId: SESSION, path, line: 2, limit: 1, outcome: 'ok' },
            { op: 'read', sessionId: SESSION, path: join(project, 'notes.md'), line: 3, limit: null, outcome: 'ok' },
          ],
        );
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('callTool write: on disk, approveWrite consulted first, a change record after', async () => {
      const { fs, seen } = makeFs();
      const { client, failures, close } = await connectClient(fs.mcpHandler(SESSION));
      try {
        const path = join(project, 'docs', 'new.md');
        const result = await client.callTool({ name: 'write_text_file', arguments: { path, content: '# new\n' } });
        assert.deepEqual(result, { content: [{ type: 'text', text: `Wrote ${path} (6 bytes).` }], isError: false });
        assert.equal(nodeFs.readFileSync(path, 'utf8'), '# new\n');
        // docs/ did not exist: the record lists it, for undo (semantics.md §5).
        const record = { sessionId: SESSION, path, created: true, oldText: null, newText: '# new\n', createdDirs: [join(project, 'docs')] };
        assert.deepEqual(seen.approvals, [record]);
        assert.deepEqual(seen.changes, [record]);

        // An existing CRLF file stays CRLF, and the record shows the old text.
        const main = join(project, 'src', 'main.rs');
        const before = nodeFs.readFileSync(main, 'utf8');
        await client.callTool({ name: 'write_text_file', arguments: { path: main, content: 'fn main() {}\n' } });
        assert.equal(nodeFs.readFileSync(main, 'utf8'), 'fn main() {}\r\n');
        assert.deepEqual(seen.changes[1], { sessionId: SESSION, path: main, created: false, oldText: before, newText: 'fn main() {}\r\n' });
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('denials, refusals and bad arguments arrive as isError results; nothing is written', async () => {
      const { fs, seen } = makeFs();
      const { client, failures, close } = await connectClient(fs.mcpHandler(SESSION));
      const call = async (name, args) => {
        const r = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
        return r.content.map((c) => c.text).join('\n');
      };
      try {
        const missing = join(project, 'missing.txt');
        assert.equal(await call('read_text_file', { path: missing }), `File not found: ${missing}`);
        assert.match(await call('read_text_file', { path: join(dir, 'outside.txt') }), /path_outside_roots/);
        assert.match(await call('read_text_file', { path: join(project, '.env') }), /denied_by_pattern/);
        const rejected = join(project, 'rejected.txt');
        assert.match(await call('write_text_file', { path: rejected, content: 'no' }), /user_rejected/);
        assert.equal(nodeFs.existsSync(rejected), false);
        assert.match(await call('write_text_file', { path: join(project, '.git', 'config'), content: 'x' }), /denied_by_pattern/);
        assert.equal(nodeFs.existsSync(join(project, '.git')), false);
        assert.deepEqual(seen.changes, []);
        // Arguments are checked with the client's rules; the model reads which one is wrong.
        // A relative path is the session's cwd's (MCP tools, semantics.md §10); ~ is not expanded.
        assert.match(await call('read_text_file', { path: '~/src/main.rs' }), /path/);
        assert.match(await call('read_text_file', { path: missing, limit: -1 }), /limit/);
        assert.match(await call('read_text_file', { path: missing, offset: 2 }), /offset/);
        assert.match(await call('write_text_file', { path: rejected }), /content/);
        assert.equal(seen.approvals.length, 1, 'only the write that passed the policy was put to the user');
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('an unknown tool is a protocol error (-32602), as MCP says', async () => {
      const { fs } = makeFs();
      const { client, failures, close } = await connectClient(fs.mcpHandler(SESSION));
      try {
        await assert.rejects(
          client.callTool({ name: 'delete_file', arguments: { path: join(project, 'notes.md') } }),
          (e) => e instanceof McpError && e.code === -32602,
        );
        assert.ok(nodeFs.existsSync(join(project, 'notes.md')));
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('a read-only engine offers only the read tool; the write tool cannot be called', async () => {
      const { fs } = makeFs({ readOnly: true });
      const { client, failures, close } = await connectClient(fs.mcpHandler(SESSION));
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'read_text_file'));
        assert.ok(tools.every((t) => t.annotations.readOnlyHint), 'only tools that change nothing');
        const path = join(project, 'ro.txt');
        await assert.rejects(
          client.callTool({ name: 'write_text_file', arguments: { path, content: 'x' } }),
          (e) => e instanceof McpError && e.code === -32602,
        );
        assert.equal(nodeFs.existsSync(path), false);
        assert.deepEqual(failures, []);
      } finally {
        await close();
      }
    });

    test('handle answers raw text with text, and needs no answer for notifications', async () => {
      const { fs } = makeFs();
      const mcp = fs.mcpHandler(SESSION);
      assert.equal(await mcp.handle('{"jsonrpc":"2.0","method":"notifications/initialized"}'), null);
      assert.equal(await mcp.handle('{"jsonrpc":"2.0","id":9,"result":{}}'), null, 'a response is not ours to answer');
      const parse = JSON.parse(await mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/call",'));
      assert.equal(parse.error.code, -32700);
      const unknown = JSON.parse(await mcp.handle('{"jsonrpc":"2.0","id":"x","method":"resources/list"}'));
      assert.deepEqual([unknown.id, unknown.error.code], ['x', -32601]);
      const read = await mcp.handle(
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: join(project, 'notes.md'), limit: 1 } } }),
      );
      assert.equal(read, '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"one\\n"}],"structuredContent":{"content":"one\\n"},"isError":false}}');
      // A lone surrogate escape is not valid Unicode: refused naming the params member it is in
      // (semantics.md §8.1), never a silent replacement.
      const lone = await mcp.handle({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'read_text_file', arguments: { path: `${project}/\uD800` } },
      });
      assert.deepEqual([lone.id, lone.error.code, lone.error.data.field], [8, -32602, 'arguments'], 'an object in gives an object out');
      assert.throws(() => fs.mcpHandler(42), (e) => e.name === 'AcpFsError' && e.data.field === 'sessionId');
    });

    test('an aborted call answers a cancelled isError result and writes nothing', async () => {
      let release;
      const asked = new Promise((resolve) => {
        release = resolve;
      });
      const { fs } = makeFs({
        approveWrite: () => {
          release();
          return new Promise(() => {}); // the user never decides
        },
      });
      const mcp = fs.mcpHandler(SESSION);
      const controller = new AbortController();
      const path = join(project, 'cancelled.txt');
      const pending = mcp.handle(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_text_file', arguments: { path, content: 'late' } } },
        { signal: controller.signal },
      );
      await asked;
      controller.abort();
      const reply = await pending;
      assert.equal(reply.id, 3);
      assert.equal(reply.result.isError, true);
      assert.match(reply.result.content[0].text, /cancelled/i);
      assert.equal(nodeFs.existsSync(path), false);
    });
  });
}

// MCP cancellation: `notifications/cancelled` for a call in flight ends it, nothing is written,
// and (the MCP rule) the cancelled request gets no response; a later call is unaffected.
for (const [label, AcpFs] of [['@acp-fs/node', nodePkg.AcpFs], ['@acp-fs/wasm', wasmPkg.AcpFs]]) {
  test(`notifications/cancelled ends a tools/call held at approval (${label})`, async () => {
    const dir = makeTempDir('acpfs-mcp-cancel-');
    let release;
    const asked = new Promise((resolve) => {
      release = resolve;
    });
    let approvals = 0;
    const fs = new AcpFs({
      storage: nodeFs.promises,
      approveWrite: () => {
        approvals += 1;
        return new Promise((decide) => release(decide));
      },
    });
    fs.openSession(SESSION, { cwd: dir });
    const mcp = fs.mcpHandler(SESSION);
    const target = join(dir, 'held.txt');
    const call = (id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'write_text_file', arguments: { path: target, content: 'x' } },
    });
    const pending = mcp.handle(call(7));
    const decide = await asked; // the write is now waiting for the user
    assert.equal(
      await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }),
      null,
    );
    decide(true); // the user approves too late: the request is already cancelled
    assert.equal(await pending, null, 'a cancelled request gets no response');
    assert.equal(nodeFs.existsSync(target), false, 'nothing was written');
    assert.equal(approvals, 1);
    // Cancelling an id that is not in flight is harmless.
    assert.equal(
      await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }),
      null,
    );
  });
}
