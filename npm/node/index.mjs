// @acp-fs/node, ESM entry: the shared JS over the native addon, or over the wasm fallback (the
// same engine compiled to wasm) when this platform's addon does not load (load.cjs;
// `AcpFs.backend` says which). Omitting `storage` serves the local disk: natively (atomic
// writes, real paths, windows read off the event loop), or on the wasm fallback through node:fs.
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError } from './shared/index.mjs';
import { diskCaveat, diskStorage } from './shared/node-default-disk.mjs';

const require = createRequire(import.meta.url);
const { wire } = require('./load.cjs');

const wired = wire({ createAcpFs, createAgent }, { diskStorage, diskCaveat }, nodeFs);
/** The `AcpFs` class over this platform's addon, or over the wasm fallback (`AcpFs.backend`). */
export const AcpFs = wired.AcpFs;
/** The agent's side of fs/*: capability checks, tool definitions, argument checks, requests, tool results. */
export const agent = wired.agent;
export { AcpFsError, acpClientHandlers, toRequestError };
