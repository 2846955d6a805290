// Newline-delimited JSON-RPC on a byte stream (MCP's stdio framing), for the standalone server's
// stdio (mcp-standalone.mjs) and the stdio relay's socket (mcp-serve.mjs). No imports: only
// Node code loads it, but nothing here needs Node.

/**
 * Hands each line of `input` (a readable stream of bytes) to `handle(line)` in order of arrival:
 * UTF-8 decoded (a character split across chunks arrives whole), without its `\n` or `\r\n`,
 * blank lines skipped (they carry no message). Lines are not held back while earlier ones are
 * handled: a handler's promise settles when it will (calls run concurrently, as over any MCP
 * transport). `handle` may destroy `input`; no line is handed on after that. A line still
 * unfinished past `maxBytes()` (its string length, asked after each chunk, so the limit may
 * change as the connection goes on) destroys `input`, after `onTooLong(limit)`.
 *
 * Resolves once `input` has ended or closed and every promise `handle` returned has settled.
 * @param {import('node:stream').Readable} input
 * @param {(line: string) => Promise<unknown> | void} handle
 * @param {{maxBytes: () => number, onTooLong?: (limit: number) => void}} limits
 * @returns {Promise<void>}
 */
export function serveLines(input, handle, { maxBytes, onTooLong = () => {} }) {
  let pending = 0;
  let ended = false;
  let done;
  const drained = new Promise((resolve) => (done = resolve));
  const finish = () => {
    if (ended && pending === 0) done();
  };
  let buffer = '';
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      let line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() === '') continue;
      pending += 1;
      Promise.resolve(handle(line)).finally(() => {
        pending -= 1;
        finish();
      });
      if (input.destroyed) return;
    }
    const limit = maxBytes();
    if (buffer.length > limit) {
      onTooLong(limit);
      buffer = '';
      input.destroy();
    }
  });
  const end = () => {
    ended = true;
    finish();
  };
  input.on('end', end);
  input.on('close', end);
  return drained;
}
