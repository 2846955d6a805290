// A tiny browser app that uses @acp-fs/wasm the way an IDE would install it: bundled by esbuild
// from the package's exports (browser conditions), the .wasm taken as an asset URL. The results
// land in `window.__bundle` for tests/browser/run.mjs.
import { AcpFs, init } from '@acp-fs/wasm';
import { fromOPFS, overlay } from '@acp-fs/wasm/adapters';
import wasmUrl from '@acp-fs/wasm/acp_fs_wasm_bg.wasm';

async function smoke() {
  await init(new URL(wasmUrl, import.meta.url));
  const top = await navigator.storage.getDirectory();
  const root = await top.getDirectoryHandle(`bundle-smoke-${Date.now()}`, { create: true });
  const buffers = { '/project/open.txt': 'unsaved\n' };
  const fs = new AcpFs({ storage: overlay((path) => buffers[path], fromOPFS(root)) });
  fs.openSession('s', { cwd: '/project' });
  const write = await fs.writeTextFile({ sessionId: 's', path: '/project/src/a.txt', content: 'one\r\ntwo\r\n' });
  const read = await fs.readTextFile({ sessionId: 's', path: '/project/src/a.txt', line: 2 });
  const open = await fs.readTextFile({ sessionId: 's', path: '/project/open.txt' });
  const denied = await fs.readTextFile({ sessionId: 's', path: '/etc/passwd' }).then(
    () => null,
    (e) => ({ name: e.name, code: e.code, jsonRpcCode: e.jsonRpcCode }),
  );
  await top.removeEntry(root.name, { recursive: true });
  return { write, read, open, denied, capabilities: fs.capabilities() };
}

smoke().then(
  (result) => {
    window.__bundle = { result };
  },
  (e) => {
    window.__bundle = { error: String(e?.stack ?? e) };
  },
);
