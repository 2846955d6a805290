#!/usr/bin/env node
// Benchmark of @acp-fs/node (`npm run bench`): the native disk engine, the same package over
// fs.promises, and the pure-JS baseline most clients ship (fs.promises.readFile + split/slice/join),
// reading 10-line windows at the start and at the end of 4 KB, 1 MB and 100 MB files.
//
// Each scenario runs in its own child process, so its peak RSS (process.resourceUsage().maxRSS,
// which includes the ~45 MB of a bare Node process) is its own. Latency is the median of the
// timed iterations after warm-up; ops/s is iterations over their total time. Needs the package
// built (scripts/build-node.sh). Usage: node bench/node.mjs [--quick]

import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const WINDOW = 10;

const SIZES = [
  { label: '4 KB', bytes: 4 * 1024, iterations: 2000 },
  { label: '1 MB', bytes: 1024 * 1024, iterations: 300 },
  { label: '100 MB', bytes: 100 * 1024 * 1024, iterations: 8 },
];

const IMPLS = {
  native: 'acp-fs native',
  promises: 'acp-fs over fs.promises',
  baseline: 'baseline readFile+split',
};

/** Lines of varying length, some non-ASCII, every one ending in \n. */
function makeFile(path, bytes) {
  const fd = nodeFs.openSync(path, 'w');
  let written = 0;
  let n = 0;
  const parts = [];
  let pending = 0;
  while (written + pending < bytes) {
    const line = `${n} ${'lorem ipsum dolor sit amet '.repeat(1 + (n % 3))}${n % 7 === 0 ? 'ünïcödé ✓' : ''}\n`;
    parts.push(line);
    pending += Buffer.byteLength(line);
    n += 1;
    if (pending > 1 << 20) {
      nodeFs.writeSync(fd, parts.join(''));
      written += pending;
      parts.length = 0;
      pending = 0;
    }
  }
  nodeFs.writeSync(fd, parts.join(''));
  nodeFs.closeSync(fd);
  return n;
}

async function child([impl, path, lineCount, where, iterations]) {
  lineCount = Number(lineCount);
  iterations = Number(iterations);
  const line = where === 'start' ? 1 : lineCount - WINDOW + 1;
  const params = { sessionId: 's', path, line, limit: WINDOW };
  let read;
  if (impl === 'baseline') {
    read = async () => {
      const text = await nodeFs.promises.readFile(path, 'utf8');
      return { content: text.split('\n').slice(line - 1, line - 1 + WINDOW).join('\n') };
    };
  } else {
    const { AcpFs } = await import('../npm/node/index.mjs');
    const fs = new AcpFs(impl === 'promises' ? { storage: nodeFs.promises } : {});
    fs.openSession('s', { cwd: dirname(path) });
    read = () => fs.readTextFile(params);
  }
  const warm = Math.max(2, Math.min(50, Math.floor(iterations / 10)));
  let check = '';
  for (let i = 0; i < warm; i += 1) check = (await read()).content;
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const s = performance.now();
    await read();
    times.push(performance.now() - s);
  }
  const total = performance.now() - t0;
  times.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      medianMs: times[Math.floor(times.length / 2)],
      opsPerSec: (iterations / total) * 1000,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      sample: check.slice(0, 40),
      lines: check.split('\n').length,
    }),
  );
}

function fmtMs(ms) {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

async function main() {
  const quick = process.argv.includes('--quick');
  const dir = nodeFs.realpathSync(nodeFs.mkdtempSync(join(tmpdir(), 'acpfs-bench-')));
  const rows = [];
  try {
    for (const size of SIZES) {
      const path = join(dir, `file-${size.bytes}.txt`);
      const lines = makeFile(path, size.bytes);
      const iterations = quick ? Math.max(3, Math.floor(size.iterations / 10)) : size.iterations;
      for (const where of ['start', 'end']) {
        const results = {};
        for (const impl of Object.keys(IMPLS)) {
          const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', impl, path, String(lines), where, String(iterations)], {
            encoding: 'utf8',
            maxBuffer: 1 << 20,
          });
          results[impl] = JSON.parse(out);
        }
        // The three must agree on what they read, or the timing means nothing.
        const samples = new Set(Object.values(results).map((r) => r.sample));
        if (samples.size !== 1) throw new Error(`implementations disagree on ${size.label} ${where}: ${[...samples]}`);
        rows.push({ size: size.label, where, results });
        process.stderr.write(`${size.label} ${where}: done\n`);
      }
    }
  } finally {
    nodeFs.rmSync(dir, { recursive: true, force: true });
  }

  const header = '| file | window | implementation | median | ops/s | peak RSS | vs baseline |';
  const lines = [header, '|---|---|---|---:|---:|---:|---:|'];
  for (const row of rows) {
    const base = row.results.baseline.medianMs;
    for (const [impl, name] of Object.entries(IMPLS)) {
      const r = row.results[impl];
      const speedup = impl === 'baseline' ? '1.0×' : `${(base / r.medianMs).toFixed(1)}×`;
      lines.push(
        `| ${row.size} | ${row.where === 'start' ? 'lines 1–10' : 'last 10 lines'} | ${name} | ${fmtMs(r.medianMs)} | ${Math.round(r.opsPerSec).toLocaleString('en-US')} | ${r.maxRssMb.toFixed(0)} MB | ${speedup} |`,
      );
    }
  }
  console.log(`Node ${process.version}, ${process.platform}-${process.arch}; 10-line windows; peak RSS per scenario (own process).\n`);
  console.log(lines.join('\n'));
}

if (process.argv[2] === '--child') await child(process.argv.slice(3));
else await main();
