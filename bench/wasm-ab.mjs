#!/usr/bin/env node
// Whole 4 KB reads through two builds of @acp-fs/wasm and the JS baseline, interleaved in one
// process: on a machine whose speed drifts between runs, only an A/B in one process compares two
// builds fairly. `other` is the npm/wasm directory of another checkout, built.
//
//   node bench/wasm-ab.mjs ../other-checkout/npm/wasm [--cpu] [--chromium] [--this=DIR] [--both]
//
// --this=DIR compares the build at DIR instead of this checkout's npm/wasm.
//
// --both runs the A/B twice, the second time with the two builds exchanged, and prints the
// square root of this/other over other/this: an A/A run (one build on both sides) spread from
// 0.96x to 0.98x in Chromium, a bias of the tool's own that moves both orders alike and so
// cancels here (A/A with --both: 0.995x, 1.0x).
//
// --cpu times each batch by the process's CPU time (process.cpuUsage, GC threads included)
// instead of the clock: on a machine shared with other work, the clock also counts the time this
// process waited for a core (on a 2-core VM at a load of 7-12 that moved the per-round ratio by
// about 0.1 between runs); CPU time compares the work itself.
//
// --chromium runs the same A/B in a Chromium page (playwright-core, Debian's Chromium), timed by
// the CPU time of the page's renderer process (every thread's, from /proc/<pid>/task/*/schedstat;
// Linux only), which a page cannot read itself. Both builds are copied under out/browser/ so the
// test server serves them.
//
// A benchmark, not a test: numbers depend on the machine; nothing here asserts a time.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeText } from './wasm-core.mjs';

const other = process.argv.slice(2).find((a) => !a.startsWith('--'));
const cpu = process.argv.includes('--cpu');
const inChromium = process.argv.includes('--chromium');
const thisDir = resolve(process.argv.find((a) => a.startsWith('--this='))?.slice('--this='.length) ?? new URL('../npm/wasm', import.meta.url).pathname);
if (!other) {
  console.error('usage: node bench/wasm-ab.mjs <npm/wasm directory of another build> [--cpu] [--chromium] [--this=DIR] [--both]');
  process.exit(2);
}

if (process.argv.includes('--both')) {
  const mode = [cpu && '--cpu', inChromium && '--chromium'].filter(Boolean);
  const ratio = (a, b) => {
    const out = execFileSync(process.execPath, [process.argv[1], a, `--this=${b}`, ...mode], { encoding: 'utf8' });
    return Number(/per round: ([\d.]+)×\s*$/.exec(out)[1]);
  };
  const forward = ratio(other, thisDir);
  const backward = ratio(thisDir, other);
  console.log(`this/other ${forward.toFixed(2)}×, other/this ${backward.toFixed(2)}×: this build's time / the other's ${Math.sqrt(forward / backward).toFixed(3)}×`);
  process.exit(0);
}

const ROUNDS = 21;
const BATCH = 2000;

/**
 * The implementations to compare, over the same 4 KB text: `baseline` (decode, split, join),
 * `other` and `this`. Shared by Node and the Chromium page (it is stringified into the page).
 */
async function makeImpls(builds, text) {
  const bytes = new TextEncoder().encode(text);
  const dec = new TextDecoder();
  const storage = {
    readFile: () => bytes,
    stat: () => ({ isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false, size: bytes.length }),
    readRange: (_, offset, length) => bytes.subarray(offset, offset + length),
  };
  const params = { sessionId: 's', path: '/p/a.txt' };
  const impls = {
    baseline: async () => ({ content: dec.decode(await storage.readFile('/p/a.txt')).split('\n').join('\n') }),
  };
  for (const [name, AcpFs] of Object.entries(builds)) {
    const fs = new AcpFs({ storage, roots: ['/p'] });
    impls[name] = () => fs.readTextFile(params);
  }
  for (const [name, f] of Object.entries(impls)) {
    if ((await f()).content !== text) throw new Error(`${name}: wrong content`);
    const t0 = performance.now();
    while (performance.now() - t0 < 500) await f();
  }
  return impls;
}

/** Runs `batch(name)` for each implementation, ROUNDS times, each round in the other order than the last. */
async function rounds(names, batch) {
  const times = Object.fromEntries(names.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // What runs right after a GC pays for it: alternate who goes first.
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) times[name].push(await batch(name));
  }
  return times;
}

let times;
if (!inChromium) {
  const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.mjs')).href)).AcpFs;
  const builds = { other: await load(other), this: await load(thisDir) };
  const impls = await makeImpls(builds, makeText(4096));
  times = await rounds(Object.keys(impls), async (name) => {
    const f = impls[name];
    const t0 = cpu ? process.cpuUsage() : performance.now();
    for (let i = 0; i < BATCH; i++) await f();
    const spent = cpu ? ((d) => d.user + d.system)(process.cpuUsage(t0)) : (performance.now() - t0) * 1000;
    return spent / BATCH;
  });
} else {
  times = await chromiumTimes();
}

async function chromiumTimes() {
  const { withBuildsInPage } = await import('./chromium-page.mjs');
  return withBuildsInPage({ 'ab-other': other, 'ab-this': thisDir }, async (page, origin) => {
    await page.evaluate(
      async ({ makeImplsText, origin }) => {
        const { makeText } = await import(`${origin}/bench/wasm-core.mjs`);
        const load = async (dir) => {
          const m = await import(`${origin}/${dir}/index.mjs`);
          await m.init();
          return m.AcpFs;
        };
        const builds = { other: await load('out/browser/ab-other'), this: await load('out/browser/ab-this') };
        // eslint-disable-next-line no-new-func
        const make = new Function(`return ${makeImplsText}`)();
        const impls = await make(builds, makeText(4096));
        window.__ab = async (name, n) => {
          for (let i = 0; i < n; i++) await impls[name]();
        };
      },
      { makeImplsText: makeImpls.toString(), origin },
    );
    const renderers = rendererPids();
    if (renderers.length === 0) throw new Error('no Chromium renderer process found under this one');
    return await rounds(['baseline', 'other', 'this'], async (name) => {
      const t0 = cpuNs(renderers);
      await page.evaluate(([name, n]) => window.__ab(name, n), [name, BATCH]);
      return (cpuNs(renderers) - t0) / 1000 / BATCH;
    });
  });
}

/** The renderer processes among this process's descendants. */
function rendererPids() {
  const parent = new Map();
  const cmd = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      cmd.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      // gone meanwhile
    }
  }
  const mine = (pid) => {
    for (let p = pid; p && p !== '1' && p !== '0'; p = parent.get(p)) if (p === String(process.pid)) return true;
    return false;
  };
  return [...cmd].filter(([pid, c]) => c.includes('--type=renderer') && mine(pid)).map(([pid]) => pid);
}

/** CPU time (ns) every thread of `pids` has run. */
function cpuNs(pids) {
  let sum = 0;
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended meanwhile
      }
    }
  }
  return sum;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times.baseline);
// The ratio of each round (its batches ran next to each other), then their median: a drift of
// the machine between rounds moves both sides of a ratio alike.
const paired = (xs) => median(xs.map((x, round) => x / times.baseline[round]));
for (const [name, xs] of Object.entries(times)) {
  console.log(`${name.padEnd(9)} ${median(xs).toFixed(2)} µs  ${(median(xs) / base).toFixed(2)}×  (per round: ${paired(xs).toFixed(2)}×)`);
}
const vsOther = median(times.this.map((x, round) => x / times.other[round]));
console.log(`this build's time / the other's, per round: ${vsOther.toFixed(2)}×`);
