// A storage over @isomorphic-git/lightning-fs (IndexedDB-backed, the file system of
// isomorphic-git in browsers). LightningFS has symlinks but no `realpath` and no recursive
// `mkdir`; both are built here from `lstat`/`readlink`/`mkdir`, so containment is checked on real
// paths like on a disk. It has no ranged reads: windows read whole files.

import { enotdirBelowFiles, fsError, pathParts as parts, realpathByLinks } from './links.mjs';

async function mkdirp(fs, path) {
  let prefix = '';
  for (const part of parts(path)) {
    prefix += `/${part}`;
    try {
      await fs.mkdir(prefix);
    } catch (e) {
      if (e?.code !== 'EEXIST') throw e;
      // Something is there already; it has to be a directory (or a link to one) to go on.
      const stats = await fs.stat(prefix);
      if (!stats.isDirectory()) throw fsError('ENOTDIR', 'not a directory', prefix);
    }
  }
}

/**
 * A storage over a LightningFS instance (`new LightningFS(name)`) or its `promises` object.
 * @param {object} lfs
 */
export function fromLightningFS(lfs) {
  const fs = lfs?.promises ?? lfs;
  for (const name of ['readFile', 'writeFile', 'mkdir', 'stat', 'lstat', 'readlink']) {
    if (typeof fs?.[name] !== 'function') {
      throw new TypeError(`fromLightningFS: expected a LightningFS instance or its promises (no ${name})`);
    }
  }
  const parentOf = (path) => `/${parts(path).slice(0, -1).join('/')}`;
  const storage = {
    readFile: (path) => fs.readFile(path),
    // LightningFS would file a new entry under a regular file; a disk refuses.
    async writeFile(path, bytes) {
      if (!(await fs.stat(parentOf(path))).isDirectory()) throw fsError('ENOTDIR', 'not a directory', path);
      await fs.writeFile(path, bytes);
    },
    stat: (path) => fs.stat(path),
    lstat: (path) => fs.lstat(path),
    realpath: (path) => realpathByLinks(fs, path),
    mkdir: (path) => mkdirp(fs, path),
    // The MCP file tools': one directory (LightningFS's own mkdir: EEXIST, ENOENT without a
    // parent), listings described by lstat, and moves, which StorageIo never lets replace.
    makeDir: (root, path) => fs.mkdir(path),
    readdir: (path) => fs.readdir(path),
  };
  if (typeof fs.rename === 'function') storage.rename = (from, to) => fs.rename(from, to);
  return enotdirBelowFiles(storage, (path) => fs.stat(path));
}
