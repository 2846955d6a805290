// What an omitted `storage` means on @acp-fs/node's wasm fallback: the local disk through the
// hardened node:fs adapter (shared/node-disk.mjs: O_NOFOLLOW opens checked against the real path,
// atomic temp-then-rename writes that keep the mode, stale temporaries swept). The entry passes
// its own `node:fs`, so this works on every Node the package supports (no getBuiltinModule).
import { fromNodeDisk } from './node-disk.mjs';

export function diskStorage(fs) {
  return fromNodeDisk(fs);
}
