// The modules @acp-fs/wasm's fs/* module leaves out and loads the first time they are needed:
// the merge module (pkg-merge/, docs/design.md#the-merge-module) and the JSON-RPC module
// (pkg-rpc/, docs/design.md#the-json-rpc-module). One loader for both, over the entry's way of
// instantiating each.
import { isTrap } from './guard.mjs';

/**
 * The module called `name` in messages, loaded once: `instantiate()` a promise of what it gives
 * (its exports, or the one function of them used), `instantiateSync()`, where there is one
 * (Node reads the file), the same at once. A load that failed is tried again by the next call.
 * A trap in the module (out of memory: it is built to abort at once) may leave its memory
 * half-changed, and its glue keeps that one instance, so, as the guard does with the engine's
 * module, it is not entered again: later calls fail saying why.
 */
export function lazyModule(name, instantiate, instantiateSync) {
  let module;
  let loading;
  let trapped;
  const notEntered = () => new Error(`the ${name} module trapped (${trapped.message}) and is not entered again`);
  return {
    /** What it gives, loaded now where that can be done at once; `undefined` until then. */
    now() {
      if (trapped !== undefined) throw notEntered();
      if (module === undefined && instantiateSync !== undefined) module = instantiateSync();
      return module;
    },
    /** A promise of what it gives, loading it if need be. */
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
    /** `call(what it gives)`, loaded already; a trap in it remembered (what the guard takes for one). */
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

/**
 * The binding's `merge(base, current, ours)` over the merge module (`instantiate()`: a promise of
 * its `merge`): a promise of the merged text, or of `null` where the edits overlap (the engine's
 * rule, run by the merge module). Such a module asks with `{op: "merge"}`.
 */
export function lazyMerge(instantiate) {
  const module = lazyModule('merge', instantiate);
  return async (base, current, ours) => {
    await module.load();
    return module.run((merge) => merge(base, current, ours)) ?? null;
  };
}

/** The JSON-RPC module (`instantiate()`: a promise of its exports), the guard's `rpc`. */
export const lazyRpc = (instantiate, instantiateSync) => lazyModule('JSON-RPC', instantiate, instantiateSync);
