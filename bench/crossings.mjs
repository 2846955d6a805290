#!/usr/bin/env node
// Boundary crossings per request: how many times one small read goes from JS into the engine
// (a call of a binding function or a wasm export) and, for wasm, from the engine back into JS
// (a wasm import: wasm-bindgen's glue building objects, reading strings, copying bytes). Counts,
// not times: they do not depend on the machine, so they show what a protocol change saved.
//
//   scripts/build-wasm.sh && scripts/build-node.sh && node bench/crossings.mjs
//
// Cases: a whole 4 KB read and a 10-line window of it, through @acp-fs/wasm over an in-memory
// ranged storage, @acp-fs/node over `fs.promises` (the hardened node:fs adapter, a JS storage),
// and @acp-fs/node's native disk (`runOnDisk`: storage io stays in Rust).

import { createRequire } from 'node:module';
import * as nodeFs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeText } from './wasm-core.mjs';

const counts = { in: 0, out: 0 };
/** Calls by name, printed with --detail (which export or import a change saved). */
const byName = new Map();
const note = (name) => byName.set(name, (byName.get(name) ?? 0) + 1);
const countIn = (name, f) =>
  function counted(...args) {
    counts.in += 1;
    note(`in ${name}`);
    return f.apply(this, args);
  };

// wasm: every export called from JS, every import called from wasm. The module is instantiated
// synchronously on import (npm/wasm/node.mjs), through WebAssembly.Instance.
const Instance = WebAssembly.Instance;
WebAssembly.Instance = function CountingInstance(module, imports) {
  const wrapped = {};
  for (const [ns, fns] of Object.entries(imports)) {
    wrapped[ns] = {};
    for (const [name, f] of Object.entries(fns)) {
      wrapped[ns][name] =
        typeof f === 'function'
          ? (...args) => {
              counts.out += 1;
              note(`out ${name.replace(/_[0-9a-f]{16}$/, '')}`);
              return f(...args);
            }
          : f;
    }
  }
  const instance = new Instance(module, wrapped);
  const exports = {};
  for (const [name, f] of Object.entries(instance.exports)) exports[name] = typeof f === 'function' ? countIn(name, f) : f;
  return { exports };
};
const { AcpFs: WasmAcpFs } = await import('../npm/wasm/node.mjs');
WebAssembly.Instance = Instance;

// napi: every call of a binding function or method (the engine never calls back into JS).
function counting(value) {
  if (value === null || typeof value !== 'object') return value;
  if (typeof value.then === 'function') return value.then(counting);
  return new Proxy(value, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      if (typeof v !== 'function' || key === 'constructor') return v;
      return (...args) => {
        counts.in += 1;
        return counting(v.apply(target, args));
      };
    },
  });
}
const require = createRequire(import.meta.url);
const { binding: napi, backend } = require('../npm/node/load.cjs');
if (backend !== 'native') throw new Error('crossings: the native addon did not load (scripts/build-node.sh)');
const { createAcpFs } = await import('../npm/shared/index.mjs');
const NodeAcpFs = createAcpFs(counting(napi), { nativeDisk: true });

const enc = new TextEncoder();
const text = makeText(4096);
const bytes = enc.encode(text);
const dir = mkdtempSync(join(tmpdir(), 'acp-fs-crossings-'));
const path = join(dir, 'file.txt');
writeFileSync(path, bytes);
const memory = {
  stat: () => ({ isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false, size: bytes.length }),
  readFile: () => bytes,
  readRange: (_, offset, length) => bytes.subarray(offset, offset + length),
};
const hosts = [
  ['@acp-fs/wasm, in-memory storage', new WasmAcpFs({ storage: memory, roots: [dir] })],
  ['@acp-fs/node over fs.promises', new NodeAcpFs({ storage: nodeFs.promises, roots: [dir] })],
  ['@acp-fs/node, native disk', new NodeAcpFs({ roots: [dir] })],
];
const cases = [
  ['whole 4 KB file', { sessionId: 's', path }],
  ['10 lines of it', { sessionId: 's', path, line: 20, limit: 10 }],
];

const rows = [];
try {
  for (const [host, fs] of hosts) {
    for (const [name, params] of cases) {
      // The first read warms what is made once (a session's roots); the counted ones repeat it.
      const want = (await fs.readTextFile(params)).content;
      counts.in = 0;
      counts.out = 0;
      byName.clear();
      const n = 10;
      for (let i = 0; i < n; i++) {
        if ((await fs.readTextFile(params)).content !== want) throw new Error(`${host}: the reads differ`);
      }
      rows.push([host, name, counts.in / n, counts.out / n]);
      if (process.argv.includes('--detail')) {
        console.log(`${host}, ${name}:`, [...byName].map(([k, v]) => `${k} ${v / n}`).join(', '));
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const head = ['host', 'read', 'JS → engine', 'engine → JS (wasm imports)'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
console.log([line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
