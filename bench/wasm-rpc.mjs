#!/usr/bin/env node
// What reading raw JSON-RPC in a module of its own costs in Node (docs/design.md#the-json-rpc-module):
// a process's first raw message, which instantiates pkg-rpc/ (median of fresh processes), and raw
// reads once it is loaded, side by side with @acp-fs/wasm/full, which reads messages itself, and
// with the typed call a host makes instead (`readTextFile`, which needs no JSON text). One read:
// a 4 KB source file, whole, through `AcpFs.handle(text)` (text in, text out) and typed.
//
//   scripts/build-wasm.sh && node bench/wasm-rpc.mjs [--rounds=N]
//
// A benchmark, not a test: it prints a table and asserts no time.

import { fileURLToPath } from 'node:url';
import { AcpFs } from '../npm/wasm/node.mjs';
import { AcpFs as FullAcpFs } from '../npm/wasm/full-node.mjs';
import { MapStorage } from '../tests/node/harness.mjs';
import { freshProcesses } from './results.mjs';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 7);
const PATH = '/p/a.txt';
const TEXT = Array.from({ length: 80 }, (_, i) => `${i}: const value = compute(input, options); // é ${i}\n`).join('');
const MESSAGE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: { sessionId: 's', path: PATH } });

function make(Fs) {
  const storage = new MapStorage();
  storage.put(PATH, Buffer.from(TEXT));
  const fs = new Fs({ storage });
  fs.openSession('s', { cwd: '/p' });
  return fs;
}

/** One raw read's time in ms, its reply checked. */
async function raw(fs) {
  const start = performance.now();
  const reply = await fs.handle(MESSAGE);
  const ms = performance.now() - start;
  if (JSON.parse(reply).result.content !== TEXT) throw new Error('a wrong reply');
  return ms;
}

async function typed(fs) {
  const start = performance.now();
  const { content } = await fs.readTextFile({ sessionId: 's', path: PATH });
  const ms = performance.now() - start;
  if (content !== TEXT) throw new Error('a wrong read');
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const first = process.argv.find((a) => a.startsWith('--first='))?.slice(8);
if (first) {
  // A fresh process's first two raw reads: on the fs/* module the first loads the JSON-RPC module.
  const fs = make(first === 'full' ? FullAcpFs : AcpFs);
  console.log(JSON.stringify({ first: await raw(fs), second: await raw(fs) }));
} else {
  const self = fileURLToPath(import.meta.url);
  const fresh = freshProcesses(self, 'fs', ROUNDS);
  const freshFull = freshProcesses(self, 'full', ROUNDS);
  // Warm medians in alternating batches, so a drift of the machine weighs on all alike.
  const runs = [
    ['@acp-fs/wasm, raw (`handle`)', make(AcpFs), raw],
    ['@acp-fs/wasm/full, raw (`handle`)', make(FullAcpFs), raw],
    ['@acp-fs/wasm, typed (`readTextFile`)', make(AcpFs), typed],
    ['@acp-fs/wasm/full, typed (`readTextFile`)', make(FullAcpFs), typed],
  ];
  const times = runs.map(() => []);
  for (let batch = 0; batch < 20; batch++) {
    for (const [i, [, fs, read]] of runs.entries()) {
      for (let n = 0; n < 500; n++) {
        const ms = await read(fs);
        if (batch > 0) times[i].push(ms);
      }
    }
  }
  const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;
  console.log(`A whole read of a ${(TEXT.length / 1024).toFixed(1)} KB file, Node ${process.version}\n`);
  console.log('| | median |');
  console.log('|---|---:|');
  console.log(`| @acp-fs/wasm, a process's first raw read (loads the JSON-RPC module; ${ROUNDS} fresh processes) | ${us(median(fresh.map((r) => r.first)))} |`);
  console.log(`| @acp-fs/wasm/full, a process's first raw read (${ROUNDS} fresh processes) | ${us(median(freshFull.map((r) => r.first)))} |`);
  console.log(`| @acp-fs/wasm, that process's second raw read | ${us(median(fresh.map((r) => r.second)))} |`);
  console.log(`| @acp-fs/wasm/full, that process's second raw read | ${us(median(freshFull.map((r) => r.second)))} |`);
  for (const [i, [name]] of runs.entries()) console.log(`| ${name}, warm (${times[i].length} reads) | ${us(median(times[i]))} |`);
}
