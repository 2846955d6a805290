// @acp-fs/wasm: the shared API of @acp-fs/node and @acp-fs/wasm, plus instantiation.
import { AcpFs } from './types/acp-fs.js';

export * from './types/acp-fs.js';
export default AcpFs;

/** Where the .wasm comes from: a URL, its bytes, a fetch `Response`, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Instantiates the engine; call once before the first `new AcpFs(...)` in browsers, bundlers and
 * workers (later calls return the same promise). Without an argument the .wasm is fetched from
 * beside the package's glue. In Node the package is ready on import and this resolves at once.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Instantiates synchronously from the .wasm bytes or a compiled module (no-op in Node). */
export function initSync(module: BufferSource | WebAssembly.Module): void;
