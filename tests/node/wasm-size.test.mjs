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
  const file = (...path) => readFileSync(join(PKG, ...path));
  // What a page downloads, with its budget: the fs/* module at once, the other two when first used.
  const wasm = [
    ['the fs/* .wasm', file('pkg', 'acp_fs_wasm_bg.wasm'), budget.wasmGzipBytes],
    ["the merge module's .wasm", file('pkg-merge', 'acp_fs_wasm_merge_bg.wasm'), budget.mergeWasmGzipBytes],
    ["the JSON-RPC module's .wasm", file('pkg-rpc', 'acp_fs_wasm_rpc_bg.wasm'), budget.rpcWasmGzipBytes],
  ];
  const js = await pageJs();
  const full = file('pkg-full', 'acp_fs_wasm_bg.wasm');
  const sized = [...wasm.map(([what, bytes, most]) => [what, gz(bytes), most, `${bytes.length} raw`]), ["the page's JS", gz(js), budget.jsGzipBytes, `${js.length} minified`]];
  console.log(
    `@acp-fs/wasm for a page serving fs/*: ${sized.map(([what, size, most, raw]) => `${what} ${size} bytes gzip -9 (budget ${most}, ${raw})`).join('; ')}; ` +
      `@acp-fs/wasm/full's .wasm ${gz(full)} bytes gzip -9 (${full.length} raw)`,
  );
  for (const [what, size, most] of sized) assert.ok(size <= most, `${what} is ${size} bytes gzipped, over ${most}`);
});
