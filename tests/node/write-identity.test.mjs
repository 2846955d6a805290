// Writes that land as an editor's save does (semantics.md §5 "What a write keeps"), on every
// Node route over the real disk: the owner and group stay, a writable file in a read-only
// directory is written in place, another user's file that the writer could not give back is
// written in place, and a write that fails leaves no directory it made, a full disk included.
// Root would pass the permission cases by privilege alone, so they run as nobody
// (unprivileged.mjs). The Rust disk has the same tests (core/tests/write_identity.rs).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AcpFs } from '../../npm/node/index.mjs';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';
import { makeTempDir } from './harness.mjs';
import { asUnprivileged, asUnprivilegedPrepared, isUnprivilegedChild } from './unprivileged.mjs';

const routes = {
  'native disk': () => new AcpFs(),
  'fs.promises': () => new AcpFs({ storage: nodeFs.promises }),
  'wasm over fs.promises': () => new WasmAcpFs({ storage: nodeFs.promises }),
};

const isRoot = () => process.getuid?.() === 0;

/** Writes `content` at `path` through `make()`'s engine, a session rooted at `root`. */
async function write(make, root, path, content) {
  const fs = make();
  fs.openSession('s', { cwd: root });
  return fs.writeTextFile({ sessionId: 's', path, content });
}

const names = (dir) => nodeFs.readdirSync(dir).sort();

/** Mounts a tmpfs of `size` at `at` (root only); the unmount, or null where it cannot. */
function mountTmpfs(at, size) {
  nodeFs.mkdirSync(at, { recursive: true });
  const run = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0777`, 'tmpfs', at]);
  if (run.status !== 0) return null;
  return () => spawnSync('umount', [at]);
}

for (const [route, make] of Object.entries(routes)) {
  describe(`${route}: a write keeps what an editor's save keeps`, () => {
    const inPlace = `${route}: a writable file in a read-only directory is written in place`;
    test(inPlace, (t) => asUnprivileged(import.meta.url, inPlace, async () => {
      const base = makeTempDir('acpfs-inplace-');
      const dir = join(base, 'ro');
      nodeFs.mkdirSync(dir);
      const file = join(dir, 'a.txt');
      nodeFs.writeFileSync(file, 'old content\n');
      nodeFs.chmodSync(file, 0o640);
      const { ino } = nodeFs.statSync(file);
      nodeFs.chmodSync(dir, 0o555);
      try {
        // Shorter, then longer than what is there: no tail of the old text survives.
        await write(make, base, file, 'new\n');
        assert.equal(nodeFs.readFileSync(file, 'utf8'), 'new\n');
        await write(make, base, file, 'a longer text than any before\n');
        assert.equal(nodeFs.readFileSync(file, 'utf8'), 'a longer text than any before\n');
        const after = nodeFs.statSync(file);
        assert.equal(after.ino, ino, 'written in place, not replaced');
        assert.equal(after.mode & 0o7777, 0o640);
        assert.deepEqual(names(dir), ['a.txt'], 'no temporary left');
        // A new name is still refused, and so is a file that may not be written.
        await assert.rejects(write(make, base, join(dir, 'new.txt'), 'n\n'), (e) => e.data?.errorKind === 'permission_denied');
        nodeFs.chmodSync(dir, 0o755);
        nodeFs.chmodSync(file, 0o444);
        nodeFs.chmodSync(dir, 0o555);
        await assert.rejects(write(make, base, file, 'x\n'), (e) => e.data?.errorKind === 'permission_denied');
        assert.equal(nodeFs.readFileSync(file, 'utf8'), 'a longer text than any before\n');
      } finally {
        nodeFs.chmodSync(dir, 0o755);
      }
    }, t));

    test(`${route}: root keeps the owner and group of the file it replaces`, async (t) => {
      if (!isRoot()) return t.skip('only root may give a file away (CI runs as root)');
      const base = makeTempDir('acpfs-owner-');
      const file = join(base, 'theirs.txt');
      nodeFs.writeFileSync(file, 'old\n');
      nodeFs.chownSync(file, 65534, 65534);
      nodeFs.chmodSync(file, 0o2664);
      const { ino } = nodeFs.statSync(file);
      await write(make, base, file, 'new\n');
      const after = nodeFs.statSync(file);
      assert.equal(nodeFs.readFileSync(file, 'utf8'), 'new\n');
      assert.notEqual(after.ino, ino, 'root may give the file away: the write is the atomic replace');
      assert.deepEqual([after.uid, after.gid], [65534, 65534], 'owner and group kept');
      assert.equal(after.mode & 0o7777, 0o2664, 'the set-group-id bit survives the chown');
    });

    const giveBack = `${route}: a file the user cannot give back is written in place`;
    test(giveBack, (t) => asUnprivilegedPrepared(import.meta.url, giveBack, (dir) => {
      // Root's file that anyone may write, in a directory the user may write in: replacing it
      // would make it the user's.
      nodeFs.writeFileSync(join(dir, 'shared.txt'), 'old\n');
      nodeFs.chmodSync(join(dir, 'shared.txt'), 0o666);
      nodeFs.chmodSync(dir, 0o777);
    }, async (dir) => {
      const file = join(dir, 'shared.txt');
      const before = nodeFs.statSync(file);
      await write(make, dir, file, 'new text\n');
      const after = nodeFs.statSync(file);
      assert.equal(nodeFs.readFileSync(file, 'utf8'), 'new text\n');
      assert.deepEqual([after.uid, after.gid], [before.uid, before.gid], 'owner and group kept');
      if (before.uid !== process.getuid()) assert.equal(after.ino, before.ino, "another user's file is written in place");
      assert.deepEqual(names(dir), ['shared.txt'], 'no temporary left');
    }, t));

    test(`${route}: a write that runs out of space leaves no directory it made`, async (t) => {
      if (isUnprivilegedChild()) return;
      const base = makeTempDir('acpfs-enospc-');
      const unmount = mountTmpfs(join(base, 'small'), '256k');
      if (unmount === null) return t.skip('cannot mount a tmpfs here (not root): the ENOSPC test needs one');
      try {
        const root = join(base, 'small', 'project');
        nodeFs.mkdirSync(root);
        nodeFs.writeFileSync(join(root, 'kept.txt'), 'kept\n');
        await assert.rejects(
          write(make, root, join(root, 'new', 'dirs', 'for', 'it', 'big.txt'), 'x'.repeat(1 << 20)),
          (e) => e.data?.errorKind === 'storage_error' && /ENOSPC|No space left/.test(e.message),
        );
        assert.deepEqual(names(root), ['kept.txt'], 'no directory, no temporary left');
      } finally {
        unmount();
      }
    });

    const fullInPlace = `${route}: a write in place that runs out of space leaves the old content`;
    test(fullInPlace, (t) => asUnprivilegedPrepared(import.meta.url, fullInPlace, (dir) => {
      const unmount = mountTmpfs(join(dir, 'small'), '256k');
      if (unmount === null) return null;
      const ro = join(dir, 'small', 'ro');
      nodeFs.mkdirSync(ro);
      nodeFs.writeFileSync(join(ro, 'a.txt'), 'old\n');
      nodeFs.chmodSync(join(ro, 'a.txt'), 0o666);
      nodeFs.chmodSync(ro, 0o555);
      return unmount;
    }, async (dir) => {
      const ro = join(dir, 'small', 'ro');
      if (!nodeFs.existsSync(ro) || isRoot()) return; // no tmpfs (not root), or root's atomic path
      await assert.rejects(write(make, dir, join(ro, 'a.txt'), 'x'.repeat(1 << 20)), (e) => /ENOSPC|No space left/.test(e.message));
      assert.equal(nodeFs.readFileSync(join(ro, 'a.txt'), 'utf8'), 'old\n', 'the old content is whole');
      assert.deepEqual(names(ro), ['a.txt']);
    }, t));
  });
}
