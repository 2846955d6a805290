#!/usr/bin/env node
// The standalone MCP file server (`acp-fs mcp DIR`, npm/node/bin) against the reference server
// (`@modelcontextprotocol/server-filesystem`, the exact version below, installed into
// .cache/bench/), both spawned over stdio and driven by the official MCP SDK client, on the same
// generated tree; and `search_text` against ripgrep (`rg`, Debian's) on that tree.
//
// The tree: FILES files of about FILE_BYTES bytes each (lines of words; one file in 500 holds the
// search needle) in DIRS leaf directories, 100 per group directory (`g<k>/d<i>/f<j>.<ext>`), plus
// `small/` with the 4 KB files of the small calls. The default is the issue's tree (100,000
// files in 5,000 directories, about 1 GB); it is generated once into .cache/bench/ (a folder per
// size) and reused. For a quick run: ACP_FS_MCP_BENCH_FILES=2000 (DIRS defaults to FILES/20).
//
// Each tool is called once to warm up, then RUNS times (SMALL_RUNS for the small calls); the table
// gives the median wall time of a call as the client sees it (request to parsed answer) and the
// size of the text answered (a bounded answer is smaller, and says so in its text). A tool a
// server does not offer is "n/a". Memory: each server's RSS after start-up, at the end, and its
// peak (VmHWM of /proc/<pid>/status, Linux) during each row's calls (reset between rows): a flat
// server's peak does not grow with the tree.
//
// Usage: node bench/mcp.mjs [--results=<file>]. Needs @acp-fs/node built (scripts/build-node.sh).
// Env: ACP_FS_MCP_BENCH_FILES, ACP_FS_MCP_BENCH_DIRS, ACP_FS_MCP_BENCH_FILE_BYTES,
// ACP_FS_MCP_BENCH_RUNS (default 5), ACP_FS_MCP_BENCH_SMALL_RUNS (default 50),
// ACP_FS_MCP_BENCH_ONLY (acp or ref: one server alone), ACP_FS_MCP_BENCH_ROWS (a comma-separated
// list of rows, e.g. `read_multiple_files,search_text`: those alone). A run on the
// default tree writes its tables into docs/benchmarks/latest.md (bench/results.mjs); a smaller one
// writes only where --results says.

import { execFileSync, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { load, resultsFile, transcript, writeSection } from './results.mjs';

/** The reference server measured against: an exact version, so reruns compare like with like. */
const REFERENCE = '@modelcontextprotocol/server-filesystem';
const REFERENCE_VERSION = '2026.8.31';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const cache = join(repo, '.cache', 'bench');
const { say, text: printed } = transcript();

const int = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
};
const FILES = int('ACP_FS_MCP_BENCH_FILES', 100_000);
const DIRS = int('ACP_FS_MCP_BENCH_DIRS', Math.max(1, Math.round(FILES / 20)));
const FILE_BYTES = int('ACP_FS_MCP_BENCH_FILE_BYTES', 10_000);
const RUNS = int('ACP_FS_MCP_BENCH_RUNS', 5);
const SMALL_RUNS = int('ACP_FS_MCP_BENCH_SMALL_RUNS', 50);
const FULL = FILES === 100_000 && DIRS === 5_000 && FILE_BYTES === 10_000;
const NEEDLE = 'needle_7f3a';
const EXTS = ['ts', 'js', 'md', 'txt', 'json'];
const TIMEOUT_MS = 30 * 60_000;

// ---------------------------------------------------------------------------------------------
// The tree

/** A small deterministic PRNG (mulberry32), so every run generates the same tree. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'const let value return function import export from async await if else for while the a of to in is data file path line text error result'.split(' ');

function body(rand, bytes, needle) {
  const lines = [];
  let size = 0;
  let n = 0;
  while (size < bytes) {
    n += 1;
    const count = 3 + Math.floor(rand() * 12);
    const words = [];
    for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    if (needle && n === 7) words.push(NEEDLE);
    const line = `${words.join(' ')}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

const leaf = (i) => join(`g${Math.floor(i / 100)}`, `d${i}`);

/** The tree for this size, generated once (a `.complete` marker says it was finished). */
function tree() {
  const root = join(cache, `mcp-tree-${FILES}-${DIRS}-${FILE_BYTES}`);
  if (nodeFs.existsSync(join(root, '.complete'))) return root;
  say(`generating ${FILES} files in ${DIRS} directories (~${Math.round((FILES * FILE_BYTES) / 1e6)} MB) into ${root} ...`);
  nodeFs.rmSync(root, { recursive: true, force: true });
  const rand = prng(22);
  for (let i = 0; i < DIRS; i++) nodeFs.mkdirSync(join(root, leaf(i)), { recursive: true });
  for (let j = 0; j < FILES; j++) {
    const bytes = Math.round(FILE_BYTES * (0.5 + rand()));
    nodeFs.writeFileSync(join(root, leaf(j % DIRS), `f${j}.${EXTS[j % EXTS.length]}`), body(rand, bytes, j % 500 === 3));
  }
  nodeFs.mkdirSync(join(root, 'small'));
  nodeFs.writeFileSync(join(root, 'small', 'read.txt'), body(rand, 4096, false).slice(0, 4096));
  nodeFs.writeFileSync(join(root, '.complete'), '');
  return root;
}

// ---------------------------------------------------------------------------------------------
// The servers and ripgrep

/** The reference server's entry, installed once into .cache/bench/ at REFERENCE_VERSION. */
function referenceServer() {
  const dir = join(cache, `server-filesystem-${REFERENCE_VERSION}`);
  const pkg = join(dir, 'node_modules', ...REFERENCE.split('/'));
  if (!nodeFs.existsSync(join(pkg, 'package.json'))) {
    say(`installing ${REFERENCE}@${REFERENCE_VERSION} into ${dir} ...`);
    nodeFs.mkdirSync(dir, { recursive: true });
    nodeFs.writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-reference', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `${REFERENCE}@${REFERENCE_VERSION}`], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const manifest = JSON.parse(nodeFs.readFileSync(join(pkg, 'package.json'), 'utf8'));
  if (manifest.version !== REFERENCE_VERSION) throw new Error(`${pkg} is ${manifest.version}, not ${REFERENCE_VERSION}: delete ${dir}`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  return join(pkg, bin);
}

function ripgrep() {
  const r = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n')[0] : null;
}

/**
 * Starts a new peak for `memory(pid).peak` (writing 5 to /proc/<pid>/clear_refs resets VmHWM,
 * Linux 4.0+), so each call's peak is its own; where that is refused the peak is the process's.
 */
function resetPeak(pid) {
  try {
    nodeFs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {}
}

/** CPU time (user + system, all threads) a process has used so far, in ms. Linux only. */
function cpuMs(pid) {
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, counted after the command's closing parenthesis.
    const fields = nodeFs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout) > 0 ? Number(r.stdout) : 100;
})();

/** Resident memory of a process in MB: now (VmRSS) and at its peak (VmHWM). Linux only. */
function memory(pid) {
  try {
    const status = nodeFs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1]);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * The SDK client refuses a message above 10 MB by default (it closes the connection): the
 * reference server's unbounded `directory_tree` of the full tree is about 20 MB, so the bench
 * raises the limit to see every answer whole.
 */
const MAX_MESSAGE_BYTES = 1 << 30;

async function start(label, entry, args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    stderr: 'pipe',
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  // Both log their roots on stderr; the tail is kept to say why a server went away.
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return {
    label,
    client,
    transport,
    tools: new Map(tools.map((t) => [t.name, t])),
    startup: memory(transport.pid),
    stderr: () => stderr,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Median ms of `runs` calls of `name` (after one warm-up), the answer's text bytes, and whether
 * it was a tool error. `args` is a function of the iteration (edits alternate).
 */
async function time(server, name, args, runs) {
  if (!server.tools.has(name)) return null;
  const call = async (i) => {
    try {
      return await server.client.callTool({ name, arguments: args(i, server.tools.get(name)) }, undefined, { timeout: TIMEOUT_MS });
    } catch (e) {
      throw new Error(`${server.label}: ${name}: ${e.message}\n${server.stderr()}`, { cause: e });
    }
  };
  resetPeak(server.transport.pid);
  let r = await call(0);
  const ms = [];
  const cpu0 = cpuMs(server.transport.pid);
  for (let i = 1; i <= runs; i++) {
    const t0 = performance.now();
    r = await call(i);
    ms.push(performance.now() - t0);
  }
  const cpu = (cpuMs(server.transport.pid) - cpu0) / runs;
  const bytes = (r.content ?? []).reduce((n, c) => n + (c.text?.length ?? 0), 0);
  const peak = memory(server.transport.pid)?.peak;
  return { ms: median(ms), bytes, peak, cpu, error: r.isError === true ? (r.content?.[0]?.text ?? '').slice(0, 120) : null };
}

/** CPU time (user + system) of this process's children that have ended, in ms. Linux only. */
function childrenCpuMs() {
  try {
    // Fields 16 and 17 of /proc/self/stat (cutime, cstime).
    const fields = nodeFs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** Median ms of `runs` runs of `rg` (after one warm-up), its CPU per run, and the matches it printed. */
function timeRg(root, runs) {
  const args = ['--line-number', '--no-heading', '--color', 'never', NEEDLE, root];
  let out = '';
  const ms = [];
  let cpu0 = 0;
  for (let i = 0; i <= runs; i++) {
    if (i === 1) cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const r = spawnSync('rg', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (i > 0) ms.push(performance.now() - t0);
    if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`);
    out = r.stdout;
  }
  const cpu = (childrenCpuMs() - cpu0) / runs;
  return { ms: median(ms), cpu, bytes: out.length, matches: out.split('\n').filter(Boolean).length };
}

// ---------------------------------------------------------------------------------------------
// The run

// By its real path: where the checkout's .cache is a link, neither server pays for resolving it
// on every call.
const root = nodeFs.realpathSync(tree());
const entries = {
  acp: join(repo, 'npm', 'node', 'bin', 'acp-fs.mjs'),
  ref: process.env.ACP_FS_MCP_BENCH_ONLY === 'acp' ? null : referenceServer(),
};
const rg = ripgrep();
const hundred = Array.from({ length: Math.min(100, FILES) }, (_, k) => {
  const j = Math.floor((k * FILES) / Math.min(100, FILES));
  return join(root, leaf(j % DIRS), `f${j}.${EXTS[j % EXTS.length]}`);
});
const editPath = join(nodeFs.realpathSync(cache), `mcp-edit-${process.pid}`, 'edit.txt');
// The edited file lives in its own root beside the tree: the tree stays as generated.
nodeFs.mkdirSync(dirname(editPath), { recursive: true });

/** The search_text arguments from its schema (the pattern's name is the tool's to choose). */
const searchTextArgs = (_, tool) => {
  const props = tool.inputSchema.properties ?? {};
  const key = ['pattern', 'query', 'regex'].find((k) => k in props) ?? 'pattern';
  // Every match, as rg prints every match: both read the whole tree (the default maxResults,
  // 100, would stop half-way).
  return { path: root, [key]: NEEDLE, ...('maxResults' in props ? { maxResults: 10_000 } : {}) };
};

/** The calls: [row, tool, arguments, what the row says]. */
const BIG = [
  ['directory_tree', 'directory_tree', () => ({ path: root }), 'the whole tree'],
  ['search_files', 'search_files', () => ({ path: root, pattern: '**/*.md' }), '`**/*.md` over the tree'],
  ['list_directory_with_sizes', 'list_directory_with_sizes', () => ({ path: join(root, 'g0') }), `a directory of ${Math.min(100, DIRS)} directories`],
  ['read_multiple_files', 'read_multiple_files', () => ({ paths: hundred }), '100 files'],
  // Within every bound: both servers answer the same entries, so this row compares the work
  // per entry where the whole-tree rows compare a bounded answer with an unbounded one.
  ['directory_tree:g0', 'directory_tree', () => ({ path: join(root, 'g0') }), '`g0`, answered whole by both'],
  ['search_files:g0', 'search_files', () => ({ path: join(root, 'g0'), pattern: '**/*.md' }), '`**/*.md` in `g0`, answered whole by both'],
];
const SMALL = [
  ['read_text_file', 'read_text_file', () => ({ path: join(root, 'small', 'read.txt') }), 'one 4 KB file'],
  [
    'edit_file',
    'edit_file',
    (i) => ({ path: editPath, edits: i % 2 ? [{ oldText: 'omega', newText: 'alpha' }] : [{ oldText: 'alpha', newText: 'omega' }] }),
    'one edit of a 4 KB file',
  ],
];

/** A call of a millisecond or so is timed as often as the small calls: five say little. */
const QUICK = new Set(['list_directory_with_sizes', ...SMALL.map(([row]) => row)]);
const runsOf = (row) => (QUICK.has(row) ? SMALL_RUNS : RUNS);

// ACP_FS_MCP_BENCH_ROWS=row,row: only those rows (while working on them; the others stay empty).
const rows = process.env.ACP_FS_MCP_BENCH_ROWS ? new Set(process.env.ACP_FS_MCP_BENCH_ROWS.split(',')) : null;
const wanted = (row) => !rows || rows.has(row);
const results = new Map();
const memories = {};
const loadAtStart = load();
// ACP_FS_MCP_BENCH_ONLY=acp: our server alone (while working on it; the table's other columns stay empty).
const only = process.env.ACP_FS_MCP_BENCH_ONLY;
for (const [key, entry] of Object.entries(entries).filter(([key]) => !only || key === only)) {
  nodeFs.writeFileSync(editPath, `${body(prng(4), 4096, false).slice(0, 4000)}\nalpha\n`);
  const label = key === 'acp' ? 'acp-fs mcp' : `${REFERENCE}@${REFERENCE_VERSION}`;
  const server = await start(label, entry, key === 'acp' ? ['mcp', root, dirname(editPath)] : [root, dirname(editPath)]);
  try {
    for (const [row, name, args] of BIG.filter(([row]) => wanted(row))) results.set(`${key}:${row}`, await time(server, name, args, runsOf(row)));
    if (key === 'acp' && wanted('search_text')) results.set('acp:search_text', await time(server, 'search_text', searchTextArgs, RUNS));
    for (const [row, name, args] of SMALL.filter(([row]) => wanted(row))) results.set(`${key}:${row}`, await time(server, name, args, SMALL_RUNS));
    const peaks = [...results].filter(([k, r]) => k.startsWith(`${key}:`) && r?.peak).map(([, r]) => r.peak);
    memories[key] = { startup: server.startup, end: memory(server.transport.pid), peak: Math.max(...peaks) };
  } finally {
    await server.client.close();
  }
}
nodeFs.rmSync(dirname(editPath), { recursive: true, force: true });
const rgResult = rg && wanted('search_text') ? timeRg(root, RUNS) : null;

// The floor: a server that does nothing but answer (bench/mcp-floor-server.mjs), asked for
// answers of the sizes the two servers gave, so each row shows what the SDK client, the pipe and
// the JSON cost alone.
const floors = new Map();
{
  const floor = await start('floor', join(here, 'mcp-floor-server.mjs'), []);
  try {
    for (const [row] of [...BIG, ...SMALL]) {
      for (const key of ['acp', 'ref']) {
        const r = results.get(`${key}:${row}`);
        if (!r || r.error) continue;
        const f = await time(floor, 'answer', () => ({ bytes: r.bytes }), runsOf(row));
        floors.set(`${key}:${row}`, f);
      }
    }
  } finally {
    await floor.client.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The tables

const fmtMs = (r) => (r === undefined ? '' : r === null ? 'n/a' : r.error ? `error: ${r.error}` : r.ms < 10 ? `${r.ms.toFixed(2)} ms` : `${r.ms.toFixed(0)} ms`);
const fmtBytes = (r) => (!r || r.error ? '' : r.bytes < 1e4 ? `${r.bytes} B` : r.bytes < 1e7 ? `${(r.bytes / 1e3).toFixed(0)} KB` : `${(r.bytes / 1e6).toFixed(1)} MB`);
const fmtCpu = (r) => (r && Number.isFinite(r.cpu) ? `${r.cpu.toFixed(r.cpu < 10 ? 1 : 0)} ms` : '');
const fmtPeak = (r) => (r?.peak ? `${r.peak.toFixed(0)} MB` : '');
const ratio = (ours, theirs) => (ours && theirs && !ours.error && !theirs.error ? `${(theirs.ms / ours.ms).toFixed(1)}x` : '');

say(`\nLoad average ${loadAtStart} at the start, ${load()} at the end (2-core machines share their cores: compare CPU times too).`);
say(`\n### Standalone server vs ${REFERENCE}@${REFERENCE_VERSION}\n`);
say(`Tree: ${FILES.toLocaleString('en')} files in ${DIRS.toLocaleString('en')} directories, ~${Math.round((FILES * FILE_BYTES) / 1e6)} MB${FULL ? '' : ' (a reduced size)'}; median of ${RUNS} calls (calls of about a millisecond: ${SMALL_RUNS}).\n`);
say('Time: the median of a call as the client sees it. CPU: the server process\'s CPU time per call (all its threads; from /proc, in clock ticks, so a small call\'s is coarse). Peak RSS: the server\'s resident peak during that row\'s calls.\n');
say('| call | acp-fs mcp | answer | CPU | peak RSS | reference | answer | CPU | peak RSS | reference / acp-fs |');
say('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [row, name, , what] of [...BIG, ...SMALL]) {
  const a = results.get(`acp:${row}`);
  const r = results.get(`ref:${row}`);
  say(`| \`${name}\` (${what}) | ${fmtMs(a)} | ${fmtBytes(a)} | ${fmtCpu(a)} | ${fmtPeak(a)} | ${fmtMs(r)} | ${fmtBytes(r)} | ${fmtCpu(r)} | ${fmtPeak(r)} | ${ratio(a, r)} |`);
}

say(`\n### The transport floor\n`);
say('A server that only answers (bench/mcp-floor-server.mjs), timed for answers of the same sizes: what the SDK client, the pipe and the JSON of an answer that size cost, with no file work. Measured after the servers, so under whatever load the machine had then: a floor, not a figure to subtract.\n');
say('| call | floor for the acp-fs answer | floor for the reference answer |');
say('|---|---:|---:|');
for (const [row, name, , what] of [...BIG, ...SMALL]) {
  const fa = floors.get(`acp:${row}`);
  const fr = floors.get(`ref:${row}`);
  say(`| \`${name}\` (${what}) | ${fa ? fmtMs(fa) : ''} | ${fr ? fmtMs(fr) : ''} |`);
}
say(`\n### search_text vs ripgrep\n`);
say(`The literal \`${NEEDLE}\` over the whole tree (in one file of 500); rg is ${rg ?? 'not installed'}, spawned per search.\n`);
say('CPU: all threads of the server per search (its read-ahead workers included), and of rg per run.\n');
say('| search | time | CPU | answer | rg / acp-fs |');
say('|---|---:|---:|---:|---:|');
const st = results.get('acp:search_text');
say(`| acp-fs \`search_text\` | ${fmtMs(st)} | ${fmtCpu(st)} | ${fmtBytes(st)} | ${ratio(st, rgResult)} |`);
say(`| \`rg -n\` | ${rgResult ? fmtMs(rgResult) : 'n/a'} | ${fmtCpu(rgResult)} | ${rgResult ? `${fmtBytes(rgResult)}, ${rgResult.matches} lines` : ''} | |`);

say(`\n### Memory (resident, MB)\n`);
say('| server | after start-up | at the end | peak |');
say('|---|---:|---:|---:|');
const mb = (v) => (v === undefined || v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(0));
for (const [key, label] of [['acp', 'acp-fs mcp'], ['ref', 'reference']]) {
  const m = memories[key];
  say(`| ${label} | ${mb(m?.startup?.rss)} | ${mb(m?.end?.rss)} | ${mb(m?.peak)} |`);
}

const out = resultsFile(process.argv.slice(2), !FULL || Boolean(only) || Boolean(rows));
if (out) {
  writeSection('mcp', 'The standalone MCP server (bench/mcp.mjs)', printed(), { file: out });
  console.log(`\nwritten to ${out}`);
}
