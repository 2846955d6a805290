// The vectors inside a module Web Worker: the package must initialize and serve there too.
// The fs/* module serves every vector but those calling MCP tools, which need the full module.
// Here it is instantiated as a worker that was sent compiled modules would: `initSync`, the
// JSON-RPC module's given in its options (the page itself uses `init()`).
import { AcpFs, initSync } from '../../../npm/wasm/index.mjs';
import { AcpFs as FullAcpFs, init as initFull } from '../../../npm/wasm/full.mjs';
import { makeBackends, runAll } from '../vector-runner.mjs';

const compiled = async (path) => WebAssembly.compile(await (await fetch(new URL(path, import.meta.url))).arrayBuffer());

self.onmessage = async ({ data }) => {
  try {
    const [fsModule, rpcModule] = await Promise.all([
      compiled('../../../npm/wasm/pkg/acp_fs_wasm_bg.wasm'),
      compiled('../../../npm/wasm/pkg-rpc/acp_fs_wasm_rpc_bg.wasm'),
    ]);
    initSync(fsModule, { rpc: rpcModule });
    await initFull();
    self.postMessage(await runAll({ fs: AcpFs, full: FullAcpFs }, data.vectors, makeBackends({ opfs: true }), 'worker'));
  } catch (e) {
    self.postMessage({ label: 'worker', passed: 0, failed: 1, skipped: 0, failures: [`worker error: ${e?.stack ?? e}`], skips: {} });
  }
};
