// @acp-fs/node without a storage: the native disk, driven from JS only for the host's answers.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AcpFs } from './node-package.mjs';
import { makeTempDir } from './harness.mjs';

describe('@acp-fs/node on the native disk', () => {
  let dir;
  const line = `${'y'.repeat(63)}\n`;
  const lines = 200_000; // 12.8 MB: larger than maxReadBytes
  before(() => {
    dir = makeTempDir('acpfs-native-');
    nodeFs.writeFileSync(join(dir, 'big.txt'), line.repeat(lines));
    nodeFs.symlinkSync('/etc/hostname', join(dir, 'escape.txt'));
  });
  after(() => nodeFs.rmSync(dir, { recursive: true, force: true }));

  function makeFs(options) {
    const fs = new AcpFs(options);
    fs.openSession('s', { cwd: dir });
    return fs;
  }

  test('storage: null and undefined both mean the native disk', async () => {
    for (const storage of [null, undefined]) {
      const fs = makeFs({ storage });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: join(dir, 'big.txt'), line: lines, limit: 1 }), {
        content: line,
      });
    }
  });

  test('windows of a file larger than maxReadBytes are served; the whole file is refused', async () => {
    const fs = makeFs({});
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: join(dir, 'big.txt'), line: lines - 1 }), {
      content: line + line,
    });
    await assert.rejects(fs.readTextFile({ sessionId: 's', path: join(dir, 'big.txt') }), (e) => {
      assert.equal(e.name, 'AcpFsError');
      assert.equal(e.code, 'file_too_large');
      return true;
    });
  });

  test('symlink escapes are refused on the real disk', async () => {
    const fs = makeFs({});
    await assert.rejects(fs.readTextFile({ sessionId: 's', path: join(dir, 'escape.txt') }), (e) => e.code === 'symlink_escape');
  });

  test('aborting a native read in flight rejects with cancelled', async () => {
    const audits = [];
    for (const f of [makeFs({}), makeFs({ onAudit: (a) => audits.push(a) })]) {
      const controller = new AbortController();
      const pending = f.readTextFile({ sessionId: 's', path: join(dir, 'big.txt'), line: lines }, { signal: controller.signal });
      controller.abort();
      await assert.rejects(pending, (e) => e.code === 'cancelled' && e.jsonRpcCode === -32800);
    }
    assert.equal(audits[0].outcome, 'cancelled');
  });

  test('writes are atomic replacements that keep the mode', async () => {
    const path = join(dir, 'script.sh');
    nodeFs.writeFileSync(path, '#!/bin/sh\n');
    nodeFs.chmodSync(path, 0o751);
    const fs = makeFs({});
    await fs.writeTextFile({ sessionId: 's', path, content: '#!/bin/sh\necho hi\n' });
    assert.equal(nodeFs.readFileSync(path, 'utf8'), '#!/bin/sh\necho hi\n');
    assert.equal(nodeFs.statSync(path).mode & 0o777, 0o751);
    assert.deepEqual(nodeFs.readdirSync(dir).filter((n) => !['big.txt', 'escape.txt', 'script.sh'].includes(n)), []);
  });
});
