// MCP over the ACP connection itself (the unstable ACP schema's `{type: 'acp', name, serverId}`
// declaration and `mcp/message` request), and the choice of transport for an agent. No sockets
// and no Node built-ins: this runs in pages and workers too. Every message goes through the
// session's `fs.mcpHandler(sessionId)`, so the protocol logic stays in the engine; this file
// only unwraps the `mcp/message` envelope and wraps the answer.

import { AcpFsError, cancelledError, invalidParamsError } from './error.mjs';

/** Outer ACP error codes of the MCP-over-ACP binding (the ACP SDK's `McpBindingErrorCode`). */
const SERVER_UNAVAILABLE = -33001;

/** Hex of `bytes` random bytes from the platform's CSPRNG (Web Crypto: Node 20+, browsers). */
export function randomHex(bytes) {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  return Array.from(buf, (b) => b.toString(16).padStart(2, '0')).join('');
}

function bindingError(code, kind, message, data) {
  return new AcpFsError({ kind, code, message, data });
}

const invalid = invalidParamsError;

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * `fs.mcpOverAcp(sessionId, {name, serverId})`: the declaration to put in `session/new`
 * `mcpServers`, and the `mcp/message` request handler that answers for it.
 */
export function mcpOverAcp(fs, sessionId, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('mcpOverAcp options must be an object');
  const { name = 'acp-fs', serverId = `acp-fs-${randomHex(16)}` } = options;
  if (typeof name !== 'string' || name === '') throw new TypeError('mcpOverAcp: name must be a non-empty string');
  if (typeof serverId !== 'string' || serverId === '') throw new TypeError('mcpOverAcp: serverId must be a non-empty string');
  const mcp = fs.mcpHandler(sessionId); // throws for a sessionId that is not a string
  /** Inner requests in flight by requestId: the binding refuses a duplicate active id. */
  const active = new Map();
  let closed = false;

  const unavailable = (why) =>
    bindingError(SERVER_UNAVAILABLE, 'server_unavailable', `MCP server unavailable: ${why}`, { serverId });

  async function handleMessage(params, opts = {}) {
    if (closed) throw unavailable('closed');
    if (!isObject(params)) throw invalid('params', 'must be an object');
    if (params.serverId !== serverId) {
      if (typeof params.serverId !== 'string') throw invalid('serverId', 'must be a string');
      throw bindingError(SERVER_UNAVAILABLE, 'server_unavailable', `MCP server unavailable: ${params.serverId}`, {
        serverId: params.serverId,
      });
    }
    const { requestId, method } = params;
    if (typeof requestId !== 'string') throw invalid('requestId', 'must be a string');
    if (typeof method !== 'string') throw invalid('method', 'must be a string');
    const inner = params.params ?? null;
    if (inner !== null && !isObject(inner)) throw invalid('params.params', 'must be an object or null');
    if (active.has(requestId)) throw invalid('requestId', 'a request with this id is already active');

    const controller = new AbortController();
    const signal = opts?.signal;
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener?.('abort', onAbort, { once: true });
    active.set(requestId, controller);
    try {
      const message = { jsonrpc: '2.0', id: requestId, method };
      if (inner !== null) message.params = inner;
      const reply = await mcp.handle(message, { signal: controller.signal });
      // Only a cancelled call goes unanswered (MCP: a cancelled request gets no response).
      if (reply === null || controller.signal.aborted) {
        if (closed) throw unavailable('closed');
        throw cancelledError();
      }
      return 'error' in reply ? { error: reply.error } : { result: reply.result };
    } finally {
      active.delete(requestId);
      signal?.removeEventListener?.('abort', onAbort);
    }
  }

  return Object.freeze({
    sessionId,
    declaration: { type: 'acp', name, serverId },
    handleMessage,
    /** The same, shaped as the ACP SDK's `McpRequestHandler` (for `McpOverAcpProvider.registerServer`). */
    handler: (ctx) =>
      handleMessage(
        { serverId: ctx.serverId, requestId: ctx.requestId, method: ctx.method, params: ctx.params ?? null },
        { signal: ctx.signal },
      ),
    get closed() {
      return closed;
    },
    async close() {
      closed = true;
      for (const controller of active.values()) controller.abort();
    },
  });
}

/** `fs.mcpServerFor(sessionId, agentCapabilities)`: the transport to declare for this agent. */
export function mcpServerFor(agentCapabilities) {
  const caps = isObject(agentCapabilities) ? agentCapabilities.mcpCapabilities : undefined;
  if (isObject(caps) && caps.acp === true) return 'acp';
  if (isObject(caps) && caps.http === true) return 'http';
  return 'stdio';
}
