// Storages over file-system modules that follow Node's synchronous `fs` API: memfs (a `Volume`,
// `createFsFromVolume(vol)` or `memfs().fs`), ZenFS's `fs` over a synchronous backend (InMemory,
// a mounted zip…), or `node:fs` itself. Their `promises` objects plug into AcpFs unchanged; these
// adapters are the fast path: every call answers without a promise hop, and windows read byte
// ranges through a file descriptor instead of whole files.

import { enotdirBelowFiles, realpathByLinks } from './links.mjs';
import { builtinFs, fromNodeDisk } from '../shared/node-disk.mjs';

const REQUIRED = ['readFileSync', 'statSync', 'openSync', 'readSync', 'closeSync'];

/**
 * A storage over any object with Node's synchronous fs methods. Symlinks are resolvable when the
 * module has `realpathSync` and `lstatSync`; writes and directory creation when it has
 * `writeFileSync` / `mkdirSync`; listings with `readdirSync`, moves with `renameSync`.
 */
export function fromNodeFs(fs, what = 'fromNodeFs') {
  // Node's own fs is a real disk the agent can change under a request: never the unguarded path.
  if (what === 'fromNodeFs' && fs !== undefined && fs === builtinFs()) return fromNodeDisk(fs);
  if (fs === null || (typeof fs !== 'object' && typeof fs !== 'function')) {
    throw new TypeError(`${what}: expected a file-system object, got ${fs === null ? 'null' : typeof fs}`);
  }
  const missing = REQUIRED.filter((name) => typeof fs[name] !== 'function');
  if (missing.length) throw new TypeError(`${what}: the file system has no ${missing.join(', ')}`);
  const has = (name) => typeof fs[name] === 'function';

  const storage = {
    readFile: (path) => fs.readFileSync(path),
    stat: (path) => fs.statSync(path),
    readRange(path, offset, length) {
      const fd = fs.openSync(path, 'r');
      try {
        const buffer = new Uint8Array(length);
        let filled = 0;
        // Short reads may come before the end; the engine takes "fewer bytes" to mean EOF.
        while (filled < length) {
          const n = fs.readSync(fd, buffer, filled, length - filled, offset + filled);
          if (!n) break;
          filled += n;
        }
        return filled === length ? buffer : buffer.subarray(0, filled);
      } finally {
        fs.closeSync(fd);
      }
    },
  };
  if (has('lstatSync')) storage.lstat = (path) => fs.lstatSync(path);
  if (has('realpathSync')) storage.realpath = (path) => String(fs.realpathSync(path));
  if (has('writeFileSync')) storage.writeFile = (path, bytes) => fs.writeFileSync(path, bytes);
  if (has('mkdirSync')) {
    storage.mkdir = (path) => {
      fs.mkdirSync(path, { recursive: true });
    };
    // One directory, for the MCP file tools: EEXIST when anything is there, ENOENT without a parent.
    storage.makeDir = (root, path) => {
      fs.mkdirSync(path);
    };
  }
  // Listings and moves (the MCP file tools); StorageIo describes each entry with lstat and checks
  // that nothing is at a move's destination, with no promise hop before the rename.
  if (has('readdirSync')) storage.readdir = (path) => fs.readdirSync(path).map(String);
  if (has('renameSync')) storage.rename = (from, to) => fs.renameSync(from, to);
  return storage;
}

/** A storage over a memfs `Volume`, or the `fs` made from one (`memfs().fs`, `createFsFromVolume`). */
export function fromMemfs(volume) {
  return fromNodeFs(volume, 'fromMemfs');
}

/**
 * A storage over ZenFS's `fs` whose mounts are synchronous (InMemory, or any backend wrapped for
 * synchronous access). For asynchronous backends (IndexedDB, WebAccess), pass `fs.promises` to
 * AcpFs directly: it is a Node-style storage as it is.
 *
 * Two answers of ZenFS 2.7 are corrected here, because the engine's verdicts depend on them:
 * its `realpath` never returns on a symlink loop (resolved here from `lstat`/`readlink`, ELOOP
 * after 40 links), and a path below a regular file is ENOENT where a disk says ENOTDIR.
 */
export function fromZenFS(fs) {
  const storage = fromNodeFs(fs, 'fromZenFS');
  if (typeof fs.readlinkSync === 'function' && storage.lstat) {
    storage.realpath = (path) => realpathByLinks({ lstat: storage.lstat, readlink: (p) => fs.readlinkSync(p) }, path);
  }
  return enotdirBelowFiles(storage, (path) => fs.statSync(path));
}

/**
 * The local disk through Node's `fs`, hardened against symlink and rename races (see
 * shared/node-disk.mjs). `storage: fs.promises`, `storage: fs` and `fromNodeFs(fs)` with Node's
 * own module become this.
 */
export { fromNodeDisk };
