// @acp-fs/node, CommonJS entry: the same shared JS (bundled to CJS at build time) over the native
// addon, or the wasm fallback (load.cjs). The ESM and CJS entries are separate module instances:
// test errors with `err.name === 'AcpFsError'` when both may be loaded.
'use strict';
const nodeFs = require('node:fs');
const { wire } = require('./load.cjs');
const driver = require('./shared/driver.cjs');

const { AcpFs, agent } = wire(driver, driver, nodeFs);
const { AcpFsError, acpClientHandlers, toRequestError } = driver;
module.exports = { AcpFs, AcpFsError, acpClientHandlers, agent, toRequestError };
