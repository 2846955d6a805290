// The shared declarations type-check the documented usage (and refuse the misuse marked with
// @ts-expect-error), with the official SDK's own types on the other side, in the sources and in
// both built packages.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

// The sources, and each built package as it ships them (its copies of the generated api.d.ts and
// host.d.ts beside the hand-written file): a file the build forgot to copy fails here.
for (const [config, against] of [
  ['tsconfig.json', 'npm/types/acp-fs.d.ts'],
  ['tsconfig.node-build.json', '@acp-fs/node as built (npm/node/index.d.mts)'],
  ['tsconfig.wasm-build.json', '@acp-fs/wasm as built (npm/wasm/index.d.ts)'],
]) {
  test(`tsc --noEmit over tests/node/types-usage.ts against ${against}`, () => {
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(here, config)], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });
}
