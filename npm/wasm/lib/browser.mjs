// `init` and `initSync` of the browser entries, over one module's wasm-bindgen glue.
import { lazyMerge } from './merge.mjs';
import { lazyRpc } from './rpc.mjs';

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
  const merge = (input) =>
    mergeGlue &&
    lazyMerge(async () => {
      const glue = await mergeGlue();
      await glue.default(input === undefined ? undefined : { module_or_path: input });
      return glue.merge;
    });
  const rpc = (input) =>
    rpcGlue &&
    lazyRpc(async () => {
      const glue = await rpcGlue();
      await glue.default(input === undefined ? undefined : { module_or_path: input });
      return glue;
    });
  const modules = (options) => ({ merge: merge(options?.merge), rpc: rpc(options?.rpc) });
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
