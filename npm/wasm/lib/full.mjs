// The package's API over the full module (pkg-full/: fs/*, the MCP tools, the agent's side):
// what `@acp-fs/wasm/full` loads.
import * as raw from '../pkg-full/acp_fs_wasm.js';
import { packageApi } from './api.mjs';

export const { binding, AcpFs, agent, isReady, markReady } = packageApi(raw);
