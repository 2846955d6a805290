// The behaviour vectors (tests/vectors/README.md) run inside a browser page or worker: no Node
// APIs, no Buffer. Storages built from a vector: the shared Map storage (tests/shared/map-storage.mjs,
// sync, like a host's own Map), the Origin Private File System through `fromOPFS`, and LightningFS
// through `fromLightningFS`. Vectors are run and checked by tests/shared/vectors.mjs, as in Node.

import { fromLightningFS, fromOPFS } from '../../npm/adapters/index.mjs';
import { mapBackend } from '../shared/map-storage.mjs';
import {
  bytesOf,
  fileEntries,
  hasHardlinks,
  hasSpecial,
  hasSymlinks,
  classFor,
  isFileContent,
  runOnEvery,
  runVector,
  storageTraits,
  usesWindowsPaths,
  withTraits,
} from '../shared/vectors.mjs';

const posixParent = (p) => p.slice(0, Math.max(p.lastIndexOf('/'), 0)) || '/';

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
  const list = [mapBackend(true), mapBackend(false)];
  if (opfs) list.push(opfsBackend(true), opfsBackend(false));
  if (LightningFS) list.push(lightningBackend(LightningFS));
  return list;
}

// ---------------------------------------------------------------------------------------------
// Running every vector (each one on every backend by tests/shared/vectors.mjs).

/**
 * Every vector on every backend. Returns `{passed, failed, skipped, failures: [..], skips: {reason: n}}`;
 * a vector with a deliberately wrong expectation must fail, or the checker itself is broken.
 */
export async function runAll(AcpFs, vectors, backends, label) {
  const out = { label, passed: 0, failed: 0, skipped: 0, failures: [], skips: {} };
  for (const vector of vectors) {
    const { ran, skipped } = await runOnEvery(AcpFs, vector, backends);
    for (const key of skipped) {
      out.skipped += 1;
      out.skips[key] = (out.skips[key] ?? 0) + 1;
    }
    for (const run of ran) {
      if (run.failures.length) {
        out.failed += 1;
        out.failures.push(`[${label} ${run.backend}] ${vector.name}: ${run.failures.join('; ')}`);
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
  const selfTest = await runVector(classFor(AcpFs, wrong), wrong, backends[0]);
  if (selfTest.failures?.length === 1 && /result: want/.test(selfTest.failures[0])) out.passed += 1;
  else {
    out.failed += 1;
    out.failures.push(`[${label}] the checker did not reject a wrong expectation: ${JSON.stringify(selfTest)}`);
  }
  return out;
}
