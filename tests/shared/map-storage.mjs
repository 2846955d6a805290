// The fake storage every test suite shares: what a host without a file system would write (files
// in a Map, synchronous methods), and the vector backend built on it. No Node APIs and no Buffer,
// so the browser runner imports it as it is; the Node harness subclasses it to keep Buffers.

import { ancestors, bytesOf, fileEntries, hasSymlinks, isFileContent, isHardlink, isRoot, parentOf, storageTraits, WINDOWS_OR_UNC } from './vectors.mjs';

/** An error as node:fs words it (`code`, `syscall`, `path`), so the driver classifies it the same. */
function fsError(code, description, path, syscall) {
  const e = new Error(`${code}: ${description}, ${syscall} '${path}'`);
  e.code = code;
  e.syscall = syscall;
  e.path = path;
  if (code === 'ENOENT') e.errno = -2;
  return e;
}
const enoent = (path, syscall) => fsError('ENOENT', 'no such file or directory', path, syscall);
const eisdir = (path, syscall) => fsError('EISDIR', 'illegal operation on a directory', path, syscall);
const enotdir = (path, syscall) => fsError('ENOTDIR', 'not a directory', path, syscall);

/**
 * A plain-object storage over a Map, with synchronous methods (values, not promises): files,
 * directories (explicit or implied by files), special files and hard links; no symlinks. POSIX,
 * drive and UNC paths alike (they are only keys). A hard link is a second name of the same byte
 * array, `nlink` the number of names; a write replaces the name's array (as a rename would), so the
 * other names keep the old content. Every call is recorded in `calls`.
 */
export class MapStorage {
  /** Traits left out are methods left out, never faked (`storageTraits` of tests/shared/vectors.mjs). */
  constructor({ ranged = true, write = true, realpath = true, list = true } = {}) {
    this.files = new Map();
    this.dirs = new Set(['/']);
    this.special = new Set();
    this.calls = [];
    if (!ranged) this.readRange = undefined;
    if (!list) this.readdir = undefined;
    if (!write) {
      this.writeFile = undefined;
      this.mkdir = undefined;
      this.rename = undefined;
    }
    // "Has symlinks, cannot resolve them" cannot come from the shape of a link-less storage.
    if (!realpath) this.capabilities = { symlinks: 'unresolvable' };
  }
  /** The bytes the storage keeps for `data`: always a copy, so a caller's later change is not a write. */
  copy(data) {
    return new Uint8Array(data);
  }
  put(path, bytes) {
    this.files.set(path, this.copy(bytes));
    for (const d of ancestors(path)) this.dirs.add(d);
  }
  addDir(path) {
    this.dirs.add(path);
    for (const d of ancestors(path)) this.dirs.add(d);
  }
  /** A file on the way to `path` makes it unreachable, as on a real file system. */
  blockedBy(path) {
    return ancestors(path).find((d) => this.files.has(d));
  }
  addSpecial(path) {
    this.put(path, new Uint8Array(0));
    this.special.add(path);
  }
  /** `path` becomes another name of the file `existing` (false when that is not a file). */
  link(path, existing) {
    const file = this.files.get(existing);
    if (file === undefined || this.special.has(existing)) return false;
    this.files.set(path, file);
    for (const d of ancestors(path)) this.dirs.add(d);
    return true;
  }
  /** How many names the file at `path` has. */
  nlink(path) {
    const file = this.files.get(path);
    let n = 0;
    for (const f of this.files.values()) if (f === file) n += 1;
    return n;
  }
  stat(path) {
    this.calls.push(['stat', path]);
    if (this.blockedBy(path)) throw enotdir(path, 'stat');
    const kind = this.special.has(path)
      ? 'other'
      : this.files.has(path)
        ? 'file'
        : this.dirs.has(path) || isRoot(path)
          ? 'dir'
          : null;
    if (kind === null) throw enoent(path, 'stat');
    const version = kind === 'file' ? this.version(this.files.get(path)) : undefined;
    return {
      isFile: () => kind === 'file',
      isDirectory: () => kind === 'dir',
      isSymbolicLink: () => false,
      size: kind === 'file' ? this.files.get(path).length : 0,
      nlink: kind === 'file' ? this.nlink(path) : 1,
      // Every write stores a new array, so an array's first sighting is its version (semantics.md §9).
      // Only this storage moves it, so it is the change time too, as in the Rust MemoryStorage
      // (semantics.md §8 "Line index").
      ...(kind === 'file' ? { mtimeMs: version, ctimeMs: version } : {}),
    };
  }
  #versions = new WeakMap();
  #clock = 0;
  version(bytes) {
    if (!this.#versions.has(bytes)) this.#versions.set(bytes, ++this.#clock);
    return this.#versions.get(bytes);
  }
  readFile(path) {
    this.calls.push(['readFile', path]);
    return this.bytes(path);
  }
  bytes(path) {
    if (this.blockedBy(path)) throw enotdir(path, 'open');
    if (this.dirs.has(path) || isRoot(path)) throw eisdir(path, 'read');
    const b = this.files.get(path);
    if (b === undefined) throw enoent(path, 'open');
    return b;
  }
  readRange(path, offset, length) {
    this.calls.push(['readRange', path, offset, length]);
    const b = this.bytes(path);
    return b.subarray(Math.min(offset, b.length), Math.min(offset + length, b.length));
  }
  /** The names directly in the directory `path` (files, special files and directories alike). */
  readdir(path) {
    this.calls.push(['readdir', path]);
    if (this.blockedBy(path) || this.files.has(path)) throw enotdir(path, 'scandir');
    if (!this.dirs.has(path) && !isRoot(path)) throw enoent(path, 'scandir');
    const names = new Set();
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p !== path && parentOf(p) === path) names.add(p.slice(path.length).replace(/^[\\/]/, ''));
    }
    return [...names];
  }
  writeFile(path, data) {
    this.calls.push(['writeFile', path]);
    if (this.blockedBy(path)) throw enotdir(path, 'open');
    if (this.dirs.has(path) || isRoot(path)) throw eisdir(path, 'open');
    const parent = parentOf(path);
    if (!this.dirs.has(parent) && !isRoot(parent)) throw enoent(path, 'open');
    this.files.set(path, this.copy(data));
  }
  /** Moves a file, a special file or a directory with everything below it (the engine's storage io
   * has checked that nothing is at `to`: a move never replaces). */
  rename(from, to) {
    this.calls.push(['rename', from, to]);
    if (this.blockedBy(from)) throw enotdir(from, 'rename');
    if (this.blockedBy(to)) throw enotdir(to, 'rename');
    if (!this.files.has(from) && !this.special.has(from) && !this.dirs.has(from)) throw enoent(from, 'rename');
    if (!this.dirs.has(parentOf(to)) && !isRoot(parentOf(to))) throw enoent(to, 'rename');
    if (this.files.has(to) || this.special.has(to) || this.dirs.has(to)) throw fsError('EEXIST', 'file already exists', to, 'rename');
    const sep = WINDOWS_OR_UNC.test(from) ? '\\' : '/';
    const moved = (p) => (p === from || p.startsWith(from + sep) ? to + p.slice(from.length) : null);
    for (const [path, bytes] of [...this.files]) {
      const next = moved(path);
      if (next !== null) {
        this.files.delete(path);
        this.files.set(next, bytes);
      }
    }
    for (const set of [this.special, this.dirs]) {
      for (const path of [...set]) {
        const next = moved(path);
        if (next !== null) {
          set.delete(path);
          set.add(next);
        }
      }
    }
  }
  mkdir(path, options) {
    this.calls.push(['mkdir', path]);
    if (this.blockedBy(path)) throw enotdir(path, 'mkdir');
    // A write's missing parents in one call, as `fs.promises.mkdir(path, {recursive: true})`.
    if (options?.recursive === true) {
      if (this.files.has(path) || this.special.has(path)) throw enotdir(path, 'mkdir');
      this.addDir(path);
      return;
    }
    // One directory (create_directory), as `fs.promises.mkdir(path)`: EEXIST when anything is
    // there, ENOENT without the parent.
    if (this.files.has(path) || this.special.has(path) || this.dirs.has(path) || isRoot(path)) {
      throw fsError('EEXIST', 'file already exists', path, 'mkdir');
    }
    if (!this.dirs.has(parentOf(path)) && !isRoot(parentOf(path))) throw enoent(path, 'mkdir');
    this.dirs.add(path);
  }
}

/**
 * The vector backend over a `MapStorage` (`Storage`, to keep a subclass's bytes), ranged or whole.
 * Vectors with symlinks are skipped: the storage has none.
 */
export function mapBackend(ranged, Storage = MapStorage) {
  return {
    name: `map ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      if (hasSymlinks(vector)) return { skip: 'the Map storage has no symlinks' };
      const storage = new Storage(storageTraits(vector, ranged));
      for (const [path, c] of fileEntries(vector)) {
        if (isFileContent(c)) storage.put(path, bytesOf(c));
        else if (isHardlink(c)) {
          if (!storage.link(path, c.hardlink)) throw new Error(`${path}: hardlink to ${c.hardlink}, which is not a file`);
        } else if (c.dir) storage.addDir(path);
        else if (c.special) storage.addSpecial(path);
        else throw new TypeError(`unknown file entry at ${path}: ${JSON.stringify(c)}`);
      }
      return {
        vector,
        storage,
        read: (p) => storage.files.get(p) ?? null,
        write: (p, bytes) => (bytes === null ? storage.files.delete(p) : storage.put(p, bytes)),
        exists: (p) => storage.files.has(p) || storage.dirs.has(p),
        cleanup() {},
      };
    },
  };
}
