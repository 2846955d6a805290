// The JSON-RPC module (pkg-rpc/): raw JSON-RPC messages read, and their replies written, for the
// fs/* module, which reads no JSON text (docs/design.md#the-json-rpc-module). A page that serves
// fs/* through the typed calls never loads it; the first raw message (`AcpFs.handle`, an MCP
// handler) does.
import { isTrap } from './guard.mjs';

/**
 * The module, loaded once: `instantiate()` a promise of its exports (a browser fetches them),
 * `instantiateSync()`, where there is one (Node reads the file), its exports at once. A load that
 * failed is tried again by the next call. A trap in the module (out of memory: it is built to
 * abort at once) may leave its memory half-changed, and its glue keeps that one instance, so, as
 * the guard does with the engine's module, it is not entered again: later calls fail saying why.
 */
export function lazyRpc(instantiate, instantiateSync) {
  let module;
  let loading;
  let trapped;
  const notEntered = () => new Error(`the JSON-RPC module trapped (${trapped.message}) and is not entered again`);
  const usable = () => {
    if (trapped !== undefined) throw notEntered();
  };
  return {
    /** Its exports, loaded now where that can be done at once; `undefined` until then. */
    now() {
      usable();
      if (module === undefined && instantiateSync !== undefined) module = instantiateSync();
      return module;
    },
    /** A promise of its exports, loading them if need be. */
    load() {
      if (trapped !== undefined) return Promise.reject(notEntered());
      if (module !== undefined) return Promise.resolve(module);
      loading ??= instantiate().then(
        (m) => (module = m),
        (e) => {
          loading = undefined;
          throw e;
        },
      );
      return loading;
    },
    /** `call(exports)`, a trap in it remembered (what the guard takes for a trap). */
    run(call) {
      try {
        return call(this.now());
      } catch (e) {
        if (isTrap(e)) trapped = e;
        throw e;
      }
    },
  };
}
