// Node-style storages (node:fs/promises, memfs `vol.promises`, ZenFS `fs.promises`, plain
// objects): what they can do, and how one engine io is performed against them. Policy never lives
// here: every answer goes back to the core, which decides.

const encoder = new TextEncoder();

const has = (storage, name) => typeof storage[name] === 'function';

/**
 * WireCaps from the storage's shape; `storage.capabilities` may override any field. Symlinks are
 * 'resolvable' only with both `realpath` and `lstat`, 'none' with neither, and otherwise
 * 'unresolvable': a storage that can show links but not resolve them must fail closed.
 */
export function deriveCaps(storage) {
  const realpath = has(storage, 'realpath');
  const lstat = has(storage, 'lstat');
  const caps = {
    symlinks: realpath && lstat ? 'resolvable' : !realpath && !lstat ? 'none' : 'unresolvable',
    stat: has(storage, 'stat') || lstat,
    rangedReads: has(storage, 'readRange') || has(storage, 'open'),
    write: has(storage, 'writeFile'),
    makeDirs: has(storage, 'mkdir'),
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

function metadata(stats) {
  const kind = flag(stats, 'isSymbolicLink')
    ? 'symlink'
    : flag(stats, 'isFile')
      ? 'file'
      : flag(stats, 'isDirectory')
        ? 'directory'
        : 'other';
  const size = Number(stats?.size ?? 0);
  const links = Number(stats?.nlink ?? 1);
  // The modification time identifies a version of the file for the engine's line index; a
  // storage without one (no mtimeMs) gets no index and stays correct.
  const modified = Number(stats?.mtimeMs);
  return {
    metadata: {
      kind,
      size: Number.isFinite(size) && size >= 0 ? size : 0,
      links: Number.isFinite(links) && links >= 1 ? links : 1,
      ...(Number.isFinite(modified) && modified >= 0 ? { modifiedMs: modified } : {}),
    },
  };
}

/**
 * Performs the storage ios of one operation. Every file the engine opens is one entry, read by
 * number until the operation ends (`closeAll()`): one open file per read, and opening per chunk
 * would cost more than the read.
 */
export class StorageSession {
  constructor(storage) {
    this.storage = storage;
    this.files = [];
  }

  /** Performs `io`; resolves to `{answer, bytes?}`. Throws what the storage threw. */
  async perform(io, bytes) {
    const s = this.storage;
    switch (io.op) {
      case 'stat': {
        const useLstat = !io.follow && has(s, 'lstat');
        const stats = useLstat ? await s.lstat(io.path) : await (has(s, 'stat') ? s.stat(io.path) : s.lstat(io.path));
        return { answer: metadata(stats) };
      }
      case 'realPath': {
        const p = await s.realpath(io.path);
        return { answer: { path: typeof p === 'string' ? p : String(p) } };
      }
      case 'readAll':
        return { answer: { bytes: true }, bytes: toBytes(await s.readFile(io.path)) };
      case 'open':
        return { answer: await this.open(io.path) };
      case 'readAt':
        return { answer: { bytes: true }, bytes: await this.readAt(io.file, io.offset, io.length) };
      case 'makeDirs':
        await this.closeAll();
        await s.mkdir(io.path, { recursive: true });
        return { answer: { done: true } };
      case 'write':
        await this.closeAll();
        await s.writeFile(io.path, bytes);
        return { answer: { done: true } };
      default:
        throw new TypeError(`not a storage io: ${io.op}`);
    }
  }

  /** Opens the checked path: a handle where the storage has `open`, else the path itself. */
  async open(path) {
    const s = this.storage;
    let meta = { metadata: { kind: 'file', size: 0, links: 1 } };
    // Non-regular files are refused before they are opened (a FIFO could block forever).
    if (has(s, 'stat') || has(s, 'lstat')) meta = metadata(await (has(s, 'stat') ? s.stat(path) : s.lstat(path)));
    if (meta.metadata.kind !== 'file') return meta;
    const entry = has(s, 'readRange') ? { path } : { handle: await s.open(path, 'r') };
    this.files.push(entry);
    return { file: this.files.length - 1, ...meta };
  }

  async readAt(file, offset, length) {
    const entry = this.files[file];
    if (entry === undefined) throw new TypeError(`the operation has no open file ${file}`);
    if (entry.handle === undefined) return toBytes(await this.storage.readRange(entry.path, offset, length));
    // One buffer per operation: the engine copies each answer before asking for the next
    // chunk, so reusing it keeps a long window from leaving a megabyte of garbage per chunk.
    if (this.scratch === undefined || this.scratch.length < length) this.scratch = new Uint8Array(length);
    const buffer = this.scratch.subarray(0, length);
    let filled = 0;
    // A FileHandle may return short reads before the end; the engine reads "fewer only at EOF".
    while (filled < length) {
      const { bytesRead } = await entry.handle.read(buffer, filled, length - filled, offset + filled);
      if (!bytesRead) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  }

  /** Closes every handle; never throws (a close failure cannot change what was read). */
  async closeAll() {
    const handles = this.files.map((f) => f.handle).filter((h) => h !== undefined);
    this.files = [];
    await Promise.all(handles.map((h) => Promise.resolve().then(() => h.close?.()).catch(() => {})));
  }
}

/** What a host error becomes on the wire: the core classifies `code`/`name` once for every binding. */
export function errorAnswer(err) {
  const pick = (k) => (err !== null && typeof err === 'object' && typeof err[k] === 'string' ? err[k] : undefined);
  const message = pick('message') ?? (typeof err === 'string' ? err : undefined);
  const error = {};
  if (pick('code') !== undefined) error.code = pick('code');
  if (pick('name') !== undefined) error.name = pick('name');
  if (message !== undefined) error.message = message;
  return { error };
}
