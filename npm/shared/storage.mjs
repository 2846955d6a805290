// Node-style storages (node:fs/promises, memfs `vol.promises`, ZenFS `fs.promises`, plain
// objects): what they can do, and how one engine io is performed against them. Policy never lives
// here: every answer goes back to the core, which decides.

import { CLOSES_IN_BACKGROUND } from './node-disk.mjs';

export { fromNodeDisk, hostStorage } from './node-disk.mjs';

const encoder = new TextEncoder();

const has = (storage, name) => typeof storage[name] === 'function';

/** Whether `value` is a promise or promise-like (what `await` would wait for). */
export const isThenable = (value) =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';

/**
 * `f(value)`, once `value` settles if it is a promise (a synchronous storage costs no
 * microtask); `onError` takes a rejection.
 */
const then = (value, f, onError) => (isThenable(value) ? Promise.resolve(value).then(f, onError) : f(value));

/**
 * The host protocol's `StorageCaps` from the storage's shape; `storage.capabilities` may
 * override any field. Symlinks are 'resolvable' only with both `realpath` and `lstat`, 'none'
 * with neither, and otherwise 'unresolvable': a storage that can show links but not resolve
 * them must fail closed.
 *
 * The MCP file tools' three: `list` with `listDirectory`, or `readdir` and a stat that does not
 * follow links (`lstat`; `stat` only where there are no links); `rename` with `move`, or
 * `rename` and a stat to check that nothing is at the destination (a move never replaces);
 * `makeDir` with `makeDir` or `mkdir`.
 */
export function deriveCaps(storage) {
  const realpath = has(storage, 'realpath');
  const lstat = has(storage, 'lstat');
  const symlinks = realpath && lstat ? 'resolvable' : !realpath && !lstat ? 'none' : 'unresolvable';
  const stat = has(storage, 'stat') || lstat;
  const caps = {
    symlinks,
    stat,
    rangedReads: has(storage, 'readRange') || has(storage, 'open') || has(storage, 'openFile'),
    write: has(storage, 'writeFile') || has(storage, 'replaceFile'),
    makeDirs: has(storage, 'mkdir') || has(storage, 'makeDirs'),
    list: has(storage, 'listDirectory') || (has(storage, 'readdir') && (lstat || (stat && symlinks === 'none'))),
    rename: has(storage, 'move') || (has(storage, 'rename') && stat),
    makeDir: has(storage, 'makeDir') || has(storage, 'mkdir'),
  };
  const override = storage.capabilities;
  if (override !== null && typeof override === 'object') {
    for (const key of Object.keys(caps)) {
      if (override[key] !== undefined) caps[key] = override[key];
    }
  }
  return caps;
}

/** Bytes from whatever a storage returned: a string is UTF-8 text. */
export function toBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`storage returned ${value === null ? 'null' : typeof value} where bytes or a string were expected`);
}

const flag = (stats, name) => {
  const v = stats?.[name];
  return typeof v === 'function' ? Boolean(v.call(stats)) : Boolean(v);
};

const kindOf = (stats) =>
  flag(stats, 'isSymbolicLink') ? 'symlink' : flag(stats, 'isFile') ? 'file' : flag(stats, 'isDirectory') ? 'directory' : 'other';

/** `{kind, size, links, modifiedMs, changedMs, fileId}` of fs.Stats-like values (numbers or bigints); `links` is `nlink`. */
function metadataOf(stats) {
  const size = Number(stats?.size ?? 0);
  const links = Number(stats?.nlink ?? 1);
  // The modification time identifies a version of the file for the engine's line index; a
  // storage without one (no mtimeMs) gets no index and stays correct.
  // Bigint stats (the disk adapter's) keep nanoseconds: whole milliseconds would let two
  // versions written within one millisecond look the same.
  const modified = typeof stats?.mtimeNs === 'bigint' ? Number(stats.mtimeNs) / 1e6 : Number(stats?.mtimeMs);
  const out = {
    kind: kindOf(stats),
    size: Number.isFinite(size) && size >= 0 ? size : 0,
    links: Number.isFinite(links) && links >= 1 ? links : 1,
  };
  if (Number.isFinite(modified) && modified >= 0) out.modifiedMs = modified;
  // The change time cannot be set back (utimes moves it to now), so it, not the modification
  // time, proves a version for the line index; the inode tells a file replaced by rename.
  const changed = typeof stats?.ctimeNs === 'bigint' ? Number(stats.ctimeNs) / 1e6 : Number(stats?.ctimeMs);
  if (Number.isFinite(changed) && changed >= 0) out.changedMs = changed;
  if (stats?.ino !== undefined && stats?.ino !== null && Number(stats.ino) !== 0) out.fileId = `${stats.dev}:${stats.ino}`;
  return out;
}

const metadata = (stats) => ({ metadata: metadataOf(stats) });

/** Whether two stats name different files (only when both carry a nonzero inode). */
function differ(a, b) {
  const id = (s) => (s?.ino === undefined || s?.ino === null || Number(s.ino) === 0 ? undefined : `${s.dev}:${s.ino}`);
  const x = id(a);
  const y = id(b);
  return x !== undefined && y !== undefined && x !== y;
}

function changedError(path) {
  const e = new Error(`refused: ${path} changed while it was opened (a symlink or rename raced the check)`);
  e.path = path;
  return e;
}

/**
 * Performs the storage ios of one operation. Files the engine opens (`open`) are kept by the id
 * handed to it, and every `readAt` reads that file, so a window's chunks all come from the file
 * that was checked; `closeAll()` (end of the request, or before a write) closes them.
 *
 * Per storage shape: `openFile(root, path)` (the hardened disk adapter) opens and proves the
 * file itself; `open(path, flags)` (fs.promises-like) is asked only after `lstat`/`stat` says
 * "regular file", and the handle's own `stat()`, where it has one, must be that same file;
 * `readRange(path, …)` alone gives a handle bound to the path.
 */
export class StorageIo {
  constructor(storage) {
    this.storage = storage;
    /** Engine-visible open files by id. */
    this.files = new Map();
    this.nextFile = 1;
  }

  /**
   * Performs `io`: `{answer, bytes?}`, or a promise of it when the storage answered with one (a
   * synchronous storage, such as an in-memory map, costs no microtask per io). Throws, or
   * rejects with, what the storage threw.
   */
  perform(io, bytes) {
    const s = this.storage;
    switch (io.op) {
      case 'stat': {
        const useLstat = !io.follow && has(s, 'lstat');
        const stats = useLstat ? s.lstat(io.path) : has(s, 'stat') ? s.stat(io.path) : s.lstat(io.path);
        return then(stats, (st) => ({ answer: metadata(st) }));
      }
      case 'realPath':
        return then(s.realpath(io.path), (p) => ({ answer: { path: typeof p === 'string' ? p : String(p) } }));
      case 'readAll':
        return then(s.readFile(io.path), (b) => ({ answer: { bytes: true }, bytes: toBytes(b) }));
      case 'open':
        return this.open(io.root ?? null, io.path, io.head ?? 0);
      case 'readAt': {
        const handle = this.files.get(io.file);
        if (handle === undefined) throw Object.assign(new Error(`EBADF: no open file ${io.file}`), { code: 'EBADF' });
        return then(this.read(handle, io.offset, io.length), (b) => ({ answer: { bytes: true }, bytes: b }));
      }
      case 'close':
        return then(this.close(io.file), () => ({ answer: { done: true } }));
      case 'makeDirs':
      case 'write':
      case 'rename':
      case 'makeDir':
        return this.#change(io, bytes);
      case 'removeDir':
        return this.#removeDir(io);
      case 'list':
        return this.#list(io.root ?? null, io.path);
      default:
        throw new TypeError(`not a storage io: ${io.op}`);
    }
  }

  async #change(io, bytes) {
    const s = this.storage;
    await this.closeAll();
    if (io.op === 'rename') {
      await this.#move(io.root ?? null, io.from, io.to);
    } else if (io.op === 'makeDir') {
      // Node's mkdir without options makes one directory: EEXIST when anything is there.
      if (has(s, 'makeDir')) await s.makeDir(io.root ?? null, io.path);
      else await s.mkdir(io.path);
    } else if (io.op === 'makeDirs') {
      if (has(s, 'makeDirs')) await s.makeDirs(io.root ?? null, io.path);
      else await s.mkdir(io.path, { recursive: true });
    } else if (has(s, 'replaceFile')) await s.replaceFile(io.root ?? null, io.path, bytes);
    else await s.writeFile(io.path, bytes);
    return { answer: { done: true } };
  }

  /**
   * Takes back a directory a failed write made: `removeDir(root, path)` (the hardened disk
   * adapter), else `rmdir(path)`; a storage with neither keeps it (the core asks no further).
   */
  async #removeDir(io) {
    const s = this.storage;
    if (has(s, 'removeDir')) await s.removeDir(io.root ?? null, io.path);
    else if (has(s, 'rmdir')) await s.rmdir(io.path);
    else throw Object.assign(new Error('the storage cannot remove directories'), { code: 'ENOSYS' });
    return { answer: { done: true } };
  }

  /**
   * `{entries: [{name, metadata}]}` of the directory `path`: from `listDirectory` (the storage
   * lists through a handle it proved), or `readdir` and a stat of each entry that does not
   * follow it. An entry gone before its stat is left out.
   */
  async #list(root, path) {
    const s = this.storage;
    const entries = [];
    if (has(s, 'listDirectory')) {
      for (const { name, stats } of await s.listDirectory(root, path)) entries.push({ name: String(name), metadata: metadataOf(stats) });
      return { answer: { entries } };
    }
    const describe = has(s, 'lstat') ? (p) => s.lstat(p) : (p) => s.stat(p);
    const prefix = path.endsWith('/') || path.endsWith('\\') ? path : `${path}${path.includes('/') ? '/' : '\\'}`;
    for (const raw of await s.readdir(path)) {
      // Node-like storages may answer Dirents or Buffers.
      const name = typeof raw === 'string' ? raw : typeof raw?.name === 'string' ? raw.name : String(raw);
      if (name === '.' || name === '..') continue;
      let stats;
      try {
        stats = await describe(prefix + name);
      } catch (e) {
        if (e?.code === 'ENOENT') continue;
        throw e;
      }
      entries.push({ name, metadata: metadataOf(stats) });
    }
    return { answer: { entries } };
  }

  /**
   * Moves `from` to `to`, never replacing: `move` (the storage refuses an existing destination
   * itself), or a stat that must find nothing at `to`, then `rename`. Such storages live in this
   * process (memfs, ZenFS, LightningFS): nothing else runs between the two calls of a synchronous
   * one; an asynchronous one leaves a window between them that only this process's own requests
   * could use.
   */
  #move(root, from, to) {
    const s = this.storage;
    if (has(s, 'move')) return s.move(root, from, to);
    const describe = has(s, 'lstat') ? (p) => s.lstat(p) : (p) => s.stat(p);
    const exists = () => {
      throw Object.assign(new Error(`EEXIST: file already exists, rename '${from}' -> '${to}'`), { code: 'EEXIST', path: to });
    };
    const free = (e) => {
      if (e?.code !== 'ENOENT') throw e;
      return s.rename(from, to);
    };
    // No promise hop between the check and the rename when the storage answers synchronously.
    let found;
    try {
      found = describe(to);
    } catch (e) {
      return free(e);
    }
    return then(found, exists, free);
  }

  /**
   * The `open` result: `{answer: {file, metadata}}` with up to `head` bytes from the start of the
   * file (`bytes: true`, the bytes beside), or `{answer: {metadata}}` for a file that is not
   * regular. A promise only when the storage answered with one.
   */
  open(root, path, head = 0) {
    return then(this.#open(root, path), (opened) => {
      if (opened.file === undefined || !(head > 0)) return { answer: opened };
      // The head is an offer, not a read the engine asked for: its first readAt meets an error.
      const withHead = (bytes) => {
        opened.bytes = true;
        return { answer: opened, bytes };
      };
      let bytes;
      try {
        bytes = this.read(this.files.get(opened.file), 0, head);
      } catch {
        return { answer: opened };
      }
      return then(bytes, withHead, () => ({ answer: opened }));
    });
  }

  #open(root, path) {
    const s = this.storage;
    if (has(s, 'openFile')) {
      return then(s.openFile(root, path), (opened) => {
        const { stats, handle, head } = opened ?? {};
        return this.#opened(stats, handle, head);
      });
    }
    // Refuse what is not a regular file before opening it: a FIFO would block, a device read.
    const stat = has(s, 'lstat') ? s.lstat(path) : has(s, 'stat') ? s.stat(path) : null;
    return then(stat, (stats) => {
      if (stats !== null && kindOf(stats) !== 'file') return metadata(stats);
      if (has(s, 'readRange')) {
        // Bound to the path: such storages (OPFS, Map-like) have no handles and no symlinks to swap.
        return this.#opened(stats, { readAt: (offset, length) => s.readRange(path, offset, length) });
      }
      return this.#openHandle(path, stats);
    });
  }

  /** fs.promises-like: `open(path, 'r')`, then the handle's own `stat()` must be the file checked. */
  async #openHandle(path, stats) {
    const handle = await this.storage.open(path, 'r');
    if (typeof handle?.stat === 'function') {
      let own;
      try {
        own = await handle.stat();
      } catch {
        own = undefined;
      }
      if (own !== undefined) {
        // Swapped between the stat and the open (the open may have followed a link).
        if (differ(stats, own) || kindOf(own) !== 'file') {
          await this.#close(handle);
          if (differ(stats, own)) throw changedError(path);
          return metadata(own);
        }
        stats = own;
      }
    }
    return this.#opened(stats, handle);
  }

  /** `{file, metadata}` for an opened handle (kept by its new id), `{metadata}` for none. */
  #opened(stats, handle, head) {
    // A storage that cannot stat says nothing of the size: the engine reads to the end.
    const meta = stats === null || stats === undefined ? { kind: 'file', size: 0, links: 1 } : metadataOf(stats);
    if (handle === undefined || handle === null) return { metadata: meta };
    const file = this.nextFile++;
    this.files.set(file, head === undefined ? handle : { handle, head });
    return { file, metadata: meta };
  }

  /**
   * Up to `length` bytes at `offset` of an open handle; fewer only at the end of the file. A
   * promise only when the storage answered with one.
   */
  read(opened, offset, length) {
    // The bytes the storage read with its checks: what they hold, or all there is (the end).
    if (opened.head !== undefined) {
      const { head, handle } = opened;
      if (offset + length <= head.length || head.length < head.buffer.byteLength) {
        return head.subarray(Math.min(offset, head.length), Math.min(offset + length, head.length));
      }
      opened = handle;
    }
    if (typeof opened.readAt === 'function') return then(opened.readAt(offset, length), toBytes);
    return this.#readHandle(opened, offset, length);
  }

  async #readHandle(handle, offset, length) {
    // One buffer per operation: the engine copies each answer before asking for the next
    // chunk, so reusing it keeps a long window from leaving a megabyte of garbage per chunk.
    if (this.scratch === undefined || this.scratch.length < length) this.scratch = new Uint8Array(length);
    const buffer = this.scratch.subarray(0, length);
    let filled = 0;
    // A FileHandle may return short reads before the end; the engine reads "fewer only at EOF".
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
      if (!bytesRead) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  }

  async #close(handle) {
    await Promise.resolve()
      .then(() => handle.close?.())
      .catch(() => {});
  }

  /** Whether the request may end before its handles are closed (see `CLOSES_IN_BACKGROUND`). */
  get closesInBackground() {
    return this.storage[CLOSES_IN_BACKGROUND] === true;
  }

  /**
   * Closes the handle of `file` (the engine reads it no more); never throws. A promise only when
   * the handle has a `close` to wait for.
   */
  close(file) {
    const opened = this.files.get(file);
    this.files.delete(file);
    const handle = opened?.head === undefined ? opened : opened.handle;
    if (typeof handle?.close === 'function') return this.#close(handle);
  }

  /**
   * Closes every handle; never throws (a close failure cannot change what was read). A promise
   * only when some handle has a `close` to wait for (ranged storages' handles have none).
   */
  closeAll() {
    let closing;
    for (const opened of this.files.values()) {
      const handle = opened.head === undefined ? opened : opened.handle;
      if (typeof handle?.close === 'function') (closing ??= []).push(this.#close(handle));
    }
    this.files.clear();
    if (closing) return Promise.all(closing);
  }
}

/** A host error as the host protocol's `HostError`: the core classifies `code`/`name` once for every binding. */
export function errorAnswer(err) {
  const pick = (k) => (err !== null && typeof err === 'object' && typeof err[k] === 'string' ? err[k] : undefined);
  const message = pick('message') ?? (typeof err === 'string' ? err : undefined);
  const error = {};
  if (pick('code') !== undefined) error.code = pick('code');
  if (pick('name') !== undefined) error.name = pick('name');
  if (message !== undefined) error.message = message;
  return { error };
}
