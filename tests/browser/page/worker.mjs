// The vectors inside a module Web Worker: the package must initialize and serve there too.
import { AcpFs, init } from '../../../npm/wasm/index.mjs';
import { makeBackends, runAll } from '../vector-runner.mjs';

self.onmessage = async ({ data }) => {
  try {
    await init();
    self.postMessage(await runAll(AcpFs, data.vectors, makeBackends({ opfs: true }), 'worker'));
  } catch (e) {
    self.postMessage({ label: 'worker', passed: 0, failed: 1, skipped: 0, failures: [`worker error: ${e?.stack ?? e}`], skips: {} });
  }
};
