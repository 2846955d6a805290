// Every MCP tool acp-fs offers, called through the official MCP SDK client on every transport:
// the standalone `acp-fs mcp DIR` command over stdio; Streamable HTTP and the stdio relay of an
// editor's session (`fs.serveMcp`) and MCP over ACP (`fs.mcpOverAcp`), for @acp-fs/node on its
// native disk and @acp-fs/wasm in Node over fs.promises, each over a real temp dir. The cases are in mcp-tool-cases.mjs: a tool offered
// without a case fails here.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as nodePkg from '../../npm/node/index.mjs';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { makeTempDir } from './harness.mjs';
import { acpClient, httpClient, relayClient, stdioClient } from './mcp-clients.mjs';
import { runEveryTool } from './mcp-tool-cases.mjs';

const KEY = 'editor-key';

let work;
before(() => {
  work = makeTempDir('acpfs-mcp-sdk-');
  nodeFs.writeFileSync(join(work, 'outside.txt'), 'outside\n');
});
after(() => nodeFs.rmSync(work, { recursive: true, force: true }));

/** A fresh served directory for one run, beside `outside.txt`. */
function project(name) {
  const root = join(work, name);
  nodeFs.mkdirSync(root);
  return root;
}

describe('every tool through the official MCP SDK client', () => {
  test('stdio: the standalone command (acp-fs mcp DIR)', async (t) => {
    const root = project('stdio');
    const s = await stdioClient({ dirs: [root] });
    try {
      const names = await runEveryTool(t, { client: s.client, root, outside: join(work, 'outside.txt') });
      assert.ok(names.includes('write_text_file'), 'without --read-only the write tools are offered');
    } finally {
      await s.close();
    }
  });

  const packages = [
    ['@acp-fs/node, native disk', nodePkg, () => undefined],
    ['@acp-fs/wasm in Node, fs.promises', wasmPkg, () => nodeFs.promises],
  ];
  for (const [label, pkg, storage] of packages) {
    for (const [kind, connect] of [
      ['http', (fs) => httpClient(fs, KEY)],
      ['stdio relay', (fs) => relayClient(fs, KEY)],
      ['acp', (fs) => acpClient(fs, KEY, pkg)],
    ]) {
      test(`${kind}: ${label}`, async (t) => {
        const root = project(`${kind.replace(' ', '-')}-${pkg === nodePkg ? 'node' : 'wasm'}`);
        const fs = new pkg.AcpFs({ storage: storage() });
        fs.openSession(KEY, { cwd: root });
        const c = await connect(fs);
        try {
          await runEveryTool(t, { client: c.client, root, outside: join(work, 'outside.txt') });
        } finally {
          await c.close();
        }
      });
    }
  }
});
