import { toRequestError } from './error.mjs';

/**
 * Request handlers for the official TypeScript SDK that keep acp-fs's JSON-RPC codes and data
 * (the SDK forwards them only for its own `RequestError`; anything else reaches the agent as
 * -32603):
 * ```js
 * const h = acpClientHandlers(fs, acp.RequestError);
 * acp.client().onRequest('fs/read_text_file', h.readTextFile).onRequest('fs/write_text_file', h.writeTextFile);
 * ```
 */
export function acpClientHandlers(fs, RequestError) {
  if (typeof RequestError !== 'function') {
    throw new TypeError('acpClientHandlers needs the RequestError class of @agentclientprotocol/sdk');
  }
  const wrap = (fn) => (ctx, options) =>
    fn(ctx, options).catch((e) => Promise.reject(toRequestError(e, RequestError)));
  return { readTextFile: wrap(fs.readTextFile), writeTextFile: wrap(fs.writeTextFile) };
}
