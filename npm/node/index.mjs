// @acp-fs/node, ESM entry: the shared driver over the native engine. Omitting `storage` serves
// the local disk natively (atomic writes, real paths, windows read off the event loop).
import { createRequire } from 'node:module';
import { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError } from './shared/driver.mjs';

const require = createRequire(import.meta.url);
const binding = require('./binding.js');

export const AcpFs = createAcpFs({ Engine: binding.Engine, nativeDisk: true });
/** The agent's side of fs/*: capability checks, tool definitions, argument checks, requests, tool results. */
export const agent = createAgent(binding);
export { AcpFsError, acpClientHandlers, toRequestError };
