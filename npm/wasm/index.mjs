// @acp-fs/wasm for browsers, bundlers and workers: call `await init()` once before the first
// `new AcpFs(...)`. Without an argument, init fetches the .wasm that sits next to the generated
// glue (`new URL(..., import.meta.url)`, which Vite, webpack 5 and Parcel follow); a bundler that
// does not can import the file as `@acp-fs/wasm/acp_fs_wasm_bg.wasm` and pass its URL. This is
// the fs/* module; `@acp-fs/wasm/full` adds the MCP tools and the agent's side. The fs/* module's
// three-way merge is a module of its own (pkg-merge/), imported and fetched the first time a
// stale write needs it, and so is reading raw JSON-RPC messages (pkg-rpc/), the first time
// `AcpFs.handle` or an MCP handler is given one.
import initWasm, { initSync as initWasmSync } from './pkg/acp_fs_wasm.js';
import { markReady } from './lib/fs.mjs';
import { browserInit } from './lib/browser.mjs';

export { AcpFs, agent, AcpFs as default } from './lib/fs.mjs';
export { AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';

/**
 * Instantiates the engine; later calls return the same promise. `input`: the .wasm as a URL or
 * string, a `Response` (or a promise of one), its bytes, or a compiled `WebAssembly.Module`.
 */
export const { init, initSync } = browserInit(
  initWasm,
  initWasmSync,
  markReady,
  () => import('./pkg-merge/acp_fs_wasm_merge.js'),
  () => import('./pkg-rpc/acp_fs_wasm_rpc.js'),
);
