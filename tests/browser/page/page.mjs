// Runs every vector in this page (in-memory storage, OPFS, LightningFS) and again inside a module
// Web Worker (in-memory, OPFS), then the listing/move/directory checks of the OPFS and LightningFS
// adapters (storage-dirs.mjs); leaves the tallies in `window.__results` for tests/browser/run.mjs.
// The fs/* module serves every vector but those calling MCP tools, which need the full module.
import { AcpFs, init } from '../../../npm/wasm/index.mjs';
import { AcpFs as FullAcpFs, init as initFull } from '../../../npm/wasm/full.mjs';
import LightningFS from '../../../out/browser/lightning-fs.mjs';
import { storageDirSuites } from '../storage-dirs.mjs';
import { makeBackends, runAll } from '../vector-runner.mjs';

function render(suites) {
  const rows = suites.map(
    (s) => `<tr><td>${s.label}</td><td>${s.passed}</td><td class="${s.failed ? 'fail' : ''}">${s.failed}</td><td>${s.skipped}</td></tr>`,
  );
  document.getElementById('summary').innerHTML = `<tr><th>where</th><th>passed</th><th>failed</th><th>skipped</th></tr>${rows.join('')}`;
  document.getElementById('failures').textContent = suites.flatMap((s) => s.failures).join('\n');
  const failed = suites.reduce((n, s) => n + s.failed, 0);
  document.getElementById('status').textContent = failed ? `${failed} failed` : 'all passed';
}

function inWorker(vectors) {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => {
      worker.terminate();
      resolve(data);
    };
    worker.onerror = (e) => {
      worker.terminate();
      resolve({ label: 'worker', passed: 0, failed: 1, skipped: 0, failures: [`worker error: ${e.message}`], skips: {} });
    };
    worker.postMessage({ vectors });
  });
}

async function main() {
  const vectors = await (await fetch('/vectors.json')).json();
  await Promise.all([init(), initFull()]);
  const suites = [await runAll({ fs: AcpFs, full: FullAcpFs }, vectors, makeBackends({ opfs: true, LightningFS }), 'page')];
  suites.push(await inWorker(vectors));
  suites.push(...(await storageDirSuites(LightningFS)));
  return suites;
}

main()
  .catch((e) => [{ label: 'page', passed: 0, failed: 1, skipped: 0, failures: [`page error: ${e?.stack ?? e}`], skips: {} }])
  .then((suites) => {
    render(suites);
    window.__results = suites;
    window.__done = true;
  });
