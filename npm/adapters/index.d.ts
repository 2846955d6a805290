// Storage adapters for AcpFs (`@acp-fs/wasm/adapters`).
import type { AcpFsStorage } from '../types/acp-fs.js';

export type { AcpFsStorage };

/**
 * A storage over any module with Node's synchronous fs API (`readFileSync`, `statSync`,
 * `openSync`/`readSync`/`closeSync`, and optionally `lstatSync`+`realpathSync` for symlinks,
 * `writeFileSync`, `mkdirSync`, `readdirSync` for listings, `renameSync` for moves): answers
 * without promise hops and reads windows as byte ranges.
 * Given Node's own `fs` it returns `fromNodeDisk(fs)`: a real disk gets the hardened adapter.
 */
export function fromNodeFs(fs: object): AcpFsStorage;

/**
 * The local disk through Node's `fs` (default: the built-in module), hardened for a workspace the
 * agent can change while its requests run: a file is opened once with O_NOFOLLOW|O_NONBLOCK and
 * served only when it is a regular file whose descriptor is the checked real path (Linux:
 * `/proc/self/fd`; elsewhere dev/ino and realpath checks, which narrow the race but cannot close
 * it); writes are atomic (temp file `.<name>.acp-fs-<pid>-<n>.tmp` with the old mode, fsync,
 * rename, directory fsync) inside the directory that was checked; a final symlink is replaced,
 * never written through; read-only files stay protected; stale temporaries of dead processes are
 * swept. `storage: fs.promises` and `storage: fs` turn into this automatically.
 *
 * ```js
 * import * as fs from 'node:fs';
 * import { AcpFs } from '@acp-fs/wasm';
 * import { fromNodeDisk } from '@acp-fs/wasm/adapters';
 * const acpFs = new AcpFs({ storage: fromNodeDisk(fs) }); // same as { storage: fs.promises }
 * ```
 */
export function fromNodeDisk(fs?: object): AcpFsStorage;

/** A storage over a memfs `Volume`, or the fs made from one (`memfs().fs`, `createFsFromVolume(vol)`). */
export function fromMemfs(volume: object): AcpFsStorage;

/**
 * A storage over ZenFS's `fs` when its mounts are synchronous (InMemory…). For asynchronous
 * backends (IndexedDB, WebAccess) pass `fs.promises` to AcpFs directly.
 */
export function fromZenFS(fs: object): AcpFsStorage;

/**
 * A storage over @isomorphic-git/lightning-fs (an instance or its `promises`). Symlinks are
 * resolved here (LightningFS has no `realpath`); no ranged reads. Listings, moves (never onto
 * something) and single directories come from LightningFS's own `readdir`, `rename`, `mkdir`.
 */
export function fromLightningFS(fs: object): AcpFsStorage;

/**
 * The canonical path of `path` from `lstat` and `readlink` alone (for storages with symlinks but
 * no trustworthy `realpath`): ENOENT when something on the way is missing, ENOTDIR when a file is
 * on the way, ELOOP after 40 links.
 */
export function realpathByLinks(
  fs: {
    lstat(path: string): { isSymbolicLink(): boolean; isDirectory(): boolean } | PromiseLike<{ isSymbolicLink(): boolean; isDirectory(): boolean }>;
    readlink(path: string): string | PromiseLike<string>;
  },
  path: string,
): Promise<string>;

/**
 * A storage over a File System Access directory, e.g. the Origin Private File System
 * (`await navigator.storage.getDirectory()`): POSIX paths from that directory; no symlinks;
 * ranged reads through `File.slice`; atomic writes through `createWritable` (sync access handles
 * in workers that lack it). DOMExceptions become Node-style `code`s (ENOENT, ENOTDIR, EISDIR,
 * EACCES, …) with the DOMException as `cause`. Lists a directory handle's entries and makes one
 * directory; moves files with `FileSystemFileHandle.move` where the browser has it (Chromium), and
 * directories only where directory handles have `move` too (ENOTSUP otherwise); never onto
 * something (EEXIST).
 */
export function fromOPFS(root: FileSystemDirectoryHandle): AcpFsStorage;

/**
 * Unsaved editor buffers over a storage: `lookup(path)` returns the buffer's current text (Monaco:
 * `monaco.editor.getModel(monaco.Uri.file(path))?.getValue()`, CodeMirror: `view.state.doc.toString()`)
 * or null/undefined when the path has no buffer. Reads, stats and windows see the buffer; real
 * paths, writes and directories go to `base`. To route agent writes into buffers, use
 * `fs.documents` with `onDocumentWrite` instead.
 */
export function overlay(
  lookup: (path: string) => string | null | undefined | PromiseLike<string | null | undefined>,
  base: AcpFsStorage,
): AcpFsStorage;
