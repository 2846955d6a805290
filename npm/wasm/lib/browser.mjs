// `init` and `initSync` of the browser entries, over one module's wasm-bindgen glue.
import { lazyMerge, lazyRpc } from './lazy-module.mjs';

/**
 * `initWasm`/`initWasmSync`: the glue's default export and `initSync`; `markReady`: the API's.
 * Without an argument, the glue fetches the .wasm that sits next to it (`new URL(...,
 * import.meta.url)`, which Vite, webpack 5 and Parcel follow). `mergeGlue`, for a module that
 * leaves the merge out: a dynamic import of the merge module's glue, whose .wasm is fetched the
 * same way, or from `init`'s `{merge}` option, the first time a write needs a merge. `rpcGlue`,
 * for a module that reads no JSON text: the JSON-RPC module's glue, its .wasm beside it or
 * `init`'s `{rpc}`, the first time a raw message comes.
 */
export function browserInit(initWasm, initWasmSync, markReady, mergeGlue, rpcGlue) {
  /** The glue `importGlue()` gives, its .wasm instantiated from `input` (or from beside it). */
  const instantiated = (importGlue, input) => async () => {
    const glue = await importGlue();
    await glue.default(input === undefined ? undefined : { module_or_path: input });
    return glue;
  };
  const modules = (options) => ({
    merge: mergeGlue && lazyMerge(async () => (await instantiated(mergeGlue, options?.merge)()).merge),
    rpc: rpcGlue && lazyRpc(instantiated(rpcGlue, options?.rpc)),
  });
  let pending;
  return {
    init(input, options) {
      if (pending === undefined) {
        pending = initWasm(input === undefined ? undefined : { module_or_path: input }).then(
          (exports) => {
            markReady(exports, modules(options));
          },
          (e) => {
            pending = undefined; // a failed fetch may be retried
            throw e;
          },
        );
      }
      return pending;
    },
    initSync(module, options) {
      markReady(initWasmSync({ module }), modules(options));
    },
  };
}
