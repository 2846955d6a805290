// The vectors inside a module Web Worker: the package must initialize and serve there too.
// The fs/* module serves every vector but those calling MCP tools, which need the full module.
import { AcpFs, init } from '../../../npm/wasm/index.mjs';
import { AcpFs as FullAcpFs, init as initFull } from '../../../npm/wasm/full.mjs';
import { makeBackends, runAll } from '../vector-runner.mjs';

self.onmessage = async ({ data }) => {
  try {
    await Promise.all([init(), initFull()]);
    self.postMessage(await runAll({ fs: AcpFs, full: FullAcpFs }, data.vectors, makeBackends({ opfs: true }), 'worker'));
  } catch (e) {
    self.postMessage({ label: 'worker', passed: 0, failed: 1, skipped: 0, failures: [`worker error: ${e?.stack ?? e}`], skips: {} });
  }
};
