// What both entry points export: the shared JS over the guarded wasm binding. Instantiating the
// module is the entry points' business (synchronous from the file in Node, `init()` elsewhere).
import * as raw from '../pkg/acp_fs_wasm.js';
import { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError } from '../shared/index.mjs';
import { guardBinding } from './guard.mjs';

const guarded = guardBinding(raw);

/**
 * The module is instantiated (`exports` are its exports, as wasm-bindgen's init returns them);
 * `options` go to the guard's `ready` (Node's UTF-16 decoder).
 */
export function markReady(exports, options) {
  if (exports === undefined || exports === null) throw new Error('@acp-fs/wasm: the module did not instantiate');
  guarded.ready(options);
}

export const { isReady } = guarded;

/** The low-level interface of docs/binding-interface.md, guarded (lib/guard.mjs). */
export const { binding } = guarded;

export const AcpFs = createAcpFs(binding);
// As @acp-fs/node reports it (which has a native addon to fall back from).
Object.defineProperties(AcpFs, {
  backend: { value: 'wasm', enumerable: true },
  backendReason: { value: null, enumerable: true },
});
export const agent = createAgent(binding);
export { AcpFsError, acpClientHandlers, toRequestError };
