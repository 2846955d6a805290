// @acp-fs/wasm in Node: ready on import (the module is instantiated synchronously from the file
// beside this one). `init()` is kept so the same code runs in browsers and in Node. The fs/*
// module, as in browsers; `@acp-fs/wasm/full` adds the MCP tools and the agent's side.
import { readFileSync } from 'node:fs';
import { initSync as initWasmSync } from './pkg/acp_fs_wasm.js';
import { markReady } from './lib/fs.mjs';
import { wideText } from './lib/node-text.mjs';
import { lazyMerge, lazyRpc } from './lib/lazy-module.mjs';
import * as rpcGlue from './pkg-rpc/acp_fs_wasm_rpc.js';

const wasmFile = (path) => readFileSync(new URL(path, import.meta.url));
// The three-way merge is a module of its own (pkg-merge/), loaded the first time a write needs it.
const merge = lazyMerge(async () => {
  const glue = await import('./pkg-merge/acp_fs_wasm_merge.js');
  glue.initSync({ module: wasmFile('./pkg-merge/acp_fs_wasm_merge_bg.wasm') });
  return glue.merge;
});
// So is reading raw JSON-RPC messages (pkg-rpc/), instantiated from the file the first time one
// comes, at once: the low-level `Engine.dispatch` stays a plain call in Node.
const rpcSync = () => {
  rpcGlue.initSync({ module: wasmFile('./pkg-rpc/acp_fs_wasm_rpc_bg.wasm') });
  return rpcGlue;
};
const rpc = lazyRpc(async () => rpcSync(), rpcSync);
markReady(initWasmSync({ module: wasmFile('./pkg/acp_fs_wasm_bg.wasm') }), { wideText, merge, rpc });

export { AcpFs, agent, AcpFs as default } from './lib/fs.mjs';
export { AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';

/** Already done on import. */
export async function init() {}

/** Already done on import. */
export function initSync() {}
