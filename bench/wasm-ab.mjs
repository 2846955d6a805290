#!/usr/bin/env node
// Whole 4 KB reads through two builds of @acp-fs/wasm and the JS baseline, interleaved in one
// process: on a machine whose speed drifts between runs, only an A/B in one process compares two
// builds fairly. `other` is the npm/wasm directory of another checkout, built.
//
//   node bench/wasm-ab.mjs ../other-checkout/npm/wasm [--cpu]
//
// --cpu times each batch by the process's CPU time (process.cpuUsage, GC threads included)
// instead of the clock: on a machine shared with other work, the clock also counts the time this
// process waited for a core (on a 2-core VM at a load of 7-12 that moved the per-round ratio by
// about 0.1 between runs); CPU time compares the work itself.
//
// A benchmark, not a test: numbers depend on the machine; nothing here asserts a time.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeText } from './wasm-core.mjs';

const other = process.argv.slice(2).find((a) => !a.startsWith('--'));
const cpu = process.argv.includes('--cpu');
if (!other) {
  console.error('usage: node bench/wasm-ab.mjs <npm/wasm directory of another build> [--cpu]');
  process.exit(2);
}
const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.mjs')).href)).AcpFs;
const builds = { other: await load(other), this: await load(new URL('../npm/wasm', import.meta.url).pathname) };

const enc = new TextEncoder();
const dec = new TextDecoder();
const text = makeText(4096);
const bytes = enc.encode(text);
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
const times = Object.fromEntries(Object.keys(impls).map((k) => [k, []]));
for (let round = 0; round < 21; round++) {
  // Each round in the other order than the last: what runs right after a GC pays for it.
  const order = Object.entries(impls);
  for (const [name, f] of round % 2 ? order.reverse() : order) {
    const t0 = cpu ? process.cpuUsage() : performance.now();
    for (let i = 0; i < 2000; i++) await f();
    const spent = cpu ? ((d) => d.user + d.system)(process.cpuUsage(t0)) : (performance.now() - t0) * 1000;
    times[name].push(spent / 2000);
  }
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
