// `init` and `initSync` of the browser entries, over one module's wasm-bindgen glue.
import { lazyMerge } from './merge.mjs';

/**
 * `initWasm`/`initWasmSync`: the glue's default export and `initSync`; `markReady`: the API's.
 * Without an argument, the glue fetches the .wasm that sits next to it (`new URL(...,
 * import.meta.url)`, which Vite, webpack 5 and Parcel follow). `mergeGlue`, for a module that
 * leaves the merge out: a dynamic import of the merge module's glue, whose .wasm is fetched the
 * same way, or from `init`'s `{merge}` option, the first time a write needs a merge.
 */
export function browserInit(initWasm, initWasmSync, markReady, mergeGlue) {
  const merge = (input) =>
    mergeGlue &&
    lazyMerge(async () => {
      const glue = await mergeGlue();
      await glue.default(input === undefined ? undefined : { module_or_path: input });
      return glue.merge;
    });
  let pending;
  return {
    init(input, options) {
      if (pending === undefined) {
        pending = initWasm(input === undefined ? undefined : { module_or_path: input }).then(
          (exports) => {
            markReady(exports, { merge: merge(options?.merge) });
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
      markReady(initWasmSync({ module }), { merge: merge(options?.merge) });
    },
  };
}
