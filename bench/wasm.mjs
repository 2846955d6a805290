#!/usr/bin/env node
// @acp-fs/wasm against a pure-JS baseline (decode, split, slice, join), in Node and in Chromium
// in one run: 4 KB, 1 MB and 10 MB texts from an in-memory storage; 50-line windows at the start
// and at the end, and whole files. Prints a table, where the time of a whole-file read goes, and
// the goals (10 MB windows at least 3x the baseline; whole 4 KB reads at most 1.2x its time in Node,
// 1.0x in Chromium, by the median of each round's ratio).
//
//   scripts/build-wasm.sh && node bench/wasm.mjs [--results=<file>]
//
// A benchmark, not a test: numbers depend on the machine; nothing here asserts a time. The tables
// go into docs/benchmarks/latest.md (bench/results.mjs), or into --results' file.

import { execFileSync } from 'node:child_process';
import { AcpFs } from '../npm/wasm/node.mjs';
import { binding } from '../npm/wasm/lib/fs.mjs';
import { CHROMIUM } from '../tests/browser/chromium.mjs';
import { launch } from '../tests/browser/run.mjs';
import { serve } from '../tests/browser/server.mjs';
import { load, resultsFile, transcript, writeSection } from './results.mjs';
import { runBench } from './wasm-core.mjs';

const { say, text: printed } = transcript();

const HANG_GUARD_MS = 10 * 60 * 1000;

async function inChromium() {
  const server = await serve();
  const browser = await launch();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(`${server.url}/tests/browser/bench.html`);
    await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: HANG_GUARD_MS });
    const got = await page.evaluate(() => window.__bench);
    if (got.error) throw new Error(`in Chromium: ${got.error}`);
    return got.result;
  } finally {
    await browser.close();
    await server.close();
  }
}

function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'Chromium (version unknown)';
  }
}

const size = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);
const ms = (x) => (x < 0.1 ? `${(x * 1000).toFixed(1)} µs` : `${x.toFixed(2)} ms`);
const times = (x) => `${x.toFixed(x < 10 ? 2 : 0)}×`;

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const startLoad = load();
const node = await runBench({ AcpFs, binding });
const chromium = await inChromium();
say(`${chromiumVersion()}; load average ${startLoad} at the start, ${load()} at the end.`);

say('\nReads through AcpFs.readTextFile (in-memory storage, ranged reads) vs decode+split+slice+join:\n');
say(
  table(
    ['text', 'read', 'Node wasm', 'Node baseline', 'Node speedup', 'Node ratio', 'Chromium wasm', 'Chromium baseline', 'Chromium speedup', 'Chromium ratio'],
    node.rows.map((r, i) => {
      const c = chromium.rows[i];
      return [
        size(r.size), r.case,
        ms(r.wasmMs), ms(r.baselineMs), times(r.speedup), times(r.ratio),
        ms(c.wasmMs), ms(c.baselineMs), times(c.speedup), times(c.ratio),
      ];
    }),
  ),
);

say('(speedup: the baseline\'s median time over the wasm read\'s; ratio: the wasm read\'s time over the');
say('baseline\'s, the median of each round\'s own ratio, which drift of the machine moves least.)');
say('\nWhere the time of a whole-file read goes (engine = the binding stepped by hand, no driver;');
say('copy in = the bytes into wasm memory, string out = decoding the content into a JS string):\n');
const parts = (env, b) => [env, size(b.size), ms(b.totalMs), ms(b.engineMs), ms(Math.max(b.driverMs, 0)), ms(b.copyInMs), ms(b.stringOutMs)];
say(
  table(
    ['where', 'text', 'total', 'engine steps', 'driver', '≈ copy in', '≈ string out'],
    [...node.breakdown.map((b) => parts('Node', b)), ...chromium.breakdown.map((b) => parts('Chromium', b))],
  ),
);

say('\nOne whole 4 KB read through the binding alone, per step (ranged reads; µs per call):\n');
const us = (x) => `${x.toFixed(2)} µs`;
const stepRow = (env, s) => [env, us(s.startUs), us(s.openUs), us(s.freeUs), us(s.totalUs)];
say(
  table(
    ['where', 'start → open', 'open answer (with the head) → done', 'free', 'total'],
    [stepRow('Node', node.steps), stepRow('Chromium', chromium.steps)],
  ),
);

say('\nGoals:\n');
for (const [env, r] of [
  ['Node', node],
  ['Chromium', chromium],
]) {
  const big = r.rows.filter((x) => x.size > 5e6 && x.case.startsWith('window'));
  const small = r.rows.find((x) => x.size < 1e4 && x.case === 'whole file');
  const worst = Math.min(...big.map((x) => x.speedup));
  say(`- ${env}: 10 MB windows ≥ 3× baseline: ${worst >= 3 ? 'met' : 'NOT met'} (slowest window ${times(worst)})`);
  // Issue 24: at most 1.2× the baseline in Node, 1.0× in Chromium, by the per-round ratio.
  const goal = env === 'Node' ? 1.2 : 1.0;
  say(`- ${env}: whole 4 KB read at most ${times(goal)} the baseline's time: ${small.ratio <= goal ? 'met' : 'NOT met'} (${times(small.ratio)} per round)`);
}

const results = resultsFile(process.argv, false);
if (results) console.error(`results written to ${writeSection('wasm', '@acp-fs/wasm in Node and Chromium (bench/wasm.mjs)', printed(), { file: results })}`);
