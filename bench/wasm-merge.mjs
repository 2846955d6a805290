#!/usr/bin/env node
// What the fs/* module's merge module costs in Node (docs/design.md#the-merge-module): the first
// merge of a process, which imports and instantiates pkg-merge/ (median of fresh processes), and
// a merged stale write once it is loaded, side by side with @acp-fs/wasm/full, which has the merge
// built in. One stale write: the agent read a 400-line file, the user changed line 10, the agent
// wrote its change to line 390; the write merges both.
//
//   scripts/build-wasm.sh && node bench/wasm-merge.mjs [--rounds=N]
//
// A benchmark, not a test: it prints a table and asserts no time.

import { fileURLToPath } from 'node:url';
import { AcpFs } from '../npm/wasm/node.mjs';
import { AcpFs as FullAcpFs } from '../npm/wasm/full-node.mjs';
import { MapStorage } from '../tests/node/harness.mjs';
import { freshProcesses } from './results.mjs';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 7);
const LINES = Array.from({ length: 400 }, (_, i) => `line ${i} of a source file, long enough to be typical`);
const text = (lines) => lines.map((l) => `${l}\n`).join('');
const BASE = text(LINES);
const USER = text(LINES.map((l, i) => (i === 10 ? `${l} (user)` : l)));
const AGENT = text(LINES.map((l, i) => (i === 390 ? `${l} (agent)` : l)));
const BOTH = text(LINES.map((l, i) => (i === 10 ? `${l} (user)` : i === 390 ? `${l} (agent)` : l)));
const PATH = '/p/a.txt';

/**
 * One stale write through `Fs`: read, the user's change, the agent's write; its time in ms.
 * `user`: what the user leaves in the file (`BASE`: nothing changed, the write needs no merge).
 */
async function staleWrite(Fs, user = USER) {
  const storage = new MapStorage();
  storage.put(PATH, Buffer.from(BASE));
  const fs = new Fs({ storage });
  fs.openSession('s', { cwd: '/p' });
  await fs.readTextFile({ sessionId: 's', path: PATH });
  storage.put(PATH, Buffer.from(user));
  const start = performance.now();
  await fs.writeTextFile({ sessionId: 's', path: PATH, content: AGENT });
  const ms = performance.now() - start;
  if (Buffer.from(storage.files.get(PATH)).toString() !== (user === USER ? BOTH : AGENT)) throw new Error('a wrong write');
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const first = process.argv.find((a) => a.startsWith('--first='))?.slice(8);
if (first) {
  // A fresh process's first two stale writes: on the fs/* module the first loads the merge module.
  const Fs = first === 'full' ? FullAcpFs : AcpFs;
  console.log(JSON.stringify({ first: await staleWrite(Fs), second: await staleWrite(Fs) }));
} else {
  const self = fileURLToPath(import.meta.url);
  const fresh = freshProcesses(self, 'fs', ROUNDS);
  const freshFull = freshProcesses(self, 'full', ROUNDS);
  const warm = async (Fs, user) => {
    for (let i = 0; i < 20; i++) await staleWrite(Fs, user);
    const times = [];
    for (let i = 0; i < 200; i++) times.push(await staleWrite(Fs, user));
    return median(times);
  };
  const fs = await warm(AcpFs);
  const full = await warm(FullAcpFs);
  const fsPlain = await warm(AcpFs, BASE);
  const fullPlain = await warm(FullAcpFs, BASE);
  const us = (ms) => `${(ms * 1000).toFixed(0)} µs`;
  console.log(`A merged stale write of a ${(BASE.length / 1024).toFixed(1)} KB file, Node ${process.version}\n`);
  console.log('| | median |');
  console.log('|---|---:|');
  console.log(`| @acp-fs/wasm, a process's first merged write (loads the merge module; ${ROUNDS} fresh processes) | ${us(median(fresh.map((r) => r.first)))} |`);
  console.log(`| @acp-fs/wasm/full, a process's first merged write (${ROUNDS} fresh processes) | ${us(median(freshFull.map((r) => r.first)))} |`);
  console.log(`| @acp-fs/wasm, that process's second merged write | ${us(median(fresh.map((r) => r.second)))} |`);
  console.log(`| @acp-fs/wasm/full, that process's second merged write | ${us(median(freshFull.map((r) => r.second)))} |`);
  console.log(`| @acp-fs/wasm, warm (200 writes) | ${us(fs)} |`);
  console.log(`| @acp-fs/wasm/full (merge built in), warm (200 writes) | ${us(full)} |`);
  console.log(`| @acp-fs/wasm, warm, the same write with nothing to merge | ${us(fsPlain)} |`);
  console.log(`| @acp-fs/wasm/full, warm, the same write with nothing to merge | ${us(fullPlain)} |`);
}
