// @acp-fs/wasm: the shared API of @acp-fs/node and @acp-fs/wasm, plus instantiation.
import { AcpFs } from './types/acp-fs.js';

export * from './types/acp-fs.js';
export default AcpFs;

/** Where the .wasm comes from: a URL, its bytes, a fetch `Response`, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Where `@acp-fs/wasm`'s merge module comes from. The fs/* module leaves out the three-way merge
 * of a stale write (docs/design.md#the-merge-module): the first write that needs one imports
 * the merge module and fetches its .wasm (`@acp-fs/wasm/merge/acp_fs_wasm_merge_bg.wasm`),
 * from beside its glue unless `merge` says where. `@acp-fs/wasm/full` has the merge built in and
 * ignores it.
 */
export interface InitOptions {
  merge?: InitInput | Promise<InitInput>;
}

/**
 * Instantiates the engine; call once before the first `new AcpFs(...)` in browsers, bundlers and
 * workers (later calls return the same promise). Without an argument the .wasm is fetched from
 * beside the package's glue. In Node the package is ready on import and this resolves at once.
 *
 * ```js
 * import wasmUrl from '@acp-fs/wasm/acp_fs_wasm_bg.wasm';
 * import mergeUrl from '@acp-fs/wasm/merge/acp_fs_wasm_merge_bg.wasm';
 * await init(wasmUrl, { merge: mergeUrl }); // a bundler that hands out asset URLs
 * ```
 */
export function init(input?: InitInput | Promise<InitInput>, options?: InitOptions): Promise<void>;

/**
 * Instantiates synchronously from the .wasm bytes or a compiled module (no-op in Node). The merge
 * module is still loaded when first needed, from `options.merge` or from beside its glue.
 */
export function initSync(module: BufferSource | WebAssembly.Module, options?: InitOptions): void;
