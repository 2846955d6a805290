// Engines of a binding's low-level interface, made and driven by hand as the driver would: what the
// binding suites (suite-binding.mjs, suite-operation.mjs) and the per-binding tests share.

import assert from 'node:assert/strict';
import { MapStorage } from './harness.mjs';

const enc = new TextEncoder();
export const FULL_CAPS = {
  symlinks: 'resolvable',
  stat: true,
  rangedReads: true,
  write: true,
  makeDirs: true,
  list: true,
  rename: true,
  makeDir: true,
};
/** Whole-file reads and writes only: a read's first io is its `readAll`. */
export const MINIMAL_CAPS = { symlinks: 'none', stat: false, rangedReads: false, write: true, makeDirs: false };
/** What a plain object storage has: a read stats first. */
export const PLAIN_CAPS = { symlinks: 'none', stat: true, rangedReads: false, write: true, makeDirs: true };

/** Runs an operation against a MapStorage by hand, the way the driver does. */
export function drive(op, storage) {
  let step = op.step();
  const ios = [];
  while (!step.done) {
    ios.push(step.io);
    const { io } = step;
    let answer;
    let bytes;
    try {
      if (io.op === 'stat') {
        const st = storage.stat(io.path);
        answer = { metadata: { kind: st.isFile() ? 'file' : 'directory', size: st.size } };
      } else if (io.op === 'readAll') {
        answer = { bytes: true };
        bytes = storage.readFile(io.path);
      } else if (io.op === 'write') {
        storage.writeFile(io.path, step.bytes);
        answer = { done: true };
      } else if (io.op === 'makeDirs') {
        storage.mkdir(io.path, { recursive: true });
        answer = { done: true };
      } else if (io.op === 'approve') answer = { approved: true };
      else throw new Error(`unexpected io ${io.op}`);
    } catch (e) {
      answer = { error: { code: e.code, message: e.message } };
    }
    step = op.step(answer, bytes);
  }
  return { outcome: step.done, ios };
}

/**
 * Helpers over a binding: `newEngine` fails the test when createEngine answers with an error,
 * `engine` also opens session `s` on root `/p`, `engineWith` gives one over a Map storage holding
 * `files`.
 */
export function engines(binding) {
  const newEngine = (options, caps) => {
    const e = binding.createEngine(options, caps);
    assert.ok(e instanceof binding.Engine, `createEngine answered ${JSON.stringify(e)}`);
    return e;
  };
  const engine = (caps = MINIMAL_CAPS, options = {}) => {
    const e = newEngine(options, caps);
    assert.equal(e.openSession('s', '/p', []), null);
    return e;
  };
  const engineWith = (files = {}, options = {}) => {
    const storage = new MapStorage({ ranged: false });
    for (const [p, text] of Object.entries(files)) storage.put(p, enc.encode(text));
    return { engine: engine(PLAIN_CAPS, options), storage };
  };
  return { newEngine, engine, engineWith };
}
