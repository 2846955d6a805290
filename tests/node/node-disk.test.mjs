// The storage glue's open/readAt for every storage shape, and the hardened node:fs adapter
// (fromNodeDisk) on a real temp dir: what it opens, refuses, writes and sweeps.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import * as fspNamespace from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Volume } from 'memfs';
import { fromNodeDisk, hostStorage, StorageIo } from '../../npm/shared/storage.mjs';
import { AcpFs } from '../../npm/node/index.mjs';
import { MapStorage, makeTempDir } from './harness.mjs';
import { asUnprivileged } from './unprivileged.mjs';

const text = (bytes) => Buffer.from(bytes).toString('utf8');

describe('hostStorage: Node\'s own fs becomes the hardened adapter', () => {
  test('fs, fs.promises and their module namespaces, however imported', () => {
    for (const s of [nodeFs, nodeFs.promises, fspNamespace, nodeFs.default ?? nodeFs]) {
      assert.equal(typeof hostStorage(s).openFile, 'function');
    }
  });
  test('any other storage is used as it is', () => {
    const vol = new Volume();
    assert.equal(hostStorage(vol.promises), vol.promises);
    const map = new MapStorage();
    assert.equal(hostStorage(map), map);
    const copy = { ...nodeFs.promises };
    assert.equal(hostStorage(copy), copy);
  });
});

describe('StorageIo open/readAt per storage shape', () => {
  test('memfs vol.promises: a handle, metadata with links, reads from that handle', async () => {
    const vol = Volume.fromJSON({ '/p/a.txt': 'hello world', '/p/d/x': '' });
    vol.linkSync('/p/a.txt', '/p/hard.txt');
    const session = new StorageIo(vol.promises);
    const { answer } = await session.perform({ op: 'open', root: '/p', path: '/p/a.txt' });
    assert.equal(answer.metadata.kind, 'file');
    assert.equal(answer.metadata.size, 11);
    assert.equal(answer.metadata.links, 2);
    assert.equal(typeof answer.file, 'number');
    const r = await session.perform({ op: 'readAt', file: answer.file, offset: 6, length: 100 });
    assert.deepEqual(r.answer, { bytes: true });
    assert.equal(text(r.bytes), 'world');
    // A directory is refused before it is opened: metadata, no file.
    const dir = (await session.perform({ op: 'open', root: '/p', path: '/p/d' })).answer;
    assert.equal(dir.file, undefined);
    assert.equal(dir.metadata.kind, 'directory');
    await session.closeAll();
    // A synchronous refusal throws (no storage call to wait for); `rejects` takes both.
    await assert.rejects(async () => session.perform({ op: 'readAt', file: answer.file, offset: 0, length: 1 }), (e) => e.code === 'EBADF');
  });

  test('readRange only: a handle bound to the path', async () => {
    const map = new MapStorage();
    map.put('/p/a.txt', 'abcdef');
    map.addSpecial('/p/fifo');
    const session = new StorageIo(map);
    const { answer } = await session.perform({ op: 'open', root: '/p', path: '/p/a.txt' });
    // The Map storage stamps each version of a file as its mtimeMs and its ctimeMs, as a disk's
    // clock would; no inode, so no file id.
    const { modifiedMs, changedMs, ...rest } = answer.metadata;
    assert.equal(typeof modifiedMs, 'number');
    assert.equal(changedMs, modifiedMs);
    assert.deepEqual({ ...answer, metadata: rest }, { file: answer.file, metadata: { kind: 'file', size: 6, links: 1 } });
    assert.equal(text((await session.perform({ op: 'readAt', file: answer.file, offset: 2, length: 2 })).bytes), 'cd');
    assert.deepEqual((await session.perform({ op: 'open', root: '/p', path: '/p/fifo' })).answer.file, undefined);
  });

  test('no stat at all: a file of unknown size (0, which the engine does not trust)', async () => {
    const session = new StorageIo({ readFile: () => 'xyz', readRange: (p, o, l) => 'xyz'.slice(o, o + l) });
    const { answer } = await session.perform({ op: 'open', root: '/', path: '/a' });
    assert.deepEqual(answer.metadata, { kind: 'file', size: 0, links: 1 });
    assert.equal(text((await session.perform({ op: 'readAt', file: answer.file, offset: 1, length: 5 })).bytes), 'yz');
  });

  test('open(path, flags): a file swapped between the lstat and the open is refused', async () => {
    let closed = 0;
    const storage = {
      readFile: () => '',
      lstat: () => ({ isFile: () => true, isDirectory: () => false, size: 3, dev: 1, ino: 10 }),
      open: () => ({
        stat: () => ({ isFile: () => true, isDirectory: () => false, size: 9, dev: 1, ino: 99 }),
        read: () => ({ bytesRead: 0 }),
        close: () => {
          closed += 1;
        },
      }),
    };
    const session = new StorageIo(storage);
    await assert.rejects(session.perform({ op: 'open', root: '/', path: '/a' }), /changed while it was opened/);
    assert.equal(closed, 1);
  });

  test('a request waits for its closes unless the storage closes plain descriptors', async () => {
    const bytes = new TextEncoder().encode('one\ntwo\n');
    /** A storage whose handle closes only when `finish` is called; `events` in order. */
    const gated = (background) => {
      const events = [];
      let finish;
      const storage = {
        readFile: () => bytes,
        stat: () => ({ isFile: () => true, isDirectory: () => false, size: bytes.length }),
        open: () => ({
          read: (buffer, offset, length, position) => {
            const got = bytes.subarray(position, position + length);
            buffer.set(got, offset);
            return { bytesRead: got.length };
          },
          close: () => new Promise((resolve) => (finish = () => (events.push('closed'), resolve()))),
        }),
      };
      if (background) storage[Symbol.for('acp-fs.closesInBackground')] = true;
      const fs = new AcpFs({ storage, roots: ['/p'] });
      const read = fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }).then((r) => events.push(r.content));
      return { events, read, finish: () => finish() };
    };
    const waits = gated(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(waits.events, [], 'the read has not ended while its file is open');
    waits.finish();
    await waits.read;
    assert.deepEqual(waits.events, ['closed', 'one\ntwo\n']);

    const background = gated(true);
    // Bounded: were the close waited for, the read would never end on its own.
    await Promise.race([background.read, new Promise((resolve) => setTimeout(resolve, 2000))]);
    assert.deepEqual(background.events, ['one\ntwo\n'], 'ended with the close still in flight');
    background.finish();
    assert.deepEqual(background.events, ['one\ntwo\n', 'closed']);
    // Only the Node disk adapter says so, and not on Windows (a handle can hold up a rename).
    assert.equal(fromNodeDisk()[Symbol.for('acp-fs.closesInBackground')], process.platform !== 'win32');
    assert.equal(new MapStorage()[Symbol.for('acp-fs.closesInBackground')], undefined);
  });

  test('writes and directories get the root when the storage takes it', async () => {
    const calls = [];
    const storage = {
      readFile: () => '',
      replaceFile: (root, path, bytes) => calls.push(['replaceFile', root, path, text(bytes)]),
      makeDirs: (root, path) => calls.push(['makeDirs', root, path]),
    };
    const session = new StorageIo(storage);
    await session.perform({ op: 'makeDirs', root: '/r', path: '/r/d' });
    await session.perform({ op: 'write', root: '/r', path: '/r/d/a' }, Buffer.from('x'));
    assert.deepEqual(calls, [
      ['makeDirs', '/r', '/r/d'],
      ['replaceFile', '/r', '/r/d/a', 'x'],
    ]);
  });
});

describe('fromNodeDisk on a real temp dir', () => {
  let base;
  let root;
  let outside;
  const disk = fromNodeDisk();
  before(() => {
    base = makeTempDir('acpfs-nodedisk-');
    root = join(base, 'root');
    outside = join(base, 'outside');
    nodeFs.mkdirSync(join(root, 'sub'), { recursive: true });
    nodeFs.mkdirSync(outside);
    nodeFs.writeFileSync(join(root, 'sub', 'a.txt'), 'inside\n');
    nodeFs.writeFileSync(join(outside, 'a.txt'), 'OUTSIDE\n');
    nodeFs.symlinkSync(join(outside, 'a.txt'), join(root, 'link.txt'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
  });
  after(() => nodeFs.rmSync(base, { recursive: true, force: true }));

  test('a regular file opens; directories and FIFOs give stats without a handle (and never block)', async () => {
    const { stats, handle } = await disk.openFile(root, join(root, 'sub', 'a.txt'));
    assert.ok(stats.isFile());
    assert.equal(Number(stats.nlink), 1);
    await handle.close();
    for (const p of [join(root, 'sub'), join(root, 'fifo')]) {
      const opened = await disk.openFile(root, p);
      assert.equal(opened.handle, undefined);
      assert.ok(!opened.stats.isFile());
    }
  });

  test('a final symlink is not followed; a path outside the root is refused', async () => {
    await assert.rejects(disk.openFile(root, join(root, 'link.txt')), /refused to follow a symlink/);
    await assert.rejects(disk.openFile(root, join(outside, 'a.txt')), /refused/);
  });

  test('a directory swapped for a symlink after the check is refused, not followed', async () => {
    nodeFs.renameSync(join(root, 'sub'), join(root, 'sub.real'));
    nodeFs.symlinkSync('../outside', join(root, 'sub'));
    try {
      // The engine checked root/sub/a.txt as a real path; now it leads outside.
      await assert.rejects(disk.openFile(root, join(root, 'sub', 'a.txt')), /changed while it was opened/);
      // O_DIRECTORY|O_NOFOLLOW on the swapped-in link: ENOTDIR, or the descriptor check.
      await assert.rejects(disk.replaceFile(root, join(root, 'sub', 'a.txt'), Buffer.from('x')), (e) => e.code === 'ENOTDIR' || /changed while/.test(e.message));
      await assert.rejects(disk.makeDirs(root, join(root, 'sub', 'deep', 'er')), (e) => e.code === 'ENOTDIR' || /refused/.test(e.message));
      assert.deepEqual(nodeFs.readdirSync(outside).sort(), ['a.txt']);
      assert.equal(nodeFs.readFileSync(join(outside, 'a.txt'), 'utf8'), 'OUTSIDE\n');
    } finally {
      nodeFs.unlinkSync(join(root, 'sub'));
      nodeFs.renameSync(join(root, 'sub.real'), join(root, 'sub'));
    }
  });

  test('writes replace atomically, keep the mode, replace a final symlink, leave no temporary', async () => {
    const path = join(root, 'script.sh');
    nodeFs.writeFileSync(path, 'old\n');
    nodeFs.chmodSync(path, 0o751);
    await disk.replaceFile(root, path, Buffer.from('new\n'));
    assert.equal(nodeFs.readFileSync(path, 'utf8'), 'new\n');
    assert.equal(nodeFs.statSync(path).mode & 0o7777, 0o751);
    await disk.replaceFile(root, join(root, 'link.txt'), Buffer.from('replaced\n'));
    assert.ok(!nodeFs.lstatSync(join(root, 'link.txt')).isSymbolicLink());
    assert.equal(nodeFs.readFileSync(join(outside, 'a.txt'), 'utf8'), 'OUTSIDE\n');
    assert.deepEqual(nodeFs.readdirSync(root).filter((n) => n.includes('.acp-fs-')), []);
    await disk.makeDirs(root, join(root, 'x', 'y', 'z'));
    assert.ok(nodeFs.statSync(join(root, 'x', 'y', 'z')).isDirectory());
  });

  // Root may write any file: as root this runs as nobody (unprivileged.mjs).
  test('a read-only file stays protected', (t) => asUnprivileged(import.meta.url, t.name, async () => {
    const path = join(root, 'ro.txt');
    nodeFs.writeFileSync(path, 'keep\n');
    nodeFs.chmodSync(path, 0o444);
    await assert.rejects(disk.replaceFile(root, path, Buffer.from('x')), (e) => e.code === 'EACCES');
    assert.equal(nodeFs.readFileSync(path, 'utf8'), 'keep\n');
  }, t));

  test('temporaries of dead processes are swept on a write; a live process keeps its own', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString().trim();
    const stale = join(root, 'sub', `.a.txt.acp-fs-${dead}-7.tmp`);
    const live = join(root, 'sub', `.a.txt.acp-fs-${process.ppid}-7.tmp`);
    nodeFs.writeFileSync(stale, 'half');
    nodeFs.writeFileSync(live, 'busy');
    await disk.replaceFile(root, join(root, 'sub', 'a.txt'), Buffer.from('swept\n'));
    assert.ok(!nodeFs.existsSync(stale));
    assert.ok(nodeFs.existsSync(live));
    nodeFs.unlinkSync(live);
  });

  test('through AcpFs: storage: fs.promises reads, writes and refuses hard-linked files', async () => {
    const fs = new AcpFs({ storage: nodeFs.promises });
    fs.openSession('s', { cwd: root });
    const path = join(root, 'sub', 'w.txt');
    await fs.writeTextFile({ sessionId: 's', path, content: 'one\ntwo\n' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path, line: 2 }), { content: 'two\n' });
    nodeFs.linkSync(path, join(base, 'hard.txt'));
    await assert.rejects(fs.readTextFile({ sessionId: 's', path }), (e) => e.data?.errorKind === 'hard_link' || e.code === 'hard_link');
    await assert.rejects(fs.readTextFile({ sessionId: 's', path: join(root, 'fifo') }), (e) => e.code === 'not_a_file');
  });
});

// Without /proc (macOS, Windows, a container without procfs) the JS disk checks paths, which
// narrows the race but cannot close it (docs/security.md): the host must be told, once, both by
// the storage that takes that road and by the fallback's backendReason. Each case runs in a child
// so the once-per-process state and the platform are its own.
describe('where the JS disk checks by path, the host is told', () => {
  const here = new URL('.', import.meta.url).pathname;
  const child = (code, env = {}) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: here, env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const warnings = (procfs) => `
    import * as nodeFs from 'node:fs';
    import { fromNodeDisk } from '../../npm/shared/node-disk.mjs';
    const seen = [];
    process.on('warning', (w) => seen.push({ name: w.name, code: w.code, message: w.message }));
    const dir = nodeFs.mkdtempSync('/tmp/acpfs-warn-');
    nodeFs.writeFileSync(dir + '/a.txt', 'a');
    for (const disk of [fromNodeDisk(nodeFs, { procfs: ${procfs} }), fromNodeDisk(nodeFs, { procfs: ${procfs} })]) {
      const { handle } = await disk.openFile(dir, dir + '/a.txt');
      await handle.close();
    }
    nodeFs.rmSync(dir, { recursive: true });
    setImmediate(() => console.log(JSON.stringify(seen)));`;

  test('the first storage that checks by path warns once per process, naming the native backend', () => {
    const seen = child(warnings(false));
    assert.equal(seen.length, 1, JSON.stringify(seen));
    assert.equal(seen[0].name, 'SecurityWarning');
    assert.equal(seen[0].code, 'ACP_FS_PATH_CHECKED_DISK');
    assert.match(seen[0].message, /narrows but does not close/);
    assert.match(seen[0].message, /AcpFs\.backend === 'native'/);
  });

  test('a storage that checks descriptors through /proc says nothing', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
    assert.deepEqual(child(warnings(true)), []);
  });

  const reason = (platform) => `
    import { createRequire } from 'node:module';
    Object.defineProperty(process, 'platform', { value: '${platform}' });
    const { AcpFs } = createRequire(import.meta.url)('../../npm/node/index.cjs');
    console.log(JSON.stringify({ backend: AcpFs.backend, reason: AcpFs.backendReason }));`;

  test('the wasm fallback\'s backendReason says so on a host without /proc, and only there', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
    const darwin = child(reason('darwin'), { ACP_FS_FORCE_WASM: '1' });
    assert.equal(darwin.backend, 'wasm');
    assert.match(darwin.reason, /ACP_FS_FORCE_WASM=1 forces the wasm engine; without \/proc\/self\/fd its local disk checks paths, which narrows but does not close the race/);
    const linux = child(reason('linux'), { ACP_FS_FORCE_WASM: '1' });
    assert.equal(linux.reason, 'ACP_FS_FORCE_WASM=1 forces the wasm engine');
  });
});
