// @acp-fs/node, CommonJS entry: the same driver (bundled to CJS at build time) over the native
// engine. The ESM and CJS entries are separate module instances: test errors with
// `err.name === 'AcpFsError'` when both may be loaded.
'use strict';
const binding = require('./binding.js');
const { createAcpFs, createAgent, AcpFsError, acpClientHandlers, toRequestError } = require('./shared/driver.cjs');

const AcpFs = createAcpFs({ Engine: binding.Engine, nativeDisk: true });
const agent = createAgent(binding);
module.exports = { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError };
