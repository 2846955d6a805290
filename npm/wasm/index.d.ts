// @acp-fs/wasm: the shared API of @acp-fs/node and @acp-fs/wasm, plus instantiation.
import { AcpFs } from './types/acp-fs.js';

export * from './types/acp-fs.js';
export default AcpFs;

/** Where the .wasm comes from: a URL, its bytes, a fetch `Response`, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Where `@acp-fs/wasm`'s two modules loaded on first use come from; `@acp-fs/wasm/full` has both
 * built in and ignores these.
 */
export interface InitOptions {
  /**
   * The merge module. The fs/* module leaves out the three-way merge of a stale write
   * (docs/design.md#the-merge-module): the first write that needs one imports the merge module
   * and fetches its .wasm (`@acp-fs/wasm/merge/acp_fs_wasm_merge_bg.wasm`), from beside its glue
   * unless this says where.
   */
  merge?: InitInput | Promise<InitInput>;
  /**
   * The JSON-RPC module. The fs/* module reads no JSON text (docs/design.md#the-json-rpc-module):
   * the first raw message (`AcpFs.handle`, an MCP handler's `handle`) imports the module that
   * reads messages and writes replies and fetches its .wasm
   * (`@acp-fs/wasm/rpc/acp_fs_wasm_rpc_bg.wasm`), from beside its glue unless this says where.
   * The typed calls (`readTextFile`, `writeTextFile`) never need it.
   */
  rpc?: InitInput | Promise<InitInput>;
}

/**
 * Instantiates the engine; call once before the first `new AcpFs(...)` in browsers, bundlers and
 * workers (later calls return the same promise). Without an argument the .wasm is fetched from
 * beside the package's glue. In Node the package is ready on import and this resolves at once.
 *
 * ```js
 * import wasmUrl from '@acp-fs/wasm/acp_fs_wasm_bg.wasm';
 * import mergeUrl from '@acp-fs/wasm/merge/acp_fs_wasm_merge_bg.wasm';
 * import rpcUrl from '@acp-fs/wasm/rpc/acp_fs_wasm_rpc_bg.wasm';
 * await init(wasmUrl, { merge: mergeUrl, rpc: rpcUrl }); // a bundler that hands out asset URLs
 * ```
 */
export function init(input?: InitInput | Promise<InitInput>, options?: InitOptions): Promise<void>;

/**
 * Instantiates synchronously from the .wasm bytes or a compiled module (no-op in Node). The merge
 * and JSON-RPC modules are still loaded when first needed, from `options` or from beside their
 * glue.
 */
export function initSync(module: BufferSource | WebAssembly.Module, options?: InitOptions): void;
