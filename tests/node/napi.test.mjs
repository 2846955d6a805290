// Every behaviour vector on every storage @acp-fs/node serves (memfs, a plain Map storage,
// fs.promises on a real temp dir, the native disk), each meeting the vector's expectations, and
// all of them giving identical answers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AcpFs } from './node-package.mjs';
import { fileEntries } from '../shared/vectors.mjs';
import { backends as allBackends, runVector } from './harness.mjs';
import { vectorSuite } from './suite-vectors.mjs';

// ACP_FS_BACKENDS=native,mapRanged runs a subset of the storages (quick runs under an emulator, by
// hand; tests/cross runs them all).
const only = process.env.ACP_FS_BACKENDS ? process.env.ACP_FS_BACKENDS.split(',') : null;
const backends = only ? Object.fromEntries(Object.entries(allBackends).filter(([k]) => only.includes(k))) : allBackends;

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
    // On Windows the harness runs the real disk through the native storage only; every other
    // skip is a bug.
    if (process.platform === 'win32' && run.skip?.startsWith('on Windows the JS storages')) continue;
    assert.equal(run.skip, undefined, `${backend.name} skipped: ${run.skip}`);
    assert.deepEqual(run.failures, [], `[${backend.name}] ${run.failures.join('\n')}`);
  }
  const off = { ...vector, options: { refuseHardlinks: false }, expect: { result: { content: 'shared\n' } } };
  for (const backend of Object.values(backends)) {
    const run = await runVector(AcpFs, off, backend);
    if (process.platform === 'win32' && run.skip?.startsWith('on Windows the JS storages')) continue;
    assert.deepEqual(run.failures, [], `[${backend.name}] ${run.failures.join('\n')}`);
  }
});

vectorSuite({ label: '@acp-fs/node', AcpFs, backends, only });
