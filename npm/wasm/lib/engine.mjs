// The wasm binding as the shared driver sees it: the `Engine`/`Operation` interface of
// docs/binding-interface.md, over the classes wasm-bindgen generated, plus the one thing only JS
// can do for them. A panic on wasm32-unknown-unknown aborts: the call traps with a
// `WebAssembly.RuntimeError` (a stack overflow shows as a `RangeError`), leaving the instance
// behind it in whatever state the trap found. Here a trap becomes what the interface promises
// instead: a `done` outcome with an `internal` error (or a thrown wire error where the interface
// throws). After a Rust panic the instance is still sound (the panic hook recorded why), so it goes
// on serving; any other trap (out of memory, stack overflow, out-of-bounds access) may have struck
// mid-update, so the engine is disabled rather than trusted with anyone's files.

function internalWire(message) {
  return { kind: 'internal', code: -32603, message: `Internal error: ${message}`, data: { errorKind: 'internal' } };
}

/** What the constructor and the other throwing entries throw: an Error carrying a wire error. */
function thrown(message, cause) {
  return new Error(JSON.stringify(internalWire(message)), cause === undefined ? undefined : { cause });
}

const isTrap = (e) => e instanceof WebAssembly.RuntimeError || e instanceof RangeError;

const throwInternal = (message, cause) => {
  throw thrown(message, cause);
};

const str = (v) => (typeof v === 'string' ? v : null);
const u32 = (v) => (Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : null);

/** The outcome of a request the engine could not finish; the audit echoes what the params said. */
function trapOutcome(message, method, params) {
  const p = params !== null && typeof params === 'object' ? params : {};
  return {
    error: internalWire(message),
    change: null,
    audit: {
      op: method === 'fs/write_text_file' ? 'write' : 'read',
      sessionId: str(p.sessionId),
      path: str(p.path),
      line: u32(p.line),
      limit: u32(p.limit),
      bytes: 0,
      outcome: 'error',
      errorKind: 'internal',
      durationMs: null,
    },
  };
}

/**
 * The driver-facing `Engine` over a wasm-bindgen module namespace (`raw`: its `Engine` class and
 * `__takePanicMessage`). `isReady()` tells whether the module has been instantiated.
 */
export function guardBinding(raw, isReady) {
  let disabled;

  function explain(trap) {
    let panic;
    try {
      panic = raw.__takePanicMessage();
    } catch {
      // The instance cannot even answer: it is beyond use.
    }
    if (panic !== undefined) return `the wasm engine panicked: ${panic}`;
    disabled = `the wasm engine trapped (${trap.message}) and is disabled until it is loaded again`;
    return disabled;
  }

  /** Runs `call`; a trap (now or earlier) goes to `onTrap(message, error)` instead. */
  function guard(call, onTrap) {
    if (disabled !== undefined) return onTrap(disabled);
    try {
      return call();
    } catch (e) {
      if (!isTrap(e)) throw e;
      return onTrap(explain(e), e);
    }
  }

  class Operation {
    #raw;
    #method;
    #params;
    /** The outcome the next step reports instead of asking the engine (a trap at the start). */
    #pending;
    /** Set once a trap ended the operation. */
    #ended = false;

    constructor(rawOperation, method, params, pending) {
      this.#raw = rawOperation;
      this.#method = method;
      this.#params = params;
      this.#pending = pending;
    }

    step(answer, bytes) {
      const early = this.#early();
      if (early) return { done: early };
      return guard(
        () => this.#raw.step(answer, bytes),
        (message) => ({ done: this.#end(message) }),
      );
    }

    cancel() {
      return this.#early() ?? guard(() => this.#raw.cancel(), (message) => this.#end(message));
    }

    fail(error) {
      return this.#early() ?? guard(() => this.#raw.fail(error), (message) => this.#end(message));
    }

    /** Frees the wasm memory now instead of at garbage collection. */
    free() {
      const rawOperation = this.#raw;
      this.#raw = null;
      this.#ended = true;
      // A trapped call leaves the object marked as borrowed, and a disabled instance is not
      // entered again: either way the memory stays where it is.
      if (rawOperation && disabled === undefined) {
        try {
          rawOperation.free();
        } catch {
          // See above: nothing that could be released.
        }
      }
    }

    #early() {
      if (this.#pending) {
        const outcome = this.#pending;
        this.#pending = undefined;
        this.#ended = true;
        return outcome;
      }
      return this.#ended ? trapOutcome('the operation has already finished', this.#method, this.#params) : undefined;
    }

    #end(message) {
      this.#ended = true;
      return trapOutcome(message, this.#method, this.#params);
    }
  }

  class Engine {
    #raw;

    constructor(options, caps) {
      if (!isReady()) {
        throw thrown(
          '@acp-fs/wasm is not initialized: `await init()` before creating an AcpFs (browsers, bundlers, workers; in Node the package initializes on import)',
        );
      }
      this.#raw = guard(() => new raw.Engine(options, caps), throwInternal);
    }

    openSession(sessionId, cwd, additionalDirectories) {
      return guard(() => this.#raw.openSession(sessionId, cwd, additionalDirectories), internalWire);
    }

    closeSession(sessionId) {
      guard(() => this.#raw.closeSession(sessionId), throwInternal);
    }

    openDocument(path, text) {
      return guard(() => this.#raw.openDocument(path, text), internalWire);
    }

    documentReloaded(path, text) {
      return guard(() => this.#raw.documentReloaded(path, text), internalWire);
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
      let trapped;
      const op = guard(
        () => this.#raw.start(method, params),
        (message) => {
          trapped = trapOutcome(message, method, params);
          return null;
        },
      );
      if (trapped) return new Operation(null, method, params, trapped);
      return op === null ? null : new Operation(op, method, params);
    }

    dispatch(message) {
      const d = guard(() => this.#raw.dispatch(message), throwInternal);
      if (d.kind === 'call') d.operation = new Operation(d.operation, d.method, undefined);
      return d;
    }

    mcpTools(sessionId) {
      return guard(() => this.#raw.mcpTools(sessionId), throwInternal);
    }

    mcpDispatch(sessionId, message) {
      const d = guard(() => this.#raw.mcpDispatch(sessionId, message), throwInternal);
      if (d.kind === 'call') {
        d.operation = new Operation(d.operation, d.method, undefined);
        d.call = new McpCall(d.call);
      }
      return d;
    }

    free() {
      if (this.#raw === null) return;
      const rawEngine = this.#raw;
      this.#raw = null;
      if (disabled === undefined) {
        try {
          rawEngine.free();
        } catch {
          // A trapped call left it marked as borrowed: it cannot be released.
        }
      }
    }
  }

  /** A `tools/call` in flight; a trap while building its reply throws an internal wire error. */
  class McpCall {
    #raw;

    constructor(rawCall) {
      this.#raw = rawCall;
    }

    respond(answer) {
      if (this.#raw === null) throwInternal('the call has already been answered and freed');
      return guard(() => this.#raw.respond(answer), throwInternal);
    }

    /** Frees the wasm memory now instead of at garbage collection. */
    free() {
      const rawCall = this.#raw;
      this.#raw = null;
      if (rawCall && disabled === undefined) {
        try {
          rawCall.free();
        } catch {
          // A trapped call left it marked as borrowed: it cannot be released.
        }
      }
    }
  }

  /** The free functions (agent side); like the constructor, they need the module instantiated. */
  const exported = (name) => (...args) => {
    if (!isReady()) {
      throw thrown(`@acp-fs/wasm is not initialized: \`await init()\` before calling ${name} (browsers, bundlers, workers; in Node the package initializes on import)`);
    }
    return guard(() => raw[name](...args), throwInternal);
  };
  const functions = {
    clientFsCapabilities: exported('clientFsCapabilities'),
    toolDefinitions: exported('toolDefinitions'),
    checkToolArguments: exported('checkToolArguments'),
    buildRequest: exported('buildRequest'),
    toolResult: exported('toolResult'),
  };

  return { Engine, Operation, McpCall, functions };
}
