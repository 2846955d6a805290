// The standalone MCP file server (`npx @acp-fs/node mcp [--read-only] DIR...`): a drop-in for
// `npx @modelcontextprotocol/server-filesystem DIR...`. One session over the given directories,
// served as newline-delimited JSON-RPC on a pair of byte streams (the process's stdio). Node only:
// nothing in a browser imports this file.
//
// Every message goes to the session's `fs.mcpHandler(key)`, so the tools, their rules and their
// wording are the engine's. What this adds is MCP roots, which only a standalone server has (an
// editor decides its session's roots itself): when the client declares the `roots` capability,
// the server asks `roots/list` once the client says `notifications/initialized`, and again on
// every `notifications/roots/list_changed`; the valid roots the client lists replace the
// directories the server was started with (as the reference server does). Requests that arrive
// while the roots are being asked wait for the answer, so a client's first call already sees them.

import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveLines } from './lines.mjs';

/** The session key of the one session a standalone server serves. */
export const SESSION = 'mcp';
/** Longest a request waits for the client's answer to `roots/list` before the old roots serve it. */
export const ROOTS_WAIT_MS = 10_000;
/** An answer longer than this (in UTF-16 units) is written apart from its line break. */
const LARGE_ANSWER = 64 * 1024;
/** A line (one JSON-RPC message) above this ends the connection: the engine's bounds are far below. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Why `dir` cannot be served, or `null` when it is an existing directory (symlinks followed: a
 * link to a directory names a directory; the engine still checks every path below it).
 */
export function directoryProblem(dir) {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    if (e?.code === 'ENOENT' || e?.code === 'ENOTDIR') return 'no such directory';
    return `cannot be read (${e?.code ?? e?.message ?? e})`;
  }
  return st.isDirectory() ? null : 'not a directory';
}

/**
 * The directories of a `roots/list` result, and why each skipped root was skipped. A root is
 * served when its `uri` is a `file://` URI (MCP requires that form) naming an existing directory.
 */
export function rootsFromList(result) {
  const roots = result !== null && typeof result === 'object' ? result.roots : undefined;
  if (!Array.isArray(roots)) return { dirs: [], skipped: ['the roots/list result has no roots array'] };
  const dirs = [];
  const skipped = [];
  for (const [i, root] of roots.entries()) {
    const uri = root !== null && typeof root === 'object' ? root.uri : undefined;
    if (typeof uri !== 'string') {
      skipped.push(`roots[${i}]: uri must be a string`);
      continue;
    }
    let dir;
    try {
      if (!uri.startsWith('file://')) throw new Error('not a file:// URI');
      dir = fileURLToPath(uri);
    } catch (e) {
      skipped.push(`${uri}: ${e.message}`);
      continue;
    }
    if (!isAbsolute(dir)) {
      skipped.push(`${uri}: not an absolute path`);
      continue;
    }
    const problem = directoryProblem(dir);
    if (problem) skipped.push(`${uri}: ${problem}`);
    else dirs.push(resolve(dir));
  }
  return { dirs, skipped };
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Serves `fs`'s session over `dirs` as an MCP server on `input` (readable bytes) and `output`
 * (writable), logging to `log` (a function of one line). Resolves when `input` has ended and
 * every answer in flight is written.
 * @param {{fs: object, dirs: string[], input: import('node:stream').Readable,
 *   output: import('node:stream').Writable, log?: (line: string) => void}} options
 */
export function serveStandalone({ fs, dirs, input, output, log = () => {} }) {
  if (!Array.isArray(dirs) || dirs.length === 0) throw new TypeError('serveStandalone needs at least one directory');
  /** The directories served now: the command line's, until the client's roots replace them. */
  let served;
  const open = (list) => {
    fs.openSession(SESSION, { cwd: list[0], additionalDirectories: list.slice(1) });
    served = list;
  };
  open(dirs);
  const mcp = fs.mcpHandler(SESSION);
  const calls = new AbortController();
  let clientHasRoots = false;
  /** The `roots/list` requests in flight by id; requests wait for the newest (`waitFor`). */
  const asks = new Map();
  let waitFor = null;
  let asked = 0;
  let applied = 0;

  const send = (text) => {
    if (output.destroyed || output.writableEnded) return;
    // A large answer goes out as it is, its line break after it: joined, it would be copied
    // whole first.
    if (text.length > LARGE_ANSWER) {
      output.write(text);
      output.write('\n');
    } else output.write(`${text}\n`);
  };

  function askRoots() {
    const seq = ++asked;
    const id = `acp-fs-roots-${seq}`;
    let settle;
    const answered = new Promise((r) => (settle = r));
    const timer = setTimeout(() => settle({ timeout: true }), ROOTS_WAIT_MS);
    timer.unref?.();
    asks.set(id, (answer) => {
      clearTimeout(timer);
      settle(answer);
    });
    const ready = answered.then((answer) => {
      asks.delete(id);
      if (waitFor === ready) waitFor = null;
      // An answer to an older ask that arrives after a newer one's is stale.
      if (seq < applied) return;
      applied = seq;
      applyRoots(answer);
    });
    waitFor = ready;
    send(JSON.stringify({ jsonrpc: '2.0', id, method: 'roots/list' }));
  }

  function applyRoots(answer) {
    const now = () => served.join(', ');
    if (answer.closed) return;
    if (answer.timeout) return log(`roots/list: no answer within ${ROOTS_WAIT_MS} ms; serving ${now()}`);
    if (answer.error) return log(`roots/list failed (${answer.error.code}: ${answer.error.message}); serving ${now()}`);
    const { dirs: valid, skipped } = rootsFromList(answer.result);
    for (const why of skipped) log(`skipping root ${why}`);
    if (valid.length === 0) return log(`the client listed no usable root; serving ${now()}`);
    open(valid);
    log(`serving the client's roots: ${now()}`);
  }

  /** Looks at a message on its way in: roots bookkeeping, and whether it must wait for the roots. */
  function inspect(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return { wait: false }; // the engine answers the parse error
    }
    if (!isObject(msg)) return { wait: false };
    if (msg.method === undefined) {
      // A response: ours to take if it answers the roots/list in flight.
      const settle = asks.get(msg.id);
      if (settle) {
        settle('error' in msg ? { error: msg.error } : { result: msg.result });
        return { consumed: true };
      }
      return { wait: false };
    }
    switch (msg.method) {
      case 'initialize':
        clientHasRoots = isObject(msg.params?.capabilities) && isObject(msg.params.capabilities.roots);
        return { wait: false };
      case 'notifications/initialized':
        if (clientHasRoots) askRoots();
        return { wait: false };
      case 'notifications/roots/list_changed':
        askRoots();
        return { wait: false };
      case 'ping':
        return { wait: false };
      default:
        return { wait: msg.id !== undefined };
    }
  }

  async function handle(line) {
    const seen = inspect(line);
    if (seen.consumed) return;
    if (seen.wait && waitFor) await waitFor;
    const reply = await mcp.handle(line, { signal: calls.signal }).catch((e) => {
      log(`internal error: ${e?.message ?? e}`);
      return null;
    });
    if (reply !== null) send(reply);
  }

  // Answers go out as each call ends; requests waiting for the roots are let go when the client
  // hangs up, so the server can finish.
  const drained = serveLines(input, handle, {
    maxBytes: () => MAX_MESSAGE_BYTES,
    onTooLong: (limit) => log(`a message longer than ${limit} bytes: closing`),
  });
  const hangUp = () => {
    for (const settle of asks.values()) settle({ closed: true });
  };
  input.on('end', hangUp);
  input.on('close', hangUp);
  output.on('error', () => {
    calls.abort();
    input.destroy();
  });
  return drained.then(() => calls.abort());
}
