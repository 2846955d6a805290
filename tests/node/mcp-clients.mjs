// The official MCP SDK client (`@modelcontextprotocol/sdk`) on every transport acp-fs serves:
// the standalone `acp-fs mcp` command over stdio, `fs.serveMcp(key, {transport: 'http'})`
// (Streamable HTTP), `fs.serveMcp(key, {transport: 'stdio'})` (the relay) and `fs.mcpOverAcp(key)` (MCP carried by ACP `mcp/message` over a real ACP
// ndjson connection pair, the official ACP SDK on both sides). Shared by the MCP test files.

import { dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The `acp-fs` command of the package as built in this checkout (npm/node/bin). */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'npm', 'node', 'bin', 'acp-fs.mjs');

export const CLIENT_INFO = { name: 'test-agent', version: '1.0.0' };

/** An ACP client ⇄ agent pair over real ndjson streams (official SDK, unstable schema). */
export function acpPair(clientApp, agentApp = acp.agent()) {
  const toAgent = new TransformStream();
  const toClient = new TransformStream();
  const agentConn = agentApp.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const clientConn = clientApp.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  return {
    agentConn,
    clientConn,
    close() {
      agentConn.close();
      clientConn.close();
    },
  };
}

/**
 * An MCP SDK client transport that carries requests as ACP `mcp/message` from the agent side
 * (the ACP SDK's `McpOverAcpCaller`): what an agent with `mcpCapabilities.acp` does.
 */
export class AcpMcpTransport {
  constructor(caller, context, serverId) {
    Object.assign(this, { caller, context, serverId });
  }
  async start() {}
  async send(message) {
    if (message.id === undefined || message.method === undefined) return; // notifications: not carried
    const { id } = message;
    this.caller.request(this.context, this.serverId, message.method, message.params ?? null, { requestId: String(id) }).then(
      (outcome) => this.onmessage?.({ jsonrpc: '2.0', id, ...('error' in outcome ? { error: outcome.error } : { result: outcome.result }) }),
      (e) => this.onmessage?.({ jsonrpc: '2.0', id, error: { code: e.code ?? -32603, message: e.message } }),
    );
  }
  async close() {
    this.onclose?.();
  }
}

/**
 * The standalone command over stdio: `command args... mcp [...flags] dirs...` spawned by the SDK's
 * stdio transport. `stderr` collects what the server logs. Returns the client and its transport.
 * The log is a pipe of its own, read apart from the answers: a line logged before an answer may
 * arrive after it, so what the server logged is whole only once `close()` has resolved.
 */
export async function stdioClient({ command = process.execPath, args = [BIN], flags = [], dirs, client = new Client(CLIENT_INFO), env, cwd }) {
  const transport = new StdioClientTransport({
    command,
    args: [...args, 'mcp', ...flags, ...dirs],
    stderr: 'pipe',
    env: env ?? { ...process.env },
    cwd,
  });
  const stderr = [];
  transport.stderr?.on('data', (chunk) => stderr.push(chunk.toString()));
  const logEnded = transport.stderr ? finished(transport.stderr).catch(() => {}) : Promise.resolve();
  await client.connect(transport);
  const close = async () => {
    await client.close();
    await logEnded;
  };
  return { client, transport, stderr: () => stderr.join(''), close };
}

/** `fs.serveMcp(key, {transport: 'http'})` and an SDK client on its declaration. */
export async function httpClient(fs, key) {
  const server = await fs.serveMcp(key, { transport: 'http', name: 'files' });
  const d = server.declaration;
  const client = new Client(CLIENT_INFO);
  const headers = Object.fromEntries(d.headers.map((h) => [h.name, h.value]));
  await client.connect(new StreamableHTTPClientTransport(new URL(d.url), { requestInit: { headers } }));
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** `fs.serveMcp(key, {transport: 'stdio'})`: the relay spawned from its declaration, as an agent does. */
export async function relayClient(fs, key) {
  const server = await fs.serveMcp(key, { transport: 'stdio', name: 'files' });
  const { command, args, env } = server.declaration;
  const client = new Client(CLIENT_INFO);
  await client.connect(new StdioClientTransport({ command, args, env: Object.fromEntries(env.map((e) => [e.name, e.value])), stderr: 'pipe' }));
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** `fs.mcpOverAcp(key)` answered by an ACP client, and an SDK client on the agent's side. */
export async function acpClient(fs, key, pkg) {
  const server = fs.mcpOverAcp(key, { name: 'files' });
  const pair = acpPair(
    acp.client().onRequest('mcp/message', (ctx) =>
      server.handleMessage(ctx.params, ctx).catch((e) => Promise.reject(pkg.toRequestError(e, acp.RequestError))),
    ),
  );
  const caller = new acp.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const client = new Client(CLIENT_INFO);
  await client.connect(new AcpMcpTransport(caller, pair.agentConn.client, server.declaration.serverId));
  return {
    client,
    async close() {
      await client.close();
      await server.close();
      pair.close();
    },
  };
}
