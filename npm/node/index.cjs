// @acp-fs/node, CommonJS entry: the same driver (bundled to CJS at build time) over the native
// engine, or the wasm fallback (load.cjs). The ESM and CJS entries are separate module instances:
// test errors with `err.name === 'AcpFsError'` when both may be loaded.
'use strict';
const nodeFs = require('node:fs');
const { backend, reason, binding } = require('./load.cjs');
const { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError, diskStorage } = require('./shared/driver.cjs');

const AcpFs =
  backend === 'native'
    ? createAcpFs({ Engine: binding.Engine, nativeDisk: true })
    : createAcpFs({ Engine: binding.Engine, defaultStorage: () => diskStorage(nodeFs) });
Object.defineProperties(AcpFs, {
  backend: { value: backend, enumerable: true },
  backendReason: { value: reason, enumerable: true },
});
const agent = createAgent(backend === 'native' ? binding : binding.functions);
module.exports = { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError };
