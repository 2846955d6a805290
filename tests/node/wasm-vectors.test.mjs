// @acp-fs/wasm in Node: every behaviour vector on every storage a browser IDE would hand it (plain
// objects sync and async, memfs, ZenFS in memory, the package's adapters, fs.promises), each
// meeting the vector's expectations and all of them agreeing. The fs/* module (`@acp-fs/wasm`)
// runs every vector but those calling MCP tools, which run on the full one (`@acp-fs/wasm/full`).
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg and pkg-full are generated).

import { AcpFs } from '../../npm/wasm/node.mjs';
import { AcpFs as FullAcpFs } from '../../npm/wasm/full-node.mjs';
import { wasmBackends } from './wasm-backends.mjs';
import { vectorSuite } from './suite-vectors.mjs';

vectorSuite({ label: '@acp-fs/wasm', AcpFs: { fs: AcpFs, full: FullAcpFs }, backends: wasmBackends, describeName: (file) => `vectors ${file}` });
