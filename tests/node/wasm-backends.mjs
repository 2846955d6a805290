// Vector backends for the @acp-fs/wasm tests, beside the shared harness's: storages a browser IDE
// would hand the wasm package (an async plain object, ZenFS in memory, the package's own
// adapters over memfs, ZenFS and a File System Access directory). Same shape as the harness's
// backends: `prepare(vector)` gives `{skip}` or `{vector, storage, read, exists, cleanup}`.

import { dirname } from 'node:path';
import { memfs } from 'memfs';
import { nodeToFsa } from 'memfs/lib/node-to-fsa/index.js';
import { fs as zenfs, InMemory, mount, resolveMountConfigSync, umount } from '@zenfs/core';
import { fromMemfs, fromOPFS, fromZenFS, overlay } from '../../npm/adapters/index.mjs';
import {
  bytesOf,
  fileEntries,
  hasHardlinks,
  hasSpecial,
  hasSymlinks,
  isFileContent,
  isHardlink,
  rangedVariants,
  storageTraits,
  usesWindowsPaths,
  withTraits,
} from '../shared/vectors.mjs';
import { backends } from './harness.mjs';

/** Lays the vector's files out with Node-style sync calls (memfs and ZenFS alike). */
function layOut(fs, vector) {
  for (const [path, c] of fileEntries(vector)) {
    fs.mkdirSync(dirname(path), { recursive: true });
    if (isFileContent(c)) fs.writeFileSync(path, bytesOf(c));
    else if (isHardlink(c)) fs.linkSync(c.hardlink, path);
    else if (c.symlink !== undefined) fs.symlinkSync(c.symlink, path);
    else if (c.dir) fs.mkdirSync(path, { recursive: true });
    else throw new TypeError(`cannot lay out ${path}: ${JSON.stringify(c)}`);
  }
}

function syncFsView(fs) {
  return {
    read: (p) => {
      try {
        return fs.lstatSync(p).isFile() ? Buffer.from(fs.readFileSync(p)) : null;
      } catch {
        return null;
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
    cleanup() {},
  };
}

const parts = (path) => path.split('/').filter((p) => p !== '' && p !== '.');

function requestPath(vector) {
  let params = vector.request?.params;
  if (typeof vector.raw === 'string') {
    try {
      params = JSON.parse(vector.raw)?.params;
    } catch {
      return undefined;
    }
  }
  return typeof params?.path === 'string' ? params.path : undefined;
}

/** Whether the request path runs through a regular file of the vector. */
function goesBelowAFile(vector) {
  const path = requestPath(vector);
  if (path === undefined || !path.startsWith('/')) return false;
  const files = new Set(fileEntries(vector).flatMap(([p, c]) => (isFileContent(c) || isHardlink(c) ? [p] : [])));
  const names = parts(path);
  return names.some((_, i) => i < names.length - 1 && files.has(`/${names.slice(0, i + 1).join('/')}`));
}

const POSIX_ONLY = (what) => `${what} is a POSIX file system (no drive or UNC paths)`;
const NO_SPECIAL = (what) => `${what} cannot hold FIFOs or devices`;

/** The harness's Map storage behind async methods: every answer comes a microtask later. */
function asyncMapBackend(ranged) {
  const base = ranged ? backends.mapRanged : backends.mapWhole;
  return {
    name: `async map ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      const prepared = base.prepare(vector);
      if (prepared.skip) return prepared;
      const sync = prepared.storage;
      const storage = {};
      for (const name of ['readFile', 'readRange', 'stat', 'writeFile', 'mkdir']) {
        if (typeof sync[name] === 'function') {
          storage[name] = async (...args) => {
            await null;
            return sync[name](...args);
          };
        }
      }
      if (sync.capabilities) storage.capabilities = sync.capabilities;
      return { ...prepared, storage };
    },
  };
}

function freshZenFS() {
  // One global VFS: each vector gets a new in-memory root.
  umount('/');
  mount('/', resolveMountConfigSync({ backend: InMemory }));
  return zenfs;
}

/**
 * ZenFS `fs.promises` as it is (ranged reads through `open`), without its symlink methods: ZenFS
 * 2.7's `realpath` answers a path for missing files, dangling links and loops (or never returns,
 * on a loop) instead of failing, so with symlinks a host needs `fromZenFS`, which resolves them
 * itself. What is left is a symlink-free storage, as a host that never links would pass it.
 */
function zenfsPromisesBackend(ranged) {
  return {
    name: `zenfs promises ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      if (usesWindowsPaths(vector)) return { skip: POSIX_ONLY('ZenFS') };
      if (hasSpecial(vector)) return { skip: NO_SPECIAL('ZenFS') };
      if (hasSymlinks(vector)) return { skip: "ZenFS's own realpath cannot be trusted with symlinks (fromZenFS can)" };
      if (goesBelowAFile(vector)) return { skip: 'ZenFS answers ENOENT, not ENOTDIR, for a path below a file' };
      const fs = freshZenFS();
      layOut(fs, vector);
      const p = fs.promises;
      const storage = withTraits(
        {
          readFile: (path) => p.readFile(path),
          stat: (path) => p.stat(path),
          open: (path, flags) => p.open(path, flags),
          writeFile: (path, data) => p.writeFile(path, data),
          mkdir: (path, options) => p.mkdir(path, options),
        },
        storageTraits(vector, ranged),
      );
      return { vector, storage, ...syncFsView(fs) };
    },
  };
}

function adapterBackend(name, ranged, make) {
  return {
    name: `${name} ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      if (usesWindowsPaths(vector)) return { skip: POSIX_ONLY(name) };
      if (hasSpecial(vector)) return { skip: NO_SPECIAL(name) };
      return make(vector, storageTraits(vector, ranged));
    },
  };
}

const memfsAdapter = (ranged) =>
  adapterBackend('fromMemfs', ranged, (vector, f) => {
    const { vol } = memfs();
    layOut(vol, vector);
    return { vector, storage: withTraits(fromMemfs(vol), f), ...syncFsView(vol) };
  });

const zenfsAdapter = (ranged) =>
  adapterBackend('fromZenFS', ranged, (vector, f) => {
    const fs = freshZenFS();
    layOut(fs, vector);
    return { vector, storage: withTraits(fromZenFS(fs), f), ...syncFsView(fs) };
  });

/** `fromOPFS` over memfs's File System Access implementation (DOMExceptions and all). */
const opfsAdapter = (ranged) => {
  const backend = adapterBackend('fromOPFS', ranged, (vector, f) => {
    if (hasSymlinks(vector)) return { skip: 'directory handles have no symlinks' };
    if (hasHardlinks(vector)) return { skip: 'directory handles have no hard links' };
    const { vol, fs } = memfs();
    layOut(vol, vector);
    const root = nodeToFsa(fs, '/', { mode: 'readwrite' });
    return { vector, storage: withTraits(fromOPFS(root), f), ...syncFsView(vol) };
  });
  backend.name = `fromOPFS (memfs FSA) ${ranged ? 'ranged' : 'whole'}`;
  return backend;
};

/** `overlay` with no open buffers must be the base storage exactly. */
const emptyOverlay = (ranged) => {
  const base = ranged ? backends.memfsRanged : backends.memfsWhole;
  return {
    name: `overlay(no buffers) over memfs ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      const prepared = base.prepare(vector);
      if (prepared.skip) return prepared;
      return { ...prepared, storage: overlay(() => undefined, prepared.storage) };
    },
  };
};

/** Every backend the wasm package runs the vectors on in Node (the native disk is @acp-fs/node's). */
export const wasmBackends = {
  memfsRanged: backends.memfsRanged,
  memfsWhole: backends.memfsWhole,
  mapRanged: backends.mapRanged,
  mapWhole: backends.mapWhole,
  asyncMapRanged: asyncMapBackend(true),
  asyncMapWhole: asyncMapBackend(false),
  zenfsRanged: zenfsPromisesBackend(true),
  zenfsWhole: zenfsPromisesBackend(false),
  fromMemfsRanged: memfsAdapter(true),
  fromMemfsWhole: memfsAdapter(false),
  fromZenFSRanged: zenfsAdapter(true),
  fromZenFSWhole: zenfsAdapter(false),
  fromOPFSRanged: opfsAdapter(true),
  fromOPFSWhole: opfsAdapter(false),
  overlayRanged: emptyOverlay(true),
  overlayWhole: emptyOverlay(false),
  fsPromisesRanged: backends.fsPromisesRanged,
  fsPromisesWhole: backends.fsPromisesWhole,
  nodeDisk: backends.nodeDisk,
};

export { rangedVariants };
