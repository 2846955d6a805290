// @acp-fs/wasm/full for browsers, bundlers and workers: `@acp-fs/wasm` with the MCP tools
// (`mcpHandler`, `mcpOverAcp`) and the agent's side (`agent`) built in, a larger module. Same
// API; `init()` fetches this module's .wasm (`@acp-fs/wasm/full/acp_fs_wasm_bg.wasm`).
import initWasm, { initSync as initWasmSync } from './pkg-full/acp_fs_wasm.js';
import { markReady } from './lib/full.mjs';
import { browserInit } from './lib/browser.mjs';

export { AcpFs, agent, AcpFs as default } from './lib/full.mjs';
export { AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';

/** As `init` of `@acp-fs/wasm`, for this module. */
export const { init, initSync } = browserInit(initWasm, initWasmSync, markReady);
