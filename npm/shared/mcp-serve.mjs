// `fs.serveMcp(sessionId, {transport})`: one session's files as an MCP server on a real local
// transport, for ACP v2 agents (which have no fs/* methods and read the editor's files through an
// MCP server declared in `session/new`). Node only; the driver imports this file lazily, by a
// specifier bundlers leave alone, so browser bundles never see it.
//
// - 'http': MCP Streamable HTTP (the official @modelcontextprotocol/sdk server transport,
//   stateless: a fresh transport per request, so an agent that reconnects, or restarts its MCP
//   client, just sends `initialize` again) on 127.0.0.1 and a free port. Every request must carry
//   the declaration's bearer token (401 otherwise, before any tool is reached); a Host that is not
//   this loopback address and port, or an Origin that is not loopback, is 403 (DNS rebinding).
// - 'stdio': the declaration is `node mcp-relay.mjs <socket>` with the token in its env; the relay
//   pipes its stdio to a Unix socket in a private (0700) temp dir, or a Windows named pipe, and
//   sends the token first; connections without it are dropped unanswered.
//
// The transports are thin: every message goes to the session's `fs.mcpHandler(sessionId)`.

import { serveLines } from './lines.mjs';

const RELAY = 'mcp-relay.mjs';
const TOKEN_ENV = 'ACP_FS_MCP_TOKEN';
/** Bodies and stdio lines above this are refused: the engine's own bounds apply well below it. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long a relay connection may take to present its token. */
const AUTH_TIMEOUT_MS = 10_000;

// Node built-ins and the MCP SDK by specifiers bundlers do not follow (this file is Node-only).
const load = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

export async function serveMcp(fs, sessionId, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('serveMcp options must be an object');
  const { transport, name = 'acp-fs' } = options;
  if (typeof name !== 'string' || name === '') throw new TypeError('serveMcp: name must be a non-empty string');
  const mcp = fs.mcpHandler(sessionId); // throws for a sessionId that is not a string
  if (transport === 'http') return serveHttp(fs, sessionId, name, mcp);
  if (transport === 'stdio') return serveStdio(fs, sessionId, name);
  throw new TypeError(`serveMcp: transport must be 'http' or 'stdio' (got ${JSON.stringify(transport)}); 'acp' is fs.mcpOverAcp`);
}

async function token() {
  const { randomBytes } = await load('node:crypto');
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality of two strings (digests first, so lengths leak nothing either). */
async function tokenChecker(expected) {
  const { createHash, timingSafeEqual } = await load('node:crypto');
  const digest = (s) => createHash('sha256').update(s, 'utf8').digest();
  const want = digest(expected);
  return (got) => typeof got === 'string' && timingSafeEqual(digest(got), want);
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

async function serveHttp(fs, sessionId, name, mcp) {
  const http = await load('node:http');
  let StreamableHTTPServerTransport;
  try {
    ({ StreamableHTTPServerTransport } = await load('@modelcontextprotocol/sdk/server/streamableHttp.js'));
  } catch (e) {
    throw new Error("serveMcp({transport: 'http'}) needs the package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk)", {
      cause: e,
    });
  }
  const secret = await token();
  const isToken = await tokenChecker(`Bearer ${secret}`);
  let port = 0;
  let closed = false;

  const deny = (res, status, message, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
  };

  const server = http.createServer((req, res) => {
    if (closed) return deny(res, 503, 'Service unavailable: this MCP server is closed', { connection: 'close' });
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host and Origin.
    const host = (req.headers.host ?? '').toLowerCase();
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return deny(res, 403, 'Forbidden: Host');
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) return deny(res, 403, 'Forbidden: Origin');
    if (!isToken(req.headers.authorization)) {
      return deny(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="acp-fs"' });
    }
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') return deny(res, 404, 'Not found');
    // Stateless: no server-initiated stream (GET) and no session to delete (DELETE).
    if (req.method !== 'POST') return deny(res, 405, 'Method not allowed', { allow: 'POST' });
    serveOne(req, res).catch((e) => {
      if (!res.headersSent) deny(res, 500, `Internal error: ${e?.message ?? e}`);
      else res.destroy();
    });
  });

  async function serveOne(req, res) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MESSAGE_BYTES,
    });
    const calls = new AbortController();
    transport.onmessage = (message) => {
      mcp.handle(message, { signal: calls.signal }).then(
        (reply) => (reply === null ? undefined : transport.send(reply)),
        (e) => {
          if (message && message.id !== undefined && message.method !== undefined) {
            return transport.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `Internal error: ${e?.message ?? e}` } });
          }
        },
      ).catch(() => {}); // the client went away: nothing to answer
    };
    // The response is over (answered, or the client hung up): calls still running are abandoned.
    res.on('close', () => {
      calls.abort();
      transport.close().catch(() => {});
    });
    await transport.start();
    await transport.handleRequest(req, res);
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = server.address().port;
  const url = `http://127.0.0.1:${port}/mcp`;

  let closing;
  return Object.freeze({
    transport: 'http',
    sessionId,
    declaration: { type: 'http', name, url, headers: [{ name: 'Authorization', value: `Bearer ${secret}` }] },
    get closed() {
      return closed;
    },
    close() {
      closed = true;
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  });
}

function isLoopbackOrigin(origin) {
  let u;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK_NAMES.has(u.hostname.toLowerCase());
}

async function serveStdio(fs, sessionId, name) {
  const [net, os, path, fsp, url] = await Promise.all(
    ['node:net', 'node:os', 'node:path', 'node:fs/promises', 'node:url'].map(load),
  );
  const secret = await token();
  const isToken = await tokenChecker(secret);
  const windows = process.platform === 'win32';
  let dir = null;
  let socketPath;
  if (windows) {
    socketPath = `\\\\.\\pipe\\acp-fs-mcp-${process.pid}-${(await token()).slice(0, 22)}`; // not derived from the token: pipe names are listable
  } else {
    // mkdtemp makes the directory 0700: only this user can reach the socket at all.
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'acp-fs-mcp-'));
    await fsp.chmod(dir, 0o700);
    socketPath = path.join(dir, 'mcp.sock');
  }
  const relay = url.fileURLToPath(new URL(`./${RELAY}`, import.meta.url));
  const sockets = new Set();
  let closed = false;

  // Half-open: a relay whose stdin ended (`echo … | relay`) still gets the answers in flight.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    if (closed) return socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    serveConnection(socket);
  });

  function serveConnection(socket) {
    const mcp = fs.mcpHandler(sessionId); // one per connection: request ids are per connection
    const calls = new AbortController();
    socket.on('close', () => calls.abort());
    let authed = false;
    const timer = setTimeout(() => socket.destroy(), AUTH_TIMEOUT_MS);
    timer.unref?.();
    socket.on('close', () => clearTimeout(timer));
    const handle = (line) => {
      if (!authed) {
        clearTimeout(timer);
        if (isToken(line)) authed = true;
        else socket.destroy(); // no answer, no tool
        return;
      }
      return mcp.handle(line, { signal: calls.signal }).then(
        (reply) => {
          if (reply !== null && !socket.destroyed) socket.write(`${reply}\n`);
        },
        () => {},
      );
    };
    // Until the token is in, a line longer than any token ends the connection.
    serveLines(socket, handle, { maxBytes: () => (authed ? MAX_MESSAGE_BYTES : 1024) }).then(() => {
      if (!socket.destroyed) socket.end();
    });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const env = [{ name: TOKEN_ENV, value: secret }];
  // Electron's execPath is the app: make it run the relay as plain Node.
  if (process.versions.electron) env.push({ name: 'ELECTRON_RUN_AS_NODE', value: '1' });

  let closing;
  return Object.freeze({
    transport: 'stdio',
    sessionId,
    declaration: { name, command: process.execPath, args: [relay, socketPath], env },
    get closed() {
      return closed;
    },
    close() {
      closed = true;
      closing ??= (async () => {
        const done = new Promise((resolve) => server.close(() => resolve()));
        for (const s of sockets) s.destroy();
        await done;
        if (dir) await fsp.rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  });
}
