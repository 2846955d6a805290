// @acp-fs/node without a storage: the native disk, driven from JS only for the host's answers; and,
// through tests/node/fallback-native.test.mjs, the wasm fallback's disk over node:fs, which must
// keep the same disk semantics.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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

  test('an aborted native write is reported as what it did: written (with its change) or untouched', async () => {
    // The disk loop runs on a worker thread; an abort can land before, during or after its
    // write. Whatever the timing, "cancelled" must mean the file was not written, and a write
    // that happened must come back as success with its change record.
    const path = join(dir, 'aborted.txt');
    let onDisk = 'v-start\n';
    nodeFs.writeFileSync(path, onDisk);
    const changes = [];
    const fs = makeFs({ onChange: (c) => changes.push(c.newText) });
    const seen = { written: 0, cancelled: 0 };
    const aborts = [(c) => c.abort(), (c) => queueMicrotask(() => c.abort()), (c) => setImmediate(() => c.abort())];
    for (let i = 0; i < 240; i++) {
      const content = `v${i}\n`;
      const controller = new AbortController();
      const pending = fs.writeTextFile({ sessionId: 's', path, content }, { signal: controller.signal });
      aborts[i % aborts.length](controller);
      const outcome = await pending.then(
        () => 'written',
        (e) => (e.code === 'cancelled' ? 'cancelled' : `${e.code}: ${e.message}`),
      );
      await new Promise((resolve) => setTimeout(resolve, 2)); // a write still running would land now
      const now = nodeFs.readFileSync(path, 'utf8');
      if (outcome === 'written') {
        assert.equal(now, content, `write ${i} reported done`);
        onDisk = now;
      } else {
        assert.equal(outcome, 'cancelled');
        assert.equal(now, onDisk, `write ${i} reported cancelled, yet the file changed`);
      }
      seen[outcome] += 1;
    }
    assert.equal(changes.length, seen.written, 'one change record per write that happened');
    assert.ok(seen.cancelled > 0, 'some aborts landed before the write');
    nodeFs.rmSync(path);
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

  test('a write replaces the file by a rename (a new inode; readers of the old one are undisturbed)', async () => {
    const path = join(dir, 'atomic.txt');
    nodeFs.writeFileSync(path, 'old\n');
    const before = nodeFs.statSync(path).ino;
    const held = nodeFs.openSync(path, 'r');
    try {
      await makeFs({}).writeTextFile({ sessionId: 's', path, content: 'new\n' });
      assert.notEqual(nodeFs.statSync(path).ino, before);
      assert.equal(nodeFs.readFileSync(held, 'utf8'), 'old\n', 'the old file is intact for its readers');
      assert.equal(nodeFs.readFileSync(path, 'utf8'), 'new\n');
    } finally {
      nodeFs.closeSync(held);
      nodeFs.rmSync(path);
    }
  });

  test('a FIFO is refused before it is opened (no hang), and a symlinked final name is replaced, not written through', async () => {
    const sub = makeTempDir('acpfs-native-fifo-');
    try {
      spawnSync('mkfifo', [join(sub, 'pipe')]);
      nodeFs.writeFileSync(join(sub, 'target.txt'), 'target\n');
      nodeFs.symlinkSync(join(sub, 'target.txt'), join(sub, 'link.txt'));
      const fs = new AcpFs();
      fs.openSession('s', { cwd: sub });
      await assert.rejects(fs.readTextFile({ sessionId: 's', path: join(sub, 'pipe') }), (e) => e.code === 'not_a_file');
      await fs.writeTextFile({ sessionId: 's', path: join(sub, 'target.txt'), content: 'via target\n' });
      assert.equal(nodeFs.readFileSync(join(sub, 'target.txt'), 'utf8'), 'via target\n');
      assert.ok(nodeFs.lstatSync(join(sub, 'link.txt')).isSymbolicLink(), 'the link is untouched by a write to its target');
    } finally {
      nodeFs.rmSync(sub, { recursive: true, force: true });
    }
  });

  test("a write sweeps the temporaries that dead processes left in the directory, and leaves its own none", async () => {
    const sub = makeTempDir('acpfs-native-sweep-');
    try {
      const dead = spawnSync(process.execPath, ['-e', '']).pid; // exited: its pid names no process
      const stale = join(sub, `.notes.txt.acp-fs-${dead}-7.tmp`);
      nodeFs.writeFileSync(stale, 'half a write');
      const fs = new AcpFs();
      fs.openSession('s', { cwd: sub });
      await fs.writeTextFile({ sessionId: 's', path: join(sub, 'notes.txt'), content: 'n\n' });
      assert.deepEqual(nodeFs.readdirSync(sub), ['notes.txt']);
    } finally {
      nodeFs.rmSync(sub, { recursive: true, force: true });
    }
  });
});
