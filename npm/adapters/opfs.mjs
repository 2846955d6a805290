// A storage over the Origin Private File System, or any File System Access API directory
// (`FileSystemDirectoryHandle`): engine paths are POSIX paths from that directory (`/` is the
// directory itself). Handles have no symlinks and no special files, so the storage says so and
// containment is lexical. DOMExceptions become Node-style errors whose `code` names what went
// wrong where (a TypeMismatchError is EISDIR when a file was expected, ENOTDIR on the way
// through directories); the DOMException stays as `cause`.

const CODES = {
  NotFoundError: ['ENOENT', 'no such file or directory'],
  NotAllowedError: ['EACCES', 'permission denied'],
  SecurityError: ['EACCES', 'permission denied'],
  NoModificationAllowedError: ['EBUSY', 'the file is locked'],
  InvalidModificationError: ['EBUSY', 'the file is locked'],
  QuotaExceededError: ['ENOSPC', 'storage quota exceeded'],
  TypeError: ['EINVAL', 'not a valid file name'],
};

/** `expecting`: 'file' when a file was asked for, 'dir' while walking directories. */
function fsError(e, path, expecting) {
  let entry = CODES[e?.name];
  if (e?.name === 'TypeMismatchError') {
    entry = expecting === 'file' ? ['EISDIR', 'is a directory'] : ['ENOTDIR', 'not a directory'];
  }
  if (!entry) return e;
  const err = new Error(`${entry[1]}: ${path}`, { cause: e });
  err.code = entry[0];
  err.path = path;
  return err;
}

function plainError(code, message, path) {
  const err = new Error(`${message}: ${path}`);
  err.code = code;
  err.path = path;
  return err;
}

function stats(kind, size, mtimeMs) {
  return {
    size,
    ...(mtimeMs === undefined ? {} : { mtimeMs }),
    isFile: () => kind === 'file',
    isDirectory: () => kind === 'directory',
    isSymbolicLink: () => false,
  };
}

/**
 * @param {FileSystemDirectoryHandle} root e.g. `await navigator.storage.getDirectory()`
 */
export function fromOPFS(root) {
  if (typeof root?.getDirectoryHandle !== 'function' || typeof root?.getFileHandle !== 'function') {
    throw new TypeError('fromOPFS: expected a FileSystemDirectoryHandle (navigator.storage.getDirectory())');
  }

  const split = (path) => {
    // The engine hands normalized absolute paths; only POSIX ones have a place in a handle tree.
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw plainError('ENOENT', 'not a path in this directory (OPFS paths are POSIX paths)', path);
    }
    return path.split('/').filter(Boolean);
  };

  async function dir(names, path, create = false) {
    let handle = root;
    for (const name of names) {
      try {
        handle = await handle.getDirectoryHandle(name, { create });
      } catch (e) {
        throw fsError(e, path, 'dir');
      }
    }
    return handle;
  }

  async function fileHandle(path, create = false) {
    const names = split(path);
    if (!names.length) throw plainError('EISDIR', 'is a directory', path);
    const parent = await dir(names.slice(0, -1), path);
    try {
      return await parent.getFileHandle(names[names.length - 1], { create });
    } catch (e) {
      throw fsError(e, path, 'file');
    }
  }

  async function file(path) {
    const handle = await fileHandle(path);
    try {
      return await handle.getFile();
    } catch (e) {
      throw fsError(e, path, 'file');
    }
  }

  async function write(handle, bytes) {
    if (typeof handle.createWritable === 'function') {
      // The writable stream writes a swap file and swaps it in on close: readers see the old or
      // the new content, never a mix.
      const stream = await handle.createWritable({ keepExistingData: false });
      try {
        await stream.write(bytes);
        await stream.close();
      } catch (e) {
        await stream.abort?.().catch(() => {});
        throw e;
      }
      return;
    }
    // Workers of browsers without createWritable (Safari) only have sync access handles, which
    // write in place.
    const access = await handle.createSyncAccessHandle();
    try {
      access.truncate(0);
      access.write(bytes, { at: 0 });
      access.flush();
    } finally {
      access.close();
    }
  }

  /** The handle named `name` in `parent` (a file or a directory), or null when nothing is there. */
  async function child(parent, name, path) {
    try {
      return await parent.getFileHandle(name);
    } catch (e) {
      if (e?.name === 'NotFoundError') return null;
      if (e?.name !== 'TypeMismatchError') throw fsError(e, path, 'file');
    }
    try {
      return await parent.getDirectoryHandle(name);
    } catch (e) {
      throw fsError(e, path, 'dir');
    }
  }

  const storage = {
    /** `[{name, stats}]` of a directory, from its handle's entries (no symlinks to follow). */
    async listDirectory(_root, path) {
      const handle = await dir(split(path), path);
      const entries = [];
      try {
        for await (const [name, entry] of handle.entries()) {
          if (entry.kind === 'directory') {
            entries.push({ name, stats: stats('directory', 0) });
            continue;
          }
          let file;
          try {
            file = await entry.getFile();
          } catch (e) {
            if (e?.name === 'NotFoundError') continue; // removed meanwhile
            throw e;
          }
          entries.push({ name, stats: stats('file', file.size, file.lastModified) });
        }
      } catch (e) {
        throw fsError(e, path, 'dir');
      }
      return entries;
    },
    /** One directory: its parent must exist, and nothing may be at `path` (EEXIST). */
    async makeDir(_root, path) {
      const names = split(path);
      if (!names.length) throw plainError('EEXIST', 'file already exists', path);
      const parent = await dir(names.slice(0, -1), path);
      const name = names[names.length - 1];
      if ((await child(parent, name, path)) !== null) throw plainError('EEXIST', 'file already exists', path);
      try {
        await parent.getDirectoryHandle(name, { create: true });
      } catch (e) {
        throw fsError(e, path, 'dir');
      }
    },
    async stat(path) {
      const names = split(path);
      if (!names.length) return stats('directory', 0);
      const parent = await dir(names.slice(0, -1), path);
      const name = names[names.length - 1];
      try {
        const handle = await parent.getFileHandle(name);
        return stats('file', (await handle.getFile()).size);
      } catch (e) {
        if (e?.name !== 'TypeMismatchError') throw fsError(e, path, 'file');
      }
      try {
        await parent.getDirectoryHandle(name);
      } catch (e) {
        throw fsError(e, path, 'dir');
      }
      return stats('directory', 0);
    },
    async readFile(path) {
      return new Uint8Array(await (await file(path)).arrayBuffer());
    },
    async readRange(path, offset, length) {
      const blob = (await file(path)).slice(offset, offset + length);
      return new Uint8Array(await blob.arrayBuffer());
    },
    async mkdir(path) {
      await dir(split(path), path, true);
    },
    async writeFile(path, bytes) {
      const handle = await fileHandle(path, true);
      try {
        await write(handle, bytes);
      } catch (e) {
        throw fsError(e, path, 'file');
      }
    },
  };
  // Moves need FileSystemFileHandle.move (Chromium's OPFS has it for files, not for
  // directories); without it the storage has no `rename`.
  if (typeof globalThis.FileSystemFileHandle?.prototype?.move === 'function') {
    /** Moves a file (a directory where the browser can) to a name nothing holds (EEXIST). */
    storage.move = async (_root, from, to) => {
      const src = split(from);
      const dst = split(to);
      if (!src.length || !dst.length) throw plainError('EINVAL', 'a root is never moved', from);
      const source = await child(await dir(src.slice(0, -1), from), src[src.length - 1], from);
      if (source === null) throw plainError('ENOENT', 'no such file or directory', from);
      const parent = await dir(dst.slice(0, -1), to);
      const name = dst[dst.length - 1];
      if ((await child(parent, name, to)) !== null) throw plainError('EEXIST', 'file already exists', to);
      if (typeof source.move !== 'function') throw plainError('ENOTSUP', 'this browser cannot move a directory', from);
      try {
        await source.move(parent, name);
      } catch (e) {
        throw fsError(e, from, source.kind === 'directory' ? 'dir' : 'file');
      }
    };
  }
  return storage;
}
