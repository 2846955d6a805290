// @acp-fs/node, ESM entry: the shared driver over the native engine, or over the same engine as
// wasm when this platform's addon does not load (load.cjs; `AcpFs.backend` says which). Omitting
// `storage` serves the local disk: natively (atomic writes, real paths, windows read off the event
// loop), or on the wasm fallback through node:fs.
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError } from './shared/driver.mjs';
import { diskStorage } from './shared/node-default-disk.mjs';

const require = createRequire(import.meta.url);
const { backend, reason, binding } = require('./load.cjs');

export const AcpFs =
  backend === 'native'
    ? createAcpFs({ Engine: binding.Engine, nativeDisk: true })
    : createAcpFs({ Engine: binding.Engine, defaultStorage: () => diskStorage(nodeFs) });
Object.defineProperties(AcpFs, {
  /** 'native' (this platform's N-API addon) or 'wasm' (the fallback). */
  backend: { value: backend, enumerable: true },
  /** Why the native addon is not in use, or null when it is. */
  backendReason: { value: reason, enumerable: true },
});
/** The agent's side of fs/*: capability checks, tool definitions, argument checks, requests, tool results. */
export const agent = createAgent(backend === 'native' ? binding : binding.functions);
export { AcpFsError, acpClientHandlers, toRequestError };
