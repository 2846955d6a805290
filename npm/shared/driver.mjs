// The one JS driver of @acp-fs/node and @acp-fs/wasm. Each package passes its binding's `Engine`
// (docs/binding-interface.md); this file runs the engine's step loop against a JS storage and the
// host's hooks, so no binding ever awaits a JS promise from Rust. Policy lives in the core: the
// driver converts, waits and reports.

import { AcpFsError, cancelledError, fromThrown, internalError, toRequestError } from './error.mjs';
import { deriveCaps, errorAnswer, StorageSession } from './storage.mjs';

export { AcpFsError, toRequestError };
export { deriveCaps } from './storage.mjs';

const READ = 'fs/read_text_file';
const WRITE = 'fs/write_text_file';

// Options that are JS values the engine never sees (functions, objects with methods).
const HOST_ONLY = new Set(['storage', 'approveWrite', 'onChange', 'onAudit', 'onDocumentWrite']);

const now = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/** Engine options: everything but the host-only values; `undefined` means "not given". */
function engineOptions(options) {
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    if (!HOST_ONLY.has(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The official SDK calls a request handler with a context `{method, params, signal, …}`; a host
 * calling by hand passes the params. Params never carry a string `method` beside `params`.
 */
function unwrap(arg, options) {
  if (arg !== null && typeof arg === 'object' && typeof arg.method === 'string' && 'params' in arg) {
    return { params: arg.params, signal: options?.signal ?? arg.signal };
  }
  return { params: arg, signal: options?.signal };
}

const NOT_JSON = '[not representable in JSON]';

/** A nested value as JSON would carry it; what JSON cannot carry becomes a value no field accepts. */
function jsonValue(value) {
  try {
    const text = JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? { bigint: String(v) } : v));
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/**
 * Params as a JSON-RPC peer would have sent them, decided here rather than by each binding's
 * value conversion: `undefined`, functions and symbols are absent (as `JSON.stringify` leaves
 * them out); a bigint becomes an object, which every field refuses in its turn (strict) or
 * ignores (lenient). Top-level strings such as a write's `content` are passed without a copy.
 */
function jsonParams(params) {
  if (params === null || params === undefined) return null;
  if (typeof params === 'bigint') return String(params);
  if (typeof params !== 'object') return jsonValue(params);
  if (Array.isArray(params)) return jsonValue(params);
  const out = {};
  for (const [key, v] of Object.entries(params)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out[key] = v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : jsonValue(v);
  }
  return out;
}

/** Host-side calls take strings; anything else is the caller's error, named like a param error. */
function requireString(value, field) {
  if (typeof value !== 'string') {
    const reason = `must be a string, got ${value === null ? 'null' : typeof value}`;
    throw new AcpFsError({ kind: 'invalid_params', code: -32602, message: `Invalid params: ${field}: ${reason}`, data: { field, reason } });
  }
}

/** Observers must not change an answer that is already decided; their failures are reported. */
function notify(hook, arg, what) {
  if (typeof hook !== 'function') return;
  try {
    const r = hook(arg);
    if (r && typeof r.then === 'function') r.then(undefined, (e) => console.error(`acp-fs: ${what} failed`, e));
  } catch (e) {
    console.error(`acp-fs: ${what} failed`, e);
  }
}

/**
 * Builds the `AcpFs` class over a binding.
 * @param {{Engine: Function, nativeDisk?: boolean | {caps?: object}}} binding
 *   `nativeDisk`: the binding's operations have `runOnDisk`, so `storage` may be omitted.
 */
export function createAcpFs({ Engine, nativeDisk } = {}) {
  if (typeof Engine !== 'function') throw new TypeError('createAcpFs needs the binding Engine class');
  const nativeCaps = nativeDisk
    ? {
        symlinks: 'resolvable',
        stat: true,
        rangedReads: true,
        write: true,
        makeDirs: true,
        ...(typeof nativeDisk === 'object' ? nativeDisk.caps : {}),
      }
    : null;

  class Documents {
    #engine;
    constructor(engine) {
      this.#engine = engine;
    }
    /** Registers an open document's unsaved text: reads prefer it, writes to it ask the host. */
    open(path, text) {
      requireString(path, 'path');
      requireString(text, 'text');
      const err = this.#engine.openDocument(path, text);
      if (err) throw new AcpFsError(err);
    }
    /** Replaces an open document's text (the user typed). */
    update(path, text) {
      this.open(path, text);
    }
    close(path) {
      requireString(path, 'path');
      this.#engine.closeDocument(path);
    }
    /** The open document's current text, or `null` when it is not open. */
    get(path) {
      requireString(path, 'path');
      return this.#engine.document(path) ?? null;
    }
  }

  class AcpFs {
    #engine;
    #storage;
    #native;
    #hooks;
    /** In-flight `handle()` calls by raw JSON id text, for `$/cancel_request`. */
    #inflight = new Map();

    constructor(options = {}) {
      if (options === null || typeof options !== 'object') throw new TypeError('AcpFs options must be an object');
      const { storage } = options;
      let caps;
      if (storage === undefined || storage === null) {
        if (!nativeCaps) {
          throw new AcpFsError({
            kind: 'invalid_params',
            code: -32602,
            message: 'Invalid params: storage: this package has no built-in storage; pass one',
            data: { field: 'storage', reason: 'this package has no built-in storage; pass one' },
          });
        }
        this.#native = true;
        caps = nativeCaps;
      } else {
        if (typeof storage !== 'object' && typeof storage !== 'function') throw new TypeError('storage must be an object');
        if (typeof storage.readFile !== 'function') throw new TypeError('storage.readFile must be a function');
        this.#native = false;
        this.#storage = storage;
        caps = deriveCaps(storage);
      }
      this.#hooks = {
        approveWrite: options.approveWrite,
        onChange: options.onChange,
        onAudit: options.onAudit,
        onDocumentWrite: options.onDocumentWrite,
      };
      try {
        this.#engine = new Engine(engineOptions(options), caps);
      } catch (e) {
        throw fromThrown(e);
      }
      this.documents = new Documents(this.#engine);
      // Detached use must work: `onRequest('fs/read_text_file', fs.readTextFile)`.
      this.readTextFile = this.readTextFile.bind(this);
      this.writeTextFile = this.writeTextFile.bind(this);
      this.handle = this.handle.bind(this);
    }

    /** Registers (or replaces, for `session/load`) a session's roots. */
    openSession(sessionId, { cwd, additionalDirectories = [] } = {}) {
      requireString(sessionId, 'sessionId');
      const err = this.#engine.openSession(sessionId, cwd, additionalDirectories);
      if (err) throw new AcpFsError(err);
    }

    closeSession(sessionId) {
      requireString(sessionId, 'sessionId');
      this.#engine.closeSession(sessionId);
    }

    /** `clientCapabilities.fs`: only what is wired. */
    capabilities() {
      const c = this.#engine.capabilities();
      return { readTextFile: Boolean(c.readTextFile), writeTextFile: Boolean(c.writeTextFile) };
    }

    readTextFile(arg, options) {
      return this.#request(READ, arg, options);
    }

    writeTextFile(arg, options) {
      return this.#request(WRITE, arg, options);
    }

    /**
     * Answers one JSON-RPC message: a string in gives a string out, an object gives an object.
     * `null` when the message is not an fs request (route it elsewhere).
     */
    handle(message, options) {
      return this.#handle(message, options?.signal).catch((e) => Promise.reject(fromThrown(e)));
    }

    async #handle(message, signal) {
      const asText = typeof message === 'string';
      const text = asText ? message : (JSON.stringify(message) ?? 'null');
      const out = (reply) => (reply === null || asText ? reply : JSON.parse(reply));
      const d = this.#engine.dispatch(text);
      switch (d.kind) {
        case 'notMine':
          return null;
        case 'reply':
          return out(d.reply);
        case 'cancel': {
          const controller = this.#inflight.get(idKey(d.id));
          if (controller) controller.abort();
          return null;
        }
        case 'call': {
          const controller = new AbortController();
          const abort = () => controller.abort();
          if (signal?.aborted) abort();
          else signal?.addEventListener('abort', abort, { once: true });
          // A repeated id replaces the older entry: ids are the peer's to keep unique.
          const key = idKey(d.id);
          this.#inflight.set(key, controller);
          try {
            const outcome = await this.#run(d.operation, controller.signal);
            const body = outcome.error
              ? `"error":${JSON.stringify(new AcpFsError(outcome.error).toJsonRpc())}`
              : `"result":${JSON.stringify(outcome.result)}`;
            return out(`{"jsonrpc":"2.0","id":${d.id},${body}}`);
          } finally {
            signal?.removeEventListener('abort', abort);
            if (this.#inflight.get(key) === controller) this.#inflight.delete(key);
          }
        }
        default:
          throw internalError(`the binding dispatched an unknown kind ${JSON.stringify(d.kind)}`);
      }
    }

    async #request(method, arg, options) {
      try {
        const { params, signal } = unwrap(arg, options);
        const op = this.#engine.start(method, jsonParams(params));
        if (!op) throw internalError(`${method} is not an fs method of this engine`);
        const outcome = await this.#run(op, signal);
        if (outcome.error) throw new AcpFsError(outcome.error, outcome.cause);
        return outcome.result;
      } catch (e) {
        throw fromThrown(e);
      }
    }

    /**
     * Runs an operation to its outcome; stamps and reports the audit event and change record.
     * Never rejects: every failure is an outcome (`cause` is the host error that ended it).
     */
    async #run(op, signal) {
      const started = now();
      let outcome;
      let cause;
      const session = this.#native ? null : new StorageSession(this.#storage);
      try {
        ({ outcome, cause } = await this.#loop(op, signal, session));
      } catch (e) {
        // A driver bug or a binding throw: never leave a request hanging.
        const err = internalError(e?.message ?? String(e));
        outcome = { error: { kind: err.code, code: err.jsonRpcCode, message: err.message, data: err.data }, change: null };
        cause = e;
      } finally {
        await session?.closeAll();
        op.free?.();
      }
      if (outcome.audit) {
        outcome.audit.durationMs = now() - started;
        notify(this.#hooks.onAudit, outcome.audit, 'onAudit');
      }
      if (!outcome.error && outcome.change) notify(this.#hooks.onChange, outcome.change, 'onChange');
      return { ...outcome, cause };
    }

    async #loop(op, signal, session) {
      // Cancellation races every wait: the request settles at once, and no io starts after it.
      let cancelled = false;
      let onAbort;
      const aborted = new Promise((resolve) => {
        onAbort = () => {
          cancelled = true;
          resolve(ABORTED);
        };
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      const race = (p) => {
        // A losing promise may still reject later; that must not surface as unhandled.
        p.then(undefined, () => {});
        return cancelled ? ABORTED : Promise.race([p, aborted]);
      };
      const cancel = () => ({ outcome: op.cancel(), cause: undefined });
      try {
        if (cancelled) return cancel();
        let lastError;
        if (this.#native) {
          let step = await race(op.runOnDisk());
          for (;;) {
            if (step === ABORTED) return cancel();
            if (step.done) return { outcome: step.done, cause: step.done.error && lastError ? lastError : undefined };
            lastError = undefined;
            const answer = await race(
              this.#host(step.io).catch((e) => {
                lastError = e;
                return errorAnswer(e);
              }),
            );
            if (answer === ABORTED) return cancel();
            step = await race(op.runOnDisk(answer));
          }
        }
        let step = op.step();
        for (;;) {
          if (step.done) {
            return { outcome: step.done, cause: step.done.error && lastError ? lastError : undefined };
          }
          lastError = undefined;
          const io = step.io;
          const result = await race(
            (io.op === 'approve' || io.op === 'writeDocument'
              ? this.#host(io).then((answer) => ({ answer }))
              : Promise.resolve().then(() => session.perform(io, step.bytes))
            ).catch((e) => {
              lastError = e;
              return { answer: errorAnswer(e) };
            }),
          );
          if (result === ABORTED) return cancel();
          step = result.bytes === undefined ? op.step(result.answer) : op.step(result.answer, result.bytes);
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }

    /** The host's answers to the engine's questions that are not about storage. */
    async #host(io) {
      if (io.op === 'approve') {
        const approve = this.#hooks.approveWrite;
        return { approved: typeof approve === 'function' ? (await approve(io.change)) === true : true };
      }
      if (io.op === 'writeDocument') {
        const choose = this.#hooks.onDocumentWrite;
        const choice = typeof choose === 'function' ? await choose(io.path, io.text) : 'buffer';
        return { document: choice === undefined || choice === null ? 'buffer' : choice };
      }
      throw new TypeError(`the engine asked the host for ${io.op}, which only storage can answer`);
    }
  }

  return AcpFs;
}

const ABORTED = Symbol('aborted');

/** The same id however the peer spelled it (`"\u0041"` and `"A"`, `1.50` and `1.5`). */
function idKey(rawId) {
  try {
    return JSON.stringify(JSON.parse(rawId));
  } catch {
    return rawId;
  }
}

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
