// The one error type of @acp-fs/node and @acp-fs/wasm (semantics.md §6). The kinds, codes,
// messages and data come from the Rust core's wire form; this file only gives them a JS shape.

/**
 * Every failure of `readTextFile`, `writeTextFile` and `handle` is a rejected promise with one of
 * these. `code` is the stable kind (`not_found`, `path_outside_roots`, …), `jsonRpcCode` the code a
 * JSON-RPC response carries, `data` its data, `cause` the host storage's own error when storage
 * failed.
 */
export class AcpFsError extends Error {
  /**
   * @param {{kind: string, code: number, message: string, data?: unknown}} wire
   * @param {unknown} [cause]
   */
  constructor(wire, cause) {
    super(wire.message, cause === undefined ? undefined : { cause });
    this.name = 'AcpFsError';
    this.code = wire.kind;
    this.jsonRpcCode = wire.code;
    this.data = wire.data ?? null;
  }

  /** The JSON-RPC `error` member, `data` left out when there is none (as the core answers). */
  toJsonRpc() {
    const out = { code: this.jsonRpcCode, message: this.message };
    if (this.data !== null && this.data !== undefined) out.data = this.data;
    return out;
  }

  /** Wire errors are also what `JSON.stringify` should show (logs, structured clone). */
  toJSON() {
    return { name: this.name, code: this.code, jsonRpcCode: this.jsonRpcCode, message: this.message, data: this.data };
  }
}

/** A broken promise inside acp-fs or its driver: never the caller's fault, never a crash. */
export function internalError(message, cause) {
  return new AcpFsError(
    { kind: 'internal', code: -32603, message: `Internal error: ${message}`, data: { errorKind: 'internal' } },
    cause,
  );
}

export function cancelledError() {
  return new AcpFsError({ kind: 'cancelled', code: -32800, message: 'Request cancelled', data: null });
}

/** The engine constructor and session calls report bad input as an Error whose message is the wire error. */
export function fromThrown(err) {
  if (err instanceof AcpFsError) return err;
  const text = typeof err?.message === 'string' ? err.message : undefined;
  if (text !== undefined && text.startsWith('{')) {
    try {
      const wire = JSON.parse(text);
      if (typeof wire?.kind === 'string' && typeof wire?.code === 'number') return new AcpFsError(wire);
    } catch {
      // Not a wire error after all: fall through to internal.
    }
  }
  return internalError(text ?? String(err), err);
}

/**
 * An `AcpFsError` as the official TypeScript SDK's `RequestError` (pass the class from
 * `@agentclientprotocol/sdk`): the SDK forwards `code`/`data` only for its own class and turns
 * anything else into -32603.
 */
export function toRequestError(err, RequestError) {
  if (typeof RequestError !== 'function') {
    throw new TypeError('toRequestError needs the RequestError class of @agentclientprotocol/sdk');
  }
  if (err instanceof RequestError) return err;
  const e = err instanceof AcpFsError ? err : fromThrown(err);
  const out = new RequestError(e.jsonRpcCode, e.message, e.data ?? undefined);
  if (e.cause !== undefined) out.cause = e.cause;
  return out;
}
