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
  // ACP v2 in a page: MCP over the ACP connection (`mcp/message`); no sockets, so no serveMcp.
  const files = fs.mcpOverAcp('s', { name: 'files' });
  const mcp = await files.handleMessage({
    serverId: files.declaration.serverId,
    requestId: '1',
    method: 'tools/call',
    params: { name: 'read_text_file', arguments: { path: '/project/src/a.txt', line: 2 } },
  });
  const serveMcp = await fs.serveMcp('s', { transport: 'http' }).then(
    () => 'served',
    (e) => e.message,
  );
  await top.removeEntry(root.name, { recursive: true });
  return {
    write,
    read,
    open,
    denied,
    capabilities: fs.capabilities(),
    mcp,
    mcpDeclaration: { ...files.declaration, serverId: typeof files.declaration.serverId },
    mcpServerFor: fs.mcpServerFor('s', { mcpCapabilities: { acp: true } }),
    serveMcp,
  };
}

smoke().then(
  (result) => {
    window.__bundle = { result };
  },
  (e) => {
    window.__bundle = { error: String(e?.stack ?? e) };
  },
);
