#!/usr/bin/env node
// The criterion benches' medians (core/benches: `cargo bench -p acp-fs --bench windows`, `--bench
// host`), as tables in docs/benchmarks/latest.md: one table per criterion group, a row per input
// (`1MB start`, …) and a column per function (`engine`, `floor`, …). `./dev bench` runs it after
// the benches; alone it reads whatever the last runs left in target/criterion.
//
//   node bench/criterion.mjs [--results=<file>] [--criterion=<dir>]
//
// Criterion keeps the results of benchmarks that no longer exist, or were not run this time, in
// the same directory; only those measured within STALE_HOURS of the newest one are reported.

import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, machine, resultsFile, writeSection } from './results.mjs';

const STALE_HOURS = 6;
const COLUMNS = ['engine', 'window', 'floor', 'naive', 'utf8', 'newline_loop', 'blocked_loop', 'copy'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const dir = arg('criterion') ?? join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'criterion');

/** Every `<id>/new/benchmark.json` under `dir`, with its median (ns) and when it was written. */
function collect(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of nodeFs.readdirSync(d, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const sub = join(d, entry.name);
      if (entry.name === 'new') {
        const meta = join(sub, 'benchmark.json');
        const estimates = join(sub, 'estimates.json');
        if (nodeFs.existsSync(meta) && nodeFs.existsSync(estimates)) {
          const id = JSON.parse(nodeFs.readFileSync(meta, 'utf8'));
          const median = JSON.parse(nodeFs.readFileSync(estimates, 'utf8')).median.point_estimate;
          found.push({ ...id, medianNs: median, written: nodeFs.statSync(estimates).mtimeMs });
        }
      } else if (entry.name !== 'report' && entry.name !== 'base') walk(sub);
    }
  };
  walk(dir);
  return found;
}

function fmt(ns) {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(ns >= 1e8 ? 0 : 2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(ns >= 1e5 ? 0 : 1)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** One group: a grid (inputs × functions) when its ids have both parts, else a list. */
function groupTable(group, rows) {
  const grid = rows.every((r) => r.function_id != null && r.value_str != null);
  if (!grid) {
    const lines = [`| ${group} | median |`, '|---|---:|'];
    for (const r of rows) lines.push(`| ${r.function_id ?? r.group_id} | ${fmt(r.medianNs)} |`);
    return lines.join('\n');
  }
  const cell = new Map(rows.map((r) => [`${r.value_str}\0${r.function_id}`, r.medianNs]));
  // Inputs cheapest first (a window at the start before one at the end); functions in the order
  // docs/benchmarks.md describes them, any new one after those.
  const cheapest = (input) => Math.min(...rows.filter((r) => r.value_str === input).map((r) => r.medianNs));
  const inputs = [...new Set(rows.map((r) => r.value_str))].sort((a, b) => cheapest(a) - cheapest(b));
  const rank = (f) => (COLUMNS.includes(f) ? COLUMNS.indexOf(f) : COLUMNS.length);
  const functions = [...new Set(rows.map((r) => r.function_id))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const lines = [`| ${group} | ${functions.join(' | ')} |`, `|---|${functions.map(() => '---:').join('|')}|`];
  for (const input of inputs) {
    const cells = functions.map((f) => (cell.has(`${input}\0${f}`) ? fmt(cell.get(`${input}\0${f}`)) : ''));
    lines.push(`| ${input} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

if (!nodeFs.existsSync(dir)) {
  console.error(`bench/criterion: ${dir} missing: run cargo bench -p acp-fs first`);
  process.exit(1);
}
const all = collect(dir);
if (all.length === 0) {
  console.error(`bench/criterion: no results under ${dir}`);
  process.exit(1);
}
const newest = Math.max(...all.map((r) => r.written));
const fresh = all.filter((r) => newest - r.written <= STALE_HOURS * 3600 * 1000);
const groups = new Map();
for (const r of fresh.sort((a, b) => a.full_id.localeCompare(b.full_id, 'en', { numeric: true }))) {
  const key = r.function_id == null ? 'benchmark' : r.group_id;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(r);
}

const parts = [
  `Criterion medians (\`bench\` profile: LTO, one codegen unit); load average ${load()} when the tables were written.`,
  `Inputs and functions are described in [../benchmarks.md](../benchmarks.md#what-is-measured).`,
];
for (const [group, rows] of groups) parts.push(groupTable(group, rows));
const stale = all.length - fresh.length;
if (stale > 0) parts.push(`(${stale} older result${stale === 1 ? '' : 's'} in target/criterion left out.)`);
const body = parts.join('\n\n');
console.log(body);
const results = resultsFile(process.argv, false);
if (results) {
  const written = writeSection('criterion', 'The engine alone (criterion, core/benches)', body, { file: results, machineLine: machine({ rustc: true }) });
  console.error(`results written to ${written}`);
}
