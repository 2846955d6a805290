// Listings, moves and single directories (the io `list`, `rename`, `makeDir` the MCP file tools
// ask) through StorageIo, on every JS storage: the hardened disk adapter on a real temp dir (with
// and without /proc), memfs and ZenFS as adapters and as plain `promises` objects, and a File
// System Access directory (fromOPFS over memfs's implementation). Each lists entries without
// following them, makes one directory, and never moves onto something; on the disk a parent
// swapped for a symlink is refused and nothing outside is listed, moved or created. LightningFS
// needs a browser (navigator.locks) and runs in tests/browser.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { memfs } from 'memfs';
import { nodeToFsa } from 'memfs/lib/node-to-fsa/index.js';
import { fs as zenfs, InMemory, mount, resolveMountConfigSync, umount } from '@zenfs/core';
import { deriveCaps, fromNodeDisk, StorageIo } from '../../npm/shared/storage.mjs';
import { fromMemfs, fromOPFS, fromZenFS, overlay } from '../../npm/adapters/index.mjs';
import { makeTempDir } from './harness.mjs';

const enc = new TextEncoder();

/** A Node-style sync fs as a world: `root/` and `outside/` under `base`. */
function syncWorld(name, fs, base, storage, { links = true, moves = true } = {}) {
  fs.mkdirSync(`${base}/root`, { recursive: true });
  fs.mkdirSync(`${base}/outside`, { recursive: true });
  return {
    name,
    storage,
    links,
    moves,
    root: `${base}/root`,
    outside: `${base}/outside`,
    put: (p, t) => fs.writeFileSync(p, t),
    dir: (p) => fs.mkdirSync(p),
    link: (p, target) => fs.symlinkSync(target, p),
    text: (p) => {
      try {
        return fs.lstatSync(p).isFile() ? String(fs.readFileSync(p, 'utf8')) : undefined;
      } catch {
        return undefined;
      }
    },
    exists: (p) => {
      try {
        fs.lstatSync(p);
        return true;
      } catch {
        return false;
      }
    },
  };
}

const temps = [];
after(() => {
  for (const dir of temps) nodeFs.rmSync(dir, { recursive: true, force: true });
});

function diskWorld(procfs) {
  const base = makeTempDir('acpfs-dirs-');
  temps.push(base);
  return syncWorld(`fromNodeDisk${procfs ? '' : ' (no /proc)'}`, nodeFs, base, fromNodeDisk(nodeFs, { procfs }));
}

function freshZenFS() {
  umount('/');
  mount('/', resolveMountConfigSync({ backend: InMemory }));
  return zenfs;
}

const worlds = [
  () => diskWorld(true),
  () => diskWorld(false),
  () => {
    const { vol } = memfs();
    return syncWorld('fromMemfs', vol, '/base', fromMemfs(vol));
  },
  () => {
    const { vol } = memfs();
    return syncWorld('memfs vol.promises', vol, '/base', vol.promises);
  },
  () => {
    const fs = freshZenFS();
    return syncWorld('fromZenFS', fs, '/base', fromZenFS(fs));
  },
  () => {
    // ZenFS's own promises without its symlink methods (its realpath cannot be trusted with links).
    const fs = freshZenFS();
    const { symlink, realpath, lstat, readlink, ...plain } = fs.promises;
    return syncWorld('ZenFS fs.promises (no links)', fs, '/base', plain, { links: false });
  },
  () => {
    const { fs } = memfs();
    // memfs's File System Access handles have no `move`: that storage lists and makes directories only.
    return syncWorld('fromOPFS (memfs handles)', fs, '/base', fromOPFS(nodeToFsa(fs, '/', { mode: 'readwrite' })), {
      links: false,
      moves: false,
    });
  },
  () => {
    const { vol } = memfs();
    return syncWorld('overlay over fromMemfs', vol, '/base', overlay(() => undefined, fromMemfs(vol)));
  },
];

/** What the driver would answer for `io`, or the error the storage threw. */
async function perform(storage, io) {
  try {
    return (await new StorageIo(storage).perform(io)).answer;
  } catch (e) {
    return { thrown: e };
  }
}

const codeOf = (answer) => answer.thrown?.code;

function names(answer) {
  assert.ok(Array.isArray(answer.entries), `a listing: ${answer.thrown?.stack ?? JSON.stringify(answer)}`);
  return answer.entries.map((e) => e.name).sort();
}

for (const make of worlds) {
  const probe = make();
  describe(`list, rename, makeDir: ${probe.name}`, () => {
    test('the caps say what the storage does', () => {
      const caps = deriveCaps(probe.storage);
      assert.equal(caps.list, true);
      assert.equal(caps.makeDir, true);
      assert.equal(caps.rename, probe.moves);
    });

    test('a listing describes each entry without following it; nothing is denied here', async () => {
      const w = make();
      const { root, outside } = w;
      w.put(`${root}/a.txt`, 'abc');
      w.put(`${root}/.env`, 'TOKEN=1');
      w.dir(`${root}/sub`);
      w.put(`${root}/sub/b.txt`, 'b');
      w.put(`${outside}/secret.txt`, 'OUTSIDE');
      const expected = ['.env', 'a.txt', 'sub'];
      if (w.links) {
        w.link(`${root}/link`, outside);
        w.link(`${root}/file-link`, `${outside}/secret.txt`);
        expected.push('file-link', 'link');
      }
      const listed = await perform(w.storage, { op: 'list', root, path: root });
      assert.deepEqual(names(listed), expected.sort());
      const entry = (name) => listed.entries.find((e) => e.name === name).metadata;
      assert.equal(entry('a.txt').kind, 'file');
      assert.equal(entry('a.txt').size, 3);
      assert.equal(entry('sub').kind, 'directory');
      if (w.links) {
        assert.equal(entry('link').kind, 'symlink');
        assert.equal(entry('file-link').kind, 'symlink');
      }
      assert.deepEqual(names(await perform(w.storage, { op: 'list', root, path: `${root}/sub` })), ['b.txt']);
      w.dir(`${root}/empty`);
      assert.deepEqual(names(await perform(w.storage, { op: 'list', root, path: `${root}/empty` })), []);
      assert.equal(codeOf(await perform(w.storage, { op: 'list', root, path: `${root}/missing` })), 'ENOENT');
    });

    test('makeDir makes one directory and never anything in the way', async () => {
      const w = make();
      const { root } = w;
      w.put(`${root}/a.txt`, 'abc');
      assert.deepEqual(await perform(w.storage, { op: 'makeDir', root, path: `${root}/new` }), { done: true });
      assert.deepEqual(names(await perform(w.storage, { op: 'list', root, path: `${root}/new` })), []);
      assert.equal(codeOf(await perform(w.storage, { op: 'makeDir', root, path: `${root}/new` })), 'EEXIST');
      assert.equal(codeOf(await perform(w.storage, { op: 'makeDir', root, path: `${root}/a.txt` })), 'EEXIST');
      assert.equal(w.text(`${root}/a.txt`), 'abc');
      assert.equal(codeOf(await perform(w.storage, { op: 'makeDir', root, path: `${root}/x/y` })), 'ENOENT');
      assert.equal(w.exists(`${root}/x`), false, 'no parent is made');
    });

    test('rename moves files and directories and never replaces', { skip: !probe.moves && 'no moves' }, async () => {
      const w = make();
      const { root } = w;
      w.put(`${root}/a.txt`, 'abc');
      w.put(`${root}/c.txt`, 'c');
      w.dir(`${root}/sub`);
      w.put(`${root}/sub/b.txt`, 'b');
      w.dir(`${root}/empty`);
      const move = (from, to) => perform(w.storage, { op: 'rename', root, from: `${root}/${from}`, to: `${root}/${to}` });
      assert.deepEqual(await move('a.txt', 'sub/a.txt'), { done: true });
      assert.equal(w.exists(`${root}/a.txt`), false);
      assert.equal(w.text(`${root}/sub/a.txt`), 'abc');
      for (const there of ['sub/a.txt', 'sub', 'empty']) {
        assert.equal(codeOf(await move('c.txt', there)), 'EEXIST', there);
      }
      assert.equal(codeOf(await move('empty', 'sub')), 'EEXIST');
      assert.equal(w.text(`${root}/c.txt`), 'c');
      assert.equal(w.text(`${root}/sub/a.txt`), 'abc');
      assert.deepEqual(await move('sub', 'empty/sub'), { done: true });
      assert.equal(w.text(`${root}/empty/sub/b.txt`), 'b');
      assert.equal(w.exists(`${root}/sub`), false);
      assert.equal(codeOf(await move('missing', 'x')), 'ENOENT');
      if (w.links) {
        w.link(`${root}/dangling`, `${root}/nowhere`);
        assert.equal(codeOf(await move('c.txt', 'dangling')), 'EEXIST');
        assert.equal(w.exists(`${root}/nowhere`), false);
      }
    });
  });
}

describe('fromNodeDisk: a symlinked parent is refused, nothing outside is listed, moved or made', () => {
  for (const procfs of [true, false]) {
    test(procfs ? 'through /proc/self/fd' : 'by path (no /proc)', async () => {
      const w = diskWorld(procfs);
      const { root, outside } = w;
      w.put(`${outside}/secret.txt`, 'OUTSIDE');
      w.dir(`${outside}/inner`);
      w.put(`${root}/c.txt`, 'c');
      w.link(`${root}/link`, outside);
      const escape = 'ERR_ACP_FS_ESCAPE';
      const at = (io) => perform(w.storage, { root, ...io });
      assert.equal(codeOf(await at({ op: 'list', path: `${root}/link` })), escape);
      assert.equal(codeOf(await at({ op: 'list', path: `${root}/link/inner` })), escape);
      assert.equal(codeOf(await at({ op: 'makeDir', path: `${root}/link/made` })), escape);
      assert.equal(codeOf(await at({ op: 'rename', from: `${root}/link/secret.txt`, to: `${root}/stolen.txt` })), escape);
      assert.equal(codeOf(await at({ op: 'rename', from: `${root}/c.txt`, to: `${root}/link/planted.txt` })), escape);
      assert.deepEqual(nodeFs.readdirSync(outside).sort(), ['inner', 'secret.txt']);
      assert.deepEqual(nodeFs.readdirSync(join(outside, 'inner')), []);
      assert.equal(w.exists(`${root}/stolen.txt`), false);
      assert.equal(w.text(`${root}/c.txt`), 'c');
      // A symlink moves as a link, its target untouched.
      w.link(`${root}/file-link`, `${outside}/secret.txt`);
      assert.deepEqual(await at({ op: 'rename', from: `${root}/file-link`, to: `${root}/moved-link` }), { done: true });
      assert.equal(nodeFs.lstatSync(`${root}/moved-link`).isSymbolicLink(), true);
      assert.equal(nodeFs.readFileSync(`${outside}/secret.txt`, 'utf8'), 'OUTSIDE');
      // Paths outside the root are refused before anything is opened.
      assert.equal(codeOf(await at({ op: 'list', path: outside })), escape);
      assert.equal(codeOf(await at({ op: 'makeDir', path: `${outside}/made` })), escape);
      assert.equal(w.exists(`${outside}/made`), false);
    });
  }

  test('a listing carries what the tools show: sizes and modification times', async () => {
    const w = diskWorld(true);
    w.put(`${w.root}/a.txt`, enc.encode('hello'));
    const { entries } = await perform(w.storage, { op: 'list', root: w.root, path: w.root });
    const [a] = entries;
    const st = nodeFs.statSync(`${w.root}/a.txt`);
    assert.equal(a.metadata.size, 5);
    assert.equal(Math.floor(a.metadata.modifiedMs), Math.floor(st.mtimeMs));
    assert.equal(a.metadata.links, 1);
  });
});
