// The behaviour vectors (tests/vectors/README.md) run inside a browser page or worker: no Node
// APIs, no Buffer. Storages built from a vector: an in-memory object (sync, like a host's own
// Map), the Origin Private File System through `fromOPFS`, and LightningFS through
// `fromLightningFS`. Expectations are checked by tests/shared/vectors.mjs, as in Node.

import { fromLightningFS, fromOPFS } from '../../npm/adapters/index.mjs';
import {
  ancestors,
  bytesOf,
  fileEntries,
  hasHardlinks,
  hasSpecial,
  hasSymlinks,
  isFileContent,
  isHardlink,
  isRoot,
  parentOf,
  runVector,
  storageTraits,
  usesWindowsPaths,
  withTraits,
} from '../shared/vectors.mjs';


const posixParent = (p) => p.slice(0, Math.max(p.lastIndexOf('/'), 0)) || '/';

function fsError(code, message, path) {
  const e = new Error(`${code}: ${message}, '${path}'`);
  e.code = code;
  e.path = path;
  return e;
}

/**
 * What a host without a file system would write: files in a Map, synchronous methods. No
 * symlinks; POSIX, drive and UNC paths alike (they are only keys). A hard link is a second name
 * of the same byte array (`nlink` = its number of names); a write replaces the name's array, as
 * a rename would, so the other names keep the old content.
 */
export class MemoryStorage {
  constructor() {
    this.files = new Map();
    this.dirs = new Set(['/']);
    this.special = new Set();
  }
  put(path, bytes) {
    this.files.set(path, bytes);
    for (const d of ancestors(path)) this.dirs.add(d);
  }
  addDir(path) {
    this.dirs.add(path);
    for (const d of ancestors(path)) this.dirs.add(d);
  }
  /** `path` becomes another name of the file `existing`. */
  link(path, existing) {
    const bytes = this.files.get(existing);
    if (bytes === undefined || this.special.has(existing)) throw new Error(`${path}: hardlink to ${existing}, which is not a file`);
    this.put(path, bytes);
  }
  nlink(path) {
    const bytes = this.files.get(path);
    let n = 0;
    for (const b of this.files.values()) if (b === bytes) n += 1;
    return n;
  }
  blocked(path) {
    return ancestors(path).some((d) => this.files.has(d));
  }
  stat(path) {
    if (this.blocked(path)) throw fsError('ENOTDIR', 'not a directory', path);
    const kind = this.special.has(path)
      ? 'other'
      : this.files.has(path)
        ? 'file'
        : this.dirs.has(path) || isRoot(path)
          ? 'dir'
          : null;
    if (kind === null) throw fsError('ENOENT', 'no such file or directory', path);
    return {
      isFile: () => kind === 'file',
      isDirectory: () => kind === 'dir',
      isSymbolicLink: () => false,
      size: kind === 'file' ? this.files.get(path).length : 0,
      nlink: kind === 'file' ? this.nlink(path) : 1,
      // Every write stores a new array, so an array's first sighting is its version (semantics.md §9).
      ...(kind === 'file' ? { mtimeMs: this.version(this.files.get(path)) } : {}),
    };
  }
  #versions = new WeakMap();
  #clock = 0;
  version(bytes) {
    if (!this.#versions.has(bytes)) this.#versions.set(bytes, ++this.#clock);
    return this.#versions.get(bytes);
  }
  readFile(path) {
    if (this.blocked(path)) throw fsError('ENOTDIR', 'not a directory', path);
    if (this.dirs.has(path) || isRoot(path)) throw fsError('EISDIR', 'illegal operation on a directory', path);
    const bytes = this.files.get(path);
    if (bytes === undefined) throw fsError('ENOENT', 'no such file or directory', path);
    return bytes;
  }
  readRange(path, offset, length) {
    const bytes = this.readFile(path);
    return bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));
  }
  writeFile(path, data) {
    if (this.blocked(path)) throw fsError('ENOTDIR', 'not a directory', path);
    if (this.dirs.has(path) || isRoot(path)) throw fsError('EISDIR', 'illegal operation on a directory', path);
    const parent = parentOf(path);
    if (!this.dirs.has(parent) && !isRoot(parent)) throw fsError('ENOENT', 'no such file or directory', path);
    this.files.set(path, data.slice());
  }
  mkdir(path) {
    if (this.blocked(path) || this.files.has(path)) throw fsError('ENOTDIR', 'not a directory', path);
    this.addDir(path);
  }
  methods() {
    const m = {};
    for (const name of ['readFile', 'readRange', 'stat', 'writeFile', 'mkdir']) m[name] = this[name].bind(this);
    return m;
  }
}

function memoryBackend(ranged) {
  return {
    name: `memory ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    async prepare(vector) {
      if (hasSymlinks(vector)) return { skip: 'the in-memory storage has no symlinks' };
      const store = new MemoryStorage();
      for (const [path, c] of fileEntries(vector)) {
        if (isFileContent(c)) store.put(path, bytesOf(c));
        else if (isHardlink(c)) store.link(path, c.hardlink);
        else if (c.dir) store.addDir(path);
        else if (c.special) {
          store.put(path, new Uint8Array(0));
          store.special.add(path);
        }
      }
      return {
        storage: withTraits(store.methods(), storageTraits(vector, ranged)),
        read: async (p) => store.files.get(p) ?? null,
        write: async (p, bytes) => (bytes === null ? store.files.delete(p) : store.put(p, bytes)),
        exists: async (p) => store.files.has(p) || store.dirs.has(p),
        cleanup: async () => {},
      };
    },
  };
}

let opfsRuns = 0;

/** `fromOPFS` over a fresh directory of the origin's private file system. */
function opfsBackend(ranged) {
  return {
    name: `opfs ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    async prepare(vector) {
      if (usesWindowsPaths(vector)) return { skip: 'OPFS paths are POSIX (no drive or UNC paths)' };
      if (hasSymlinks(vector)) return { skip: 'OPFS has no symlinks' };
      if (hasHardlinks(vector)) return { skip: 'OPFS has no hard links' };
      if (hasSpecial(vector)) return { skip: 'OPFS has no FIFOs or devices' };
      const top = await navigator.storage.getDirectory();
      const name = `vector-${++opfsRuns}-${Math.random().toString(36).slice(2)}`;
      const root = await top.getDirectoryHandle(name, { create: true });
      // Laid out and read back with the File System API itself, not through the adapter.
      const dir = async (path, create) => {
        let h = root;
        for (const part of path.split('/').filter(Boolean)) h = await h.getDirectoryHandle(part, { create });
        return h;
      };
      for (const [path, c] of fileEntries(vector)) {
        if (c?.dir) {
          await dir(path, true);
          continue;
        }
        const parent = await dir(posixParent(path), true);
        const w = await (await parent.getFileHandle(path.split('/').pop(), { create: true })).createWritable();
        await w.write(bytesOf(c));
        await w.close();
      }
      const lookup = async (path) => {
        try {
          const parent = await dir(posixParent(path), false);
          const name = path.split('/').pop();
          try {
            return { file: await (await parent.getFileHandle(name)).getFile() };
          } catch (e) {
            if (e.name !== 'TypeMismatchError') throw e;
            await parent.getDirectoryHandle(name);
            return { dir: true };
          }
        } catch (e) {
          if (e.name === 'NotFoundError' || e.name === 'TypeMismatchError') return null;
          throw e;
        }
      };
      return {
        storage: withTraits(fromOPFS(root), storageTraits(vector, ranged)),
        read: async (p) => {
          const found = await lookup(p);
          return found?.file ? new Uint8Array(await found.file.arrayBuffer()) : null;
        },
        exists: async (p) => (await lookup(p)) !== null,
        cleanup: () => top.removeEntry(name, { recursive: true }),
      };
    },
  };
}

let lightningRuns = 0;

/** `fromLightningFS` over a LightningFS with its in-memory backend (symlinks, no ranged reads). */
function lightningBackend(LightningFS) {
  return {
    name: 'lightning-fs whole',
    ranged: false,
    async prepare(vector) {
      if (usesWindowsPaths(vector)) return { skip: 'LightningFS paths are POSIX (no drive or UNC paths)' };
      if (hasSpecial(vector)) return { skip: 'LightningFS has no FIFOs or devices' };
      if (hasHardlinks(vector)) return { skip: 'LightningFS has no hard links' };
      const lfs = new LightningFS(`vector-${++lightningRuns}`, { db: new LightningFS.MemoryBackend(), wipe: true });
      const p = lfs.promises;
      const mkdirp = async (path) => {
        let prefix = '';
        for (const part of path.split('/').filter(Boolean)) {
          prefix += `/${part}`;
          try {
            await p.mkdir(prefix);
          } catch (e) {
            if (e.code !== 'EEXIST') throw e;
          }
        }
      };
      for (const [path, c] of fileEntries(vector)) {
        await mkdirp(posixParent(path));
        if (isFileContent(c)) await p.writeFile(path, bytesOf(c));
        else if (c.symlink !== undefined) await p.symlink(c.symlink, path);
        else if (c.dir) await mkdirp(path);
      }
      return {
        storage: withTraits(fromLightningFS(lfs), storageTraits(vector, false)),
        read: async (path) => {
          try {
            return (await p.lstat(path)).isFile() ? await p.readFile(path) : null;
          } catch {
            return null;
          }
        },
        exists: async (path) => {
          try {
            await p.lstat(path);
            return true;
          } catch {
            return false;
          }
        },
        cleanup: async () => {},
      };
    },
  };
}

export function makeBackends({ opfs = true, LightningFS } = {}) {
  const list = [memoryBackend(true), memoryBackend(false)];
  if (opfs) list.push(opfsBackend(true), opfsBackend(false));
  if (LightningFS) list.push(lightningBackend(LightningFS));
  return list;
}

// ---------------------------------------------------------------------------------------------
// Running every vector (one vector is run and checked by tests/shared/vectors.mjs).

/**
 * Every vector on every backend. Returns `{passed, failed, skipped, failures: [..], skips: {reason: n}}`;
 * a vector with a deliberately wrong expectation must fail, or the checker itself is broken.
 */
export async function runAll(AcpFs, vectors, backends, label) {
  const out = { label, passed: 0, failed: 0, skipped: 0, failures: [], skips: {} };
  for (const backend of backends) {
    for (const vector of vectors) {
      const r = await runVector(AcpFs, vector, backend);
      if (r.skip) {
        out.skipped += 1;
        const key = `${backend.name}: ${r.skip}`;
        out.skips[key] = (out.skips[key] ?? 0) + 1;
      } else if (r.failures.length) {
        out.failed += 1;
        out.failures.push(`[${label} ${backend.name}] ${vector.name}: ${r.failures.join('; ')}`);
      } else out.passed += 1;
    }
  }
  // The checker must be able to fail: a read whose expected content is wrong.
  const wrong = {
    name: 'checker-self-test',
    files: { '/project/a.txt': 'right\n' },
    request: { method: 'fs/read_text_file', params: { sessionId: 's1', path: '/project/a.txt' } },
    expect: { result: { content: 'wrong\n' } },
  };
  const selfTest = await runVector(AcpFs, wrong, backends[0]);
  if (selfTest.failures?.length === 1 && /result: want/.test(selfTest.failures[0])) out.passed += 1;
  else {
    out.failed += 1;
    out.failures.push(`[${label}] the checker did not reject a wrong expectation: ${JSON.stringify(selfTest)}`);
  }
  return out;
}
