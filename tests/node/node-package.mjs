// Which @acp-fs/node the Node suites test: the built tree (npm/node) by default, or an installed
// copy when ACP_FS_NODE_PKG names its folder (a packed tarball installed into a fresh project, as
// the cross-platform runs under qemu and Wine do). ACP_FS_FORCE_WASM=1 (read by the package on
// import) runs the same suites on the wasm fallback; ACP_FS_EXPECT_BACKEND makes a suite fail
// rather than silently test the other backend.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const NODE_PKG_DIR = process.env.ACP_FS_NODE_PKG ? resolve(process.env.ACP_FS_NODE_PKG) : join(root, 'npm', 'node');

export const nodePkg = await import(pathToFileURL(join(NODE_PKG_DIR, 'index.mjs')).href);
export const { AcpFs, AcpFsError, acpClientHandlers } = nodePkg;

const expected = process.env.ACP_FS_EXPECT_BACKEND;
if (expected && AcpFs.backend !== expected) {
  throw new Error(`@acp-fs/node at ${NODE_PKG_DIR} runs the ${AcpFs.backend} backend, not ${expected}: ${AcpFs.backendReason}`);
}
