// @acp-fs/wasm as a package: loading in Node, what crosses the wasm boundary, and the packed
// tarball.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { AcpFs, AcpFsError, agent, init } from '../../npm/wasm/node.mjs';
import { makeTempDir, MapStorage } from './harness.mjs';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

// The package API over wasm (the shared driver is tested with @acp-fs/node; here: what crosses
// the wasm boundary).

describe('package', () => {
  test('the fs/* module answers MCP and agent calls with the core error naming @acp-fs/wasm/full', async () => {
    const fs = new AcpFs({ storage: { readFile: () => 'a\n' }, roots: ['/'] });
    fs.openSession('s', { cwd: '/' });
    const mcp = fs.mcpHandler('s');
    const reply = await mcp.handle({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    assert.equal(reply.id, 7);
    assert.equal(reply.error.code, -32601);
    assert.deepEqual(reply.error.data, { method: 'the MCP tools', feature: 'mcp', module: '@acp-fs/wasm/full' });
    assert.match(reply.error.message, /^Method not found: the MCP tools: not in this build .*@acp-fs\/wasm\/full/);
    // A notification gets no answer, as on the full module.
    assert.equal(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }), null);
    const thrown = (f) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      assert.fail('did not throw');
    };
    for (const e of [thrown(() => mcp.tools()), thrown(() => agent.toolDefinitions({ readTextFile: true }))]) {
      assert.ok(e instanceof AcpFsError, `an AcpFsError, not ${e}`);
      assert.equal(e.code, 'method_not_found');
      assert.equal(e.jsonRpcCode, -32601);
      assert.equal(e.data.module, '@acp-fs/wasm/full');
    }
    assert.equal(thrown(() => agent.buildRequest({ readTextFile: true }, 'read_text_file', 's', {})).data.method, 'buildRequest');
    // fs/* itself is served.
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/x.txt' }), { content: 'a\n' });
  });

  test('@acp-fs/wasm/full serves the MCP tools and the agent side', async () => {
    const full = await import('../../npm/wasm/full-node.mjs');
    const fs = new full.AcpFs({ storage: { readFile: () => 'one\ntwo\n' }, roots: ['/p'] });
    fs.openSession('s', { cwd: '/p' });
    const reply = await fs.mcpHandler('s').handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'read_text_file', arguments: { path: '/p/a.txt', line: 2 } },
    });
    assert.deepEqual(reply.result.structuredContent, { content: 'two\n' });
    assert.ok(full.agent.toolDefinitions({ readTextFile: true }).length > 0);
  });

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
      for (const f of ['node.mjs', 'index.mjs', 'full.mjs', 'full-node.mjs', 'shared/index.mjs', 'pkg/acp_fs_wasm_bg.wasm', 'pkg-merge/acp_fs_wasm_merge_bg.wasm', 'pkg-rpc/acp_fs_wasm_rpc_bg.wasm', 'pkg-rpc/acp_fs_wasm_rpc.js', 'pkg-full/acp_fs_wasm_bg.wasm', 'adapters/index.mjs', 'types/acp-fs.d.ts', 'shared/codemirror.mjs', 'shared/monaco.mjs', 'types/codemirror.d.ts', 'types/monaco.d.ts']) {
        assert.ok(names.includes(f), `the tarball has ${f}`);
      }
      const modules = join(dir, 'app', 'node_modules', '@acp-fs');
      nodeFs.mkdirSync(modules, { recursive: true });
      execFileSync('tar', ['-xzf', join(dir, filename), '-C', modules]);
      nodeFs.renameSync(join(modules, 'package'), join(modules, 'wasm'));
      nodeFs.writeFileSync(
        join(dir, 'app', 'main.mjs'),
        `import { AcpFs } from '@acp-fs/wasm';
import { AcpFs as FullAcpFs } from '@acp-fs/wasm/full';
import { overlay } from '@acp-fs/wasm/adapters';
const wasm = import.meta.resolve('@acp-fs/wasm/acp_fs_wasm_bg.wasm');
const fullWasm = import.meta.resolve('@acp-fs/wasm/full/acp_fs_wasm_bg.wasm');
const fs = new AcpFs({ storage: overlay((p) => (p === '/a.txt' ? 'unsaved\\n' : null), { readFile: () => 'saved\\n' }), roots: ['/'] });
const r = await fs.readTextFile({ sessionId: 's', path: '/a.txt' });
const raw = JSON.parse(await fs.handle('{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a.txt"}}'));
const rpcWasm = import.meta.resolve('@acp-fs/wasm/rpc/acp_fs_wasm_rpc_bg.wasm');
const full = new FullAcpFs({ storage: { readFile: () => 'x\\n' }, roots: ['/'] });
full.openSession('s', { cwd: '/' });
const tools = full.mcpHandler('s').tools().length > 0;
console.log(JSON.stringify({ content: r.content, raw: raw.result.content, wasm: wasm.endsWith('/pkg/acp_fs_wasm_bg.wasm'), rpcWasm: rpcWasm.endsWith('/pkg-rpc/acp_fs_wasm_rpc_bg.wasm'), fullWasm: fullWasm.endsWith('/pkg-full/acp_fs_wasm_bg.wasm'), tools }));
`,
      );
      const printed = execFileSync(process.execPath, ['main.mjs'], { cwd: join(dir, 'app'), encoding: 'utf8' });
      assert.deepEqual(JSON.parse(printed), { content: 'unsaved\n', raw: 'unsaved\n', wasm: true, rpcWasm: true, fullWasm: true, tools: true });
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
// The full module: the same API, its MCP handler typed.
const full = await import('@acp-fs/wasm/full');
await full.init();
export const tools: unknown[] = new full.AcpFs({ storage }).mcpHandler('s').tools();
// @ts-expect-error the same types: a session id is a string
new full.AcpFs({ storage }).mcpHandler(1);
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
