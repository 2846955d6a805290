// What the entry points export: the shared JS over a guarded wasm-bindgen module (`raw`: the
// fs/* module in pkg/ or the full one in pkg-full/, see lib/fs.mjs and lib/full.mjs).
// Instantiating the module is the entry points' business (synchronously from the file in Node,
// `init()` elsewhere).
import { createAcpFs, createAgent } from '../shared/index.mjs';
import { guardBinding } from './guard.mjs';

/** The package's API over one module. */
export function packageApi(raw) {
  const guarded = guardBinding(raw);
  /** The low-level interface of docs/binding-interface.md, guarded (lib/guard.mjs). */
  const { binding } = guarded;
  const AcpFs = createAcpFs(binding);
  // As @acp-fs/node reports it (which has a native addon to fall back from).
  Object.defineProperties(AcpFs, {
    backend: { value: 'wasm', enumerable: true },
    backendReason: { value: null, enumerable: true },
  });
  return {
    binding,
    AcpFs,
    agent: createAgent(binding),
    isReady: guarded.isReady,
    /**
     * The module is instantiated (`exports` are its exports, as wasm-bindgen's init returns
     * them); `options` go to the guard's `ready` (Node's UTF-16 decoder).
     */
    markReady(exports, options) {
      if (exports === undefined || exports === null) throw new Error('@acp-fs/wasm: the module did not instantiate');
      guarded.ready(exports, options);
    },
  };
}
