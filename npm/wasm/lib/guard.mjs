// The guard: the wasm binding as the shared JS sees it, the interface of
// docs/binding-interface.md over the module wasm-bindgen generated, plus the one thing only JS
// can do for it. A panic on wasm32-unknown-unknown aborts: the call traps with a
// `WebAssembly.RuntimeError` (a stack overflow shows as a `RangeError`), leaving the instance in
// whatever state the trap found. Here a trap becomes what the interface promises instead, built
// from the core's `internal` error (`hostInfo().internal`, fetched once while the instance is
// sound, its `{message}` replaced):
//
//   - where a call answers with an error value (`createEngine`, `openSession`, `openDocument`,
//     `documentReloaded`, `invalidParams`, `checkToolArguments`/`buildRequest` as `{error}`), with
//     that value; an operation's `step`, `cancel`, `refuse` and `abort` with an outcome carrying it;
//   - everywhere else (a call whose answer cannot carry an error) by throwing that error value
//     itself: `{kind, code, message, data}`, not an `Error`.
//
// After a Rust panic the instance is still sound (the panic hook recorded why), so it goes on
// serving; any other trap (out of memory, stack overflow, out-of-bounds access) may have struck
// mid-update, so the instance is disabled rather than trusted with anyone's files: every later
// call reports the trap without entering it.

const isTrap = (e) => e instanceof WebAssembly.RuntimeError || e instanceof RangeError;

const str = (v) => (typeof v === 'string' ? v : null);
const u32 = (v) => (Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : null);

/**
 * An io's answer as the raw `step` takes it: its JSON text (one string into wasm, where the
 * value itself would be read member by member), or `undefined` for none. What has no JSON text
 * becomes text the engine refuses as a malformed answer, as it refuses any other.
 */
function answerText(answer) {
  if (answer === undefined || answer === null) return undefined;
  try {
    return JSON.stringify(answer) ?? '';
  } catch {
    return '';
  }
}

/** `startJson`'s params for a trap's audit event, read only then; text that is not JSON echoes nothing. */
const paramsOf = (text) => () => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/**
 * The guarded binding over a wasm-bindgen module namespace (`raw`). Nothing may be called before
 * `ready()`, which the entry points call once the module is instantiated.
 * @returns {{binding: object, ready: () => void, isReady: () => boolean}}
 */
export function guardBinding(raw) {
  /** `hostInfo()`, taken once the instance is instantiated (and still sound). */
  let info;
  /** Why the instance is no longer entered (a trap that was not a panic). */
  let disabled;
  /** The host's UTF-16 decoder (`ready`'s option): a read's text then crosses as UTF-16. */
  let wideText;

  const notReady = (what) =>
    new Error(
      `@acp-fs/wasm is not initialized: \`await init()\` before ${what} (browsers, bundlers, workers; in Node the package initializes on import)`,
    );

  /** The core's `internal` error with `message` as its reason. */
  function internal(message) {
    const error = structuredClone(info.internal);
    error.message = error.message.replace('{message}', () => message);
    return error;
  }

  const throwInternal = (message) => {
    throw internal(message);
  };

  function explain(trap) {
    let panic;
    try {
      panic = raw.__takePanicMessage();
    } catch {
      // The instance cannot even answer: it is beyond use.
    }
    if (typeof panic === 'string') return `the wasm engine panicked: ${panic}`;
    disabled = `the wasm engine trapped (${trap.message}) and is disabled until it is loaded again`;
    return disabled;
  }

  /** Runs `call`; a trap (now or earlier) goes to `onTrap(reason)` instead. */
  function guard(call, onTrap) {
    if (disabled !== undefined) return onTrap(disabled);
    try {
      return call();
    } catch (e) {
      if (!isTrap(e)) throw e;
      return onTrap(explain(e));
    }
  }

  /** The audit event of a request the engine could not finish: it echoes what the params said. */
  function trapAudit(error, method, params) {
    // `startJson` params: read from their JSON text only now.
    if (typeof params === 'function') params = params();
    const p = params !== null && typeof params === 'object' ? params : {};
    return {
      op: method === info.writeMethod ? 'write' : 'read',
      sessionId: str(p.sessionId),
      path: str(p.path),
      line: u32(p.line),
      limit: u32(p.limit),
      bytes: 0,
      outcome: 'error',
      errorKind: error.kind,
      durationMs: null,
    };
  }

  /** Frees a wasm object unless a trap left it stuck (borrowed) or the instance is disabled. */
  function release(object) {
    if (!object || disabled !== undefined) return;
    try {
      object.free();
    } catch {
      // A trapped call left it marked as borrowed: it cannot be released.
    }
  }

  /** A request in flight: the raw engine names it by number (no wasm-bindgen object, whose
   *  `FinalizationRegistry` entry would cost more than a small read's work); this is its object. */
  class Operation {
    #raw;
    /** The raw engine's number for it; `null` once freed (or a trap at the start). */
    #id;
    #method;
    #params;
    /** Why the next call reports a trap instead of asking the engine (a trap at the start). */
    #pending;
    /** Set once a trap ended the operation: it is not entered again. */
    #ended = false;
    /** The audit event of a request a trap ended (the engine cannot give it). */
    #audit;

    constructor(rawEngine, id, method, params, pending) {
      this.#raw = rawEngine;
      this.#id = id;
      this.#method = method;
      this.#params = params;
      this.#pending = pending;
    }

    step(answer, bytes) {
      const early = this.#early();
      if (early) return { done: early };
      return guard(
        () => {
          const step = this.#raw.step(this.#id, answerText(answer), bytes, wideText !== undefined);
          if (step.wide === undefined) return step;
          // A read's text came as UTF-16 code units (a view of wasm memory, read at once).
          step.done.result.content = wideText(step.wide);
          return { done: step.done };
        },
        (message) => ({ done: this.#end(message) }),
      );
    }

    cancel() {
      return this.#early() ?? guard(() => this.#raw.cancel(this.#id), (message) => this.#end(message));
    }

    refuse(field, reason) {
      return this.#early() ?? guard(() => this.#raw.refuse(this.#id, field, reason), (message) => this.#end(message));
    }

    abort(reason) {
      return this.#early() ?? guard(() => this.#raw.abort(this.#id, reason), (message) => this.#end(message));
    }

    audit() {
      if (this.#audit === undefined && this.#id !== null) {
        const audit = guard(
          () => this.#raw.audit(this.#id),
          (message) => void this.#end(message),
        );
        if (audit !== undefined) return audit;
      }
      return this.#audit ?? null;
    }

    /** Releases the engine's hold on the request (the driver does, once it has ended). */
    free() {
      const id = this.#id;
      this.#id = null;
      this.#ended = true;
      if (id === null || disabled !== undefined) return;
      try {
        this.#raw.release(id);
      } catch {
        // A trap left the raw engine borrowed, or it was freed first: nothing to release.
      }
    }

    #early() {
      if (this.#pending !== undefined) {
        const message = this.#pending;
        this.#pending = undefined;
        return this.#end(message);
      }
      return this.#ended ? this.#end('the operation has already finished') : undefined;
    }

    /** The outcome of a request a trap ended (its audit event kept for `audit()`). */
    #end(message) {
      this.#ended = true;
      const error = internal(message);
      this.#audit ??= trapAudit(error, this.#method, this.#params);
      return { error, change: null };
    }
  }

  /** A dispatch result with its operation (if any) as an object. */
  function dispatched(rawEngine, d) {
    if (d.operation !== undefined) d.operation = new Operation(rawEngine, d.operation, d.method, undefined);
    return d;
  }

  class Engine {
    #raw;

    /** Made by `createEngine` only. */
    constructor(rawEngine) {
      if (!(rawEngine instanceof raw.Engine)) throw new TypeError('an Engine comes from createEngine(options, caps)');
      this.#raw = rawEngine;
    }

    openSession(sessionId, cwd, additionalDirectories, session) {
      return guard(() => this.#raw.openSession(sessionId, cwd, additionalDirectories, session), internal);
    }

    closeSession(sessionId) {
      guard(() => this.#raw.closeSession(sessionId), throwInternal);
    }

    openDocument(path, text) {
      return guard(() => this.#raw.openDocument(path, text), internal);
    }

    documentReloaded(path, text) {
      return guard(() => this.#raw.documentReloaded(path, text), internal);
    }

    documentSaved(path) {
      return guard(() => this.#raw.documentSaved(path), throwInternal);
    }

    documentVersion(path) {
      return guard(() => this.#raw.documentVersion(path), throwInternal);
    }

    closeDocument(path) {
      guard(() => this.#raw.closeDocument(path), throwInternal);
    }

    document(path) {
      return guard(() => this.#raw.document(path), throwInternal);
    }

    capabilities() {
      return guard(() => this.#raw.capabilities(), throwInternal);
    }

    start(method, params) {
      return this.#started(method, params, () => this.#raw.start(method, params));
    }

    startJson(method, params) {
      return this.#started(method, paramsOf(params), () => this.#raw.startJson(method, params));
    }

    /** The guarded operation `start` gave; `params` (or a function reading them) for a trap's audit. */
    #started(method, params, start) {
      let trapped;
      const op = guard(start, (message) => {
        trapped = message;
        return null;
      });
      if (trapped !== undefined) return new Operation(this.#raw, null, method, params, trapped);
      return op === undefined ? null : new Operation(this.#raw, op, method, params);
    }

    dispatch(message) {
      return dispatched(this.#raw, guard(() => this.#raw.dispatch(message), throwInternal));
    }

    mcpTools(sessionId) {
      return guard(() => this.#raw.mcpTools(sessionId), throwInternal);
    }

    mcpDispatch(sessionId, message) {
      return dispatched(this.#raw, guard(() => this.#raw.mcpDispatch(sessionId, message), throwInternal));
    }

    /** Frees the wasm memory now instead of at garbage collection. */
    free() {
      const rawEngine = this.#raw;
      this.#raw = null;
      release(rawEngine);
    }
  }

  /** A free function of the module: it needs the module instantiated; a trap goes to `onTrap`. */
  const exported =
    (name, onTrap = throwInternal) =>
    (...args) => {
      if (info === undefined) throw notReady(`calling ${name}`);
      return guard(() => raw[name](...args), onTrap);
    };
  const requestError = (message) => ({ error: internal(message) });

  const binding = Object.freeze({
    hostInfo() {
      if (info === undefined) throw notReady('calling hostInfo');
      return structuredClone(info);
    },
    invalidParams: exported('invalidParams', internal),
    createEngine(options, caps) {
      if (info === undefined) throw notReady('creating an AcpFs');
      return guard(() => {
        const made = raw.createEngine(options, caps);
        return made instanceof raw.Engine ? new Engine(made) : made;
      }, internal);
    },
    Engine,
    Operation,
    clientFsCapabilities: exported('clientFsCapabilities'),
    toolDefinitions: exported('toolDefinitions'),
    checkToolArguments: exported('checkToolArguments', requestError),
    buildRequest: exported('buildRequest', requestError),
    toolResult: exported('toolResult'),
  });

  return {
    binding,
    /**
     * The module is instantiated: take the core's constants while the instance is sound.
     * `wideText(units)`: a `Uint16Array` of UTF-16 code units as a string, where the host has a
     * decoder for them much faster than its UTF-8 one (Node's `Buffer`; see the binding's
     * `wide_content`).
     */
    ready({ wideText: decoder } = {}) {
      if (info === undefined) info = raw.hostInfo();
      if (typeof decoder === 'function') wideText = decoder;
    },
    isReady: () => info !== undefined,
  };
}
