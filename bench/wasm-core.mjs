// The @acp-fs/wasm benchmark body, the same in Node and in a browser page: reads of 4 KB, 1 MB
// and 10 MB texts from an in-memory storage (windows of 50 lines at the start and at the end, and
// whole files), through `AcpFs.readTextFile`, against a pure-JS baseline that decodes the file and
// splits, slices and joins lines. It also times the pieces of one request, to show where the time
// goes: the engine's steps alone (no driver, no promises), and the two copies across the wasm
// boundary (bytes in, the content string out); and what each step of a 4 KB read costs through
// the binding (`stepTimes`).

const enc = new TextEncoder();
const dec = new TextDecoder();
const now = () => performance.now();
const WINDOW = 50;

/** A text of about `bytes` bytes: ~80-byte lines, one in ten with non-ASCII characters. */
export function makeText(bytes) {
  const lines = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line =
      i % 10 === 0
        ? `${i}: café — ünïcödé «quoted» text to make the decoder work for its living, ok\n`
        : `${i}: const value = compute(input, options); // a line of ordinary source code\n`;
    lines.push(line);
    size += enc.encode(line).length;
  }
  return lines.join('');
}

export function memoryStorage(files) {
  return {
    readFile: (path) => files.get(path),
    stat: (path) => {
      const bytes = files.get(path);
      return { isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false, size: bytes.length };
    },
    readRange: (path, offset, length) => files.get(path).subarray(offset, offset + length),
  };
}

/** What a host would write without acp-fs: decode, split, slice, join. */
export async function baselineRead(storage, { path, line, limit }) {
  const text = dec.decode(await storage.readFile(path));
  const lines = text.split('\n');
  const start = (line ?? 1) - 1;
  return { content: lines.slice(start, limit == null ? lines.length : start + limit).join('\n') };
}

/**
 * Median times per call (ms) of each of `fns`, measured in alternating batches of at least
 * `minMs` each: a drift of the machine (another process, a GC, a clock change) then weighs on all
 * alike, where timing one after the other would charge it to whichever ran during it.
 */
async function timeAll(fns, { batches, minMs }) {
  for (let i = 0; i < 3; i++) for (const fn of fns) await fn();
  const per = fns.map(() => []);
  for (let round = 0; round < batches; round++) {
    for (const [i, fn] of fns.entries()) {
      let n = 0;
      const t0 = now();
      do {
        await fn();
        n += 1;
      } while (now() - t0 < minMs);
      per[i].push((now() - t0) / n);
    }
  }
  const medians = per.map((xs) => median(xs));
  medians.rounds = per;
  return medians;
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** Median time per call (ms) of `fn` alone. */
const timeIt = async (fn, timing) => (await timeAll([fn], { batches: 5, minMs: 150, ...timing }))[0];

/** Median times per call (ms) of `a` and `b`, in alternating batches. */
const timePair = (a, b, timing) => timeAll([a, b], { batches: 9, minMs: 80, ...timing });

/** The expected content of a window, from the text itself (lines keep their terminators). */
function windowOf(text, line, limit) {
  const lines = text.split(/(?<=\n)/);
  return lines.slice(line - 1, limit == null ? undefined : line - 1 + limit).join('');
}

/**
 * One request through the binding (docs/binding-interface.md), answered synchronously: the
 * engine's share of the time, conversions included.
 */
export function engineOnly(engine, params, storage) {
  const op = startRead(engine, params);
  let step = op.step();
  const open = [];
  while (!step.done) {
    const { io } = step;
    if (io.op === 'stat') step = op.step({ metadata: { kind: 'file', size: storage.stat(io.path).size } });
    else if (io.op === 'open') {
      open.push(io.path);
      const answer = { file: open.length - 1, metadata: { kind: 'file', size: storage.stat(io.path).size } };
      if (io.head > 0) step = op.step({ ...answer, bytes: true }, storage.readRange(io.path, 0, io.head));
      else step = op.step(answer);
    } else if (io.op === 'readAt')
      step = op.step({ bytes: true }, storage.readRange(open[io.file], io.offset, io.length));
    else if (io.op === 'readAll') step = op.step({ bytes: true }, storage.readFile(io.path));
    else throw new Error(`unexpected io ${io.op}`);
  }
  op.free();
  return step.done;
}

/**
 * A read started as the driver starts one (npm/shared/acp-fs.mjs): small flat params as they are
 * where the binding takes them so (`startFlat`, wasm), else as JSON text.
 */
const startRead = (engine, params) =>
  typeof engine.startFlat === 'function'
    ? engine.startFlat('fs/read_text_file', params)
    : engine.startJson('fs/read_text_file', JSON.stringify(params));

export const RANGED_CAPS = { symlinks: 'none', stat: true, rangedReads: true, write: false, makeDirs: false };

/** `binding.createEngine`, or the error it answered with, thrown. */
export function createEngine(binding, options, caps) {
  const engine = binding.createEngine(options, caps);
  if (engine?.kind !== undefined) throw new Error(`createEngine: ${engine.message}`);
  return engine;
}

/**
 * Microseconds per call of each step of a whole 4 KB read with ranged reads, through the binding
 * alone (median of 5 rounds of `n` reads): `start` (started as the driver does, and the first
 * step, giving `open`),
 * `open` (its answer with the file's head, giving the outcome), `free`.
 */
export function stepTimes(binding, { n = 20000 } = {}) {
  const engine = createEngine(binding, { roots: ['/p'] }, RANGED_CAPS);
  const text = makeText(4096);
  const bytes = enc.encode(text);
  const params = { sessionId: 'bench', path: '/p/a.txt' };
  const sum = { start: 0, open: 0, free: 0 };
  const once = (timed) => {
    const t0 = now();
    const op = startRead(engine, params);
    const open = op.step();
    const t1 = now();
    const done = op.step({ file: 0, metadata: { kind: 'file', size: bytes.length }, bytes: true }, bytes).done;
    const t2 = now();
    op.free();
    const t3 = now();
    if (open.io?.op !== 'open' || !(open.io.head >= bytes.length) || done?.result?.content !== text) {
      throw new Error(`unexpected steps: ${JSON.stringify([open.io, done?.error])}`);
    }
    if (timed) {
      sum.start += t1 - t0;
      sum.open += t2 - t1;
      sum.free += t3 - t2;
    }
  };
  for (let i = 0; i < n / 4; i++) once(false);
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    for (const k of Object.keys(sum)) sum[k] = 0;
    for (let i = 0; i < n; i++) once(true);
    rounds.push(Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, (v * 1000) / n])));
  }
  const median = (k) => rounds.map((r) => r[k]).sort((a, b) => a - b)[2];
  engine.free();
  const out = { startUs: median('start'), openUs: median('open'), freeUs: median('free') };
  return { ...out, totalUs: out.startUs + out.openUs + out.freeUs };
}

/**
 * Runs the benchmark. `AcpFs` is the package's class; `binding` (optional) the binding interface
 * (`createEngine`, …) for the breakdown and the step times. Resolves to `{rows, breakdown, steps}`.
 */
export async function runBench({ AcpFs, binding, sizes = [4 * 1024, 1024 * 1024, 10 * 1000 * 1000], timing } = {}) {
  const rows = [];
  const breakdown = [];
  // Warm the JIT on every path first, so the first row does not pay for compilation.
  {
    const bytes = enc.encode(makeText(4096));
    const storage = memoryStorage(new Map([['/w/f.txt', bytes]]));
    const fs = new AcpFs({ storage, roots: ['/w'] });
    const t0 = now();
    while (now() - t0 < 500) {
      for (const params of [{ line: 1, limit: WINDOW }, { line: 40, limit: 5 }, {}]) {
        await fs.readTextFile({ sessionId: 'warm', path: '/w/f.txt', ...params });
        await baselineRead(storage, { path: '/w/f.txt', ...params });
      }
    }
  }
  for (const size of sizes) {
    const text = makeText(size);
    const bytes = enc.encode(text);
    const path = '/project/file.txt';
    const files = new Map([[path, bytes]]);
    const storage = memoryStorage(files);
    const fs = new AcpFs({ storage, roots: ['/project'] });
    const lineCount = text.split('\n').length - 1;
    const cases = [
      ['window at start', 1, WINDOW],
      ['window at end', lineCount - WINDOW + 1, WINDOW],
      ['whole file', undefined, undefined],
    ];
    for (const [name, line, limit] of cases) {
      const params = { sessionId: 'bench', path, line, limit };
      const want = windowOf(text, line ?? 1, limit);
      const got = await fs.readTextFile(params);
      if (got.content !== want) throw new Error(`${name} of ${size} bytes: wrong content from @acp-fs/wasm`);
      const times = await timePair(() => fs.readTextFile(params), () => baselineRead(storage, params), timing);
      const [wasm, baseline] = times;
      // `ratio`: the wasm read's time over the baseline's, the median of each round's own ratio
      // (the two batches of a round ran next to each other; drift between rounds cancels).
      const [wasmRounds, baselineRounds] = times.rounds;
      const ratio = median(wasmRounds.map((x, round) => x / baselineRounds[round]));
      rows.push({ size: bytes.length, case: name, wasmMs: wasm, baselineMs: baseline, speedup: baseline / wasm, ratio });
    }
    if (binding) {
      const engine = createEngine(binding, { roots: ['/project'] }, RANGED_CAPS);
      const whole = { sessionId: 'bench', path };
      if (engineOnly(engine, whole, storage).result?.content !== text) throw new Error('engine-only read is wrong');
      const total = await timeIt(() => fs.readTextFile(whole), timing);
      const steps = await timeIt(() => engineOnly(engine, whole, storage), timing);
      const copyIn = await timeIt(() => new Uint8Array(bytes.length).set(bytes), timing);
      const stringOut = await timeIt(() => dec.decode(bytes), timing);
      breakdown.push({ size: bytes.length, totalMs: total, engineMs: steps, driverMs: total - steps, copyInMs: copyIn, stringOutMs: stringOut });
      engine.free();
    }
  }
  return { rows, breakdown, steps: binding ? stepTimes(binding) : null };
}
