// @acp-fs/node, CommonJS entry: the same driver (bundled to CJS at build time) over the native
// engine. The ESM and CJS entries are separate module instances: test errors with
// `err.name === 'AcpFsError'` when both may be loaded.
'use strict';
const { Engine } = require('./binding.js');
const { createAcpFs, AcpFsError, acpClientHandlers, toRequestError } = require('./shared/driver.cjs');

const AcpFs = createAcpFs({ Engine, nativeDisk: true });
module.exports = { AcpFs, AcpFsError, acpClientHandlers, toRequestError };
