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
import { AcpFs, AcpFsError, init } from '../../npm/wasm/node.mjs';
import { makeTempDir, MapStorage } from './harness.mjs';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

// The package API over wasm (the shared driver is tested with @acp-fs/node; here: what crosses
// the wasm boundary).

describe('package', () => {
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
      for (const f of ['node.mjs', 'index.mjs', 'shared/index.mjs', 'pkg/acp_fs_wasm_bg.wasm', 'adapters/index.mjs', 'types/acp-fs.d.ts', 'shared/codemirror.mjs', 'shared/monaco.mjs', 'types/codemirror.d.ts', 'types/monaco.d.ts']) {
        assert.ok(names.includes(f), `the tarball has ${f}`);
      }
      const modules = join(dir, 'app', 'node_modules', '@acp-fs');
      nodeFs.mkdirSync(modules, { recursive: true });
      execFileSync('tar', ['-xzf', join(dir, filename), '-C', modules]);
      nodeFs.renameSync(join(modules, 'package'), join(modules, 'wasm'));
      nodeFs.writeFileSync(
        join(dir, 'app', 'main.mjs'),
        `import { AcpFs } from '@acp-fs/wasm';
import { overlay } from '@acp-fs/wasm/adapters';
const wasm = import.meta.resolve('@acp-fs/wasm/acp_fs_wasm_bg.wasm');
const fs = new AcpFs({ storage: overlay((p) => (p === '/a.txt' ? 'unsaved\\n' : null), { readFile: () => 'saved\\n' }), roots: ['/'] });
const r = await fs.readTextFile({ sessionId: 's', path: '/a.txt' });
console.log(JSON.stringify({ content: r.content, wasm: wasm.endsWith('/pkg/acp_fs_wasm_bg.wasm') }));
`,
      );
      const printed = execFileSync(process.execPath, ['main.mjs'], { cwd: join(dir, 'app'), encoding: 'utf8' });
      assert.deepEqual(JSON.parse(printed), { content: 'unsaved\n', wasm: true });
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
