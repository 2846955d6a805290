// The one JS driver of @acp-fs/node and @acp-fs/wasm. Each package passes its binding
// (docs/binding-interface.md: `createEngine`, `hostInfo`, `invalidParams`, the agent functions);
// this file runs the one step loop against the built-in disk or a JS storage and the host's hooks,
// so no binding ever awaits a JS promise from Rust. Policy, wording and limits live in the core:
// the driver walks values once, converts, waits and reports.

import { AcpFsError, coreInfo, fromThrown, internalError, internalWire, invalidParamsError, toRequestError, useBinding } from './error.mjs';
import { deriveCaps, errorAnswer, hostStorage, isThenable, StorageSession } from './storage.mjs';
import { mcpOverAcp, mcpServerFor } from './mcp-acp.mjs';

export { AcpFsError, toRequestError };
export { deriveCaps } from './storage.mjs';

// Options that are JS values the engine never sees (functions, objects with methods): the one
// list of them. The engine refuses every other key it does not know. Exported for the test that
// holds docs/options.md to the keys; not part of the packages' API.
export const HOST_ONLY = new Set(['storage', 'approveWrite', 'onChange', 'onAudit', 'onDocumentWrite']);

const now = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/**
 * Engine options: everything but the host-only values; `undefined` means "not given". A function
 * or symbol, which JSON would leave out without a word, crosses as a value no option takes, so a
 * misspelt hook (`onAudits`) is refused by name like any unknown key.
 */
function engineOptions(options) {
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    if (HOST_ONLY.has(key) || value === undefined) continue;
    out[key] = typeof value === 'function' || typeof value === 'symbol' ? NOT_JSON : value;
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

/** `String.prototype.isWellFormed` (ES2024), or the same test over the code units where it is missing. */
const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (text) => text.isWellFormed()
    : (text) => wellFormedUnits(text, false);

/** `String.prototype.toWellFormed`: lone surrogates shown as U+FFFD (for naming a field only). */
const toWellFormed =
  typeof String.prototype.toWellFormed === 'function'
    ? (text) => text.toWellFormed()
    : (text) => wellFormedUnits(text, true);

/** The two fallbacks above: whether `text` is well formed, or (`repair`) it with U+FFFD for each
 * lone surrogate. Exported for its test; not part of the packages' API. */
export function wellFormedUnits(text, repair) {
  if (repair) return replaceLoneSurrogates(text, () => '\uFFFD');
  let lone = false;
  replaceLoneSurrogates(text, () => {
    lone = true;
  });
  return !lone;
}

/**
 * `text` with each lone surrogate (a UTF-16 code unit no JSON text or Rust string can carry)
 * replaced by `replace(unit, index)`; `undefined` keeps it.
 */
function replaceLoneSurrogates(text, replace) {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1;
      continue;
    }
    const by = replace(unit, i);
    if (by === undefined) continue;
    out += text.slice(from, i) + by;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Why `value` has no JSON form, as `{field, reason}` naming the top-level key it sits under
 * (`whole` for the value itself), or `undefined`: a string or key with a lone surrogate (JSON
 * text cannot carry it and the engine never replaces it), nesting past 128 levels (a cycle nests
 * forever), more than a million values, or a getter or proxy that throws. Top-level keys are
 * checked in order, each value to the bottom, so the first bad field is the one named. The limits
 * and the reason's words are the core's (`hostInfo()`): this is the one copy of the walk.
 */
export function notJson(value, whole = 'params') {
  const { maxDepth: MAX_DEPTH, maxValues: MAX_VALUES, loneSurrogate: LONE } = coreInfo();
  if (typeof value === 'string') return isWellFormed(value) ? undefined : { field: whole, reason: LONE };
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined;
  let values = 1;
  /** The children of an object or array, or the reason they cannot be read. */
  const children = (v) => {
    try {
      // Array.from visits holes too (JSON sends them as null).
      return Array.isArray(v) ? Array.from(v, (child) => [undefined, child]) : Object.entries(v);
    } catch (e) {
      return { reason: `not representable as JSON: ${e?.message ?? String(e)}` };
    }
  };
  const top = children(value);
  if (!Array.isArray(top)) return { field: whole, reason: top.reason };
  values += top.length;
  for (const [key, child] of top) {
    const field = key === undefined ? whole : toWellFormed(key);
    if (key !== undefined && !isWellFormed(key)) return { field, reason: LONE };
    // Most params are flat: a string or a number needs no walk.
    if (typeof child === 'string') {
      if (!isWellFormed(child)) return { field, reason: LONE };
      continue;
    }
    if (child === null || typeof child !== 'object' || ArrayBuffer.isView(child)) continue;
    const pending = [[child, 1]];
    while (pending.length) {
      const [v, depth] = pending.pop();
      if (typeof v === 'string') {
        if (!isWellFormed(v)) return { field, reason: LONE };
        continue;
      }
      if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue;
      if (depth >= MAX_DEPTH) return { field, reason: `nested deeper than ${MAX_DEPTH} levels (or cyclic)` };
      const entries = children(v);
      if (!Array.isArray(entries)) return { field, reason: entries.reason };
      values += entries.length;
      if (values > MAX_VALUES) return { field, reason: `more than ${MAX_VALUES} values` };
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, c] = entries[i];
        if (k !== undefined && !isWellFormed(k)) return { field, reason: LONE };
        pending.push([c, depth + 1]);
      }
    }
  }
  return undefined;
}

/**
 * `text` with each lone surrogate written as a `\uXXXX` escape, for message text handed to the
 * engine. Both bindings convert a JS string to Rust lossily (a lone surrogate becomes U+FFFD), so
 * without this a write could create `w\uFFFD.txt` or put U+FFFD into content. Inside a JSON
 * string literal the escape is the same value, so the engine sees the lone surrogate and applies
 * its own rule (semantics.md §8.1); outside one the text is not JSON either way. After an odd run
 * of backslashes the surrogate is itself the escaped character, which JSON does not allow:
 * escaping it would turn `\` + it into a valid `\\`, so it is left for the parse error.
 */
function escapeLoneSurrogates(text) {
  if (isWellFormed(text)) return text;
  return replaceLoneSurrogates(text, (unit, i) => {
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes += 1;
    return slashes % 2 === 1 ? undefined : `\\u${unit.toString(16)}`;
  });
}

/** The fields of refused params that are plain values, for the audit event's echo. */
function echoParams(params) {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return null;
  const out = {};
  for (const [key, v] of Object.entries(params)) {
    if (!isWellFormed(key)) continue;
    if (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && isWellFormed(v))) out[key] = v;
  }
  return out;
}

/** A nested value as JSON would carry it; what JSON cannot carry becomes a value no field accepts. */
function jsonValue(value) {
  try {
    const text = JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? { bigint: String(v) } : v));
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

const ABSENT = Symbol('absent');
const NESTED = Symbol('nested');

/**
 * A top-level param value as JSON carries it, where that needs no walk: the value itself (`NaN`
 * and the infinities as `null`, as JSON sends them), `ABSENT` for what JSON leaves out
 * (`undefined`, functions, symbols), or `NESTED` for an object, array or bigint (`jsonValue`'s).
 * The one rule `jsonParams` and `flatParams` both apply.
 */
function flatValue(v) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'undefined':
    case 'function':
    case 'symbol':
      return ABSENT;
    default:
      return v === null ? null : NESTED;
  }
}

/**
 * Params as a JSON-RPC peer would have sent them, decided here rather than by each binding's
 * value conversion (`flatValue`); a bigint becomes an object, which every field refuses in its
 * turn (strict) or ignores (lenient). Top-level strings such as a write's `content` are passed
 * without a copy.
 */
function jsonParams(params) {
  if (params === null || params === undefined) return null;
  if (typeof params === 'bigint') return String(params);
  if (typeof params !== 'object') return jsonValue(params);
  if (Array.isArray(params)) return jsonValue(params);
  const out = {};
  for (const [key, v] of Object.entries(params)) {
    const flat = flatValue(v);
    if (flat !== ABSENT) out[key] = flat === NESTED ? jsonValue(v) : flat;
  }
  return out;
}

/**
 * Flat params whose strings hold at most this many UTF-16 units cross as JSON text
 * (`Engine.startJson`): one string instead of a value converted member by member, which in wasm
 * is several imports per member. Larger ones (a write's `content`) cross as values, where JSON
 * would escape and copy the text twice more.
 */
const JSON_PARAMS_MAX = 1024;

/**
 * The common case in one pass: params of well-formed strings, numbers, booleans and nulls (the
 * usual `{sessionId, path, line, limit}`) need no walk, and come out as `jsonParams` makes them:
 * as JSON text when they are small (`JSON_PARAMS_MAX`), else as an object. `undefined` for
 * anything else, which the walk and `jsonParams` then decide.
 */
function flatParams(params) {
  if (params === null || typeof params !== 'object' || Array.isArray(params) || ArrayBuffer.isView(params)) return undefined;
  const out = {};
  let units = 0;
  try {
    for (const key of Object.keys(params)) {
      if (!isWellFormed(key)) return undefined;
      const flat = flatValue(params[key]);
      if (flat === NESTED) return undefined;
      units += key.length;
      if (typeof flat === 'string') {
        if (!isWellFormed(flat)) return undefined;
        units += flat.length;
      }
      if (flat !== ABSENT) out[key] = flat;
    }
  } catch {
    // A getter or proxy that throws: the walk names the field.
    return undefined;
  }
  return units <= JSON_PARAMS_MAX ? JSON.stringify(out) : out;
}

/** Host-side calls take strings; anything else is the caller's error, named like a param error. */
function requireString(value, field) {
  if (typeof value !== 'string') {
    throw invalidParamsError(field, `must be a string, got ${value === null ? 'null' : typeof value}`);
  }
  if (!isWellFormed(value)) throw invalidParamsError(field, coreInfo().loneSurrogate);
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
 * Builds the `AcpFs` class over a binding (docs/binding-interface.md).
 * @param {{hostInfo: Function, invalidParams: Function, createEngine: Function}} binding
 * @param {{nativeDisk?: boolean | {caps?: object}, defaultStorage?: () => object}} [host]
 *   `nativeDisk`: the binding's operations have `runOnDisk`, so `storage` may be omitted.
 *   `defaultStorage`: otherwise, the JS storage an omitted `storage` means (@acp-fs/node's wasm
 *   fallback: the local disk through node:fs), made once per instance.
 */
export function createAcpFs(binding, { nativeDisk, defaultStorage } = {}) {
  for (const name of ['hostInfo', 'invalidParams', 'createEngine']) {
    if (typeof binding?.[name] !== 'function') throw new TypeError(`createAcpFs needs the binding function ${name}`);
  }
  // Asked when the first instance is made: a wasm module may be instantiated after this runs.
  let info;
  const core = () => (info ??= useBinding(binding));
  const nativeCaps = () =>
    nativeDisk ? { ...core().fullCaps, ...(typeof nativeDisk === 'object' ? nativeDisk.caps : {}) } : null;

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
    /**
     * The buffer was (re)loaded from storage with `text`, so it matches the file: a change on disk
     * since the agent read the file is judged on the disk (semantics.md §9).
     */
    reloaded(path, text) {
      requireString(path, 'path');
      requireString(text, 'text');
      const err = this.#engine.documentReloaded(path, text);
      if (err) throw new AcpFsError(err);
    }
    /** The buffer was saved: storage holds its text. `false` when it is not open. */
    saved(path) {
      requireString(path, 'path');
      return this.#engine.documentSaved(path);
    }
    /** The open document's version (a new one on every open, update, reload and write), or `null`. */
    version(path) {
      requireString(path, 'path');
      return this.#engine.documentVersion(path) ?? null;
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
    #inflight = new InFlight();
    /**
     * Writes waiting for their turn on a path (semantics.md §9): the engine keeps the queue; a turn
     * ends with the operation holding it, so every operation's end wakes the waiters, and each asks
     * the engine again.
     */
    #waiting = [];

    #ended() {
      if (this.#waiting.length === 0) return;
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const wake of waiting) wake();
    }

    #turn() {
      return new Promise((resolve) => this.#waiting.push(resolve));
    }

    constructor(options = {}) {
      if (options === null || typeof options !== 'object') throw new TypeError('AcpFs options must be an object');
      // Node's own fs / fs.promises become the hardened disk adapter (shared/node-disk.mjs).
      core();
      let storage = hostStorage(options.storage);
      if ((storage === undefined || storage === null) && !nativeDisk && typeof defaultStorage === 'function') {
        storage = defaultStorage();
      }
      let caps;
      if (storage === undefined || storage === null) {
        if (!nativeDisk) throw invalidParamsError('storage', 'this package has no built-in storage; pass one');
        this.#native = true;
        caps = nativeCaps();
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
      let made;
      try {
        made = binding.createEngine(jsonParams(engineOptions(options)), caps);
      } catch (e) {
        throw fromThrown(e);
      }
      if (isWireError(made)) throw new AcpFsError(made);
      this.#engine = made;
      this.documents = new Documents(this.#engine);
      // Detached use must work: `onRequest('fs/read_text_file', fs.readTextFile)`.
      this.readTextFile = this.readTextFile.bind(this);
      this.writeTextFile = this.writeTextFile.bind(this);
      this.handle = this.handle.bind(this);
      this.mcpHandler = this.mcpHandler.bind(this);
    }

    /** Registers (or replaces, for `session/load`) a session's roots. */
    openSession(sessionId, { cwd, additionalDirectories = [] } = {}) {
      requireString(sessionId, 'sessionId');
      const err = this.#engine.openSession(sessionId, cwd ?? null, jsonValue(additionalDirectories));
      if (err) throw new AcpFsError(err);
    }

    closeSession(sessionId) {
      requireString(sessionId, 'sessionId');
      this.#engine.closeSession(sessionId);
    }

    /** `clientCapabilities.fs`: only what is wired. */
    capabilities() {
      const c = this.#engine.capabilities();
      return { readTextFile: c.readTextFile, writeTextFile: c.writeTextFile };
    }

    readTextFile(arg, options) {
      return this.#request(info.readMethod, arg, options);
    }

    writeTextFile(arg, options) {
      return this.#request(info.writeMethod, arg, options);
    }

    /**
     * Answers one JSON-RPC message: a string in gives a string out, an object gives an object.
     * `null` when the message is not an fs request (route it elsewhere).
     */
    handle(message, options) {
      return this.#message((text) => this.#engine.dispatch(text), message, options?.signal, this.#inflight, false).catch(
        (e) => Promise.reject(fromThrown(e)),
      );
    }

    /**
     * This session's files as an MCP tool server (the ACP v2 way of serving files): the same
     * policy, approvals, change records and audit events as `fs/*` requests.
     */
    mcpHandler(sessionId) {
      requireString(sessionId, 'sessionId');
      const engine = this.#engine;
      // This server's calls in flight, for `notifications/cancelled` (ids are per connection).
      const inflight = new InFlight();
      const dispatch = (text) => engine.mcpDispatch(sessionId, text);
      return Object.freeze({
        sessionId,
        /** The tools offered: `read_text_file`, and `write_text_file` when writes are wired. */
        tools: () => {
          try {
            return engine.mcpTools(sessionId);
          } catch (e) {
            throw fromThrown(e);
          }
        },
        /** Answers one MCP message (a string gives a string, an object an object); `null` for none. */
        handle: (message, options) =>
          // MCP: a request the peer cancelled gets no response at all.
          this.#message(dispatch, message, options?.signal, inflight, true).catch((e) => Promise.reject(fromThrown(e))),
      });
    }

    /** This session's MCP server on a local transport (Node only; see mcp-serve.mjs). */
    async serveMcp(sessionId, options) {
      if (!globalThis.process?.versions?.node) {
        throw new Error('serveMcp needs Node (it listens on local sockets); in a browser use fs.mcpOverAcp');
      }
      // By a specifier bundlers leave alone: browser bundles and the CJS bundle never include it.
      const where = './mcp-serve.mjs';
      const { serveMcp } = await import(/* webpackIgnore: true */ /* @vite-ignore */ where);
      return serveMcp(this, sessionId, options);
    }

    /** This session's MCP server over the ACP connection itself (`mcp/message`; any host). */
    mcpOverAcp(sessionId, options) {
      return mcpOverAcp(this, sessionId, options);
    }

    /** The transport to declare for this agent: 'acp', 'http' or 'stdio'. */
    mcpServerFor(sessionId, agentCapabilities) {
      requireString(sessionId, 'sessionId');
      return mcpServerFor(agentCapabilities);
    }

    /**
     * The one path of a message (an ACP JSON-RPC message or an MCP one): the engine classifies it
     * and, for a call, hands over the operation, whose outcome carries the reply. `silentCancel`:
     * a call the peer cancelled gets no reply (MCP).
     */
    async #message(dispatch, message, signal, inflight, silentCancel) {
      const asText = typeof message === 'string';
      const text = asText ? escapeLoneSurrogates(message) : (JSON.stringify(message) ?? 'null');
      const out = (reply) => (reply === null || asText ? reply : JSON.parse(reply));
      const d = dispatch(text);
      switch (d.kind) {
        case 'notMine':
          return null;
        case 'reply':
          return out(d.reply);
        case 'cancel':
          inflight.cancel(d.id);
          return null;
        case 'call': {
          const { value: outcome, cancelled } = await inflight.run(d.id, signal, (s) => this.#run(d.operation, s));
          return cancelled && silentCancel ? null : out(outcome.reply);
        }
        default:
          throw internalError(`the binding dispatched an unknown kind ${JSON.stringify(d.kind)}`);
      }
    }

    async #request(method, arg, options) {
      try {
        const { params, signal } = unwrap(arg, options);
        // What no JSON-RPC peer could send is refused before conversion, naming the field; the
        // engine still reports the request (audit event) with what the params did say.
        const flat = flatParams(params);
        const refused = flat === undefined ? notJson(params) : undefined;
        const op =
          typeof flat === 'string'
            ? this.#engine.startJson(method, flat)
            : this.#engine.start(method, refused ? echoParams(params) : (flat ?? jsonParams(params)));
        if (!op) throw internalError(`${method} is not an fs method of this engine`);
        const outcome = await this.#run(op, signal, refused);
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
    async #run(op, signal, refused) {
      const started = this.#hooks.onAudit ? now() : 0;
      let outcome;
      let cause;
      const session = this.#native || refused ? null : new StorageSession(this.#storage);
      try {
        ({ outcome, cause } = refused
          ? { outcome: op.refuse(refused.field, refused.reason) }
          : await this.#loop(op, signal, session));
      } catch (e) {
        // A driver bug or a binding throw: never leave a request hanging.
        cause = e;
        outcome = aborted(op, e?.message ?? String(e));
      }
      // Converted only for a host that keeps an audit log.
      const audit = this.#hooks.onAudit ? auditOf(op) : null;
      // Closes start now; they are waited for unless the storage's handles are plain
      // descriptors, whose close cannot change what was read or written.
      const closing = session?.files.size ? session.closeAll() : undefined;
      if (closing && !session.closesInBackground) await closing;
      op.free?.();
      this.#ended();
      if (audit) {
        audit.durationMs = now() - started;
        notify(this.#hooks.onAudit, audit, 'onAudit');
      }
      if (!outcome.error && outcome.change) notify(this.#hooks.onChange, outcome.change, 'onChange');
      return cause === undefined ? outcome : { ...outcome, cause };
    }

    /**
     * The one step loop, for the built-in disk and for JS storages alike: the native disk runs a
     * request's storage io on the libuv pool (`runOnDisk`) and comes back only for the host; a JS
     * storage's io is performed here. Cancellation races every wait: the request settles at once
     * (on the native disk, once the disk io in progress ends, without blocking this thread), and
     * no io starts after it. An io that changes something (a write, directories, an open
     * buffer: the engine marks its step `changes`) is never abandoned halfway: once it has
     * started, the request ends with what it did, so a write that happened is reported with its
     * change record, not as cancelled. Files an abandoned io opens are closed once it settles.
     */
    async #loop(op, signal, session) {
      let cancelled = false;
      let onAbort;
      let aborted;
      if (signal) {
        aborted = new Promise((resolve) => {
          onAbort = () => {
            cancelled = true;
            resolve(ABORTED);
          };
        });
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      // Set once an io that changes something has started: from then on the request runs to
      // its end, so that "cancelled" always means nothing was changed.
      let committed = false;
      const race = (p) => {
        if (!signal || committed) return p;
        // A losing promise may still reject later; that must not surface as unhandled.
        p.then(undefined, () => {});
        return cancelled ? ABORTED : Promise.race([p, aborted]);
      };
      const native = this.#native;
      const cancel = () => ({ outcome: op.cancel(), cause: undefined });
      // The native disk loop holds the request while it works, so `cancel()` would block this
      // thread until its io ends. An abort stops the loop at its next io instead and takes the
      // step the loop ends with: cancelled, or, once it changed something, what it did.
      const onDisk = async (answer) => {
        const running = op.runOnDisk(answer);
        const step = await race(running);
        if (step !== ABORTED) return step;
        op.stop();
        return running;
      };
      try {
        if (cancelled) return cancel();
        let lastError;
        let step = native ? await onDisk() : op.step();
        for (;;) {
          if (step === ABORTED) return cancel();
          if (step.done) return { outcome: step.done, cause: step.done.error && lastError ? lastError : undefined };
          if (cancelled && !committed) return cancel();
          lastError = undefined;
          const { io } = step;
          let answer = DONE;
          let bytes;
          if (io.op === 'wait') {
            if ((await race(this.#turn())) === ABORTED) return cancel();
          } else {
            const failed = (e) => {
              lastError = e;
              return { answer: errorAnswer(e) };
            };
            let result;
            committed ||= step.changes === true;
            try {
              result = this.#perform(io, step.bytes, session);
            } catch (e) {
              result = failed(e);
            }
            if (isThenable(result)) {
              const settled = Promise.resolve(result).then(undefined, failed);
              result = await race(settled);
              if (result === ABORTED) {
                if (session) settled.then(() => session.closeAll());
                return cancel();
              }
            } else if (cancelled && !committed) {
              // An abort raised during a synchronous storage call ends the request before the
              // next io; a change the call made is still reported (stepped below).
              return cancel();
            }
            ({ answer, bytes } = result);
          }
          step = native ? await onDisk(answer) : bytes === undefined ? op.step(answer) : op.step(answer, bytes);
        }
      } finally {
        if (onAbort) signal.removeEventListener('abort', onAbort);
      }
    }

    /**
     * One io the engine asked for: the host's hooks answer approvals and documents, storage the
     * rest. The result, or a promise of it when the answer has to be waited for.
     */
    #perform(io, bytes, session) {
      if (io.op === 'approve' || io.op === 'writeDocument') return this.#ask(io);
      if (session === null) throw new TypeError(`the engine asked the host for ${io.op}, which only storage can answer`);
      return session.perform(io, bytes);
    }

    async #ask(io) {
      if (io.op === 'approve') {
        const approve = this.#hooks.approveWrite;
        return { answer: { approved: typeof approve === 'function' ? (await approve(io.change)) === true : true } };
      }
      const choose = this.#hooks.onDocumentWrite;
      const choice = typeof choose === 'function' ? await choose(io.path, io.text) : 'buffer';
      return { answer: { document: choice === undefined || choice === null ? 'buffer' : choice } };
    }
  }

  return AcpFs;
}

const DONE = Object.freeze({ done: true });

/** Whether a binding handed back an error value (`createEngine`) instead of what was asked for. */
function isWireError(v) {
  return v !== null && typeof v === 'object' && typeof v.kind === 'string' && typeof v.code === 'number';
}

/** The outcome of an operation the driver could not finish: the engine ends it, or failing that the template. */
function aborted(op, message) {
  try {
    return op.abort(message);
  } catch {
    return { error: internalWire(message), change: null };
  }
}

/** The operation's audit event; none from a binding that broke. */
function auditOf(op) {
  try {
    return op.audit();
  } catch {
    return null;
  }
}

const ABORTED = Symbol('aborted');

/** Requests in flight by JSON-RPC id, so a peer's cancellation can reach them. */
class InFlight {
  #calls = new Map();

  /** Cancels the request with this raw id if it is running. */
  cancel(rawId) {
    const entry = this.#calls.get(idKey(rawId));
    if (!entry) return;
    entry.cancelled = true;
    entry.controller.abort();
  }

  /**
   * Runs `fn(signal)` under `rawId`: the signal aborts when the host's `signal` does or the
   * peer cancels. Resolves to `{value, cancelled}` (cancelled: by the peer).
   */
  async run(rawId, signal, fn) {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    // A repeated id replaces the older entry: ids are the peer's to keep unique.
    const key = idKey(rawId);
    const entry = { controller, cancelled: false };
    this.#calls.set(key, entry);
    try {
      return { value: await fn(controller.signal), cancelled: entry.cancelled };
    } finally {
      signal?.removeEventListener('abort', abort);
      if (this.#calls.get(key) === entry) this.#calls.delete(key);
    }
  }
}

/** The same id however the peer spelled it (`"\u0041"` and `"A"`, `1.50` and `1.5`). */
function idKey(rawId) {
  try {
    return JSON.stringify(JSON.parse(rawId));
  } catch {
    return rawId;
  }
}

/**
 * The agent's side of `fs/*` over a binding's free functions (docs/binding-interface.md):
 * capability checks, tool definitions, argument checks with the client's rules, requests that
 * are never sent for what the client did not advertise, and tool results. Every decision is the
 * core's; this converts values and turns wire errors into `AcpFsError`s.
 */
export function createAgent(binding = {}) {
  const needs = ['hostInfo', 'invalidParams', 'clientFsCapabilities', 'toolDefinitions', 'checkToolArguments', 'buildRequest', 'toolResult'];
  for (const name of needs) {
    if (typeof binding[name] !== 'function') throw new TypeError(`createAgent needs the binding function ${name}`);
  }
  // On the first call: a wasm module may be instantiated after this runs.
  let registered = false;
  const ensure = () => {
    if (registered) return;
    try {
      useBinding(binding);
    } catch (e) {
      throw fromThrown(e);
    }
    registered = true;
  };
  const call = (fn, ...args) => {
    try {
      return fn(...args);
    } catch (e) {
      throw fromThrown(e);
    }
  };
  /** A value as JSON would carry it, or the `AcpFsError` naming what it cannot carry. */
  const json = (value, whole) => {
    const refused = notJson(value, whole);
    if (refused) throw invalidParamsError(refused.field, refused.reason);
    return jsonParams(value);
  };
  const caps = (value) => {
    if (value === null || typeof value !== 'object') {
      throw invalidParamsError('caps', 'must be an object ({readTextFile, writeTextFile})');
    }
    return json(value, 'caps');
  };
  const request = (r) => {
    if (r.error) throw new AcpFsError(r.error);
    return { method: r.method, params: r.params };
  };
  const flags = (c) => ({ readTextFile: c.readTextFile === true, writeTextFile: c.writeTextFile === true });

  return Object.freeze({
    clientFsCapabilities(value) {
      ensure();
      return flags(call(binding.clientFsCapabilities, json(value, 'value')));
    },
    toolDefinitions(capabilities) {
      ensure();
      return call(binding.toolDefinitions, caps(capabilities));
    },
    checkToolArguments(tool, sessionId, args) {
      ensure();
      requireString(tool, 'name');
      requireString(sessionId, 'sessionId');
      return request(call(binding.checkToolArguments, tool, sessionId, json(args, 'arguments')));
    },
    buildRequest(capabilities, tool, sessionId, args) {
      ensure();
      const c = caps(capabilities);
      requireString(tool, 'name');
      requireString(sessionId, 'sessionId');
      return request(call(binding.buildRequest, c, tool, sessionId, json(args, 'arguments')));
    },
    toolResult(tool, args, answer) {
      ensure();
      requireString(tool, 'name');
      // Arguments that cannot be read name no path: the core then says "the file".
      const a = notJson(args, 'arguments') ? null : jsonParams(args);
      return call(binding.toolResult, tool, a, answerOf(answer));
    },
  });
}

/**
 * The client's answer as `{result}` or `{error}`: an `Error` (an `AcpFsError`, the SDK's
 * `RequestError`, anything thrown) or an object with an `error` member is an error; a JSON-RPC
 * response (`jsonrpc` member) gives its `result`; anything else is the result itself (`{}`,
 * `null` and `undefined` included). A value with no JSON form becomes the error naming it.
 */
function answerOf(answer) {
  const isObject = answer !== null && typeof answer === 'object';
  let out;
  if (answer instanceof Error || (isObject && answer.name === 'AcpFsError')) {
    out = { error: errorObject(answer) };
  } else if (isObject && answer.error !== undefined && answer.error !== null) {
    out = { error: answer.error };
  } else if (isObject && 'jsonrpc' in answer) {
    out = answer.result === undefined ? {} : { result: answer.result };
  } else {
    out = answer === undefined ? {} : { result: answer };
  }
  const refused = notJson(out, 'answer');
  if (refused) return { error: invalidParamsError(refused.field, refused.reason).toJsonRpc() };
  return jsonParams(out);
}

/** A thrown error as the JSON-RPC error object it stands for. */
function errorObject(e) {
  if (typeof e.toJsonRpc === 'function') return e.toJsonRpc();
  if (typeof e.code === 'number') {
    const out = { code: e.code, message: String(e.message ?? '') };
    if (e.data !== undefined && e.data !== null) out.data = e.data;
    return out;
  }
  return { code: -32603, message: String(e.message ?? e) };
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
