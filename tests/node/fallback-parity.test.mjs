// The parity suite on @acp-fs/node's wasm fallback (ACP_FS_FORCE_WASM=1): the same engine compiled to
// wasm, over the local disk through node:fs when no storage is given.
process.env.ACP_FS_FORCE_WASM = '1';
process.env.ACP_FS_EXPECT_BACKEND = 'wasm';
await import('./parity.test.mjs');
