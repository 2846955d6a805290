// The one error type of @acp-fs/node and @acp-fs/wasm (semantics.md §6). Kinds, codes, messages and
// data are the Rust core's: errors cross the binding as error values (npm/types/host.d.ts `AcpFsError`),
// and the few errors JS raises itself (a broken promise, a cancellation, a value refused before it
// reaches the engine) are made from the core's own templates and builders (`hostInfo()`,
// `invalidParams()`), registered from the first binding an `AcpFs` or agent is built over.

/**
 * Every failure of `readTextFile`, `writeTextFile` and `handle` is a rejected promise with one of
 * these. `code` is the stable kind (`not_found`, `path_outside_roots`, …), `jsonRpcCode` the code a
 * JSON-RPC response carries, `data` its data, `cause` the host storage's own error when storage
 * failed.
 */
export class AcpFsError extends Error {
  /**
   * @param {{kind: string, code: number, message: string, data?: unknown}} value the host
   *   protocol's error value
   * @param {unknown} [cause]
   */
  constructor(value, cause) {
    super(value.message, cause === undefined ? undefined : { cause });
    this.name = 'AcpFsError';
    this.code = value.kind;
    this.jsonRpcCode = value.code;
    this.data = value.data ?? null;
  }

  /** The JSON-RPC `error` member, `data` left out when there is none (as the core answers). */
  toJsonRpc() {
    const out = { code: this.jsonRpcCode, message: this.message };
    if (this.data !== null && this.data !== undefined) out.data = this.data;
    return out;
  }

  /** The error value's fields are also what `JSON.stringify` should show (logs, structured clone). */
  toJSON() {
    return { name: this.name, code: this.code, jsonRpcCode: this.jsonRpcCode, message: this.message, data: this.data };
  }
}

/** The core's templates and builder, from the first binding registered (every binding is the same core). */
let core;

/** Registers a binding's `hostInfo()` and `invalidParams`; returns the info. */
export function useBinding(binding) {
  const info = binding.hostInfo();
  core ??= { info, invalidParams: binding.invalidParams };
  return info;
}

function registered() {
  if (core === undefined) throw new TypeError('acp-fs: no engine has been loaded');
  return core;
}

/** The registered `hostInfo()`: method names, the value walk's limits and words, error templates. */
export function coreInfo() {
  return registered().info;
}

/** The core's `internal` error as an error value: a broken promise, never the caller's fault. */
export function internalErrorValue(message) {
  const t = registered().info.internal;
  return { ...t, message: t.message.replace('{message}', () => message) };
}

/** A broken promise inside acp-fs or its driver: never the caller's fault, never a crash. */
export function internalError(message, cause) {
  return new AcpFsError(internalErrorValue(message), cause);
}

/** The core's -32800. */
export function cancelledError() {
  return new AcpFsError(registered().info.cancelled);
}

/** The core's -32602 naming `field`, for values the driver refuses before the engine sees them. */
export function invalidParamsError(field, reason) {
  return new AcpFsError(registered().invalidParams(field, reason));
}

/** The host protocol's error value `{kind, code, message, data}`, as a binding throws it. */
const isErrorValue = (v) =>
  v !== null && typeof v === 'object' && !(v instanceof Error) && typeof v.kind === 'string' && Number.isInteger(v.code) && typeof v.message === 'string';

/** Anything thrown inside the driver or a binding, as an `AcpFsError` (`internal` unless it is one). */
export function fromThrown(err) {
  if (err instanceof AcpFsError) return err;
  // An error value a binding threw (the core's answer to a call that cannot return one).
  if (isErrorValue(err)) return new AcpFsError(err);
  return internalError(typeof err?.message === 'string' ? err.message : String(err), err);
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
