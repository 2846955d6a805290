// What an omitted `storage` means on @acp-fs/node's wasm fallback: the local disk through Node's
// own fs (the entry passes its `node:fs`, so this module imports nothing from Node).
export function diskStorage(fs) {
  return fs.promises;
}
