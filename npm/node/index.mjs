// @acp-fs/node, ESM entry: the shared driver over the native engine. Omitting `storage` serves
// the local disk natively (atomic writes, real paths, windows read off the event loop).
import { createRequire } from 'node:module';
import { createAcpFs, AcpFsError, acpClientHandlers, toRequestError } from './shared/driver.mjs';

const require = createRequire(import.meta.url);
const { Engine } = require('./binding.js');

export const AcpFs = createAcpFs({ Engine, nativeDisk: true });
export { AcpFsError, acpClientHandlers, toRequestError };
