// What @acp-fs/node and @acp-fs/wasm take from the shared JS: each entry point re-exports these.
export { createAcpFs } from './acp-fs.mjs';
export { createAgent } from './agent.mjs';
export { acpClientHandlers } from './acp-client.mjs';
export { AcpFsError, toRequestError } from './error.mjs';
// Not part of the packages' API: for tests and the CommonJS bundle, as before the split.
export { deriveCaps } from './storage.mjs';
export { notJson } from './params.mjs';
export { wellFormedUnits } from './surrogates.mjs';
