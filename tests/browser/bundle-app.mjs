// A tiny browser app that uses @acp-fs/wasm the way an IDE would install it: bundled by esbuild
// from the package's exports (browser conditions), the .wasm taken as an asset URL. The results
// land in `window.__bundle` for tests/browser/run.mjs. The fs/* module serves the page; its merge
// module is fetched by the first stale write, its JSON-RPC module by the first raw message, and
// the full one (MCP tools) imported when first used.
import { AcpFs, init } from '@acp-fs/wasm';
import { fromOPFS, overlay } from '@acp-fs/wasm/adapters';
import wasmUrl from '@acp-fs/wasm/acp_fs_wasm_bg.wasm';
import mergeUrl from '@acp-fs/wasm/merge/acp_fs_wasm_merge_bg.wasm';
import rpcUrl from '@acp-fs/wasm/rpc/acp_fs_wasm_rpc_bg.wasm';
import fullWasmUrl from '@acp-fs/wasm/full/acp_fs_wasm_bg.wasm';

async function smoke() {
  // A bundler hands out each .wasm as an asset URL: the merge and JSON-RPC modules' too.
  const asset = (url) => new URL(url, import.meta.url);
  await init(asset(wasmUrl), { merge: asset(mergeUrl), rpc: asset(rpcUrl) });
  const top = await navigator.storage.getDirectory();
  const root = await top.getDirectoryHandle(`bundle-smoke-${Date.now()}`, { create: true });
  const buffers = { '/project/open.txt': 'unsaved\n' };
  const storage = overlay((path) => buffers[path], fromOPFS(root));
  const lite = new AcpFs({ storage });
  lite.openSession('s', { cwd: '/project' });
  const write = await lite.writeTextFile({ sessionId: 's', path: '/project/src/a.txt', content: 'one\r\ntwo\r\n' });
  const read = await lite.readTextFile({ sessionId: 's', path: '/project/src/a.txt', line: 2 });
  const open = await lite.readTextFile({ sessionId: 's', path: '/project/open.txt' });
  // A stale write: the user changes a file the agent wrote, and the agent writes another line of
  // it. The merge module, fetched now, keeps both.
  const text = (lines) => lines.map((l) => `${l}\n`).join('');
  const merging = '/project/src/merge.txt';
  await lite.writeTextFile({ sessionId: 's', path: merging, content: text(['one', 'two', 'three', 'four', 'five']) });
  await storage.writeFile(merging, new TextEncoder().encode(text(['one', 'two (user)', 'three', 'four', 'five'])));
  const mergedWrite = await lite.writeTextFile({ sessionId: 's', path: merging, content: text(['one', 'two', 'three', 'four', 'five (agent)']) });
  const merged = { write: mergedWrite, read: await lite.readTextFile({ sessionId: 's', path: merging }) };
  const denied = await lite.readTextFile({ sessionId: 's', path: '/etc/passwd' }).then(
    () => null,
    (e) => ({ name: e.name, code: e.code, jsonRpcCode: e.jsonRpcCode }),
  );
  // The fs/* module has no MCP tools: a call is answered with the core's error naming the module
  // that has them.
  const liteTools = await lite.mcpHandler('s').handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const full = await import('@acp-fs/wasm/full');
  await full.init(new URL(fullWasmUrl, import.meta.url));
  const fs = new full.AcpFs({ storage });
  fs.openSession('s', { cwd: '/project' });
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
    merged,
    denied,
    capabilities: lite.capabilities(),
    liteTools: { code: liteTools.error?.code, module: liteTools.error?.data?.module },
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
