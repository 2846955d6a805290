// Every behaviour vector on every storage @acp-fs/node serves (memfs, a plain Map storage,
// fs.promises on a real temp dir, the native disk), each meeting the vector's expectations, and
// all of them giving identical answers.

import assert from 'node:assert/strict';
import { describe, test, after } from 'node:test';
import { AcpFs } from './node-package.mjs';
import { fileEntries } from '../shared/vectors.mjs';
import { backends as allBackends, loadVectors, parityView, runVector } from './harness.mjs';

// ACP_FS_BACKENDS=native,mapRanged runs a subset of the storages (quick runs under an emulator, by
// hand; tests/cross runs them all).
const only = process.env.ACP_FS_BACKENDS ? process.env.ACP_FS_BACKENDS.split(',') : null;
const backends = only ? Object.fromEntries(Object.entries(allBackends).filter(([k]) => only.includes(k))) : allBackends;

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

test('hard links are made after the files they name, whatever the key order', async () => {
  // Links listed first, one of them a link to a link: every name has three links.
  const vector = {
    name: 'hardlinks-listed-before-their-files',
    rule: '§8.2 refuseHardlinks (harness self-test)',
    files: {
      '/project/c.txt': { hardlink: '/project/b.txt' },
      '/project/b.txt': { hardlink: '/project/a.txt' },
      '/project/a.txt': 'shared\n',
    },
    request: { method: 'fs/read_text_file', params: { sessionId: 's1', path: '/project/c.txt' } },
    expect: { error: { code: -32603, data: { errorKind: 'hard_link', path: '/project/c.txt' } } },
  };
  assert.deepEqual(
    fileEntries(vector).map(([p]) => p),
    ['/project/a.txt', '/project/b.txt', '/project/c.txt'],
  );
  for (const backend of Object.values(backends)) {
    const run = await runVector(AcpFs, vector, backend);
    // The harness runs no real-disk vector on Windows (POSIX layouts); every other skip is a bug.
    if (process.platform === 'win32' && run.skip?.startsWith('real-disk vectors')) continue;
    assert.equal(run.skip, undefined, `${backend.name} skipped: ${run.skip}`);
    assert.deepEqual(run.failures, [], `[${backend.name}] ${run.failures.join('\n')}`);
  }
  const off = { ...vector, options: { refuseHardlinks: false }, expect: { result: { content: 'shared\n' } } };
  for (const backend of Object.values(backends)) {
    const run = await runVector(AcpFs, off, backend);
    if (process.platform === 'win32' && run.skip?.startsWith('real-disk vectors')) continue;
    assert.deepEqual(run.failures, [], `[${backend.name}] ${run.failures.join('\n')}`);
  }
});

for (const [file, vectors] of byFile) {
  describe(file, () => {
    for (const { vector } of vectors) {
      test(vector.name, async (t) => {
        const views = [];
        const failures = [];
        for (const backend of Object.values(backends)) {
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
        if (only && views.length === 0) {
          t.skip(`none of ACP_FS_BACKENDS=${only.join(',')} can run this vector`);
          return;
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
  const lines = [...skips].map(([k, n]) => `  ${n} × ${k}`);
  console.log(`vector runs: ${ran} across ${Object.keys(backends).length} backends; skipped:\n${lines.join('\n')}`);
});
