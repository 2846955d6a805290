// The official TypeScript SDK (@agentclientprotocol/sdk) as the agent, calling fs/read_text_file
// and fs/write_text_file over a real ndjson connection on a client whose handlers are
// @acp-fs/node, over a real temp dir: what reaches the agent (contents, codes, data) and what
// lands on disk. Run once with the native disk and once with fs.promises as storage.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { AcpFs, acpClientHandlers } from './node-package.mjs';
import { makeTempDir } from './harness.mjs';

/** An in-memory byte pipe pair carrying newline-delimited JSON, as over stdio. */
function connect({ fs, handlers = acpClientHandlers(fs, acp.RequestError) }) {
  const toAgent = new TransformStream();
  const toClient = new TransformStream();
  const seen = {};
  const agentApp = acp.agent().onRequest('initialize', (ctx) => {
    seen.clientCapabilities = ctx.params.clientCapabilities;
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
  });
  const clientApp = acp
    .client()
    .onRequest('fs/read_text_file', handlers.readTextFile)
    .onRequest('fs/write_text_file', handlers.writeTextFile);
  const agent = agentApp.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const client = clientApp.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  return {
    seen,
    /** The agent calling the client. */
    request: (method, params, options) => agent.client.request(method, params, options),
    initialize: () =>
      client.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: fs.capabilities() },
      }),
    close() {
      agent.close();
      client.close();
    },
  };
}

/** Rejection of the agent's request as `{code, message, data}`. */
async function agentError(promise) {
  try {
    const r = await promise;
    assert.fail(`expected an error, got ${JSON.stringify(r)}`);
  } catch (e) {
    assert.ok(e instanceof acp.RequestError, `not a RequestError: ${e}`);
    return { code: e.code, message: e.message, data: e.data };
  }
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

const storages = [
  ['native disk', () => undefined],
  ['fs.promises', () => nodeFs.promises],
];

for (const [label, storage] of storages) {
  describe(`official SDK agent ⇄ @acp-fs/node client (${label})`, () => {
    let dir;
    let project;
    before(() => {
      dir = makeTempDir('acpfs-interop-');
      project = join(dir, 'project');
      nodeFs.mkdirSync(join(project, 'src'), { recursive: true });
      nodeFs.writeFileSync(join(project, 'src', 'main.rs'), 'fn main() {\r\n    hello();\r\n}\r\n');
      nodeFs.writeFileSync(join(project, '.env'), 'SECRET=1\n');
      nodeFs.writeFileSync(join(dir, 'outside.txt'), 'outside\n');
    });
    after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

    function makeFs(options = {}) {
      const fs = new AcpFs({ storage: storage(), ...options });
      fs.openSession('sess-1', { cwd: project });
      return fs;
    }

    test('initialize carries capabilities() as clientCapabilities.fs', async () => {
      const conns = [makeFs(), makeFs({ readOnly: true })].map((fs) => connect({ fs }));
      try {
        for (const c of conns) await c.initialize();
        assert.deepEqual(conns[0].seen.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
        assert.deepEqual(conns[1].seen.clientCapabilities.fs, { readTextFile: true, writeTextFile: false });
      } finally {
        for (const c of conns) c.close();
      }
    });

    test('a window arrives as an exact substring (CRLF kept)', async () => {
      const c = connect({ fs: makeFs() });
      try {
        const path = join(project, 'src', 'main.rs');
        assert.deepEqual(await c.request('fs/read_text_file', { sessionId: 'sess-1', path, line: 2, limit: 1 }), {
          content: '    hello();\r\n',
        });
        assert.deepEqual(await c.request('fs/read_text_file', { sessionId: 'sess-1', path }), {
          content: 'fn main() {\r\n    hello();\r\n}\r\n',
        });
      } finally {
        c.close();
      }
    });

    test('a write lands on disk, answers {} and yields a change record', async () => {
      const changes = [];
      const c = connect({ fs: makeFs({ onChange: (ch) => changes.push(ch) }) });
      try {
        const path = join(project, 'notes', 'todo.md');
        assert.deepEqual(await c.request('fs/write_text_file', { sessionId: 'sess-1', path, content: '- ship\n' }), {});
        assert.equal(nodeFs.readFileSync(path, 'utf8'), '- ship\n');
        // The record names the directory the write made for the file (semantics.md §10.7).
        assert.deepEqual(changes, [{ sessionId: 'sess-1', path, created: true, oldText: null, newText: '- ship\n', createdDirs: [join(project, 'notes')] }]);

        // An existing CRLF file stays CRLF.
        const main = join(project, 'src', 'main.rs');
        await c.request('fs/write_text_file', { sessionId: 'sess-1', path: main, content: 'fn main() {}\n' });
        assert.equal(nodeFs.readFileSync(main, 'utf8'), 'fn main() {}\r\n');
        assert.equal(changes[1].oldText, 'fn main() {\r\n    hello();\r\n}\r\n');
      } finally {
        c.close();
      }
    });

    test('errors reach the agent with the codes and data of semantics.md §6', async () => {
      const c = connect({ fs: makeFs() });
      try {
        const missing = join(project, 'missing.txt');
        assert.deepEqual(await agentError(c.request('fs/read_text_file', { sessionId: 'sess-1', path: missing })), {
          code: -32002,
          message: `Resource not found: ${missing}`,
          data: { uri: missing },
        });

        const relative = await agentError(c.request('fs/read_text_file', { sessionId: 'sess-1', path: 'src/main.rs' }));
        assert.equal(relative.code, -32602);
        assert.equal(relative.data.field, 'path');

        const outside = await agentError(
          c.request('fs/read_text_file', { sessionId: 'sess-1', path: join(dir, 'outside.txt') }),
        );
        assert.equal(outside.code, -32603);
        assert.equal(outside.data.errorKind, 'path_outside_roots');
        assert.equal(outside.data.path, join(dir, 'outside.txt'));

        const denied = await agentError(c.request('fs/read_text_file', { sessionId: 'sess-1', path: join(project, '.env') }));
        assert.equal(denied.code, -32603);
        assert.equal(denied.data.errorKind, 'denied_by_pattern');

        const unknown = await agentError(
          c.request('fs/read_text_file', { sessionId: 'other', path: join(project, 'src', 'main.rs') }),
        );
        assert.equal(unknown.code, -32602);
        assert.equal(unknown.data.field, 'sessionId');
      } finally {
        c.close();
      }
    });

    test('a read-only client answers writes with -32601 and touches nothing', async () => {
      const c = connect({ fs: makeFs({ readOnly: true }) });
      try {
        const path = join(project, 'ro.txt');
        const e = await agentError(c.request('fs/write_text_file', { sessionId: 'sess-1', path, content: 'x' }));
        assert.equal(e.code, -32601);
        assert.deepEqual(e.data, { method: 'fs/write_text_file' });
        assert.equal(nodeFs.existsSync(path), false);
      } finally {
        c.close();
      }
    });

    test('the response waits for approveWrite; a refusal is user_rejected', async () => {
      const events = [];
      const asked = deferred();
      const decision = deferred();
      const path = join(project, 'approved.txt');
      const fs = makeFs({
        approveWrite: (change) => {
          events.push(`asked:${change.newText}`);
          assert.equal(nodeFs.existsSync(path), false, 'nothing is written before the decision');
          asked.resolve();
          return decision.promise;
        },
      });
      const c = connect({ fs });
      try {
        const answer = c.request('fs/write_text_file', { sessionId: 'sess-1', path, content: 'yes\n' }).then((r) => {
          events.push('answered');
          return r;
        });
        await asked.promise;
        events.push('decided');
        decision.resolve(true);
        assert.deepEqual(await answer, {});
        assert.deepEqual(events, ['asked:yes\n', 'decided', 'answered']);
        assert.equal(nodeFs.readFileSync(path, 'utf8'), 'yes\n');

        const rejecting = connect({ fs: makeFs({ approveWrite: async () => false }) });
        try {
          const e = await agentError(
            rejecting.request('fs/write_text_file', { sessionId: 'sess-1', path, content: 'no\n' }),
          );
          assert.equal(e.code, -32603);
          assert.equal(e.data.errorKind, 'user_rejected');
          assert.equal(nodeFs.readFileSync(path, 'utf8'), 'yes\n');
        } finally {
          rejecting.close();
        }
      } finally {
        c.close();
      }
    });

    test('the agent cancelling a request gets -32800 and nothing is written', async () => {
      const asked = deferred();
      const decision = deferred();
      const path = join(project, 'cancelled.txt');
      const c = connect({
        fs: makeFs({
          approveWrite: () => {
            asked.resolve();
            return decision.promise;
          },
        }),
      });
      try {
        const controller = new AbortController();
        const answer = c.request(
          'fs/write_text_file',
          { sessionId: 'sess-1', path, content: 'late\n' },
          { cancellationSignal: controller.signal },
        );
        await asked.promise;
        controller.abort();
        const e = await agentError(answer);
        assert.equal(e.code, -32800);
        // The person approves after the agent gave up: still nothing may be written.
        decision.resolve(true);
        await new Promise((r) => setImmediate(r));
        assert.equal(nodeFs.existsSync(path), false);
      } finally {
        c.close();
      }
    });

    test('unsaved editor buffers are what the agent reads', async () => {
      const fs = makeFs();
      const path = join(project, 'src', 'main.rs');
      fs.documents.open(path, 'fn main() {\n    unsaved();\n}\n');
      const c = connect({ fs });
      try {
        assert.deepEqual(await c.request('fs/read_text_file', { sessionId: 'sess-1', path, line: 2, limit: 1 }), {
          content: '    unsaved();\n',
        });
        // A write to the open document goes to the buffer by default, not over the file.
        const before = nodeFs.readFileSync(path, 'utf8');
        await c.request('fs/write_text_file', { sessionId: 'sess-1', path, content: 'buffer only\n' });
        assert.equal(fs.documents.get(path), 'buffer only\n');
        assert.equal(nodeFs.readFileSync(path, 'utf8'), before);
      } finally {
        c.close();
      }
    });

    test('plain detached handlers work too, and show why acpClientHandlers exists', async () => {
      const fs = makeFs();
      const c = connect({ fs, handlers: { readTextFile: fs.readTextFile, writeTextFile: fs.writeTextFile } });
      try {
        const path = join(project, 'detached.txt');
        nodeFs.writeFileSync(path, 'a\nb\nc\n');
        assert.deepEqual(await c.request('fs/read_text_file', { sessionId: 'sess-1', path, line: 3 }), {
          content: 'c\n',
        });
        // SDK 2.4 forwards codes only for its own RequestError: every AcpFsError becomes -32603.
        const e = await agentError(
          c.request('fs/read_text_file', { sessionId: 'sess-1', path: join(project, 'missing.txt') }),
        );
        assert.equal(e.code, -32603);
      } finally {
        c.close();
      }
    });
  });
}
