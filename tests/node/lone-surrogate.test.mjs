// A raw (unescaped) lone surrogate in a JS *string* given to `handle()`: both bindings convert
// JS strings to Rust lossily (U+FFFD), so the shared driver re-escapes it first and the engine
// applies its own rule (semantics.md §8.1): inside params -32602 naming the member, elsewhere
// -32600, in the id -32700 with id null; never a file named `w\uFFFD.txt` or U+FFFD in content.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { MapStorage } from './harness.mjs';

const NODE_PKG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'npm', 'node');

/** @acp-fs/node when its addon is built, else why not. */
async function loadNode() {
  const addons = nodeFs.existsSync(NODE_PKG) ? nodeFs.readdirSync(NODE_PKG).filter((f) => f.endsWith('.node')) : [];
  if (!addons.length) return { skip: 'the N-API addon is not built (no npm/node/*.node): run scripts/build-node.sh' };
  try {
    return { pkg: await import('../../npm/node/index.mjs') };
  } catch (e) {
    return { skip: `the N-API addon does not load: ${e.message}` };
  }
}

const native = await loadNode();
const LONE = '\uD800';

function setup(pkg) {
  const storage = new MapStorage();
  storage.put('/project/a.txt', Buffer.from('kept\n'));
  const fs = new pkg.AcpFs({ storage });
  fs.openSession('s1', { cwd: '/project' });
  return { fs, storage };
}

const request = (id, method, params, extra = '') =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}${extra}}`;

/** Every file the storage holds, by path (to prove nothing was created or changed). */
const snapshot = (storage) => [...storage.files].map(([p, b]) => [p, b.toString('utf8')]).sort();

for (const [name, pkg, skip] of [
  ['@acp-fs/wasm', wasmPkg, false],
  ['@acp-fs/node', native.pkg, native.skip ?? false],
]) {
  describe(`${name}: a raw lone surrogate in handle() text`, { skip }, () => {
    test('in write content: -32602 field content, id echoed, nothing written', async () => {
      const { fs, storage } = setup(pkg);
      const before = snapshot(storage);
      for (const [id, content] of [[1, `a${LONE}b`], [2, 'end\uD83D'], [3, '\uDC00'], [4, '\uDC00\uD800']]) {
        const params = `{"sessionId":"s1","path":"/project/w.txt","content":"${content}"}`;
        const reply = JSON.parse(await fs.handle(request(id, 'fs/write_text_file', params)));
        assert.equal(reply.id, id);
        assert.equal(reply.error.code, -32602, JSON.stringify(reply));
        assert.equal(reply.error.data.field, 'content');
      }
      const over = JSON.parse(await fs.handle(request(5, 'fs/write_text_file', `{"sessionId":"s1","path":"/project/a.txt","content":"${LONE}"}`)));
      assert.equal(over.error.data.field, 'content');
      assert.deepEqual(snapshot(storage), before, 'no file created or changed, no U+FFFD anywhere');
    });

    test('in the path: -32602 field path, no w\uFFFD.txt', async () => {
      const { fs, storage } = setup(pkg);
      const params = `{"sessionId":"s1","path":"/project/w${LONE}.txt","content":"x"}`;
      const reply = JSON.parse(await fs.handle(request('"p"', 'fs/write_text_file', params)));
      assert.deepEqual([reply.id, reply.error.code, reply.error.data.field], ['p', -32602, 'path']);
      assert.equal(storage.files.has('/project/w\uFFFD.txt'), false);
      const read = JSON.parse(await fs.handle(request(6, 'fs/read_text_file', `{"sessionId":"s1","path":"/project/a${LONE}.txt"}`)));
      assert.deepEqual([read.id, read.error.code, read.error.data.field], [6, -32602, 'path']);
    });

    test('elsewhere in the message: -32600 with the id; in the id: -32700 with id null', async () => {
      const { fs, storage } = setup(pkg);
      const params = '{"sessionId":"s1","path":"/project/n.txt","content":"x"}';
      const member = JSON.parse(await fs.handle(request(7, 'fs/write_text_file', params, `,"extra":"${LONE}"`)));
      assert.deepEqual([member.id, member.error.code], [7, -32600]);
      const method = JSON.parse(await fs.handle(request(8, `fs/write_text_file${LONE}`, params)));
      assert.deepEqual([method.id, method.error.code], [8, -32600]);
      const id = JSON.parse(await fs.handle(request(`"${LONE}"`, 'fs/write_text_file', params)));
      assert.deepEqual([id.id, id.error.code], [null, -32700]);
      assert.equal(storage.files.has('/project/n.txt'), false);
    });

    test('text that is not JSON stays a parse error; a surrogate pair is text', async () => {
      const { fs, storage } = setup(pkg);
      const outside = JSON.parse(await fs.handle(`${request(9, 'fs/read_text_file', '{"sessionId":"s1","path":"/project/a.txt"}')}${LONE}`));
      assert.equal(outside.error.code, -32700);
      // `\` + a lone surrogate is an invalid escape; re-escaping must not turn it into `\\`.
      const escaped = JSON.parse(await fs.handle(request(10, 'fs/write_text_file', `{"sessionId":"s1","path":"/project/n.txt","content":"\\${LONE}"}`)));
      assert.deepEqual([escaped.id, escaped.error.code], [null, -32700]);
      assert.equal(storage.files.has('/project/n.txt'), false);
      const pair = JSON.parse(await fs.handle(request(11, 'fs/write_text_file', '{"sessionId":"s1","path":"/project/n.txt","content":"\uD83D\uDE00"}')));
      assert.deepEqual(pair, { jsonrpc: '2.0', id: 11, result: {} });
      assert.equal(storage.files.get('/project/n.txt').toString('utf8'), '\uD83D\uDE00');
    });

    test('the MCP handler gets the same rule', async () => {
      const { fs, storage } = setup(pkg);
      const mcp = fs.mcpHandler('s1');
      const args = `{"name":"write_text_file","arguments":{"path":"/project/w${LONE}.txt","content":"x"}}`;
      const reply = JSON.parse(await mcp.handle(request(12, 'tools/call', args)));
      assert.deepEqual([reply.id, reply.error.code, reply.error.data.field], [12, -32602, 'arguments']);
      assert.equal(storage.files.has('/project/w\uFFFD.txt'), false);
    });
  });
}
