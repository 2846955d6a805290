// @acp-fs/wasm/full in Node: ready on import, as node.mjs, over the full module (fs/*, the MCP
// tools, the agent's side).
import { readFileSync } from 'node:fs';
import { initSync as initWasmSync } from './pkg-full/acp_fs_wasm.js';
import { markReady } from './lib/full.mjs';
import { wideText } from './lib/node-text.mjs';

markReady(initWasmSync({ module: readFileSync(new URL('./pkg-full/acp_fs_wasm_bg.wasm', import.meta.url)) }), { wideText });

export { AcpFs, agent, AcpFs as default } from './lib/full.mjs';
export { AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';

/** Already done on import. */
export async function init() {}

/** Already done on import. */
export function initSync() {}
