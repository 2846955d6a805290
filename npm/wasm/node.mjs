// @acp-fs/wasm in Node: ready on import (the module is instantiated synchronously from the file
// beside this one). `init()` is kept so the same code runs in browsers and in Node.
import { readFileSync } from 'node:fs';
import { initSync as initWasmSync } from './pkg/acp_fs_wasm.js';
import { markReady } from './lib/api.mjs';
import { wideText } from './lib/node-text.mjs';

markReady(initWasmSync({ module: readFileSync(new URL('./pkg/acp_fs_wasm_bg.wasm', import.meta.url)) }), { wideText });

export { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError, AcpFs as default } from './lib/api.mjs';

/** Already done on import. */
export async function init() {}

/** Already done on import. */
export function initSync() {}
