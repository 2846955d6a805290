// @acp-fs/wasm in Node: every behaviour vector on every storage a browser IDE would hand it (plain
// objects sync and async, memfs, ZenFS in memory, the package's adapters, fs.promises), each
// meeting the vector's expectations and all of them agreeing.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg is generated).

import { AcpFs } from '../../npm/wasm/node.mjs';
import { wasmBackends } from './wasm-backends.mjs';
import { vectorSuite } from './suite-vectors.mjs';

vectorSuite({ label: '@acp-fs/wasm', AcpFs, backends: wasmBackends, describeName: (file) => `vectors ${file}` });
