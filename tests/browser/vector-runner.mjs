// The behaviour vectors (tests/vectors/README.md) run inside a browser page or worker: no Node
// APIs, no Buffer. Storages built from a vector: an in-memory object (sync, like a host's own
// Map), the Origin Private File System through `fromOPFS`, and LightningFS through
// `fromLightningFS`. Expectations are checked the way tests/node/harness.mjs checks them.

import { fromLightningFS, fromOPFS } from '../../npm/adapters/index.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();
const DEFAULT_SESSIONS = { s1: { cwd: '/project' } };
const WINDOWS_OR_UNC = /^(?:[A-Za-z]:|\\\\|\\)/;

export function bytesOf(content) {
  if (typeof content === 'string') return enc.encode(content);
  if (content && typeof content.hex === 'string') {
    const hex = content.hex.replace(/\s+/g, '');
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return out;
  }
  throw new TypeError(`not file content: ${JSON.stringify(content)}`);
}

const isFileContent = (c) => typeof c === 'string' || (c && typeof c === 'object' && 'hex' in c);
const entries = (v) => Object.entries(v.files ?? {});
const hasSymlinks = (v) => entries(v).some(([, c]) => c && typeof c === 'object' && 'symlink' in c);
const hasSpecial = (v) => entries(v).some(([, c]) => c && typeof c === 'object' && c.special);

function rawParams(vector) {
  if (typeof vector.raw !== 'string') return undefined;
  try {
    return JSON.parse(vector.raw)?.params;
  } catch {
    return undefined;
  }
}

export function usesWindowsPaths(vector) {
  const params = vector.request?.params ?? rawParams(vector);
  const path = params !== null && typeof params === 'object' ? params.path : undefined;
  const sessions = vector.sessions ?? DEFAULT_SESSIONS;
  return [
    path,
    ...Object.keys(vector.files ?? {}),
    ...Object.keys(vector.documents ?? {}),
    ...Object.values(sessions).flatMap((s) => [s.cwd, ...(s.additionalDirectories ?? [])]),
    ...(vector.options?.roots ?? []),
    ...(vector.options?.extraRoots ?? []),
  ].some((p) => typeof p === 'string' && WINDOWS_OR_UNC.test(p));
}

function rangedVariants(vector) {
  const r = vector.storage?.ranged;
  return r === true ? [true] : r === false ? [false] : [true, false];
}

function traits(vector, ranged) {
  const t = vector.storage ?? {};
  return { ranged, write: t.write !== false, realpath: t.realpath !== false, symlinks: t.symlinks !== false };
}

/** A storage's methods cut to the vector's traits (left out, never faked). */
function withTraits(storage, { ranged, write, realpath, symlinks }) {
  const out = { ...storage };
  if (!ranged) {
    delete out.readRange;
    delete out.open;
  }
  if (!write) {
    delete out.writeFile;
    delete out.mkdir;
  }
  if (!symlinks) {
    delete out.lstat;
    delete out.realpath;
  }
  if (!realpath) {
    delete out.realpath;
    out.capabilities = { ...(out.capabilities ?? {}), symlinks: 'unresolvable' };
  }
  return out;
}

const posixParent = (p) => p.slice(0, Math.max(p.lastIndexOf('/'), 0)) || '/';
const isRoot = (p) => p === '/' || /^[A-Za-z]:\\?$/.test(p) || /^\\\\[^\\]+\\[^\\]+\\?$/.test(p);
function parentOf(p) {
  if (isRoot(p)) return p;
  const sep = WINDOWS_OR_UNC.test(p) ? '\\' : '/';
  const i = p.lastIndexOf(sep);
  const parent = i <= 0 ? sep : p.slice(0, i);
  return /^[A-Za-z]:$/.test(parent) ? `${parent}\\` : parent;
}
function ancestors(p) {
  const out = [];
  for (let d = parentOf(p); !out.includes(d); d = parentOf(d)) {
    out.push(d);
    if (isRoot(d)) break;
  }
  return out;
}

function fsError(code, message, path) {
  const e = new Error(`${code}: ${message}, '${path}'`);
  e.code = code;
  e.path = path;
  return e;
}

/**
 * What a host without a file system would write: files in a Map, synchronous methods. No
 * symlinks; POSIX, drive and UNC paths alike (they are only keys).
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
    };
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
      for (const [path, c] of entries(vector)) {
        if (isFileContent(c)) store.put(path, bytesOf(c));
        else if (c.dir) store.addDir(path);
        else if (c.special) {
          store.put(path, new Uint8Array(0));
          store.special.add(path);
        }
      }
      return {
        storage: withTraits(store.methods(), traits(vector, ranged)),
        read: async (p) => store.files.get(p) ?? null,
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
      for (const [path, c] of entries(vector)) {
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
        storage: withTraits(fromOPFS(root), traits(vector, ranged)),
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
      for (const [path, c] of entries(vector)) {
        await mkdirp(posixParent(path));
        if (isFileContent(c)) await p.writeFile(path, bytesOf(c));
        else if (c.symlink !== undefined) await p.symlink(c.symlink, path);
        else if (c.dir) await mkdirp(path);
      }
      return {
        storage: withTraits(fromLightningFS(lfs), traits(vector, false)),
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
// Running and checking (as tests/node/harness.mjs does).

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/** Every key of `want` deep-equals the same key of `got`, recursively for objects. */
function subset(want, got) {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    return got !== null && typeof got === 'object' && Object.entries(want).every(([k, w]) => k in got && subset(w, got[k]));
  }
  return deepEqual(want, got);
}

const show = (x) => JSON.stringify(x);
const same = (a, b) => subset(a, b) && subset(b, a);
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function checkError(want, got, failures, label = 'error') {
  if (!got) return failures.push(`${label}: want code ${want.code}, got no error`);
  if (got.code !== want.code) failures.push(`${label}: code: want ${want.code} got ${got.code} (${show(got)})`);
  if ('message' in want && got.message !== want.message) {
    failures.push(`${label}: message: want ${show(want.message)} got ${show(got.message)}`);
  }
  if ('data' in want && !subset(want.data, got.data ?? null)) {
    failures.push(`${label}: data: want ⊇ ${show(want.data)} got ${show(got.data)}`);
  }
}

async function check(vector, got, prepared, fs) {
  const e = vector.expect ?? {};
  const failures = [];
  if ('raw' in e && !same(e.raw, got.raw)) failures.push(`raw reply: want ${show(e.raw)} got ${show(got.raw)}`);
  if (e.rawError) {
    checkError(e.rawError, got.raw?.error, failures, 'raw error');
    if ('id' in e.rawError && got.raw?.id !== e.rawError.id) failures.push(`raw id: want ${show(e.rawError.id)} got ${show(got.raw?.id)}`);
  }
  if (!('raw' in vector)) {
    if ('result' in e) {
      if (got.error) failures.push(`want result ${show(e.result)}, got error ${show(got.error)}`);
      else if (!same(e.result, got.result)) failures.push(`result: want ${show(e.result)} got ${show(got.result)}`);
    }
    if (e.error) {
      if ('result' in got) failures.push(`want error ${show(e.error)}, got result ${show(got.result)}`);
      else checkError(e.error, got.error, failures);
    }
    if (got.audit !== 1) failures.push(`want one audit event, got ${got.audit}`);
  }
  if ('change' in e && !same(e.change, got.change)) failures.push(`change: want ${show(e.change)} got ${show(got.change)}`);
  if (got.changes > 1) failures.push(`one request gave ${got.changes} change records`);
  for (const [path, want] of Object.entries(e.files ?? {})) {
    const bytes = await prepared.read(path);
    if (bytes === null || !sameBytes(bytes, bytesOf(want))) {
      failures.push(`file ${path}: want ${show(dec.decode(bytesOf(want)))} got ${bytes === null ? 'none' : show(dec.decode(bytes))}`);
    }
  }
  for (const path of e.absent ?? []) if (await prepared.exists(path)) failures.push(`${path} must not exist`);
  for (const [path, want] of Object.entries(e.documents ?? {})) {
    const doc = fs.documents.get(path);
    if (doc !== want) failures.push(`document ${path}: want ${show(want)} got ${show(doc)}`);
  }
  return failures;
}

/** Runs one vector on one backend: `{skip}` or `{failures}`. */
export async function runVector(AcpFs, vector, backend) {
  if (!rangedVariants(vector).includes(backend.ranged)) return { skip: 'the vector pins the other read mode' };
  const prepared = await backend.prepare(vector);
  if (prepared.skip) return { skip: prepared.skip };
  try {
    const hooks = vector.hooks ?? {};
    const changes = [];
    let audits = 0;
    const fs = new AcpFs({
      ...(vector.options ?? {}),
      storage: prepared.storage,
      approveWrite: async () => hooks.approve ?? true,
      onDocumentWrite: () => hooks.documentWrite ?? 'buffer',
      onChange: (c) => changes.push(c),
      onAudit: () => {
        audits += 1;
      },
    });
    for (const [id, s] of Object.entries(vector.sessions ?? DEFAULT_SESSIONS)) {
      fs.openSession(id, { cwd: s.cwd, additionalDirectories: s.additionalDirectories ?? [] });
    }
    for (const [path, text] of Object.entries(vector.documents ?? {})) fs.documents.open(path, text);
    const got = {};
    if (typeof vector.raw === 'string') {
      const reply = await fs.handle(vector.raw);
      got.raw = reply === null ? null : JSON.parse(reply);
    } else {
      const { method, params } = vector.request;
      const call = method === 'fs/read_text_file' ? fs.readTextFile : method === 'fs/write_text_file' ? fs.writeTextFile : null;
      if (!call) return { failures: [`unknown method ${method}`] };
      try {
        got.result = await call(params ?? null);
      } catch (e) {
        if (e?.name !== 'AcpFsError') throw e;
        got.error = e.toJsonRpc();
      }
      got.audit = audits;
    }
    got.change = changes.length ? changes[changes.length - 1] : null;
    got.changes = changes.length;
    return { failures: await check(vector, got, prepared, fs) };
  } catch (e) {
    return { failures: [`threw ${e?.stack ?? e}`] };
  } finally {
    await prepared.cleanup();
  }
}

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
    out.failures.push(`[${label}] the checker did not reject a wrong expectation: ${show(selfTest)}`);
  }
  return out;
}
