// What an omitted `storage` means on @acp-fs/node's wasm fallback: the local disk through the
// hardened node:fs adapter (shared/node-disk.mjs: O_NOFOLLOW opens checked against the real path,
// atomic temp-then-rename writes that keep the mode, stale temporaries swept). The entry passes
// its own `node:fs`, so this works on every Node the package supports (no getBuiltinModule).
import { fromNodeDisk, PATH_CHECKS, procFdUsable } from './node-disk.mjs';

export function diskStorage(fs) {
  return fromNodeDisk(fs);
}

/** What the fallback's `backendReason` adds about this disk: nothing where it checks descriptors. */
export function diskCaveat(fs) {
  return procFdUsable(fs) ? '' : `; ${PATH_CHECKS}: ship the native addon`;
}
