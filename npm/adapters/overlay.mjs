// Unsaved editor buffers over a storage. `lookup(path)` answers the buffer's current text (a
// Monaco model's `getValue()`, a CodeMirror state's `doc.toString()`), or null/undefined when the
// path has no open buffer; it is asked at request time, so nothing has to be mirrored on every
// keystroke. Reads, stats and windows see the buffer; everything else (real paths, writes,
// directories) goes to the base storage. A write therefore lands in storage and leaves the
// buffer as it is: to route agent writes into open buffers, register them with
// `fs.documents` and decide in `onDocumentWrite` instead.

const encoder = new TextEncoder();

const has = (storage, name) => typeof storage[name] === 'function';

/**
 * @param {(path: string) => string | null | undefined | Promise<string | null | undefined>} lookup
 * @param {object} base the storage underneath (any AcpFs storage)
 */
export function overlay(lookup, base) {
  if (typeof lookup !== 'function') throw new TypeError('overlay: lookup must be a function (path) => text | null');
  if (base === null || typeof base !== 'object' || !has(base, 'readFile')) {
    throw new TypeError('overlay: base must be a storage with readFile');
  }
  // The encoded text of the last buffer read per path: a window reads several ranges of the
  // same text, which should be encoded once.
  const encoded = new Map();
  async function buffer(path) {
    const text = await lookup(path);
    if (typeof text !== 'string') {
      encoded.delete(path);
      return undefined;
    }
    const cached = encoded.get(path);
    if (cached?.text === text) return cached.bytes;
    const bytes = encoder.encode(text);
    encoded.set(path, { text, bytes });
    return bytes;
  }
  const fileStats = (size) => ({ size, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false });

  const storage = {
    async readFile(path) {
      return (await buffer(path)) ?? base.readFile(path);
    },
  };
  if (has(base, 'stat') || has(base, 'lstat')) {
    storage.stat = async (path) => {
      const bytes = await buffer(path);
      if (bytes) return fileStats(bytes.length);
      return has(base, 'stat') ? base.stat(path) : base.lstat(path);
    };
  }
  if (has(base, 'lstat')) {
    storage.lstat = async (path) => {
      const bytes = await buffer(path);
      return bytes ? fileStats(bytes.length) : base.lstat(path);
    };
  }
  if (has(base, 'realpath')) storage.realpath = (path) => base.realpath(path);
  if (has(base, 'readRange')) {
    storage.readRange = async (path, offset, length) => {
      const bytes = await buffer(path);
      return bytes ? bytes.subarray(offset, offset + length) : base.readRange(path, offset, length);
    };
  } else if (has(base, 'open')) {
    storage.open = async (path, flags) => {
      const bytes = await buffer(path);
      if (!bytes) return base.open(path, flags);
      return {
        async read(target, at, length, position) {
          const part = bytes.subarray(position, position + length);
          target.set(part, at);
          return { bytesRead: part.length, buffer: target };
        },
        async close() {},
      };
    };
  }
  if (has(base, 'writeFile')) storage.writeFile = (path, bytes) => base.writeFile(path, bytes);
  if (has(base, 'mkdir')) storage.mkdir = (path, options) => base.mkdir(path, options);
  // Listings, moves and single directories are the base's (the engine shows open documents in
  // listings itself).
  for (const name of ['listDirectory', 'readdir', 'move', 'rename', 'makeDir']) {
    if (has(base, name)) storage[name] = (...args) => base[name](...args);
  }
  if (base.capabilities !== null && typeof base.capabilities === 'object') storage.capabilities = base.capabilities;
  return storage;
}
