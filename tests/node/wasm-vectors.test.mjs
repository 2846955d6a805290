// @acp-fs/wasm in Node: every behaviour vector on every storage a browser IDE would hand it (plain
// objects sync and async, memfs, ZenFS in memory, the package's adapters, fs.promises), each
// meeting the vector's expectations and all of them agreeing.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AcpFs } from '../../npm/wasm/node.mjs';
import { loadVectors, parityView, runVector } from './harness.mjs';
import { wasmBackends } from './wasm-backends.mjs';

const all = loadVectors();
const byFile = new Map();
for (const x of all) byFile.set(x.file, [...(byFile.get(x.file) ?? []), x]);
const skips = new Map();
let ran = 0;

test('the vector set is there', () => {
  assert.ok(all.length >= 150, `the contract needs at least 150 vectors, found ${all.length}`);
});

for (const [file, vectors] of byFile) {
  describe(`vectors ${file}`, () => {
    for (const { vector } of vectors) {
      test(vector.name, async () => {
        const views = [];
        const failures = [];
        for (const backend of Object.values(wasmBackends)) {
          const run = await runVector(AcpFs, vector, backend);
          if (run.skip) {
            const key = `${backend.name}: ${run.skip}`;
            skips.set(key, (skips.get(key) ?? 0) + 1);
            continue;
          }
          ran += 1;
          failures.push(...run.failures.map((f) => `[${backend.name}] ${f}`));
          views.push([backend.name, parityView(run)]);
        }
        assert.ok(views.length > 0, 'no backend could run this vector');
        assert.deepEqual(failures, [], failures.join('\n'));
        const [firstName, first] = views[0];
        for (const [name, view] of views.slice(1)) {
          assert.deepStrictEqual(view, first, `${name} differs from ${firstName}`);
        }
      });
    }
  });
}

after(() => {
  const lines = [...skips].sort().map(([k, n]) => `  ${n} × ${k}`);
  console.log(`wasm vector runs: ${ran} across ${Object.keys(wasmBackends).length} backends; skipped:\n${lines.join('\n')}`);
});
