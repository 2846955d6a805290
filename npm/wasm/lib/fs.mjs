// The package's API over the fs/* module (pkg/): what `@acp-fs/wasm` loads. Its MCP and agent
// calls answer the core's error naming `@acp-fs/wasm/full`.
import * as raw from '../pkg/acp_fs_wasm.js';
import { packageApi } from './api.mjs';

export const { binding, AcpFs, agent, isReady, markReady } = packageApi(raw);
