// Listings, moves and single directories (the io `list`, `rename`, `makeDir` of the MCP file
// tools) through the driver's StorageIo on the browser storages, which Node cannot run: the
// Origin Private File System through `fromOPFS` and LightningFS through `fromLightningFS`. The
// same promises as tests/node/storage-dirs.test.mjs: entries described without following them,
// one directory made, a move never onto something. Gives a suite for tests/browser/run.mjs.

import { fromLightningFS, fromOPFS } from '../../npm/adapters/index.mjs';
import { deriveCaps, StorageIo } from '../../npm/shared/storage.mjs';

const enc = new TextEncoder();

async function perform(storage, io) {
  try {
    return (await new StorageIo(storage).perform(io)).answer;
  } catch (e) {
    return { thrown: e };
  }
}

const names = (answer) => (Array.isArray(answer.entries) ? answer.entries.map((e) => e.name).sort().join(',') : `not a listing: ${answer.thrown?.message}`);

/** The checks of one storage; `w` lays files out and looks at them behind the storage's back. */
async function checks(w, check) {
  const { storage } = w;
  const caps = deriveCaps(storage);
  check(caps.list && caps.makeDir && caps.rename === w.moves, `caps ${JSON.stringify(caps)}`);
  await w.put('/root/a.txt', 'abc');
  await w.put('/root/sub/b.txt', 'b');
  const expected = ['a.txt', 'sub'];
  if (w.link) {
    await w.put('/outside/secret.txt', 'OUTSIDE');
    await w.link('/root/link', '/outside');
    expected.push('link');
  }
  const listed = await perform(storage, { op: 'list', root: '/root', path: '/root' });
  check(names(listed) === expected.sort().join(','), `listing: ${names(listed)}`);
  const meta = (name) => listed.entries?.find((e) => e.name === name)?.metadata ?? {};
  check(meta('a.txt').kind === 'file' && meta('a.txt').size === 3, `a.txt: ${JSON.stringify(meta('a.txt'))}`);
  check(meta('sub').kind === 'directory', `sub: ${JSON.stringify(meta('sub'))}`);
  if (w.link) check(meta('link').kind === 'symlink', `link: ${JSON.stringify(meta('link'))}`);
  check(names(await perform(storage, { op: 'list', root: '/root', path: '/root/sub' })) === 'b.txt', 'listing sub');
  check((await perform(storage, { op: 'list', root: '/root', path: '/root/missing' })).thrown?.code === 'ENOENT', 'missing directory');

  const made = await perform(storage, { op: 'makeDir', root: '/root', path: '/root/new' });
  check(made.done === true, `makeDir: ${made.thrown?.message}`);
  check(names(await perform(storage, { op: 'list', root: '/root', path: '/root/new' })) === '', 'the new directory is empty');
  for (const there of ['new', 'a.txt']) {
    const again = await perform(storage, { op: 'makeDir', root: '/root', path: `/root/${there}` });
    check(again.thrown?.code === 'EEXIST', `makeDir over ${there}: ${again.thrown?.code ?? 'done'}`);
  }
  const orphan = await perform(storage, { op: 'makeDir', root: '/root', path: '/root/x/y' });
  check(orphan.thrown?.code === 'ENOENT' && !(await w.exists('/root/x')), `makeDir without a parent: ${orphan.thrown?.code}`);

  if (!w.moves) return;
  const move = (from, to) => perform(storage, { op: 'rename', root: '/root', from: `/root/${from}`, to: `/root/${to}` });
  const moved = await move('a.txt', 'sub/a.txt');
  check(moved.done === true && (await w.text('/root/sub/a.txt')) === 'abc' && !(await w.exists('/root/a.txt')), `move a file: ${moved.thrown?.message}`);
  await w.put('/root/c.txt', 'c');
  for (const there of ['sub/a.txt', 'sub', 'new']) {
    const refused = await move('c.txt', there);
    check(refused.thrown?.code === 'EEXIST', `move onto ${there}: ${refused.thrown?.code ?? 'done'}`);
  }
  check((await w.text('/root/c.txt')) === 'c' && (await w.text('/root/sub/a.txt')) === 'abc', 'nothing replaced');
  const dir = await move('sub', 'new/sub');
  if (w.movesDirectories) {
    check(dir.done === true && (await w.text('/root/new/sub/b.txt')) === 'b', `move a directory: ${dir.thrown?.message}`);
  } else {
    // The engine classifies ENOTSUP as unsupported: the directory stays where it is.
    check(dir.thrown?.code === 'ENOTSUP' && (await w.text('/root/sub/a.txt')) === 'abc', `move a directory: ${dir.thrown?.code ?? 'done'}`);
  }
}

async function suite(label, make) {
  const out = { label, passed: 0, failed: 0, skipped: 0, failures: [], skips: {} };
  const check = (ok, what) => {
    if (ok) out.passed += 1;
    else {
      out.failed += 1;
      out.failures.push(`[${label}] ${what}`);
    }
  };
  try {
    await checks(await make(), check);
  } catch (e) {
    check(false, e?.stack ?? String(e));
  }
  return out;
}

/** A fresh OPFS directory as the storage's `/`. */
async function opfsWorld() {
  const top = await navigator.storage.getDirectory();
  const name = `storage-dirs-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const base = await top.getDirectoryHandle(name, { create: true });
  const walk = async (path, create) => {
    let handle = base;
    const parts = path.split('/').filter(Boolean);
    for (const part of parts.slice(0, -1)) handle = await handle.getDirectoryHandle(part, { create });
    return { handle, name: parts[parts.length - 1] };
  };
  return {
    storage: fromOPFS(base),
    // Chromium's OPFS file handles have `move`, its directory handles not (yet).
    moves: typeof globalThis.FileSystemFileHandle?.prototype?.move === 'function',
    movesDirectories: typeof base.move === 'function',
    async put(path, text) {
      const { handle, name: file } = await walk(path, true);
      const writable = await (await handle.getFileHandle(file, { create: true })).createWritable();
      await writable.write(enc.encode(text));
      await writable.close();
    },
    async text(path) {
      try {
        const { handle, name: file } = await walk(path, false);
        return await (await (await handle.getFileHandle(file)).getFile()).text();
      } catch {
        return undefined;
      }
    },
    async exists(path) {
      const { handle, name: entry } = await walk(path, false).catch(() => ({}));
      if (!handle) return false;
      for await (const key of handle.keys()) if (key === entry) return true;
      return false;
    },
  };
}

/** LightningFS with its in-memory backend (symlinks, no moves of its own that replace). */
function lightningWorld(LightningFS) {
  const lfs = new LightningFS(`storage-dirs-${Date.now()}`, { db: new LightningFS.MemoryBackend(), wipe: true });
  const fs = lfs.promises;
  const mkdirs = async (path) => {
    let prefix = '';
    for (const part of path.split('/').filter(Boolean)) {
      prefix += `/${part}`;
      await fs.mkdir(prefix).catch((e) => (e?.code === 'EEXIST' ? undefined : Promise.reject(e)));
    }
  };
  return {
    storage: fromLightningFS(lfs),
    moves: true,
    movesDirectories: true,
    async put(path, text) {
      await mkdirs(path.slice(0, path.lastIndexOf('/')));
      await fs.writeFile(path, text);
    },
    async link(path, target) {
      await fs.symlink(target, path);
    },
    async text(path) {
      try {
        return (await fs.lstat(path)).isFile() ? await fs.readFile(path, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    },
    async exists(path) {
      return fs.lstat(path).then(
        () => true,
        () => false,
      );
    },
  };
}

export async function storageDirSuites(LightningFS) {
  return [await suite('list/rename/makeDir: fromOPFS', opfsWorld), await suite('list/rename/makeDir: fromLightningFS', () => lightningWorld(LightningFS))];
}
