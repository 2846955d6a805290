// Storage adapters for AcpFs (shipped as `@acp-fs/wasm/adapters`; plain JS, no engine inside, so
// they serve `@acp-fs/node` hosts as well).
export { fromNodeDisk, fromNodeFs, fromMemfs, fromZenFS } from './node-fs.mjs';
export { fromLightningFS } from './lightning-fs.mjs';
export { realpathByLinks } from './links.mjs';
export { fromOPFS } from './opfs.mjs';
export { overlay } from './overlay.mjs';
