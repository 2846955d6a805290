// The shared declarations type-check the documented usage (and refuse the misuse marked with
// @ts-expect-error), with the official SDK's own types on the other side.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

test('tsc --noEmit over tests/node/types-usage.ts against npm/types/acp-fs.d.ts', () => {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(here, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
