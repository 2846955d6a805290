#!/usr/bin/env node
// The @acp-fs/wasm vectors in a real browser: Debian's Chromium driven by playwright-core, pages
// served from 127.0.0.1. Every vector runs in a page (in-memory storage, OPFS through `fromOPFS`,
// LightningFS through `fromLightningFS`) and in a module Web Worker (in-memory, OPFS); then an app
// bundled by esbuild from the package's exports runs a smoke test. Prints one line
// `N passed, N failed, N skipped` last and exits non-zero on any failure; a screenshot of the
// results page goes to out/browser/.
//
//   scripts/build-wasm.sh && node tests/browser/run.mjs

import assert from 'node:assert/strict';
import { mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { launch } from './chromium.mjs';
import { ROOT, serve } from './server.mjs';

const OUT = join(ROOT, 'out', 'browser');
// A hang guard for a run that normally takes seconds, not a timed assertion.
const HANG_GUARD_MS = 10 * 60 * 1000;

/** LightningFS for the page (it is CommonJS), and the esbuild-bundled app. */
export async function buildBundles() {
  mkdirSync(OUT, { recursive: true });
  await esbuild.build({
    stdin: { contents: "export { default } from '@isomorphic-git/lightning-fs';", resolveDir: ROOT, sourcefile: 'lightning-fs.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(OUT, 'lightning-fs.mjs'),
    logLevel: 'error',
  });
  // The package as an installed dependency: resolved through its package.json `exports`.
  const scope = join(OUT, 'node_modules', '@acp-fs');
  mkdirSync(scope, { recursive: true });
  rmSync(join(scope, 'wasm'), { recursive: true, force: true });
  symlinkSync(join(ROOT, 'npm', 'wasm'), join(scope, 'wasm'), 'dir');
  rmSync(join(OUT, 'bundle'), { recursive: true, force: true });
  const built = await esbuild.build({
    entryPoints: [join(ROOT, 'tests', 'browser', 'bundle-app.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    outdir: join(OUT, 'bundle'),
    loader: { '.wasm': 'file' },
    nodePaths: [join(OUT, 'node_modules')],
    metafile: true,
    logLevel: 'error',
  });
  const outputs = Object.keys(built.metafile.outputs);
  const inputs = Object.keys(built.metafile.inputs);
  return {
    js: statSync(join(ROOT, outputs.find((o) => o.endsWith('.js')))).size,
    wasm: outputs.filter((o) => o.endsWith('.wasm')).map((o) => statSync(join(ROOT, o)).size),
    inputs,
  };
}

export { launch } from './chromium.mjs';

function watchErrors(page, errors, where) {
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`[${where} console] ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`[${where}] ${e.message}`));
}

async function main() {
  const bundle = await buildBundles();
  const server = await serve();
  const browser = await launch();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  try {
    const errors = [];
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    watchErrors(page, errors, 'vectors page');
    await page.goto(`${server.url}/tests/browser/page/index.html`);
    await page.waitForFunction(() => window.__done === true, null, { timeout: HANG_GUARD_MS });
    const suites = await page.evaluate(() => window.__results);
    await page.screenshot({ path: join(OUT, 'vectors.png'), fullPage: true });
    for (const s of suites) {
      console.log(`${s.label}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
      for (const [reason, n] of Object.entries(s.skips).sort()) console.log(`  skipped ${n} × ${reason}`);
      totals.passed += s.passed;
      totals.failed += s.failed;
      totals.skipped += s.skipped;
      failures.push(...s.failures);
    }
    if (!suites.some((s) => s.label === 'worker')) {
      totals.failed += 1;
      failures.push('the Web Worker run did not report');
    }

    // The bundled app: what an IDE ships.
    const app = await browser.context.newPage();
    watchErrors(app, errors, 'bundle page');
    await app.goto(`${server.url}/tests/browser/bundle.html`);
    await app.waitForFunction(() => window.__bundle !== undefined, null, { timeout: HANG_GUARD_MS });
    const got = await app.evaluate(() => window.__bundle);
    try {
      assert.equal(got.error, undefined, got.error);
      assert.deepEqual(got.result, {
        write: {},
        read: { content: 'two\r\n' },
        open: { content: 'unsaved\n' },
        merged: { write: {}, read: { content: 'one\ntwo (user)\nthree\nfour\nfive (agent)\n' } },
        denied: { name: 'AcpFsError', code: 'path_outside_roots', jsonRpcCode: -32603 },
        capabilities: { readTextFile: true, writeTextFile: true },
        liteTools: { code: -32601, module: '@acp-fs/wasm/full' },
        mcp: { result: { content: [{ type: 'text', text: 'two\r\n' }], structuredContent: { content: 'two\r\n' }, isError: false } },
        mcpDeclaration: { type: 'acp', name: 'files', serverId: 'string' },
        mcpServerFor: 'acp',
        serveMcp: 'serveMcp needs Node (it listens on local sockets); in a browser use fs.mcpOverAcp',
      });
      assert.ok(!bundle.inputs.some((i) => i.endsWith('node.mjs')), 'the browser bundle left the Node entry out');
      assert.ok(!bundle.inputs.some((i) => /mcp-(serve|relay)\.mjs$/.test(i)), 'the browser bundle left the socket transports out');
      totals.passed += 1;
      console.log(`esbuild bundle: passed (app ${bundle.js} bytes minified, .wasm ${bundle.wasm.join(' and ')} bytes as assets)`);
    } catch (e) {
      totals.failed += 1;
      failures.push(`[esbuild bundle] ${e.message}`);
    }
    await app.close();

    for (const e of errors) {
      totals.failed += 1;
      failures.push(e);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  for (const f of failures.slice(0, 50)) console.log(`FAIL ${f}`);
  if (failures.length > 50) console.log(`… and ${failures.length - 50} more failures`);
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  return totals.failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      console.log('0 passed, 1 failed, 0 skipped');
      process.exit(1);
    },
  );
}
