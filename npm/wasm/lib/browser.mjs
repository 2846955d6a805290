// `init` and `initSync` of the browser entries, over one module's wasm-bindgen glue.

/**
 * `initWasm`/`initWasmSync`: the glue's default export and `initSync`; `markReady`: the API's.
 * Without an argument, the glue fetches the .wasm that sits next to it (`new URL(...,
 * import.meta.url)`, which Vite, webpack 5 and Parcel follow).
 */
export function browserInit(initWasm, initWasmSync, markReady) {
  let pending;
  return {
    init(input) {
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
    },
    initSync(module) {
      markReady(initWasmSync({ module }));
    },
  };
}
