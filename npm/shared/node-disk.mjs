// The real disk through Node's fs, hardened against an agent that swaps directories and files for
// symlinks while its requests run (docs/semantics.md §3, §5). It is what `storage: fs.promises`
// and `storage: fs` become (hostStorage, below), in @acp-fs/node and in @acp-fs/wasm under Node.
// This module imports nothing from Node: browsers load it with the rest of the shared driver and
// never call it.
//
// Node has no openat/renameat, so on Linux the directory a write goes to is opened once,
// checked through /proc/self/fd, and every later name in it is reached through that descriptor
// (`/proc/self/fd/<fd>/<name>`: the kernel follows the descriptor, not the path), which is what
// openat would give. Reads open with O_NOFOLLOW and accept the descriptor only when
// /proc/self/fd says it is the checked real path. Without /proc (macOS, Windows, a container
// without procfs) the same checks are made by path before and after, which narrows the race but
// cannot close it.

const TEMP = /^\.(.*)\.acp-fs-(\d+)-(\d+)\.tmp$/;
/** Leftover temporaries of crashed processes can hold a name; a few fresh names get past them. */
const TEMP_ATTEMPTS = 16;
/** Bytes of the target's name kept in a temporary's name (as core/src/disk.rs). */
const TEMP_NAME_KEEP = 180;
let tempCounter = 0;
/** Bytes read with the checks when a file is opened (the engine's first chunk, core FIRST_CHUNK). */
const HEAD = 16 * 1024;

/** Node's `fs` module when running in Node (20.16+: `process.getBuiltinModule`), else undefined. */
export function builtinFs() {
  try {
    return globalThis.process?.getBuiltinModule?.('node:fs');
  } catch {
    return undefined;
  }
}

/** The module object itself, or the one behind an ES module namespace (`import * as fs`). */
const unwrap = (value) =>
  value !== null && typeof value === 'object' && Object.prototype.toString.call(value) === '[object Module]' && value.default
    ? value.default
    : value;

/**
 * The storage AcpFs uses for what the host passed: Node's own `fs` or `fs.promises` (as imported
 * any way) become the hardened disk adapter; anything else is used as it is.
 */
export function hostStorage(storage) {
  const fs = builtinFs();
  if (fs === undefined) return storage;
  const s = unwrap(storage);
  return s === fs || s === fs.promises ? fromNodeDisk(fs) : storage;
}

function failure(code, message, path) {
  const e = new Error(code ? `${code}: ${message}, '${path}'` : `${message}: ${path}`);
  if (code) e.code = code;
  e.path = path;
  return e;
}

// The engine's code for "the disk moved after the check" (core host::classify): the agent gets
// symlink_escape, as from the native disk, not a storage_error.
/** Stats of something that is not a regular file, for an open that proved as much and no more. */
const NOT_REGULAR = Object.freeze({ isFile: () => false, isDirectory: () => false, isSymbolicLink: () => false, size: 0, nlink: 1 });

const raced = (path, what) =>
  failure('ERR_ACP_FS_ESCAPE', `refused: ${what} changed while it was opened (a symlink or rename raced the check)`, path);

/** Whether a pid names a live process (EPERM: alive, someone else's). */
function alive(pid) {
  if (!(pid > 0) || pid === globalThis.process.pid) return true;
  try {
    globalThis.process.kill(pid, 0);
    return true;
  } catch (e) {
    return e?.code !== 'ESRCH';
  }
}

/** The first `max` UTF-8 bytes of `name`, cut at a character boundary. */
function keepBytes(name, max) {
  let bytes = 0;
  let out = '';
  for (const ch of name) {
    const n = ch.codePointAt(0) < 0x80 ? 1 : ch.codePointAt(0) < 0x800 ? 2 : ch.codePointAt(0) < 0x10000 ? 3 : 4;
    if (bytes + n > max) break;
    bytes += n;
    out += ch;
  }
  return out;
}

/**
 * What a disk storage that must check paths (no /proc/self/fd) cannot promise: the one wording
 * of it, for the warning below and the wasm fallback's `backendReason` (load.cjs).
 */
export const PATH_CHECKS =
  'without /proc/self/fd its local disk checks paths, which narrows but does not close the race ' +
  'with an agent that swaps a directory for a link (docs/security.md)';

/** Whether /proc/self/fd names this process's descriptors, so a storage can check them (Linux). */
export function procFdUsable(fs) {
  try {
    return globalThis.process?.platform === 'linux' && fs.readdirSync('/proc/self/fd').length > 0;
  } catch {
    return false;
  }
}

let pathChecksWarned = false;
/**
 * Said once per process, when a disk storage first has to check by path: a host on macOS or
 * Windows may not know it took that road (the wasm fallback, `storage: fs.promises`).
 */
function warnPathChecks() {
  if (pathChecksWarned) return;
  pathChecksWarned = true;
  globalThis.process?.emitWarning?.(
    `the JS disk storage: ${PATH_CHECKS}. For the local disk use @acp-fs/node's native backend ` +
      "(AcpFs.backend === 'native'; AcpFs.backendReason says why it did not load).",
    { type: 'SecurityWarning', code: 'ACP_FS_PATH_CHECKED_DISK' },
  );
}

/**
 * Marks a storage whose open handles are the process's own file descriptors on a POSIX system:
 * closing one changes nothing another call can see, so a request ends without waiting for its
 * closes (a round trip through libuv's pool per read). A storage whose close has effects (ZenFS
 * shows a file as missing while its handle closes) or a Windows handle (which can hold up a
 * rename over the file) must not carry it.
 */
export const CLOSES_IN_BACKGROUND = Symbol.for('acp-fs.closesInBackground');

/**
 * A storage over the local disk through Node's `fs` (default: the built-in one), hardened for a
 * workspace the agent can change while its requests run:
 * - a file is opened once per request (`openFile`) with O_NOFOLLOW|O_NONBLOCK, and accepted only
 *   if it is a regular file whose descriptor is the checked real path (Linux: /proc/self/fd;
 *   elsewhere: the same dev/ino as an lstat of that path), and every range is read from it;
 * - writes are atomic and happen inside the directory that was checked: a temporary
 *   `.<name>.acp-fs-<pid>-<n>.tmp` created exclusively with the old file's mode, written,
 *   fsync'd, renamed over the target, the directory fsync'd; the temporary is removed on every
 *   failure, and stale ones of dead processes are swept from the directory on each write;
 * - a final symlink is replaced by the rename, never written through; a read-only file stays
 *   protected (EACCES) although a rename would only need the directory's permission;
 * - `links` (the hard-link count) is reported so the engine can refuse hard-linked files;
 * - listings, moves and new directories (`listDirectory`, `move`, `makeDir`) go through the
 *   directory opened and proved as for a write: entries are read and described (lstat) through
 *   its descriptor, a move never replaces what is at the destination, and a directory moved out
 *   of the root meanwhile is refused.
 */
export function fromNodeDisk(fs = builtinFs(), { procfs = true } = {}) {
  if (fs === null || typeof fs !== 'object' || typeof fs.promises?.open !== 'function') {
    throw new TypeError('fromNodeDisk: expected Node\'s fs module (with fs.promises)');
  }
  const fsp = fs.promises;
  const c = fs.constants ?? {};
  const windows = globalThis.process?.platform === 'win32';
  const sep = windows ? '\\' : '/';
  let procChecked;
  /** Whether /proc/self/fd can name descriptors (decided on first use). */
  const procFd = () => {
    if (procChecked === undefined) {
      // `procfs: false` (tests only) takes the path-checking road that macOS and Windows take.
      procChecked = procfs !== false && procFdUsable(fs);
      if (!procChecked) warnPathChecks();
    }
    return procChecked;
  };
  const READ = (c.O_RDONLY ?? 0) | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0) | (c.O_NOCTTY ?? 0);
  const WRITABLE = (c.O_WRONLY ?? 1) | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0) | (c.O_NOCTTY ?? 0);
  const WRITABLE_READ = (c.O_RDWR ?? 2) | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0) | (c.O_NOCTTY ?? 0);
  const DIR = (c.O_RDONLY ?? 0) | (c.O_DIRECTORY ?? 0) | (c.O_NOFOLLOW ?? 0);
  const CREATE = (c.O_WRONLY ?? 1) | (c.O_CREAT ?? 0x40) | (c.O_EXCL ?? 0x80) | (c.O_NOFOLLOW ?? 0);

  const split = (path) => {
    const i = Math.max(path.lastIndexOf('/'), windows ? path.lastIndexOf('\\') : -1);
    const dir = i <= 0 ? path.slice(0, i + 1) || sep : path.slice(0, i);
    // `C:\x` keeps its separator: `C:` alone is the drive's current directory.
    return { dir: windows && /^[A-Za-z]:$/.test(dir) ? dir + sep : dir, name: path.slice(i + 1) };
  };
  const under = (root, path) => {
    if (root === null || root === undefined) return true;
    if (path === root) return true;
    return path.startsWith(root.endsWith(sep) || root.endsWith('/') ? root : root + sep);
  };
  const fdPath = (handle) => fsp.readlink(`/proc/self/fd/${handle.fd}`);

  /**
   * Opens a directory and proves it is `dir` (symlink-free) under `root`. Without /proc there
   * is nothing to pin it by: the path is checked and a stand-in handle returned.
   */
  async function openDir(root, dir) {
    if (!procFd()) {
      if ((await fsp.realpath(dir)) !== dir || !under(root, dir)) throw raced(dir, 'the directory');
      return { fd: null, close: async () => {}, sync: async () => {} };
    }
    const handle = await fsp.open(dir, DIR).catch(async (e) => {
      throw await whyNotDir(e, dir);
    });
    try {
      const real = await fdPath(handle);
      if (real !== dir || !under(root, real)) throw raced(dir, 'the directory');
      return handle;
    } catch (e) {
      await handle.close().catch(() => {});
      throw e;
    }
  }

  /**
   * A directory open of a symlink answers ENOTDIR (O_DIRECTORY is checked before O_NOFOLLOW).
   * A symlink there means a directory was swapped after the engine's check: a symlink escape
   * (semantics.md §8.2), not "a parent is not a directory". The lstat only picks the error.
   */
  async function whyNotDir(e, path) {
    if (e?.code === 'ELOOP') return raced(path, 'a directory on the way');
    if (e?.code !== 'ENOTDIR') return e;
    const st = await fsp.lstat(path).catch(() => null);
    return st?.isSymbolicLink() ? raced(path, 'a directory on the way') : e;
  }

  /** `name` inside the opened directory `dir`: through the descriptor where /proc allows. */
  const within = (handle, dir, name) => (procFd() ? `/proc/self/fd/${handle.fd}/${name}` : dir.endsWith(sep) ? dir + name : dir + sep + name);

  /**
   * `{stats}` for a non-regular file, `{stats, handle, head}` for a regular one proven to be
   * `path`. `head` is the file's first HEAD bytes, read from the same descriptor while it is
   * being checked (and dropped if the check fails): a small file costs no further trip through
   * libuv's pool, and every byte still comes from the one file that was checked.
   */
  async function openFile(root, path) {
    let handle;
    try {
      handle = await fsp.open(path, READ);
    } catch (e) {
      if (e?.code === 'ELOOP') throw failure('ERR_ACP_FS_ESCAPE', 'refused to follow a symlink (swapped in after the check, or a loop)', path);
      // ENXIO from a read-only non-blocking open: a socket, or a device with no driver. Neither
      // is a regular file, which the open itself says: the engine refuses it as not_a_file
      // (semantics.md §3), with no second lookup of the path, as the native disk does.
      if (e?.code === 'ENXIO') return { stats: NOT_REGULAR };
      throw e;
    }
    try {
      let stats;
      let head;
      if (procFd()) {
        // Linux: the descriptor's own path, read from the kernel, is the checked one under the
        // root: what was opened is what was checked, whatever was swapped and swapped back in
        // between (a swapped directory shows in the path; a swapped final component is refused by
        // O_NOFOLLOW). The stats and the head come from the same descriptor at the same time.
        const buffer = new Uint8Array(HEAD);
        let real;
        [stats, real, head] = await Promise.all([
          handle.stat({ bigint: true }),
          fdPath(handle),
          // A FIFO or device opened O_NONBLOCK reads nothing or fails: the head is then dropped.
          handle.read(buffer, 0, HEAD, 0).then(
            ({ bytesRead }) => buffer.subarray(0, bytesRead),
            () => undefined,
          ),
        ]);
        if (real !== path || !under(root, real)) throw raced(path, 'the file');
      } else {
        // Elsewhere the path is resolved before and after an lstat that must find the opened
        // file, so a swap must be undone and redone in between.
        stats = await handle.stat({ bigint: true });
        const lst = (await fsp.realpath(path)) === path ? await fsp.lstat(path, { bigint: true }) : { dev: -1n, ino: -1n };
        if (lst.dev !== stats.dev || lst.ino !== stats.ino || (await fsp.realpath(path)) !== path || !under(root, path)) {
          throw raced(path, 'the file');
        }
      }
      if (!stats.isFile()) {
        await handle.close();
        return { stats };
      }
      return { stats, handle, head };
    } catch (e) {
      await handle.close().catch(() => {});
      throw e;
    }
  }

  /** Removes temporaries of processes that no longer run from the opened directory. */
  async function sweep(handle, dir) {
    let names;
    try {
      names = await fsp.readdir(procFd() ? `/proc/self/fd/${handle.fd}` : dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = TEMP.exec(name);
      if (m && !alive(Number(m[2]))) await fsp.unlink(within(handle, dir, name)).catch(() => {});
    }
  }

  async function createTemp(handle, dir, name, mode) {
    const stem = keepBytes(name, TEMP_NAME_KEEP);
    const pid = globalThis.process?.pid ?? 0;
    let last;
    for (let i = 0; i < TEMP_ATTEMPTS; i++) {
      const tempName = `.${stem}.acp-fs-${pid}-${tempCounter++}.tmp`;
      // Without /proc the create goes by path: the directory is checked again right before it,
      // so a swap must land in the one step between (narrowed, not closed: docs/security.md).
      if (!procFd() && (await fsp.realpath(dir)) !== dir) throw raced(dir, 'the directory');
      try {
        // Born no more permissive than the file it replaces; the exact mode is set next.
        const file = await fsp.open(within(handle, dir, tempName), CREATE, mode === null ? 0o666 : mode & 0o777);
        return { file, tempName };
      } catch (e) {
        if (e?.code !== 'EEXIST') throw e;
        last = e;
      }
    }
    throw last;
  }

  async function replaceFile(root, path, bytes) {
    const { dir, name } = split(path);
    if (!name || name === '.' || name === '..') throw failure('EISDIR', 'illegal operation on a directory, write', path);
    const dirHandle = await openDir(root, dir);
    try {
      await sweep(dirHandle, dir);
      const target = within(dirHandle, dir, name);
      let mode = null;
      const st = await fsp.lstat(target).catch((e) => {
        if (e?.code === 'ENOENT') return null;
        throw e;
      });
      if (st?.isDirectory()) throw failure('EISDIR', 'illegal operation on a directory, write', path);
      let old = null;
      if (st?.isFile()) {
        // A rename needs only the directory's permission: ask the OS whether the file itself
        // may be written, without changing it (O_NOFOLLOW|O_NONBLOCK: no link, no FIFO block).
        // The handle is kept: an in-place write goes through it, and its stat is the file's.
        old = await openOld(target);
        mode = old.stats.mode & 0o7777;
      }
      try {
        // A final symlink or special file is replaced by the rename, never written through.
        const temp = await createTemp(dirHandle, dir, name, mode).catch((e) => {
          // The directory takes no new name but the file may be written: saved in place, as an
          // editor saves it (semantics.md §5 "What a write keeps").
          if (old !== null && (e?.code === 'EACCES' || e?.code === 'EPERM')) return null;
          throw e;
        });
        if (temp === null) return await inPlace(old, bytes);
        if (old !== null && !(await keepOwner(temp.file, old.stats))) {
          // Only root may give a file away; the rename would make it this user's.
          await temp.file.close();
          await fsp.unlink(within(dirHandle, dir, temp.tempName)).catch(() => {});
          return await inPlace(old, bytes);
        }
        // Windows refuses to rename over a file that still has an open handle.
        await old?.handle.close();
        old = null;
        await replaceWith(temp, bytes, mode, dirHandle, dir, target);
      } finally {
        await old?.handle.close().catch(() => {});
      }
      // Durability of the rename; not reported: the new content is in place.
      await dirHandle.sync().catch(() => {});
    } finally {
      await dirHandle.close().catch(() => {});
    }
  }

  /** The file a write replaces, opened for reading and writing where it may be read. */
  async function openOld(target) {
    const handle = await fsp.open(target, WRITABLE_READ).catch((e) =>
      e?.code === 'EACCES' ? fsp.open(target, WRITABLE) : Promise.reject(e),
    );
    return { handle, stats: await handle.stat() };
  }

  /** Gives the temporary the old file's owner and group; false where only root could. */
  async function keepOwner(file, stats) {
    const now = await file.stat();
    if (now.uid === stats.uid && now.gid === stats.gid) return true;
    return file.chown(stats.uid, stats.gid).then(
      () => true,
      (e) => (e?.code === 'EPERM' ? false : Promise.reject(e)),
    );
  }

  /**
   * Writes `bytes` over the old file through its handle (owner, mode, links, attributes stay).
   * A failure (a full disk) puts the old bytes back where they could be read, so the answer is
   * an error and the old content whole; a crash midway can leave a mix (semantics.md §5).
   */
  async function inPlace(old, bytes) {
    const before = await old.handle.readFile().catch(() => null);
    const writeAll = async (data) => {
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await old.handle.write(data, written, data.length - written, written);
        written += bytesWritten;
      }
      await old.handle.truncate(data.length);
      await old.handle.sync();
    };
    try {
      await writeAll(bytes);
    } catch (e) {
      if (before !== null) await writeAll(before).catch(() => {});
      throw e;
    }
  }

  /** Fills the temporary, checks the directory is still the one checked, renames it in. */
  async function replaceWith({ file, tempName }, bytes, mode, dirHandle, dir, target) {
    let renamed = false;
    try {
      try {
        // The mode goes on before the content, so a private file's content never sits in a
        // temporary file that others may read.
        if (mode !== null) await file.chmod(mode);
        let written = 0;
        while (written < bytes.length) {
          const { bytesWritten } = await file.write(bytes, written, bytes.length - written, written);
          written += bytesWritten;
        }
        await file.sync();
      } finally {
        await file.close();
      }
      if (!procFd()) {
        // By path only: the directory must still be the one checked.
        const real = await fsp.realpath(dir);
        if (real !== dir) throw raced(dir, 'the directory');
      } else if ((await fdPath(dirHandle)) !== dir) {
        throw raced(dir, 'the directory');
      }
      await fsp.rename(within(dirHandle, dir, tempName), target);
      renamed = true;
    } finally {
      if (!renamed) await fsp.unlink(within(dirHandle, dir, tempName)).catch(() => {});
    }
  }

  /** Removes the empty directory `path` (a failed write taking back what it made). */
  async function removeDir(root, path) {
    const { dir, name } = split(path);
    if (!name || name === '.' || name === '..') throw failure('EPERM', 'not a directory below a root, rmdir', path);
    const handle = await openDir(root, dir);
    try {
      await fsp.rmdir(within(handle, dir, name));
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async function makeDirs(root, path) {
    if (!under(root, path)) throw raced(path, 'the directory');
    // From the nearest existing ancestor down, one component at a time.
    const missing = [];
    let start = path;
    for (;;) {
      const st = await fsp.lstat(start).catch((e) => (e?.code === 'ENOENT' ? null : Promise.reject(e)));
      if (st !== null) break;
      const { dir, name } = split(start);
      if (dir === start) break;
      missing.unshift(name);
      start = dir;
    }
    if (!procFd()) {
      // By path: each parent is checked right before its one directory is made, so a swap must
      // land in the step between (narrowed, not closed: docs/security.md). `mkdir -p` would walk
      // the whole path again for every component.
      let at = start;
      for (const part of missing) {
        if ((await fsp.realpath(at).catch(() => null)) !== at) throw raced(at, 'a directory on the way');
        at = at.endsWith(sep) ? at + part : at + sep + part;
        await fsp.mkdir(at).catch((e) => {
          if (e?.code !== 'EEXIST') throw e;
        });
      }
      const st = await fsp.lstat(path);
      if (!st.isDirectory()) throw failure('ENOTDIR', 'a component exists and is not a directory, mkdir', path);
      if ((await fsp.realpath(path)) !== path) throw raced(path, 'a directory on the way');
      return;
    }
    // Through /proc: from the nearest existing ancestor (proven by its descriptor to be that real
    // path) down, one component at a time through the parent's descriptor, never following a
    // link: what is created is where the engine checked, whatever is swapped meanwhile.
    let handle = await openDir(root !== null && root !== undefined && under(root, start) ? root : undefined, start).catch((e) => {
      throw e?.code === 'ENOTDIR' || e?.code === 'ELOOP' ? failure('ENOTDIR', 'a component exists and is not a directory, mkdir', path) : e;
    });
    try {
      for (const part of missing) {
        const next = `/proc/self/fd/${handle.fd}/${part}`;
        await fsp.mkdir(next).catch((e) => {
          if (e?.code !== 'EEXIST') throw e;
        });
        const child = await fsp.open(next, DIR).catch(async (e) => {
          const why = await whyNotDir(e, next);
          throw why?.code === 'ENOTDIR' ? failure('ENOTDIR', 'a component exists and is not a directory, mkdir', path) : why;
        });
        await handle.close().catch(() => {});
        handle = child;
      }
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /** The directory handle still is `dir` (it was not moved away since it was proved). */
  async function stillThere(handle, dir) {
    const now = procFd() ? await fdPath(handle) : await fsp.realpath(dir);
    if (now !== dir) throw raced(dir, 'the directory');
  }

  /** `[{name, stats}]` of the directory `path`, read and described through its proved handle. */
  async function listDirectory(root, path) {
    const handle = await openDir(root, path);
    try {
      const names = await fsp.readdir(procFd() ? `/proc/self/fd/${handle.fd}` : path);
      const entries = [];
      for (const name of names) {
        try {
          entries.push({ name, stats: await fsp.lstat(within(handle, path, name), { bigint: true }) });
        } catch (e) {
          // Gone since the directory was read: not an entry any more.
          if (e?.code !== 'ENOENT') throw e;
        }
      }
      // Without /proc the names were read by path: the path must still be the directory.
      if (!procFd()) await stillThere(handle, path);
      return entries;
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /**
   * Moves `from` to `to` between their proved parent directories, never replacing: Node has no
   * renameat2, so a file (or link) is hard-linked to its new name (which refuses an existing one,
   * atomically) and then unlinked from the old; a directory, or a file system without hard links,
   * is renamed after a check that nothing is at `to`, where the one thing the rename could then
   * replace is an empty directory that appeared in between.
   */
  async function move(root, from, to) {
    const src = split(from);
    const dst = split(to);
    if (!src.name || !dst.name || from === root || to === root) {
      throw failure('EINVAL', 'a root is never moved, rename', from);
    }
    const fromDir = await openDir(root, src.dir);
    try {
      const toDir = await openDir(root, dst.dir);
      try {
        const source = within(fromDir, src.dir, src.name);
        const target = within(toDir, dst.dir, dst.name);
        const st = await fsp.lstat(source);
        await stillThere(fromDir, src.dir);
        await stillThere(toDir, dst.dir);
        if (!st.isDirectory()) {
          let linked = false;
          try {
            await fsp.link(source, target);
            linked = true;
          } catch (e) {
            if (e?.code === 'EEXIST') throw e;
          }
          if (linked) {
            await fsp.unlink(source).catch(async (e) => {
              await fsp.unlink(target).catch(() => {});
              throw e;
            });
            return;
          }
        }
        const there = await fsp.lstat(target).then(
          () => true,
          (e) => (e?.code === 'ENOENT' ? false : Promise.reject(e)),
        );
        if (there) throw failure('EEXIST', 'file already exists, rename', to);
        await fsp.rename(source, target);
      } finally {
        await toDir.close().catch(() => {});
      }
    } finally {
      await fromDir.close().catch(() => {});
    }
  }

  /** Creates the one directory `path` in its proved parent; EEXIST when anything is there. */
  async function makeDir(root, path) {
    const { dir, name } = split(path);
    if (!name || path === root) throw failure('EEXIST', 'file already exists, mkdir', path);
    const handle = await openDir(root, dir);
    try {
      await stillThere(handle, dir);
      await fsp.mkdir(within(handle, dir, name));
    } finally {
      await handle.close().catch(() => {});
    }
  }

  return {
    readFile: async (path) => {
      const { handle } = await openFile(null, path);
      if (!handle) throw failure('EISDIR', 'not a regular file, read', path);
      try {
        return await handle.readFile();
      } finally {
        await handle.close().catch(() => {});
      }
    },
    stat: (path) => fsp.stat(path),
    lstat: (path) => fsp.lstat(path),
    realpath: (path) => fsp.realpath(path),
    openFile,
    /** A FileHandle-like handle (for wrappers such as `overlay` that read through `open`). */
    open: async (path) => {
      const { handle } = await openFile(null, path);
      if (!handle) throw failure('EISDIR', 'not a regular file, open', path);
      return handle;
    },
    replaceFile,
    writeFile: (path, bytes) => replaceFile(null, path, bytes),
    makeDirs,
    mkdir: (path) => makeDirs(null, path),
    removeDir,
    listDirectory,
    move,
    makeDir,
    [CLOSES_IN_BACKGROUND]: typeof process !== 'undefined' && process.platform !== 'win32',
  };
}
