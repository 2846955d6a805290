// `AcpFs`, the class both packages export, over a binding (docs/binding-interface.md:
// `createEngine`, `hostInfo`, `invalidParams`). Each request (a call, a JSON-RPC or an MCP
// message) becomes an operation of the host engine, its values walked once (params.mjs); the
// driver (driver.mjs) runs it; this reports its outcome, audit event and change record. Policy,
// wording and limits live in the core.

import { AcpFsError, fromThrown, internalError, internalErrorValue, invalidParamsError, useBinding } from './error.mjs';
import { deriveCaps, hostStorage, isThenable, StorageIo } from './storage.mjs';
import { drive, Turns } from './driver.mjs';
import { mcpOverAcp, mcpServerFor } from './mcp-acp.mjs';
import { Documents } from './documents.mjs';
import { engineOptions, engineSettings, notify } from './hooks.mjs';
import { InFlight } from './in-flight.mjs';
import { echoParams, flatParams, jsonParams, jsonValue, notJson, requireString } from './params.mjs';
import { escapeLoneSurrogates } from './surrogates.mjs';

const now = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

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
  // A module built without the merge (@acp-fs/wasm's fs/* one) asks the binding for it.
  const { merge } = binding;
  // Asked when the first instance is made: a wasm module may be instantiated after this runs.
  let info;
  const core = () => (info ??= useBinding(binding));
  const nativeCaps = () =>
    nativeDisk ? { ...core().fullCaps, ...(typeof nativeDisk === 'object' ? nativeDisk.caps : {}) } : null;

  class AcpFs {
    #engine;
    #storage;
    #native;
    #hooks;
    /** In-flight `handle()` calls by raw JSON id text, for `$/cancel_request`. */
    #inflight = new InFlight();
    /** Operations waiting for their turn on a path, woken as each operation ends. */
    #turns = new Turns();

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
      let made;
      try {
        made = binding.createEngine(jsonParams(engineOptions(options)), caps);
      } catch (e) {
        throw fromThrown(e);
      }
      if (isErrorValue(made)) throw new AcpFsError(made);
      this.#engine = made;
      const documents = new Documents(this.#engine);
      this.documents = documents;
      // A document an editor is attached to (documents.attach) is that editor's to answer for.
      const { onDocumentWrite, onDocumentStale } = options;
      this.#hooks = {
        approveWrite: options.approveWrite,
        onChange: options.onChange,
        onAudit: options.onAudit,
        onDocumentWrite: (path, text) => {
          const editor = documents.editorFor(path);
          if (editor) return editor.write(text);
          return typeof onDocumentWrite === 'function' ? onDocumentWrite(path, text) : undefined;
        },
        onDocumentStale: (path) => {
          const editor = documents.editorFor(path);
          if (editor) return editor.stale();
          return typeof onDocumentStale === 'function' ? onDocumentStale(path) : undefined;
        },
      };
      // Detached use must work: `onRequest('fs/read_text_file', fs.readTextFile)`.
      this.readTextFile = this.readTextFile.bind(this);
      this.writeTextFile = this.writeTextFile.bind(this);
      this.handle = this.handle.bind(this);
      this.mcpHandler = this.mcpHandler.bind(this);
    }

    /**
     * Registers (or replaces, for `session/load`) a session's roots; the object's other keys are
     * the session's options (`agent`), which the engine checks.
     */
    openSession(sessionId, { cwd, additionalDirectories = [], ...session } = {}) {
      requireString(sessionId, 'sessionId');
      const options = jsonParams(engineSettings(session));
      const err = this.#engine.openSession(sessionId, cwd ?? null, jsonValue(additionalDirectories), options);
      if (err) throw new AcpFsError(err);
    }

    closeSession(sessionId) {
      requireString(sessionId, 'sessionId');
      this.#engine.closeSession(sessionId);
    }

    /** `clientCapabilities.fs`: only what the storage and the options allow. */
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
        /** The tools offered: `read_text_file`, and `write_text_file` when writes are allowed. */
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
      // A binding whose engine leaves raw messages to a module of their own loads it first
      // (`@acp-fs/wasm`: the JSON-RPC module, fetched the first time). Only then is anything
      // waited for: otherwise the message starts at once, before the caller's next call.
      const loading = binding.rpcReady?.();
      if (loading) await loading;
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
          if (cancelled && silentCancel) return null;
          // No reply could be written (the binding broke): the message fails with the outcome's error.
          if (typeof outcome.reply !== 'string') throw new AcpFsError(outcome.error ?? internalErrorValue('the call ended without a reply'), outcome.cause);
          return out(outcome.reply);
        }
        default:
          throw internalError(`the binding dispatched an unknown kind ${JSON.stringify(d.kind)}`);
      }
    }

    /**
     * A call's promise. Settled with no await of its own when every io answered at once (an
     * in-memory storage): a small read then costs one promise, not one per async frame.
     */
    #request(method, arg, options) {
      let ran;
      try {
        const { params, signal } = unwrap(arg, options);
        // What no JSON-RPC peer could send is refused before conversion, naming the field; the
        // engine still reports the request (audit event) with what the params did say.
        const flat = flatParams(params);
        const refused = flat === undefined ? notJson(params) : undefined;
        const engine = this.#engine;
        // Small flat params as JSON text, or as they are where the binding writes them into its
        // engine itself (wasm: no JSON on either side).
        const op = flat?.small
          ? typeof engine.startFlat === 'function'
            ? engine.startFlat(method, flat.params)
            : engine.startJson(method, JSON.stringify(flat.params))
          : engine.start(method, refused ? echoParams(params) : (flat?.params ?? jsonParams(params)));
        if (!op) throw internalError(`${method} is not an fs method of this engine`);
        ran = this.#run(op, signal, refused);
        if (!isThenable(ran)) return Promise.resolve(resultOf(ran));
      } catch (e) {
        return Promise.reject(fromThrown(e));
      }
      return ran.then(resultOf).catch((e) => {
        throw fromThrown(e);
      });
    }

    /**
     * Runs an operation to its outcome; stamps and reports the audit event and change record.
     * Never rejects: every failure is an outcome (`cause` is the host error that ended it). The
     * outcome itself, not a promise of it, when nothing had to be waited for.
     */
    #run(op, signal, refused) {
      const started = this.#hooks.onAudit ? now() : 0;
      const storageIo = this.#native || refused ? null : new StorageIo(this.#storage);
      // A driver bug or a binding throw: never leave a request hanging.
      const broken = (e) => ({ outcome: abortOutcome(op, e?.message ?? String(e)), cause: e });
      let driven;
      try {
        driven = refused
          ? { outcome: op.refuse(refused.field, refused.reason) }
          : drive(op, { signal, native: this.#native, storageIo, hooks: this.#hooks, turns: this.#turns, merge });
      } catch (e) {
        driven = broken(e);
      }
      if (isThenable(driven)) return driven.then(undefined, broken).then((d) => this.#finish(op, d, storageIo, started));
      return this.#finish(op, driven, storageIo, started);
    }

    /** `#run`'s end: the files closed, the operation freed, its events reported. */
    #finish(op, { outcome, cause }, storageIo, started) {
      // Converted only for a host that keeps an audit log.
      const audit = this.#hooks.onAudit ? auditOf(op) : null;
      const end = () => {
        op.free?.();
        this.#turns.ended();
        if (audit) {
          audit.durationMs = now() - started;
          notify(this.#hooks.onAudit, audit, 'onAudit');
        }
        if (!outcome.error && outcome.change) notify(this.#hooks.onChange, outcome.change, 'onChange');
        if (outcome.staleDocument) notify(this.#hooks.onDocumentStale, outcome.staleDocument, 'onDocumentStale');
        return cause === undefined ? outcome : { ...outcome, cause };
      };
      // Closes start now; they are waited for unless the storage's handles are plain
      // descriptors, whose close cannot change what was read or written.
      const closing = storageIo?.files.size ? storageIo.closeAll() : undefined;
      return closing && !storageIo.closesInBackground ? closing.then(end) : end();
    }
  }

  return AcpFs;
}

/** A call's result, or its outcome's error thrown. */
function resultOf(outcome) {
  if (outcome.error) throw new AcpFsError(outcome.error, outcome.cause);
  return outcome.result;
}

/** Whether a binding handed back an error value (`createEngine`) instead of what was asked for. */
function isErrorValue(v) {
  return v !== null && typeof v === 'object' && typeof v.kind === 'string' && typeof v.code === 'number';
}

/** The outcome of an operation the driver could not finish: the engine ends it, or failing that the template. */
function abortOutcome(op, message) {
  try {
    return op.abort(message);
  } catch {
    return { error: internalErrorValue(message), change: null };
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

