#!/usr/bin/env node
// Where a whole 4 KB read through @acp-fs/wasm spends its time in Chromium: the self time of a
// CPU profile (the DevTools protocol's sampling profiler), by function, over many reads in one
// page. The Chromium goal of issue 24 (at most 1.0x the JS baseline) is decided by
// bench/wasm.mjs; this says what to work on when it is not met.
//
//   node bench/wasm-profile.mjs [npm/wasm directory] [--names] [--reads=200000] [--top=40]
//
// --names profiles a copy whose fs/* module keeps its function names, made from the cargo output
// that scripts/build-wasm.sh left in target/ (wasm-bindgen, then scripts/wasm-opt-module.sh with
// -g). Without it, the module's functions show as wasm-function[N].
//
// The text is bench/wasm-core.mjs's (one line in ten with non-ASCII characters), read from an
// in-memory storage as bench/wasm-ab.mjs reads it. A benchmark, not a test: nothing here asserts.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBuildsInPage } from './chromium-page.mjs';

const ROOT_DIR = fileURLToPath(new URL('..', import.meta.url));
const flag = (name, fallback) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
};
const dir = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(ROOT_DIR, 'npm', 'wasm'));
const reads = flag('reads', 200000);
const top = flag('top', 40);

/** A copy of the package at `dir` whose fs/* module has a name section. */
function named(dir) {
  const work = mkdtempSync(join(tmpdir(), 'acpfs-profile-'));
  const copy = join(work, 'wasm');
  cpSync(dir, copy, { recursive: true });
  const raw = join(process.env.CARGO_TARGET_DIR ?? join(ROOT_DIR, 'target'), 'wasm32-unknown-unknown', 'wasm-fs', 'acp_fs_wasm.wasm');
  const out = join(work, 'bindgen');
  execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'acp_fs_wasm', raw]);
  const module = join(copy, 'pkg', 'acp_fs_wasm_bg.wasm');
  execFileSync(join(ROOT_DIR, 'scripts', 'wasm-opt-module.sh'), [join(out, 'acp_fs_wasm_bg.wasm'), module, '-g']);
  cpSync(join(out, 'acp_fs_wasm.js'), join(copy, 'pkg', 'acp_fs_wasm.js'));
  return { copy, done: () => rmSync(work, { recursive: true, force: true }) };
}

const source = process.argv.includes('--names') ? named(dir) : { copy: dir, done: () => {} };
try {
  await withBuildsInPage({ profile: source.copy }, profileReads);
} finally {
  source.done();
  rmSync(join(ROOT_DIR, 'out', 'browser', 'profile'), { recursive: true, force: true });
}

async function profileReads(page, origin, browser) {
  await page.evaluate(
    async ({ origin }) => {
      const { makeText } = await import(`${origin}/bench/wasm-core.mjs`);
      const m = await import(`${origin}/out/browser/profile/index.mjs`);
      await m.init();
      const text = makeText(4096);
      const bytes = new TextEncoder().encode(text);
      const storage = {
        readFile: () => bytes,
        stat: () => ({ isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false, size: bytes.length }),
        readRange: (_, offset, length) => bytes.subarray(offset, offset + length),
      };
      const fs = new m.AcpFs({ storage, roots: ['/p'] });
      const params = { sessionId: 's', path: '/p/a.txt' };
      if ((await fs.readTextFile(params)).content !== text) throw new Error('wrong content');
      window.__reads = async (n) => {
        for (let i = 0; i < n; i++) await fs.readTextFile(params);
      };
      await window.__reads(20000);
    },
    { origin },
  );
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  await cdp.send('Profiler.start');
  await page.evaluate((n) => window.__reads(n), reads);
  const { profile } = await cdp.send('Profiler.stop');

  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map();
  for (const id of profile.samples) {
    const frame = nodes.get(id);
    const where = frame.url ? `${frame.url.split('/').pop()}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'}${where ? ` (${where})` : ''}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const µs = (profile.endTime - profile.startTime) / reads;
  console.log(`${reads} whole 4 KB reads, ${µs.toFixed(2)} µs each while profiled; self time by function (${total} samples):\n`);
  console.log('| self | function |\n|---:|---|');
  for (const [key, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| ${((100 * n) / total).toFixed(1)}% | ${key.replaceAll('|', '\\|')} |`);
  }
}
