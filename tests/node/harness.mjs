// The behaviour-vector harness for the npm packages (format: tests/vectors/README.md). Reusable by
// any package that exports the shared `AcpFs` class: load the vectors, build a storage of a given
// backend from a vector, run the vector, and check it against its expectations.
//
// Backends: memfs `Volume` (files, dirs, symlinks, hard links; `special` paths through a thin
// wrapper that reports a non-regular stat), the shared Map storage (tests/shared/map-storage.mjs:
// sync methods, hard links, no symlinks), fs.promises over a real temp dir, and the package's
// native disk over a real temp dir. Each comes ranged (a ranged-read method) and whole (none),
// except native, which always streams. Disk backends prefix every POSIX path of the vector with
// the temp dir, expectations included.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep as SEP } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Volume } from 'memfs';
import { fromNodeDisk } from '../../npm/shared/node-disk.mjs';
import { mapBackend, MapStorage as SharedMapStorage } from '../shared/map-storage.mjs';
import { bytesOf, DEFAULT_SESSIONS, fileEntries, isFileContent, isHardlink, rawParams, storageTraits, usesWindowsPaths } from '../shared/vectors.mjs';

// Running and checking are shared with the in-browser runner; these are re-exported for the
// Node suites that import them from here.
export { bytesOf, rangedVariants, runVector, subset, usesWindowsPaths } from '../shared/vectors.mjs';

export const VECTOR_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors');

/** Every vector, with the file it came from, in a stable order. */
export function loadVectors(dir = VECTOR_DIR) {
  const out = [];
  for (const file of nodeFs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const list = JSON.parse(nodeFs.readFileSync(join(dir, file), 'utf8'));
    assert.ok(Array.isArray(list), `${file}: not a JSON array of vectors`);
    for (const vector of list) out.push({ file, vector });
  }
  return out;
}

/** The shared fake storage (tests/shared/map-storage.mjs), keeping Buffers: Node suites read files back with `toString()`. */
export class MapStorage extends SharedMapStorage {
  copy(data) {
    return Buffer.from(data);
  }
}

/** memfs `vol.promises` with the vector's storage traits; `special` paths stat as non-regular. */
function memfsStorage(vol, special, { ranged, write, realpath, symlinks, list }) {
  const p = vol.promises;
  const fake = (st) => ({ isFile: () => false, isDirectory: () => false, isSymbolicLink: () => false, size: st.size });
  const storage = {
    readFile: (path) => p.readFile(path),
    stat: async (path) => {
      const st = await p.stat(path);
      return special.has(await p.realpath(path)) ? fake(st) : st;
    },
  };
  if (symlinks) {
    storage.lstat = async (path) => (special.has(path) ? fake(await p.lstat(path)) : p.lstat(path));
    if (realpath) storage.realpath = (path) => p.realpath(path);
  }
  if (ranged) storage.open = (path, flags) => p.open(path, flags);
  if (list) storage.readdir = (path) => p.readdir(path);
  if (write) {
    storage.writeFile = (path, data) => p.writeFile(path, data);
    storage.mkdir = (path, opts) => p.mkdir(path, opts);
    storage.rename = (from, to) => p.rename(from, to);
  }
  return storage;
}

/** fs.promises with the vector's storage traits (methods left out, never faked). */
function fsPromisesStorage({ ranged, write, realpath, symlinks, list }) {
  const p = nodeFs.promises;
  const storage = { readFile: p.readFile, stat: p.stat };
  if (symlinks) {
    storage.lstat = p.lstat;
    if (realpath) storage.realpath = p.realpath;
  }
  if (ranged) storage.open = p.open;
  if (list) storage.readdir = p.readdir;
  if (write) {
    storage.writeFile = p.writeFile;
    storage.mkdir = p.mkdir;
    storage.rename = p.rename;
  }
  return storage;
}

// ---------------------------------------------------------------------------------------------
// Temp-dir translation for disk backends.

/** Lexical normalization, reporting whether `..` climbed above `/`. */
function climbsAboveRoot(path) {
  let depth = 0;
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (depth === 0) return true;
      depth -= 1;
    } else depth += 1;
  }
  return false;
}

/** Why a vector cannot run on a real temp dir, or undefined. */
export function diskSkipReason(vector) {
  const params = vector.request?.params ?? rawParams(vector);
  const path = params !== null && typeof params === 'object' ? params.path : undefined;
  const sessions = vector.sessions ?? DEFAULT_SESSIONS;
  const roots = [
    ...Object.values(sessions).flatMap((s) => [s.cwd, ...(s.additionalDirectories ?? [])]),
    ...(vector.options?.roots ?? []),
    ...(vector.options?.extraRoots ?? []),
  ];
  if (usesWindowsPaths(vector)) {
    return 'Windows/UNC path forms have no POSIX temp-dir equivalent';
  }
  if ([path, ...roots].some((p) => typeof p === 'string' && p.startsWith('/') && climbsAboveRoot(p))) {
    return '`..` climbs above `/`, which a temp-dir prefix would turn into a different path';
  }
  return undefined;
}

/**
 * The vector with every POSIX path under `prefix` (expectations included); with `sep` '\\', a
 * Windows prefix (`C:\\...`), and the rest of each path in Windows form too.
 */
export function prefixVector(vector, prefix, sep = '/') {
  const under = (p) => (sep === '/' ? p : p.replaceAll('/', sep));
  const px = (p) => (typeof p === 'string' && p.startsWith('/') ? (p === '/' ? prefix : prefix + under(p)) : p);
  const pxKeys = (obj) => (obj ? Object.fromEntries(Object.entries(obj).map(([k, v]) => [px(k), v])) : obj);
  const pxMessage = (m) => (typeof m === 'string' ? m.replace(/(^|\s)(\/\S*)/g, (_, a, p) => a + px(p)) : m);
  const pxError = (e) => {
    if (!e || typeof e !== 'object') return e;
    const out = { ...e };
    if ('message' in out) out.message = pxMessage(out.message);
    if (out.data && typeof out.data === 'object') {
      out.data = { ...out.data };
      for (const k of ['path', 'uri']) if (k in out.data) out.data[k] = px(out.data[k]);
    }
    return out;
  };
  // A change record names paths in `path`, and in `from` and `createdDirs` when it has them.
  const pxChange = (c) => ({
    ...c,
    path: px(c.path),
    ...('from' in c ? { from: px(c.from) } : {}),
    ...(Array.isArray(c.createdDirs) ? { createdDirs: c.createdDirs.map(px) } : {}),
  });
  // Tool answers are text: every absolute path in them (a line's start, after a space, in a
  // file: URI) is the vector's, so it moves under the prefix too. A drive path's URI is
  // `file:///C:/...` (RFC 8089).
  const uri = (p) => (sep === '/' ? `file://${px(p)}` : `file:///${px(p).replaceAll('\\', '/')}`);
  const pxText = (t) => t.replace(/(^|[\s(])(\/[^\s]*)/gm, (_, a, p) => a + px(p)).replace(/file:\/\/(\/[^\s"]*)/g, (_, p) => uri(p));
  const pxDeep = (x) =>
    typeof x === 'string' ? pxText(x) : Array.isArray(x) ? x.map(pxDeep) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, pxDeep(y)])) : x;
  /** A `tool` call's arguments (`path`, `paths`, `source`, `destination`) and what it expects. */
  const pxToolCall = (tool, expect) => {
    const args = tool.arguments;
    if (args) {
      for (const k of ['path', 'source', 'destination']) if (typeof args[k] === 'string') args[k] = px(args[k]);
      if (Array.isArray(args.paths)) args.paths = args.paths.map(px);
    }
    if (expect?.result) expect.result = pxDeep(expect.result);
    if (Array.isArray(expect?.toolError)) expect.toolError = expect.toolError.map(pxText);
  };
  const v = structuredClone(vector);
  v.files = v.files
    ? Object.fromEntries(
        Object.entries(v.files).map(([k, c]) => [
          px(k),
          c && typeof c === 'object' && 'symlink' in c
            ? { symlink: px(c.symlink) }
            : isHardlink(c)
              ? { hardlink: px(c.hardlink) }
              : c,
        ]),
      )
    : v.files;
  const sessions = v.sessions ?? DEFAULT_SESSIONS;
  v.sessions = Object.fromEntries(
    Object.entries(sessions).map(([id, s]) => [
      id,
      { ...s, cwd: px(s.cwd), additionalDirectories: (s.additionalDirectories ?? []).map(px) },
    ]),
  );
  if (v.options) {
    for (const k of ['roots', 'extraRoots']) if (Array.isArray(v.options[k])) v.options[k] = v.options[k].map(px);
  }
  v.documents = pxKeys(v.documents);
  if (v.request?.params && typeof v.request.params === 'object' && !Array.isArray(v.request.params)) {
    v.request.params.path = px(v.request.params.path);
  }
  if (typeof v.raw === 'string') {
    // Textual, so the id and every other byte of the message stay as the vector wrote them.
    v.raw = v.raw.replace(/("path"\s*:\s*")\//g, (_, a) => `${a}${prefix}/`);
  }
  const e = v.expect ?? {};
  if (v.tool) pxToolCall(v.tool, e);
  if (e.error) e.error = pxError(e.error);
  if (e.rawError) e.rawError = pxError(e.rawError);
  if (e.raw && typeof e.raw === 'object' && e.raw.error) e.raw.error = pxError(e.raw.error);
  e.files = pxKeys(e.files);
  if (Array.isArray(e.absent)) e.absent = e.absent.map(px);
  if (e.change && typeof e.change === 'object') e.change = pxChange(e.change);
  e.documents = pxKeys(e.documents);
  if (Array.isArray(v.steps)) {
    const pxStep = (step) => {
      const out = { ...step };
      if (out.request?.params) out.request = { ...out.request, params: { ...out.request.params, path: px(out.request.params.path) } };
      if (out.expect) {
        out.expect = { ...out.expect };
        if (out.expect.error) out.expect.error = pxError(out.expect.error);
        if (out.expect.change) out.expect.change = pxChange(out.expect.change);
        if (typeof out.expect.staleDocument === 'string') out.expect.staleDocument = px(out.expect.staleDocument);
      }
      if (out.tool) pxToolCall(out.tool, out.expect);
      if (out.edit) out.edit = { files: pxKeys(out.edit.files), documents: pxKeys(out.edit.documents) };
      if (out.documentSaved) out.documentSaved = px(out.documentSaved);
      if (out.documentReloaded) out.documentReloaded = { ...out.documentReloaded, path: px(out.documentReloaded.path) };
      if (out.openSession) out.openSession = { ...out.openSession, cwd: px(out.openSession.cwd) };
      if (out.together) out.together = out.together.map(pxStep);
      return out;
    };
    v.steps = v.steps.map(pxStep);
  }
  return v;
}

function lstatOrNull(path) {
  try {
    return nodeFs.lstatSync(path);
  } catch (e) {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
    throw e;
  }
}

/**
 * Lays the vector's files out (paths already prefixed). `local` gives the path this process makes
 * a path of the vector at, and that of an absolute link target: itself here, the Linux path in the
 * Wine prefix's drive for a tree laid out from Linux for Windows code (tests/cross/wine-vectors.test.mjs).
 */
export function layOutDisk(vector, local = (p) => p) {
  const target = (t) => (/^(?:\/|[A-Za-z]:\\)/.test(t) ? local(t) : t);
  for (const [path, c] of fileEntries(vector)) {
    const at = local(path);
    nodeFs.mkdirSync(dirname(at), { recursive: true });
    if (isFileContent(c)) nodeFs.writeFileSync(at, bytesOf(c));
    else if (isHardlink(c)) nodeFs.linkSync(local(c.hardlink), at);
    else if (c.symlink !== undefined) nodeFs.symlinkSync(target(c.symlink), at);
    else if (c.dir) nodeFs.mkdirSync(at, { recursive: true });
    else if (c.special) execFileSync('mkfifo', [at]);
    else throw new TypeError(`unknown file entry at ${path}: ${JSON.stringify(c)}`);
  }
}

export function makeTempDir(label = 'acpfs-') {
  return nodeFs.realpathSync(nodeFs.mkdtempSync(join(tmpdir(), label)));
}

// ---------------------------------------------------------------------------------------------
// Backends: each `prepare(vector)` gives `{skip}` or
// `{vector, storage, read(path), exists(path), cleanup()}` (storage undefined = native disk).

function memfsBackend(ranged) {
  return {
    name: `memfs ${ranged ? 'ranged' : 'whole'}`,
    ranged,
    prepare(vector) {
      if (usesWindowsPaths(vector)) return { skip: 'memfs is a POSIX file system (no drive or UNC paths)' };
      const vol = new Volume();
      const special = new Set();
      for (const [path, c] of fileEntries(vector)) {
        vol.mkdirSync(dirname(path), { recursive: true });
        if (isFileContent(c)) vol.writeFileSync(path, bytesOf(c));
        else if (isHardlink(c)) vol.linkSync(c.hardlink, path);
        else if (c.symlink !== undefined) vol.symlinkSync(c.symlink, path);
        else if (c.dir) vol.mkdirSync(path, { recursive: true });
        else if (c.special) {
          vol.writeFileSync(path, '');
          special.add(path);
        } else throw new TypeError(`unknown file entry at ${path}`);
      }
      const storage = memfsStorage(vol, special, storageTraits(vector, ranged));
      return {
        vector,
        storage,
        read: (p) => (vol.existsSync(p) && vol.lstatSync(p).isFile() ? Buffer.from(vol.readFileSync(p)) : null),
        write: (p, bytes) => (bytes === null ? vol.unlinkSync(p) : vol.writeFileSync(p, bytes)),
        exists: (p) => {
          try {
            vol.lstatSync(p);
            return true;
          } catch {
            return false;
          }
        },
        cleanup() {},
      };
    },
  };
}

/**
 * Why a vector cannot run on the Windows disk (under Wine), or undefined. Its POSIX paths are
 * laid out below a `C:\\` temp dir in Windows form; what Windows or Wine cannot hold is left out.
 * `linksFromLinux`: the tree is laid out from the Linux side of Wine, which can make its symlinks
 * (tests/cross/wine-vectors.test.mjs).
 */
function windowsDiskSkipReason(vector, makeStorage, linksFromLinux) {
  if (makeStorage) return 'on Windows the JS storages are not run over the disk (the native disk is)';
  const posix = diskSkipReason(vector);
  if (posix) return posix;
  const entries = [...fileEntries(vector)];
  if (!linksFromLinux && entries.some(([, c]) => c && typeof c === 'object' && c.symlink !== undefined)) {
    return 'Windows code under Wine 8 cannot make a symlink: tests/cross/wine-vectors.test.mjs lays these out from Linux (docs/security.md)';
  }
  if (entries.some(([, c]) => c && typeof c === 'object' && c.special)) return 'Windows has no FIFOs';
  if (typeof vector.raw === 'string') return 'a raw message names POSIX paths byte for byte';
  if (/POSIX paths/.test(vector.rule ?? '')) return 'a rule of POSIX paths (Windows paths compare case-insensitively)';
  const params = vector.request?.params ?? rawParams(vector);
  const names = [...entries.map(([p]) => p), typeof params?.path === 'string' ? params.path : ''];
  const badName = (seg) => seg !== '.' && seg !== '..' && (/[\\:*?"<>|]/.test(seg) || /[ .]$/.test(seg));
  if (names.some((p) => p.split('/').some(badName))) return 'a name Windows cannot hold (\\ : * ? " < > |, a trailing dot or space)';
  return undefined;
}

/**
 * A backend over a real temp dir. `full`: the storage always has every capability (vectors that
 * take one away are skipped). Besides `prepare`, `skipReason` and `onDisk` serve a tree laid out
 * by another process (`laidOut`).
 */
function diskBackend(name, ranged, makeStorage, { full = !makeStorage } = {}) {
  const backend = {
    name,
    ranged,
    /**
     * Why this backend cannot run `original` on the disk of this platform (or Windows', with
     * `windows`), or undefined.
     */
    skipReason(original, { windows = process.platform === 'win32', linksFromLinux = false } = {}) {
      const reason = windows ? windowsDiskSkipReason(original, makeStorage, linksFromLinux) : diskSkipReason(original);
      if (reason) return reason;
      const flags = storageTraits(original, ranged);
      if (full && (!flags.write || !flags.realpath || !flags.symlinks || !flags.list || !ranged)) {
        return `${name} always has every capability (write, symlinks, realpath, listing, ranged reads)`;
      }
      return undefined;
    },
    prepare(original) {
      const reason = backend.skipReason(original);
      if (reason) return { skip: reason };
      const dir = makeTempDir();
      const vector = prefixVector(original, dir, SEP);
      try {
        layOutDisk(vector);
      } catch (e) {
        nodeFs.rmSync(dir, { recursive: true, force: true });
        throw e;
      }
      return backend.onDisk(vector, dir, () => nodeFs.rmSync(dir, { recursive: true, force: true }));
    },
    /** The run over `vector`'s tree, laid out below `dir` (the vector already prefixed with it). */
    onDisk(vector, dir, cleanup) {
      return {
        vector,
        prefix: dir,
        storage: makeStorage ? makeStorage(storageTraits(vector, ranged)) : undefined,
        read: (p) => (lstatOrNull(p)?.isFile() ? nodeFs.readFileSync(p) : null),
        write: (p, bytes) => (bytes === null ? nodeFs.rmSync(p) : nodeFs.writeFileSync(p, bytes)),
        exists: (p) => lstatOrNull(p) !== null,
        cleanup,
      };
    },
  };
  return backend;
}

/**
 * `backend` (a disk backend) over trees another process laid out and will remove: `prefixes` maps
 * a vector's name to the directory its tree is below, in this platform's form (the vector is
 * prefixed with it as `prepare` would). Vectors not in it are skipped.
 */
export function laidOut(backend, prefixes) {
  return {
    name: `${backend.name} (laid out beforehand)`,
    ranged: backend.ranged,
    prepare(original) {
      const dir = prefixes[original.name];
      if (dir === undefined) return { skip: 'not laid out' };
      return backend.onDisk(prefixVector(original, dir, SEP), dir, () => {});
    },
  };
}

/** JS-storage backends (any package); `native` needs a package whose `AcpFs` works without storage. */
export const backends = {
  memfsRanged: memfsBackend(true),
  memfsWhole: memfsBackend(false),
  mapRanged: mapBackend(true, MapStorage),
  mapWhole: mapBackend(false, MapStorage),
  fsPromisesRanged: diskBackend('fs.promises ranged', true, fsPromisesStorage),
  fsPromisesWhole: diskBackend('fs.promises whole', false, fsPromisesStorage),
  native: diskBackend('native disk', true, null),
  // The hardened node:fs adapter: what `storage: fs.promises` becomes, in both packages.
  nodeDisk: diskBackend('fromNodeDisk (node:fs, hardened)', true, () => fromNodeDisk(), { full: true }),
};

// ---------------------------------------------------------------------------------------------
// Running and checking.

/**
 * What must be identical across backends: the answer (with the temp-dir prefix taken out) and the
 * change record. Storage-error details quote the host's own message, so only their kind counts.
 */
export function parityView(run) {
  // Through JSON either way, so an absent field and an undefined one compare equal.
  const strip = (x) => {
    const text = JSON.stringify(x ?? null);
    if (!run.prefix) return JSON.parse(text);
    if (!run.prefix.includes('\\')) return JSON.parse(text.split(`${run.prefix}/`).join('/').split(run.prefix).join('/'));
    // A Windows prefix (C:\\...): each path it starts goes back to its POSIX form.
    const unprefix = (t) =>
      t.split(run.prefix).map((part, i) => (i === 0 ? part : part.replace(/^[^\s]*/, (p) => (p.startsWith('\\') ? p.replaceAll('\\', '/') : `/${p}`)))).join('');
    const deep = (y) =>
      typeof y === 'string'
        ? unprefix(y)
        : Array.isArray(y)
          ? y.map(deep)
          : y && typeof y === 'object'
            ? Object.fromEntries(Object.entries(y).map(([k, v]) => [unprefix(k), deep(v)]))
            : y;
    return deep(JSON.parse(text));
  };
  const errorView = (err) => {
    if (!err) return err;
    if (err.data?.errorKind === 'storage_error') return { code: err.code, errorKind: 'storage_error' };
    return err;
  };
  const g = run.got;
  return strip({
    result: g.result,
    error: errorView(g.error),
    raw: g.raw && g.raw.error ? { ...g.raw, error: errorView(g.raw.error) } : g.raw,
    change: g.change,
  });
}
