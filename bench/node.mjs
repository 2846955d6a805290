#!/usr/bin/env node
// Benchmark of @acp-fs/node (`npm run bench`): the native disk engine, the same package over
// fs.promises, and the pure-JS baseline most clients ship (fs.promises.readFile + split/slice/join),
// reading 10-line windows at the start and at the end of 4 KB, 1 MB and 100 MB files.
//
// Each scenario runs in its own child process, so its peak RSS (process.resourceUsage().maxRSS,
// which includes the ~45 MB of a bare Node process) is its own. Latency is the median of the
// timed iterations after warm-up; ops/s is iterations over their total time. Needs the package
// built (scripts/build-node.sh).
//
// Two more sections page through big files with @acp-fs/node's native disk backend (no `storage`
// option), each against a baseline measured in the same run:
// - paging: a 100 MB text read in 2,000-line windows (`line` = 1, 2001, 4001, … until `""`),
//   first to last, with the line index on (the default) and off (`lineIndexBytes: 0`, capped at
//   30 s and extrapolated), against one whole-file read of the same file (`maxReadBytes` raised),
//   and one window alone (the RSS of a bare process that read a window).
// - big: a 1 GB text under the OS temp dir: the first window, the last window (cold, in a new
//   process), the whole paging, and the last window again after it (warm). Skipped when the disk
//   has less than 3 GB free. No whole-file baseline there: 1 GB of text is more than V8's longest
//   string (2^29 - 24 UTF-16 units in Node 20), so no JS host can hold it as one string.
// Each of those is the total wall time of its requests, in its own process, after one warm-up
// request on a tiny file.
//
// Usage: node bench/node.mjs [--quick] [--only=windows,paging,big] [--results=<file>]
// --quick (a smoke run, seconds) uses few iterations, 10 MB instead of 100 MB for the windows,
// a 4 MB paging file, a 16 MB "big" file and one run per scenario.
// A full run (neither --quick nor --only) writes its tables into docs/benchmarks/latest.md
// (bench/results.mjs); a partial one writes only where --results says.

import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { resultsFile, transcript, writeSection } from './results.mjs';

const { say, text: printed } = transcript();
const here = dirname(fileURLToPath(import.meta.url));
const WINDOW = 10;
const PAGE = 2000;
const MB = 1024 * 1024;
const GB = 1024 * MB;

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

async function windowsChild([impl, path, lineCount, where, iterations]) {
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

/** The native disk engine, a session rooted at the file's directory, and one warm-up request. */
async function nativeFs(path, options) {
  const { AcpFs } = await import('../npm/node/index.mjs');
  const fs = new AcpFs({ pastEnd: 'empty', ...options });
  fs.openSession('s', { cwd: dirname(path) });
  await fs.readTextFile({ sessionId: 's', path: join(dirname(path), 'warm.txt') });
  return fs;
}

const rssMb = () => process.resourceUsage().maxRSS / 1024;

/** One request: the whole file, or `limit` lines from `line`. */
async function oneChild([kind, path, optionsJson, line]) {
  const fs = await nativeFs(path, JSON.parse(optionsJson));
  const params = kind === 'whole' ? { sessionId: 's', path } : { sessionId: 's', path, line: Number(line), limit: PAGE };
  const t0 = performance.now();
  const { content } = await fs.readTextFile(params);
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, requests: 1, chars: content.length, tail: content.slice(-40), maxRssMb: rssMb() }));
}

/**
 * Pages the whole file in PAGE-line windows until `""`. Past `capSeconds` it stops and
 * extrapolates the rest from a least-squares line through the per-window times (a window's cost
 * grows linearly with its depth when nothing is remembered, so the total is quadratic).
 * Then reads the last window once more: warm, from what the paging left in the line index.
 */
async function pageChild([path, optionsJson, lineCount, capSeconds]) {
  const fs = await nativeFs(path, JSON.parse(optionsJson));
  const total = Math.ceil(Number(lineCount) / PAGE) + 1; // the last request answers ""
  const times = [];
  let chars = 0;
  let tail = '';
  let capped = false;
  const t0 = performance.now();
  for (let line = 1; ; line += PAGE) {
    const s = performance.now();
    const { content } = await fs.readTextFile({ sessionId: 's', path, line, limit: PAGE });
    times.push(performance.now() - s);
    if (content === '') break;
    chars += content.length;
    tail = content.slice(-40);
    if (performance.now() - t0 > Number(capSeconds) * 1000) {
      capped = true;
      break;
    }
  }
  const ms = performance.now() - t0;
  let estimatedMs = ms;
  if (capped) {
    const k = times.length;
    const mi = (k - 1) / 2;
    const mt = times.reduce((a, b) => a + b, 0) / k;
    let num = 0;
    let den = 0;
    times.forEach((t, i) => {
      num += (i - mi) * (t - mt);
      den += (i - mi) ** 2;
    });
    const slope = den ? num / den : 0;
    const at = (i) => Math.max(0, mt + slope * (i - mi));
    for (let i = k; i < total; i += 1) estimatedMs += at(i);
  }
  // Per-window medians over the first and the last tenth of the windows served: flat when the
  // paging is linear, growing with depth when it is not (robust to a busy machine's noise).
  const served = capped ? times : times.slice(0, -1);
  const tenth = Math.max(1, Math.floor(served.length / 10));
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const firstTenthMs = med(served.slice(0, tenth));
  const lastTenthMs = med(served.slice(served.length - tenth));
  const lastLine = Math.max(1, Number(lineCount) - PAGE + 1);
  const w = performance.now();
  await fs.readTextFile({ sessionId: 's', path, line: lastLine, limit: PAGE });
  const warmLastMs = performance.now() - w;
  process.stdout.write(
    JSON.stringify({
      ms,
      estimatedMs,
      capped,
      requests: times.length,
      totalRequests: total,
      chars,
      tail,
      warmLastMs,
      firstTenthMs,
      lastTenthMs,
      maxRssMb: rssMb(),
    }),
  );
}

function fmtMs(ms) {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

async function windowsSection(dir, quick) {
  const rows = [];
  // A smoke run (--quick) keeps the largest file small too.
  const sizes = quick ? SIZES.map((s) => (s.bytes > 10 * MB ? { label: '10 MB', bytes: 10 * MB, iterations: s.iterations } : s)) : SIZES;
  for (const size of sizes) {
    const path = join(dir, `file-${size.bytes}.txt`);
    const lines = makeFile(path, size.bytes);
    const iterations = quick ? Math.max(3, Math.floor(size.iterations / 10)) : size.iterations;
    for (const where of ['start', 'end']) {
      const results = {};
      for (const impl of Object.keys(IMPLS)) {
        results[impl] = runChild(['--child', impl, path, String(lines), where, String(iterations)]);
      }
      // The three must agree on what they read, or the timing means nothing.
      const samples = new Set(Object.values(results).map((r) => r.sample));
      if (samples.size !== 1) throw new Error(`implementations disagree on ${size.label} ${where}: ${[...samples]}`);
      rows.push({ size: size.label, where, results });
      process.stderr.write(`${size.label} ${where}: done\n`);
    }
    nodeFs.rmSync(path, { force: true });
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
  say(`Node ${process.version}, ${process.platform}-${process.arch}; 10-line windows; peak RSS per scenario (own process).\n`);
  say(lines.join('\n'));
}

/** Runs a child scenario and parses what it prints. */
function runChild(args) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out);
}

/** Runs a scenario `runs` times (each in a new process) and keeps the run with the median time. */
function median(runs, args) {
  const results = [];
  for (let i = 0; i < runs; i += 1) results.push(runChild(args));
  results.sort((a, b) => a.ms - b.ms);
  const mid = results[Math.floor(results.length / 2)];
  return { ...mid, minMs: results[0].ms, maxMs: results[results.length - 1].ms, runs };
}

function fmtTime(r) {
  const t = r.capped ? `≈ ${fmtMs(r.estimatedMs)} (extrapolated)` : fmtMs(r.ms);
  return r.runs > 1 ? `${t} (${fmtMs(r.minMs)}–${fmtMs(r.maxMs)})` : t;
}

const tenths = (r) => `${fmtMs(r.firstTenthMs)} → ${fmtMs(r.lastTenthMs)}`;

function fmtRow(cells) {
  return `| ${cells.join(' | ')} |`;
}

const fmtCount = (n) => n.toLocaleString('en-US');

async function pagingSection(dir, quick) {
  const size = quick ? 4 * MB : 100 * MB;
  const label = quick ? '4 MB' : '100 MB';
  const runs = quick ? 1 : 3;
  const capSeconds = quick ? 5 : 30;
  const path = join(dir, `page-${size}.txt`);
  const lines = makeFile(path, size);
  const opts = JSON.stringify({ maxReadBytes: GB });
  try {
    const whole = median(runs, ['--child-one', 'whole', path, opts]);
    process.stderr.write(`${label} whole read: done\n`);
    const first = median(runs, ['--child-one', 'window', path, opts, '1']);
    const paged = median(runs, ['--child-page', path, opts, String(lines), '1e9']);
    process.stderr.write(`${label} paging: done\n`);
    const noIndex = runChild(['--child-page', path, JSON.stringify({ maxReadBytes: GB, lineIndexBytes: 0 }), String(lines), String(capSeconds)]);
    process.stderr.write(`${label} paging without the line index: done\n`);
    const cold = median(runs, ['--child-one', 'window', path, opts, String(Math.max(1, lines - PAGE + 1))]);
    // Paging must hand back exactly the whole file, or the timing means nothing.
    for (const [name, r] of [['paging', paged], ['paging without the index', noIndex]]) {
      if (!r.capped && (r.chars !== whole.chars || r.tail !== whole.tail)) {
        throw new Error(`${name} disagrees with the whole read: ${r.chars} chars ending ${JSON.stringify(r.tail)}, whole ${whole.chars} ending ${JSON.stringify(whole.tail)}`);
      }
    }
    if (cold.tail !== whole.tail) throw new Error(`the last window disagrees with the whole read: ${JSON.stringify(cold.tail)}`);
    const vs = (r) => `${((r.capped ? r.estimatedMs : r.ms) / whole.ms).toFixed(2)}×`;
    const out = [
      fmtRow(['scenario', 'requests', 'time', 'per window, first → last tenth', 'peak RSS', 'vs whole read']),
      '|---|---:|---:|---:|---:|---:|',
      fmtRow([`whole file in one request (\`maxReadBytes\` 1 GiB)`, '1', fmtTime(whole), '', `${whole.maxRssMb.toFixed(0)} MB`, '1.00×']),
      fmtRow(['paging, 2,000-line windows, line index on (default)', fmtCount(paged.requests), fmtTime(paged), tenths(paged), `${paged.maxRssMb.toFixed(0)} MB`, vs(paged)]),
      fmtRow([
        `paging, line index off (\`lineIndexBytes: 0\`)${noIndex.capped ? `: stopped after ${capSeconds} s, ${fmtCount(noIndex.requests)} of ${fmtCount(noIndex.totalRequests)} requests` : ''}`,
        fmtCount(noIndex.capped ? noIndex.totalRequests : noIndex.requests),
        fmtTime(noIndex),
        tenths(noIndex),
        `${noIndex.maxRssMb.toFixed(0)} MB`,
        vs(noIndex),
      ]),
      fmtRow(['one window (line 1) alone: a bare process + a window', '1', fmtTime(first), '', `${first.maxRssMb.toFixed(0)} MB`, '']),
      fmtRow(['last window, cold (new process, no index)', '1', fmtTime(cold), '', `${cold.maxRssMb.toFixed(0)} MB`, '']),
      fmtRow(['last window, warm (after the paging, same process)', '1', fmtMs(paged.warmLastMs), '', '', '']),
    ];
    say(`\n${label} text file (${fmtCount(lines)} lines), native disk backend; ${runs > 1 ? `median of ${runs} runs (min–max)` : 'one run'}, each in its own process.\n`);
    say(out.join('\n'));
  } finally {
    nodeFs.rmSync(path, { force: true });
  }
}

async function bigSection(dir, quick) {
  const size = quick ? 16 * MB : GB;
  const label = quick ? '16 MB' : '1 GB';
  const need = quick ? 3 * size : 3 * GB;
  const free = nodeFs.statfsSync(dir);
  const freeBytes = free.bavail * free.bsize;
  if (freeBytes < need) {
    say(`\n${label} file: skipped, ${(freeBytes / GB).toFixed(1)} GB free in the OS temp dir (needs ${(need / GB).toFixed(1)} GB).`);
    return;
  }
  const path = join(dir, `big-${size}.txt`);
  const runs = quick ? 1 : 3;
  try {
    const g = performance.now();
    const lines = makeFile(path, size);
    process.stderr.write(`${label} file written in ${((performance.now() - g) / 1000).toFixed(1)} s\n`);
    const opts = JSON.stringify({});
    const first = median(runs, ['--child-one', 'window', path, opts, '1']);
    const last = median(runs, ['--child-one', 'window', path, opts, String(Math.max(1, lines - PAGE + 1))]);
    process.stderr.write(`${label} windows: done\n`);
    const paged = median(runs, ['--child-page', path, opts, String(lines), '1e9']);
    process.stderr.write(`${label} paging: done\n`);
    if (paged.tail !== last.tail) throw new Error(`paging and the last window disagree: ${JSON.stringify(paged.tail)} vs ${JSON.stringify(last.tail)}`);
    const out = [
      fmtRow(['scenario', 'requests', 'time', 'per window, first → last tenth', 'peak RSS']),
      '|---|---:|---:|---:|---:|',
      fmtRow(['first window (line 1), new process', '1', fmtTime(first), '', `${first.maxRssMb.toFixed(0)} MB`]),
      fmtRow(['last window, cold (new process, no index)', '1', fmtTime(last), '', `${last.maxRssMb.toFixed(0)} MB`]),
      fmtRow(['paging, 2,000-line windows, first to last', fmtCount(paged.requests), fmtTime(paged), tenths(paged), `${paged.maxRssMb.toFixed(0)} MB`]),
      fmtRow(['last window, warm (after the paging, same process)', '1', fmtMs(paged.warmLastMs), '', '']),
    ];
    say(`\n${label} text file (${fmtCount(lines)} lines), native disk backend, default options; ${runs > 1 ? `median of ${runs} runs (min–max)` : 'one run'}, each in its own process.\n`);
    say(out.join('\n'));
  } finally {
    nodeFs.rmSync(path, { force: true });
  }
}

async function main() {
  const quick = process.argv.includes('--quick');
  const onlyArg = process.argv.find((a) => a.startsWith('--only='));
  const only = onlyArg?.slice('--only='.length).split(',') ?? ['windows', 'paging', 'big'];
  const results = resultsFile(process.argv, quick || onlyArg !== undefined);
  const dir = nodeFs.realpathSync(nodeFs.mkdtempSync(join(tmpdir(), 'acpfs-bench-')));
  // A shared machine's load is part of the numbers: say what it was.
  const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');
  say(`${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; load average ${load()} at the start.\n`);
  try {
    nodeFs.writeFileSync(join(dir, 'warm.txt'), 'warm\n');
    if (only.includes('windows')) await windowsSection(dir, quick);
    if (only.includes('paging')) await pagingSection(dir, quick);
    if (only.includes('big')) await bigSection(dir, quick);
    say(`\nLoad average ${load()} at the end.`);
  } finally {
    nodeFs.rmSync(dir, { recursive: true, force: true });
  }
  if (results) {
    const title = `@acp-fs/node (bench/node.mjs${quick ? ' --quick' : ''}${onlyArg ? ` ${onlyArg}` : ''})`;
    console.error(`results written to ${writeSection('node', title, printed(), { file: results })}`);
  }
}

if (process.argv[2] === '--child') await windowsChild(process.argv.slice(3));
else if (process.argv[2] === '--child-one') await oneChild(process.argv.slice(3));
else if (process.argv[2] === '--child-page') await pageChild(process.argv.slice(3));
else await main();
