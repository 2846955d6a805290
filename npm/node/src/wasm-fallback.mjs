// The wasm fallback of @acp-fs/node (the binding it runs when no native addon loads): the full module
// @acp-fs/wasm ships (`@acp-fs/wasm/full`: fs/*, the MCP tools and the agent's side, as the addon has), instantiated synchronously from the file beside this one, behind the same
// guard @acp-fs/wasm puts around it. Its exports are the binding interface of
// docs/binding-interface.md, as the native addon's are. scripts/build-node.sh bundles this to
// wasm/engine.cjs (CommonJS, so the CJS entry can load it synchronously too) and copies the .wasm
// next to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as raw from '../../wasm/pkg-full/acp_fs_wasm.js';
import { guardBinding } from '../../wasm/lib/guard.mjs';
import { wideText } from '../../wasm/lib/node-text.mjs';

// `__dirname` is the bundle's folder (wasm/): this source only ever runs as that bundle.
const exports = raw.initSync({ module: readFileSync(join(__dirname, 'acp_fs_wasm_bg.wasm')) });
const guarded = guardBinding(raw);
guarded.ready(exports, { wideText });

/** The guarded binding: `createEngine`, `hostInfo`, `invalidParams` and the agent functions. */
export const { binding } = guarded;
