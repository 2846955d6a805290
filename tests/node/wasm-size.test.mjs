// What a web page that serves only fs/* downloads from @acp-fs/wasm, against the budgets in
// npm/wasm/size-budget.json: the fs/* module's .wasm, and the JS a bundler ships for
// `import { AcpFs, init } from '@acp-fs/wasm'` (esbuild, browser conditions, minified; the .wasm
// left out as the asset it is; the glue of the merge and JSON-RPC modules, which it imports on
// first use, counted in), and those two modules' .wasm, which a page downloads the first time it
// merges a stale write or is given a raw message. All gzip -9.
// Builds nothing: measures what scripts/build-wasm.sh left in npm/wasm.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { makeTempDir } from './harness.mjs';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const PKG = join(ROOT, 'npm', 'wasm');
const budget = JSON.parse(readFileSync(join(PKG, 'size-budget.json'), 'utf8'));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

/** The page's JS: the package entry bundled as an app would, through the package's `exports`. */
async function pageJs() {
  // The package as an installed dependency, so its `exports` map is what resolves the entry.
  const modules = makeTempDir('acpfs-size-');
  mkdirSync(join(modules, '@acp-fs'));
  symlinkSync(PKG, join(modules, '@acp-fs', 'wasm'), 'dir');
  try {
    return await bundle(modules);
  } finally {
    rmSync(modules, { recursive: true, force: true });
  }
}

async function bundle(modules) {
  const built = await esbuild.build({
    stdin: { contents: "export { AcpFs, init } from '@acp-fs/wasm';", resolveDir: ROOT, sourcefile: 'page.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    nodePaths: [modules],
    external: ['*.wasm'],
    logLevel: 'error',
  });
  return built.outputFiles[0].contents;
}

test('a page serving fs/* downloads at most the budget of wasm and of JS (gzip -9)', async () => {
  const wasm = readFileSync(join(PKG, 'pkg', 'acp_fs_wasm_bg.wasm'));
  const merge = readFileSync(join(PKG, 'pkg-merge', 'acp_fs_wasm_merge_bg.wasm'));
  const rpc = readFileSync(join(PKG, 'pkg-rpc', 'acp_fs_wasm_rpc_bg.wasm'));
  const full = readFileSync(join(PKG, 'pkg-full', 'acp_fs_wasm_bg.wasm'));
  const js = await pageJs();
  const sizes = { wasm: gz(wasm), js: gz(js), merge: gz(merge), rpc: gz(rpc) };
  console.log(
    `@acp-fs/wasm for a page serving fs/*: .wasm ${sizes.wasm} bytes gzip -9 (budget ${budget.wasmGzipBytes}, ` +
      `${wasm.length} raw), JS ${sizes.js} bytes gzip -9 (budget ${budget.jsGzipBytes}, ${js.length} minified); ` +
      `the merge module's .wasm ${sizes.merge} bytes gzip -9 (budget ${budget.mergeWasmGzipBytes}, ${merge.length} raw); ` +
      `the JSON-RPC module's .wasm ${sizes.rpc} bytes gzip -9 (budget ${budget.rpcWasmGzipBytes}, ${rpc.length} raw); ` +
      `@acp-fs/wasm/full's .wasm ${gz(full)} bytes gzip -9 (${full.length} raw)`,
  );
  assert.ok(sizes.wasm <= budget.wasmGzipBytes, `the fs/* .wasm is ${sizes.wasm} bytes gzipped, over ${budget.wasmGzipBytes}`);
  assert.ok(sizes.js <= budget.jsGzipBytes, `the page's JS is ${sizes.js} bytes gzipped, over ${budget.jsGzipBytes}`);
  assert.ok(sizes.merge <= budget.mergeWasmGzipBytes, `the merge .wasm is ${sizes.merge} bytes gzipped, over ${budget.mergeWasmGzipBytes}`);
  assert.ok(sizes.rpc <= budget.rpcWasmGzipBytes, `the JSON-RPC .wasm is ${sizes.rpc} bytes gzipped, over ${budget.rpcWasmGzipBytes}`);
});
