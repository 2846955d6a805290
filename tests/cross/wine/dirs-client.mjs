// The Windows side of tests/cross/wine-dirs.test.mjs: run by `node.exe` under Wine, it calls the
// MCP file tools that need listings, moves and new directories on @acp-fs/node's native Windows
// disk, over a tree the Linux side laid out (symlinks included), and prints one line
// `DIRS <json>`: the tools offered and each call's text or error. The Linux side judges the
// answers and the disk afterwards.
//
// Usage: node.exe dirs-client.mjs <root as a Windows path>
// ACP_FS_NODE_PKG names the package (tests/node/node-package.mjs).

import { AcpFs } from '../../node/node-package.mjs';

const [root] = process.argv.slice(2);
const fs = new AcpFs({});
fs.openSession('s', { cwd: root });
const mcp = fs.mcpHandler('s');
const at = (rel) => `${root}\\${rel}`;

let id = 0;
async function call(name, args) {
  const reply = await mcp.handle({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
  if (reply.error) return { name, args, error: reply.error };
  const text = reply.result.content.map((c) => c.text).join('');
  return { name, args, isError: reply.result.isError === true, text };
}

const calls = [];
const run = async (name, args) => calls.push(await call(name, args));
await run('list_directory', { path: root });
await run('list_directory_with_sizes', { path: root });
await run('directory_tree', { path: root });
await run('list_directory', { path: at('sub') });
await run('create_directory', { path: at('new') });
await run('create_directory', { path: at('made\\deeper') });
await run('move_file', { source: at('a.txt'), destination: at('sub\\a.txt') });
await run('move_file', { source: at('b.txt'), destination: at('sub\\a.txt') });
await run('move_file', { source: at('b.txt'), destination: at('new') });
await run('move_file', { source: at('new'), destination: at('sub\\new') });
await run('list_directory', { path: at('sub') });
await run('list_directory', { path: at('link') });
await run('move_file', { source: at('b.txt'), destination: at('link\\planted.txt') });
await run('create_directory', { path: at('link\\made') });
console.log(`DIRS ${JSON.stringify({ backend: AcpFs.backend, tools: mcp.tools().map((t) => t.name), calls })}`);
