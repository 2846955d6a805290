#!/usr/bin/env node
// Instructions per whole 4 KB read through @acp-fs/wasm in Node, counted by valgrind: a measure
// that does not move with the machine's load, for changes too small for a clock to tell apart
// on a shared 2-core VM (bench/wasm-ab.mjs's A/A runs spread by a few percent; this one repeats
// to about 0.02%).
//
//   node bench/wasm-instructions.mjs [npm/wasm directory ...] [--reads=3000] [--what=fs|engine|baseline]
//
// Each build is run twice under `valgrind --tool=cachegrind`, once with no timed reads and once
// with `--reads`, after the same warm-up; the difference over the reads is one read's count, the
// start-up and warm-up cancelled. V8 runs with `--predictable` (no concurrent compilation or GC
// threads, no time-based heuristics) and `--no-liftoff` (the wasm compiled once, by TurboFan),
// which makes the count repeat. `what`: `fs` is `AcpFs.readTextFile` (driver, guard, engine),
// `engine` the binding stepped by hand (guard and engine), `baseline` the decode+split+join the
// other benchmarks compare with.
//
// A count is not a time: a copy or a fill libc does with `rep movs`/`rep stos` counts about one
// instruction a byte, so libc's memcpy/memset are shown apart. Node's TextDecoder and Chromium's
// differ too (the count is Node's), so check a change in Chromium with bench/wasm-ab.mjs before
// keeping it. Needs valgrind (Debian: `apt-get install valgrind`); a benchmark, not a test.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const READS_DEFAULT = 3000;
const WARM_UP = 3000;

/** The child: `WARM_UP` reads, then `reads` more, of the kind `what`, through the build at `dir`. */
async function child(dir, reads, what) {
  const { AcpFs } = await import(pathToFileURL(join(dir, 'node.mjs')).href);
  const { binding } = await import(pathToFileURL(join(dir, 'lib', 'fs.mjs')).href);
  const core = await import('./wasm-core.mjs');
  const bytes = new TextEncoder().encode(core.makeText(4096));
  const path = '/p/a.txt';
  const storage = core.memoryStorage(new Map([[path, bytes]]));
  const params = { sessionId: 's', path };
  const fs = new AcpFs({ storage, roots: ['/p'] });
  const engine = core.createEngine(binding, { roots: ['/p'] }, core.RANGED_CAPS);
  const one = {
    fs: () => fs.readTextFile(params),
    engine: async () => core.engineOnly(engine, params, storage).result,
    baseline: () => core.baselineRead(storage, { path }),
  }[what];
  if (one === undefined) throw new Error(`--what: fs, engine or baseline, not ${what}`);
  if ((await one()).content !== new TextDecoder().decode(bytes)) throw new Error(`${what}: wrong content`);
  for (let i = 0; i < WARM_UP; i++) await one();
  for (let i = 0; i < reads; i++) await one();
}

/** `[instructions, of which libc's memcpy/memmove/memset]` of one child run under cachegrind. */
function counted(dir, reads, what) {
  const scratch = mkdtempSync(join(tmpdir(), 'acp-fs-ir-'));
  const out = join(scratch, 'cachegrind.out');
  const args = [
    '--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, '--smc-check=all',
    process.execPath, '--no-liftoff', '--predictable', fileURLToPath(import.meta.url),
    '--child', dir, String(reads), what,
  ];
  return new Promise((done, fail) => {
    const run = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    run.stderr.on('data', (d) => (err += d));
    run.on('error', fail);
    run.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`valgrind exited with ${code}:\n${err.slice(-2000)}`);
        const report = execFileSync('cg_annotate', [out], { encoding: 'utf8', maxBuffer: 1 << 28 });
        const number = (line) => Number(line.trim().split(/\s+/)[0].replaceAll(',', ''));
        const total = number(report.split('\n').find((l) => l.includes('PROGRAM TOTALS')));
        const mem = report
          .split('\n')
          .filter((l) => /__mem(cpy|move|set)/.test(l))
          .reduce((sum, l) => sum + number(l), 0);
        done([total, mem]);
      } catch (e) {
        fail(e);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  });
}

if (process.argv[2] === '--child') {
  const [dir, reads, what] = process.argv.slice(3);
  await child(dir, Number(reads), what);
} else {
  const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const reads = Number(option('reads', READS_DEFAULT));
  const what = option('what', 'fs');
  const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (dirs.length === 0) dirs.push(fileURLToPath(new URL('../npm/wasm', import.meta.url)));
  console.log(`| build | instructions a read (${what}) | of which libc memcpy/memset | the rest |`);
  console.log('|---|---:|---:|---:|');
  for (const dir of dirs.map((d) => resolve(d))) {
    // The two runs of a build side by side: each is one thread (--predictable).
    const [[t0, m0], [t1, m1]] = await Promise.all([counted(dir, 0, what), counted(dir, reads, what)]);
    const per = (x) => Math.round(x / reads).toLocaleString('en-US');
    console.log(`| ${dir} | ${per(t1 - t0)} | ${per(m1 - m0)} | ${per(t1 - t0 - (m1 - m0))} |`);
  }
}
