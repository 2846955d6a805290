#!/usr/bin/env node
// The stdio MCP server an ACP v2 agent spawns from a `fs.serveMcp(key, {transport: 'stdio'})`
// declaration: `node mcp-relay.mjs <socket or pipe>` with ACP_FS_MCP_TOKEN in its environment.
// It connects to the editor's socket, sends the token as the first line, then pipes bytes both
// ways (newline-delimited JSON-RPC); the editor answers every message with acp-fs's MCP tools.
// When either side ends, so does the relay.

import { connect } from 'node:net';

const socketPath = process.argv[2];
const token = process.env.ACP_FS_MCP_TOKEN;
delete process.env.ACP_FS_MCP_TOKEN;
if (!socketPath || !token) {
  process.stderr.write('acp-fs mcp-relay: usage: ACP_FS_MCP_TOKEN=<token> node mcp-relay.mjs <socket>\n');
  process.exit(2);
}

// Half-open: when the agent closes our stdin, the answers still in flight come back first.
const socket = connect({ path: socketPath, allowHalfOpen: true });
socket.on('connect', () => {
  socket.write(`${token}\n`);
  process.stdin.pipe(socket);
});
socket.pipe(process.stdout);
socket.on('error', (e) => {
  process.stderr.write(`acp-fs mcp-relay: ${e.message} (the editor's MCP server is gone)\n`);
  process.exitCode = 1;
});
socket.on('close', () => {
  process.stdin.unpipe(socket);
  process.stdin.destroy();
});
process.stdin.on('end', () => socket.end());
socket.on('end', () => socket.end()); // the editor is done: so are we
process.stdout.on('error', () => socket.destroy()); // the agent closed our stdout
