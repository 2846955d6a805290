// @acp-fs/wasm in Node: ready on import (the module is instantiated synchronously from the file
// beside this one). `init()` is kept so the same code runs in browsers and in Node. The fs/*
// module, as in browsers; `@acp-fs/wasm/full` adds the MCP tools and the agent's side.
import { readFileSync } from 'node:fs';
import { initSync as initWasmSync } from './pkg/acp_fs_wasm.js';
import { markReady } from './lib/fs.mjs';
import { wideText } from './lib/node-text.mjs';

markReady(initWasmSync({ module: readFileSync(new URL('./pkg/acp_fs_wasm_bg.wasm', import.meta.url)) }), { wideText });

export { AcpFs, agent, AcpFs as default } from './lib/fs.mjs';
export { AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';

/** Already done on import. */
export async function init() {}

/** Already done on import. */
export function initSync() {}
