// Path resolution for storages that have symlinks but no trustworthy `realpath`: LightningFS has
// none, ZenFS's never returns on a symlink loop. Built from `lstat` and `readlink`, with Linux's
// limit on link hops.

const MAX_LINKS = 40; // MAXSYMLINKS: a longer chain is a loop

export function fsError(code, message, path) {
  const err = new Error(`${message}: ${path}`);
  err.code = code;
  err.path = path;
  return err;
}

export const pathParts = (path) => path.split('/').filter((p) => p !== '' && p !== '.');

/**
 * The canonical path of `path`: every symlink on the way resolved (relative targets against
 * their directory); ENOENT when something on the way is missing, ENOTDIR when a file is on the
 * way, ELOOP on a loop.
 * @param {{lstat(path: string): any, readlink(path: string): any}} fs sync or async methods
 */
export async function realpathByLinks(fs, path) {
  let resolved = [];
  let pending = pathParts(path);
  let links = 0;
  while (pending.length) {
    const part = pending.shift();
    if (part === '..') {
      resolved.pop();
      continue;
    }
    const candidate = `/${[...resolved, part].join('/')}`;
    const stats = await fs.lstat(candidate);
    if (!stats.isSymbolicLink()) {
      if (pending.length && !stats.isDirectory()) throw fsError('ENOTDIR', 'not a directory', path);
      resolved.push(part);
      continue;
    }
    if (++links > MAX_LINKS) throw fsError('ELOOP', 'too many levels of symbolic links', path);
    const target = String(await fs.readlink(candidate));
    if (target.startsWith('/')) resolved = [];
    pending = [...pathParts(target), ...pending];
  }
  return `/${resolved.join('/')}`;
}

/** Whether a proper ancestor of `path` exists and is not a directory. */
async function belowFile(stat, path) {
  const parts = pathParts(path);
  for (let i = 1; i < parts.length; i++) {
    try {
      if (!(await stat(`/${parts.slice(0, i).join('/')}`)).isDirectory()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** Storage methods whose first argument is the root and the second the path. */
const ROOTED = new Set(['openFile', 'replaceFile', 'makeDirs', 'makeDir', 'listDirectory', 'move']);

/**
 * The storage with ENOENT for a path below a regular file turned into the ENOTDIR a disk gives
 * (the engine tells "missing" from "not a file" by it). `stat` follows links.
 */
export function enotdirBelowFiles(storage, stat) {
  const out = { ...storage };
  for (const [name, call] of Object.entries(storage)) {
    if (typeof call !== 'function') continue;
    out[name] = async (...args) => {
      const path = ROOTED.has(name) ? args[1] : args[0];
      try {
        return await call(...args);
      } catch (e) {
        if (e?.code === 'ENOENT' && typeof path === 'string' && (await belowFile(stat, path))) {
          throw fsError('ENOTDIR', 'not a directory', path);
        }
        throw e;
      }
    };
  }
  return out;
}
