// @acp-fs/wasm for browsers, bundlers and workers: call `await init()` once before the first
// `new AcpFs(...)`. Without an argument, init fetches the .wasm that sits next to the generated
// glue (`new URL(..., import.meta.url)`, which Vite, webpack 5 and Parcel follow); a bundler that
// does not can import the file as `@acp-fs/wasm/acp_fs_wasm_bg.wasm` and pass its URL.
import initWasm, { initSync as initWasmSync } from './pkg/acp_fs_wasm.js';
import { markReady } from './lib/api.mjs';

export { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError, AcpFs as default } from './lib/api.mjs';

let pending;

/**
 * Instantiates the engine; later calls return the same promise. `input`: the .wasm as a URL or
 * string, a `Response` (or a promise of one), its bytes, or a compiled `WebAssembly.Module`.
 */
export function init(input) {
  if (pending === undefined) {
    pending = initWasm(input === undefined ? undefined : { module_or_path: input }).then(
      (exports) => {
        markReady(exports);
      },
      (e) => {
        pending = undefined; // a failed fetch may be retried
        throw e;
      },
    );
  }
  return pending;
}

/** Instantiates synchronously from the bytes or a compiled module (e.g. one posted to a worker). */
export function initSync(module) {
  markReady(initWasmSync({ module }));
}
