// Every behaviour vector on every storage of a package, as one Node test per vector: each storage
// must meet the vector's expectations and all of them must give identical answers. Run for
// @acp-fs/node (napi.test.mjs) and @acp-fs/wasm (wasm-vectors.test.mjs); the loop itself is the
// browser runner's too (runOnEvery, tests/shared/vectors.mjs).

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { runOnEvery } from '../shared/vectors.mjs';
import { loadVectors, parityView } from './harness.mjs';

/**
 * Registers the tests. `AcpFs` is the package's class (or `{fs, full}`, see classFor in
 * tests/shared/vectors.mjs), `backends` its storages by key; `only`
 * (keys, or null) names the subset ACP_FS_BACKENDS asked for, which may leave a vector with no storage
 * (skipped then, not failed). `describeName(file)` names each vector file's group.
 */
export function vectorSuite({ label, AcpFs, backends, only = null, describeName = (file) => file }) {
  const all = loadVectors();
  const byFile = new Map();
  for (const x of all) byFile.set(x.file, [...(byFile.get(x.file) ?? []), x]);
  const skips = new Map();
  let ran = 0;

  test('the vector set is there', () => {
    assert.ok(all.length >= 150, `the contract needs at least 150 vectors, found ${all.length}`);
    const names = new Set();
    for (const { vector } of all) {
      assert.ok(!names.has(vector.name), `duplicate vector name ${vector.name}`);
      names.add(vector.name);
    }
  });

  for (const [file, vectors] of byFile) {
    describe(describeName(file), () => {
      for (const { vector } of vectors) {
        test(vector.name, async (t) => {
          const runs = await runOnEvery(AcpFs, vector, Object.values(backends));
          for (const key of runs.skipped) skips.set(key, (skips.get(key) ?? 0) + 1);
          ran += runs.ran.length;
          if (only && runs.ran.length === 0) {
            t.skip(`none of ACP_FS_BACKENDS=${only.join(',')} can run this vector`);
            return;
          }
          assert.ok(runs.ran.length > 0, 'no backend could run this vector');
          assert.deepEqual(runs.failures, [], runs.failures.join('\n'));
          const [first, ...rest] = runs.ran;
          for (const run of rest) {
            assert.deepStrictEqual(parityView(run), parityView(first), `${run.backend} differs from ${first.backend}`);
          }
        });
      }
    });
  }

  after(() => {
    const lines = [...skips].sort().map(([k, n]) => `  ${n} × ${k}`);
    console.log(`${label} vector runs: ${ran} across ${Object.keys(backends).length} backends; skipped:\n${lines.join('\n')}`);
  });
}
