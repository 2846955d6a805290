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

import { isWellFormed } from '../shared/surrogates.mjs';

export const isTrap = (e) => e instanceof WebAssembly.RuntimeError || e instanceof RangeError;

const str = (v) => (typeof v === 'string' ? v : null);
const u32 = (v) => (Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : null);

/** `startJson`'s params for a trap's audit event, read only then; text that is not JSON echoes nothing. */
const paramsOf = (text) => () => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** The outbox's tags (bindings-wasm/src/outbox.rs, which describes the layout). */
const [NULL, FALSE, TRUE, NUMBER, ASCII, TEXT, NAME, WIDE, BYTES, ARRAY, OBJECT, READ, OPEN] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17];
/** The inbox's own tags (bindings-wasm/src/inbox.rs, which describes its layout). */
const [LONE, NOT_JSON, DEEP, UINT, INT] = [11, 12, 13, 14, 15];

/**
 * ASCII text up to this long is made here, byte by byte: a `TextDecoder` call costs more. The
 * module tags longer ASCII text as UTF-8 (`ASCII_TOLD_MAX` in bindings-wasm/src/outbox.rs, the
 * same number), which is decoded the same way.
 */
const SHORT = 32;

/**
 * Values nested deeper than this are written as `DEEP` (no answer reads that deep: the reader
 * skips them, as serde_json skipped the members no one reads, and refuses one it must read).
 */
const DEEPEST = 256;

/** What `answerWriter` cannot write itself, which goes through `JSON.stringify` instead. */
const ODD = Symbol('odd');

/**
 * The writer of an io's answer into the module's inbox (bindings-wasm/src/inbox.rs, which
 * describes the layout), straight into wasm memory where `room(len)` (the module's `__answer`)
 * made room: `write(answer)` returns the layout's length. What it writes is the answer's JSON
 * form, what `JSON.parse(JSON.stringify(answer))` gives (the raw `step` took that text before):
 * plain objects, arrays, strings, finite numbers, booleans and nulls are written as they are,
 * the members JSON leaves out left out; anything JSON would change (a `toJSON`, a class
 * instance, a boxed value) goes through `JSON.stringify` first; an answer with no JSON text (a
 * `bigint`, a cycle, a function) is `NOT_JSON`, which the engine refuses as a malformed answer,
 * as it refuses any other. Only a trap in `room` is thrown.
 *
 * `write.args(items)` writes a call's arguments as an array, each converted as serde-wasm-bindgen
 * converted it before (its converter cost the fs/* module about 5 KB gzipped; the rules are the
 * low-level interface's, tests/node/suite-binding.mjs): a `bigint` is an integer (`UINT`, `INT`),
 * `undefined` is `null`, any other object its own enumerable members (no `toJSON`), text with a
 * lone surrogate has U+FFFD in its place; an argument holding a function, a symbol, a `bigint`
 * past 64 bits or nesting past `DEEPEST` is `NOT_JSON` (the module names the argument; the
 * reason's words are the core's).
 */
function answerWriter(memory, room) {
  const encoder = new TextEncoder();
  let heap;
  let view;
  /** The room's address and size, and where the next byte goes (from `base`). */
  let base = 0;
  let size = 0;
  let at = 0;
  /** A trap while making room: not the answer's fault, so not caught. */
  let trapped;
  /** Whether the value being written came from `JSON.parse` (plain, and no cycle). */
  let stringified = false;

  const views = () => {
    heap = new Uint8Array(memory.buffer);
    view = new DataView(memory.buffer);
  };

  const need = (n) => {
    if (at + n <= size) return;
    const want = Math.max(size * 2, at + n, 1024);
    try {
      base = room(want);
    } catch (e) {
      trapped = e;
      throw e;
    }
    size = want;
    // Making room may have grown the memory.
    views();
  };

  /** `s` as `TEXT` (`lenient`: a lone surrogate as U+FFFD, as `encodeInto` makes it; else `LONE`). */
  function text(s, lenient = false) {
    let n = 0;
    if (s.length <= SHORT) {
      need(5 + s.length);
      const start = base + at + 5;
      while (n < s.length) {
        const c = s.charCodeAt(n);
        if (c >= 0x80) break;
        heap[start + n++] = c;
      }
    }
    if (n < s.length) {
      if (!lenient && !isWellFormed(s)) {
        need(1);
        heap[base + at++] = LONE;
        return;
      }
      // At most three bytes of UTF-8 a unit.
      need(5 + s.length * 3);
      n = encoder.encodeInto(s, heap.subarray(base + at + 5, base + size)).written;
    }
    heap[base + at] = TEXT;
    view.setUint32(base + at + 1, n, true);
    at += 5 + n;
  }

  /** Whether JSON leaves a member with this value out (an array's item becomes `null`). */
  const absent = (v) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

  function value(v, depth) {
    switch (typeof v) {
      case 'string':
        return text(v);
      case 'number':
        need(9);
        if (Number.isFinite(v)) {
          heap[base + at] = NUMBER;
          view.setFloat64(base + at + 1, v, true);
          at += 9;
        } else heap[base + at++] = NULL;
        return;
      case 'boolean':
        need(1);
        heap[base + at++] = v ? TRUE : FALSE;
        return;
      case 'object':
        break;
      default:
        throw ODD;
    }
    need(5);
    if (v === null) {
      heap[base + at++] = NULL;
      return;
    }
    if (typeof v.toJSON === 'function') throw ODD;
    if (depth >= DEEPEST) {
      // Only once JSON.stringify has shown it is no cycle.
      if (!stringified) throw ODD;
      heap[base + at++] = DEEP;
      return;
    }
    const container = at;
    let count = 0;
    if (Array.isArray(v)) {
      heap[base + at] = ARRAY;
      at += 5;
      count = v.length;
      for (let i = 0; i < count; i++) {
        const item = v[i];
        if (absent(item)) {
          need(1);
          heap[base + at++] = NULL;
        } else value(item, depth + 1);
      }
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw ODD;
      heap[base + at] = OBJECT;
      at += 5;
      for (const key of Object.keys(v)) {
        const member = v[key];
        if (absent(member)) continue;
        text(key);
        value(member, depth + 1);
        count++;
      }
    }
    view.setUint32(base + container + 1, count, true);
  }

  function write(answer) {
    // Anything since the last answer may have grown the memory, which detaches the old buffer
    // (an empty view; cheaper to ask than `memory.buffer`).
    if (heap === undefined || heap.length === 0) views();
    at = 0;
    try {
      value(answer, 0);
      return at;
    } catch (e) {
      if (e === trapped) throw e;
      // Something JSON would change, a getter that threw, or nesting that may be a cycle: as
      // JSON.stringify makes it.
    }
    at = 0;
    try {
      const json = JSON.stringify(answer);
      if (json !== undefined) {
        stringified = true;
        value(JSON.parse(json), 0);
        return at;
      }
    } catch (e) {
      if (e === trapped) throw e;
      // No JSON text: no answer at all.
    } finally {
      stringified = false;
    }
    at = 0;
    need(1);
    heap[base + at++] = NOT_JSON;
    return at;
  }

  /** A value of an argument (`write.args`); what it cannot convert is thrown as a reason. */
  function arg(v, depth) {
    switch (typeof v) {
      case 'string':
        return text(v, true);
      case 'number':
      case 'boolean':
        return value(v, depth);
      case 'undefined':
        return value(null, depth);
      case 'object':
        if (v === null) return value(null, depth);
        break;
      case 'bigint':
        need(9);
        if (v >= 0n && v <= 0xffffffffffffffffn) {
          heap[base + at] = UINT;
          view.setBigUint64(base + at + 1, v, true);
        } else if (v >= -0x8000000000000000n && v < 0n) {
          heap[base + at] = INT;
          view.setBigInt64(base + at + 1, v, true);
        } else throw ODD;
        at += 9;
        return;
      default:
        throw ODD;
    }
    if (depth >= DEEPEST) throw ODD;
    need(5);
    const container = at;
    const array = Array.isArray(v);
    const entries = array ? v : Object.entries(v);
    heap[base + at] = array ? ARRAY : OBJECT;
    at += 5;
    for (const entry of entries) {
      if (array) arg(entry, depth + 1);
      else {
        text(entry[0], true);
        arg(entry[1], depth + 1);
      }
    }
    view.setUint32(base + container + 1, entries.length, true);
  }

  /** One of `args`' items, from `at`. */
  function item(v) {
    const start = at;
    try {
      arg(v, 0);
      return;
    } catch (e) {
      // A getter that threw is as much "no JSON value" as a function.
      if (e === trapped) throw e;
    }
    at = start;
    need(1);
    heap[base + at++] = NOT_JSON;
  }

  /** A new layout that is an array of `count` items, the writer past its head. */
  function array(count) {
    // Anything since the last layout may have grown the memory (see `write`).
    if (heap === undefined || heap.length === 0) views();
    at = 0;
    need(5);
    heap[base] = ARRAY;
    view.setUint32(base + 1, count, true);
    at = 5;
  }

  write.args = (items) => {
    array(items.length);
    for (const v of items) item(v);
    const length = at;
    // Arguments may be large (a write's content): the next layout asks for room afresh, and
    // the module decides whether to give a large room back (`KEPT` in bindings-wasm/src/inbox.rs).
    size = 0;
    return length;
  };

  /**
   * `write([method, params])` for params whose members are all strings, numbers, booleans or
   * null, what the driver's `flatParams` makes: the same layout, written member by member
   * without the walk's checks for what such params cannot hold. `undefined` for any other
   * params (or a getter that threw), which `write` then takes as before.
   */
  write.flat = (method, params) => {
    if (params === null || typeof params !== 'object' || Object.getPrototypeOf(params) !== Object.prototype) return undefined;
    try {
      if (typeof params.toJSON === 'function') return undefined;
      array(2);
      text(method);
      need(5);
      const container = at;
      heap[base + at] = OBJECT;
      at += 5;
      let count = 0;
      for (const key of Object.keys(params)) {
        const member = params[key];
        if (member === undefined) continue;
        const kind = typeof member;
        if (kind !== 'string' && kind !== 'number' && kind !== 'boolean' && member !== null) return undefined;
        text(key);
        value(member, 1);
        count++;
      }
      view.setUint32(base + container + 1, count, true);
      return at;
    } catch (e) {
      if (e === trapped) throw e;
      return undefined;
    }
  };

  return write;
}

/**
 * The reader of the module's outbox (bindings-wasm/src/outbox.rs): the value the last
 * `beginFlat` or `step` left there, made from its layout in wasm memory. `wideText` turns UTF-16 units
 * into a string (Node). Read at once, before anything else enters the module.
 */
function outboxReader(memory, slotsAt, wideText) {
  // UTF-8 as wasm-bindgen's glue decodes it: the BOM kept (it is text the file holds), and a
  // fresh decoder every 2 GiB (Safari's fails past that).
  const MAX_DECODED = 2146435072;
  let decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let decoded = 0;
  const utf8 = (from, to) => {
    decoded += to - from;
    if (decoded >= MAX_DECODED) {
      decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      decoded = to - from;
    }
    return decoder.decode(heap.subarray(from, to));
  };
  /** Member and variant names by address and length: the same `&'static str` every time. */
  const names = new Map();
  let heap;
  let view;
  let at = 0;
  let units = 0;

  const u32 = () => {
    const n = view.getUint32(at, true);
    at += 4;
    return n;
  };

  function ascii(n) {
    const end = at + n;
    let s;
    if (n <= SHORT) {
      s = '';
      for (let i = at; i < end; i++) s += String.fromCharCode(heap[i]);
    } else s = utf8(at, end);
    at = end;
    return s;
  }

  function value() {
    switch (heap[at++]) {
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case NUMBER: {
        const n = view.getFloat64(at, true);
        at += 8;
        return n;
      }
      case ASCII:
        return ascii(u32());
      case TEXT: {
        const n = u32();
        at += n;
        return utf8(at - n, at);
      }
      case NAME: {
        const address = u32();
        const n = u32();
        // A small integer where it can be (names sit low in memory and are short): a Map finds
        // one much faster than a larger number.
        const key = address < 2 ** 24 && n < 2 ** 6 ? address * 2 ** 6 + n : address + (n + 1) * 2 ** 32;
        let name = names.get(key);
        if (name === undefined) {
          const back = at;
          at = address;
          name = ascii(n);
          at = back;
          names.set(key, name);
        }
        return name;
      }
      case WIDE: {
        const offset = u32();
        const n = u32();
        return wideText(new Uint16Array(memory.buffer, units + offset * 2, n));
      }
      case BYTES: {
        const n = u32();
        at += n;
        return heap.slice(at - n, at);
      }
      case ARRAY: {
        const n = u32();
        const items = new Array(n);
        for (let i = 0; i < n; i++) items[i] = value();
        return items;
      }
      // The two steps of every read, made as literals (their members in this order).
      case READ:
        return { done: { result: { content: value() }, change: null } };
      case OPEN:
        return { io: { op: 'open', root: value(), path: value(), head: value() } };
      case OBJECT: {
        const n = u32();
        const object = {};
        for (let i = 0; i < n; i++) {
          const key = value();
          const member = value();
          // As JSON.parse makes it: an own member, never the prototype.
          if (key === '__proto__') Object.defineProperty(object, key, { value: member, enumerable: true, writable: true, configurable: true });
          else object[key] = member;
        }
        return object;
      }
      default:
        throw new Error(`@acp-fs/wasm: the outbox holds an unknown tag ${heap[at - 1]}`);
    }
  }

  return () => {
    // Growing the memory detaches the old buffer (an empty view): cheaper to ask than
    // `memory.buffer`, which costs a call in Chromium.
    if (heap === undefined || heap.length === 0) {
      heap = new Uint8Array(memory.buffer);
      view = new DataView(memory.buffer);
    }
    at = view.getUint32(slotsAt, true);
    units = view.getUint32(slotsAt + 8, true);
    return value();
  };
}

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
  /** The merge module's `merge` (`ready`'s option), for a module built without the merge. */
  let merge;
  /** The JSON-RPC module (`ready`'s option, lib/lazy-module.mjs), for a module that reads no JSON text. */
  let rpc;
  /** Whether the module reads raw messages itself (the full module), or leaves them to `rpc`. */
  const readsJson = typeof raw.Engine?.prototype?.dispatch === 'function';

  /**
   * `call(exports)` of the JSON-RPC module. Never inside `guard`: a trap there is that module's
   * (lib/lazy-module.mjs keeps it from being entered again), not the engine's. It must be loaded already
   * where it cannot be at once: `binding.rpcReady()` loads it, and `AcpFs.handle` and MCP
   * handlers wait for that first.
   */
  function viaRpc(call) {
    if (rpc === undefined) throw new TypeError('the module reads no JSON text, and its entry gave it no JSON-RPC module');
    if (rpc.now() === undefined) throw new Error('the JSON-RPC module is not loaded yet: await binding.rpcReady() first');
    return rpc.run(call);
  }

  /** `startJson`'s params text as the module that starts it takes it: itself, or read by the
   *  JSON-RPC module (`CheckedParams`' JSON). Called outside `guard`. */
  const paramsText = (text) => (readsJson ? text : JSON.parse(viaRpc((m) => m.checkParams(text))));

  /** A deferred `startJson`'s text read by `paramsText` (`checked`), or `why` it could not be:
   *  the request then ends with that, as after a trap. */
  function readText(text) {
    try {
      return { checked: paramsText(text) };
    } catch (e) {
      return { why: `the JSON-RPC module could not read the params (${e.message})` };
    }
  }

  /** A request started with `paramsText`'s params (inside `guard`). */
  function startText(rawEngine, method, params) {
    if (readsJson) return rawEngine.startJson(method, params);
    return rawEngine.startJsonChecked(writeAnswer.args([method, params]));
  }
  /** The value the module's last `beginFlat`/`step` left in its outbox (`outboxReader`). */
  let taken;
  /** The instance's memory (for the inbox). */
  let memory;

  /** Writes an io's answer into the module's inbox (`answerWriter`), made in `ready`. */
  let writeAnswer;
  /** The module's memory as bytes, for `putBytes` (made again once growing detached it). */
  let heap;

  /**
   * An answer's bytes copied into the module's inbox (`__inbox`): their length, which the raw
   * `step` takes (it sees that they did not fit, if so); -1 for a value that holds no bytes.
   */
  function putBytes(bytes) {
    const view =
      bytes instanceof Uint8Array
        ? bytes
        : ArrayBuffer.isView(bytes)
          ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          : bytes instanceof ArrayBuffer
            ? new Uint8Array(bytes)
            : undefined;
    if (view === undefined) return -1;
    const at = raw.__inbox(view.byteLength);
    if (at !== 0 && view.byteLength > 0) {
      // Making room may have grown the memory, which detaches the old buffer (an empty view).
      if (heap === undefined || heap.length === 0) heap = new Uint8Array(memory.buffer);
      heap.set(view, at);
    }
    return view.byteLength;
  }

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
    /** `startJson`'s params text, or `startFlat`'s params, while the engine has not started the
     *  request: the first step starts it too (`startFlat`'s with `beginFlat`, one call into the
     *  module instead of two). */
    #unstarted;
    /** The raw id of the message that started it, in a module that writes no replies: its
     *  outcomes get their reply from the JSON-RPC module. */
    #replyTo;

    /** `pending`, `unstarted`, `replyTo`: the fields above, for the operations that have them. */
    constructor(rawEngine, id, method, params, { pending, unstarted, replyTo } = {}) {
      this.#raw = rawEngine;
      this.#id = id;
      this.#method = method;
      this.#params = params;
      this.#pending = pending;
      this.#unstarted = unstarted;
      this.#replyTo = replyTo;
    }

    /**
     * An outcome as a message's is (docs/binding-interface.md, `dispatch`): its reply, written
     * by the JSON-RPC module, in place of its result; an outcome the guard made (a trap) too.
     * Outside `guard`: if the JSON-RPC module fails, that is thrown, and the message fails.
     */
    #replied(outcome) {
      if (this.#replyTo === undefined || outcome.reply !== undefined) return outcome;
      outcome.reply = viaRpc((m) => m.respond(this.#replyTo, JSON.stringify({ result: outcome.result, error: outcome.error })));
      delete outcome.result;
      return outcome;
    }

    step(answer, bytes) {
      if (this.#unstarted !== undefined) return this.#begin();
      const early = this.#early();
      if (early) return { done: this.#replied(early) };
      const step = guard(
        () => {
          // The bytes first: their room may grow the memory the answer is written in.
          const length = bytes === undefined ? undefined : putBytes(bytes);
          const layout = answer === undefined || answer === null ? undefined : writeAnswer(answer);
          this.#raw.step(this.#id, wideText !== undefined, layout, length);
          return taken();
        },
        (message) => ({ done: this.#end(message) }),
      );
      if (step.done !== undefined) this.#replied(step.done);
      return step;
    }

    /** The first step of a request `startJson` or `startFlat` made: `startFlat`'s started and
     *  stepped in one call (the driver's small reads); `startJson`'s, which the driver does not
     *  use here, in two. */
    #begin() {
      const params = this.#unstarted;
      this.#unstarted = undefined;
      const text = typeof params === 'string';
      const { checked, why } = text ? readText(params) : {};
      if (why !== undefined) return { done: this.#end(why) };
      return guard(
        () => {
          const wide = wideText !== undefined;
          const id = text
            ? startText(this.#raw, this.#method, checked)
            : this.#raw.beginFlat(writeAnswer.flat(this.#method, params) ?? writeAnswer([this.#method, params]), wide);
          if (id === undefined) return { done: this.#end(`${this.#method} is not an fs method of this engine`) };
          this.#id = id;
          if (text) this.#raw.step(id, wide);
          return taken();
        },
        (message) => ({ done: this.#end(message) }),
      );
    }

    /** Starts a request `startJson` or `startFlat` made that ends (or is asked about) before its first step. */
    #start() {
      if (this.#unstarted === undefined) return;
      const params = this.#unstarted;
      this.#unstarted = undefined;
      const { checked, why } = typeof params === 'string' ? readText(params) : {};
      if (why !== undefined) {
        this.#pending = why;
        return;
      }
      const id = guard(
        () =>
          typeof params === 'string'
            ? startText(this.#raw, this.#method, checked)
            : this.#raw.start(this.#method, writeAnswer.args([params])),
        (message) => void (this.#pending = message),
      );
      if (id !== undefined) this.#id = id;
      else this.#pending ??= `${this.#method} is not an fs method of this engine`;
    }

    cancel() {
      this.#start();
      return this.#replied(this.#early() ?? guard(() => (this.#raw.cancel(this.#id), taken()), (message) => this.#end(message)));
    }

    refuse(field, reason) {
      this.#start();
      return this.#replied(
        this.#early() ?? guard(() => (this.#raw.refuse(this.#id, field, reason), taken()), (message) => this.#end(message)),
      );
    }

    abort(reason) {
      this.#start();
      return this.#replied(this.#early() ?? guard(() => (this.#raw.abort(this.#id, reason), taken()), (message) => this.#end(message)));
    }

    audit() {
      // A request not started yet has not ended: no event.
      if (this.#audit === undefined && this.#id !== null && this.#unstarted === undefined) {
        const audit = guard(
          () => (this.#raw.audit(this.#id), taken()),
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
      this.#unstarted = undefined;
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

  /** What a dispatched message is (the outbox), with its operation (the number `op`, if any) as
   *  an object; `replyTo`: its raw id, where the JSON-RPC module writes its reply. */
  function dispatched(rawEngine, op, replyTo) {
    const d = taken();
    if (op !== undefined) d.operation = new Operation(rawEngine, op, d.method, undefined, { replyTo });
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
      return guard(() => (this.#raw.openSession(writeAnswer.args([sessionId, cwd, additionalDirectories, session])), taken()), internal);
    }

    closeSession(sessionId) {
      guard(() => this.#raw.closeSession(sessionId), throwInternal);
    }

    openDocument(path, text) {
      return guard(() => (this.#raw.openDocument(writeAnswer.args([path, text])), taken()), internal);
    }

    documentReloaded(path, text) {
      return guard(() => (this.#raw.documentReloaded(writeAnswer.args([path, text])), taken()), internal);
    }

    documentSaved(path) {
      return guard(() => this.#raw.documentSaved(path), throwInternal);
    }

    documentVersion(path) {
      return guard(() => (this.#raw.documentVersion(path), taken()), throwInternal);
    }

    closeDocument(path) {
      guard(() => this.#raw.closeDocument(path), throwInternal);
    }

    document(path) {
      return guard(() => (this.#raw.document(path), taken()), throwInternal);
    }

    capabilities() {
      return guard(() => (this.#raw.capabilities(), taken()), throwInternal);
    }

    start(method, params) {
      return this.#started(method, params, () => this.#raw.start(method, writeAnswer.args([params])));
    }

    startJson(method, params) {
      // The engine's own methods start with their first step (`Operation#begin`); anything else
      // is asked now, as it may be no fs method at all (then there is no operation).
      const fsMethod = method === info.readMethod || method === info.writeMethod;
      if (fsMethod && typeof params === 'string') {
        return new Operation(this.#raw, null, method, paramsOf(params), { unstarted: params });
      }
      // A module that reads no JSON text has no other method to start.
      if (!readsJson && !fsMethod) return null;
      const checked = paramsText(params);
      return this.#started(method, paramsOf(params), () => startText(this.#raw, method, checked));
    }

    /**
     * `startJson` with the params themselves: small flat params (`flatParams`: well-formed
     * strings, finite numbers, booleans and nulls) as the guard writes them into the module's
     * inbox for the first step (`beginFlat`), no JSON text on either side; the module reads
     * them into the core's flat params, no JSON value either.
     */
    startFlat(method, params) {
      if (method === info.readMethod || method === info.writeMethod) {
        return new Operation(this.#raw, null, method, params, { unstarted: params });
      }
      return this.startJson(method, JSON.stringify(params));
    }

    /** The guarded operation `start` gave; `params` (or a function reading them) for a trap's audit. */
    #started(method, params, start) {
      let trapped;
      const op = guard(start, (message) => {
        trapped = message;
        return null;
      });
      if (trapped !== undefined) return new Operation(this.#raw, null, method, params, { pending: trapped });
      return op === undefined ? null : new Operation(this.#raw, op, method, params);
    }

    dispatch(message) {
      if (readsJson) return guard(() => dispatched(this.#raw, this.#raw.dispatch(message)), throwInternal);
      const d = JSON.parse(viaRpc((m) => m.parseMessage(message)));
      if (d.kind !== 'call') return d;
      return guard(() => dispatched(this.#raw, this.#raw.call(writeAnswer.args([d.id, d.method, d.params])), d.id), throwInternal);
    }

    mcpTools(sessionId) {
      return guard(() => answered(this.#raw.mcpTools(sessionId)), throwInternal);
    }

    mcpDispatch(sessionId, message) {
      if (readsJson) return guard(() => dispatched(this.#raw, this.#raw.mcpDispatch(sessionId, message)), throwInternal);
      // No MCP tools here: a request is answered with the error naming them.
      return JSON.parse(viaRpc((m) => m.refuseMcp(sessionId, message)));
    }

    /** Frees the wasm memory now instead of at garbage collection. */
    free() {
      const rawEngine = this.#raw;
      this.#raw = null;
      release(rawEngine);
    }
  }

  /** What a call that can fail answered (`ok` false: the outbox holds the error, thrown). */
  function answered(ok) {
    const value = taken();
    if (ok === false) throw value;
    return value;
  }

  /** A free function of the module: it needs the module instantiated; a trap goes to `onTrap`. */
  const exported =
    (name, onTrap = throwInternal) =>
    (...args) => {
      if (info === undefined) throw notReady(`calling ${name}`);
      return guard(() => answered(raw[name](...args)), onTrap);
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
        const made = raw.createEngine(writeAnswer.args([options, caps]));
        // None: the error naming the bad option is in the outbox.
        return made instanceof raw.Engine ? new Engine(made) : taken();
      }, internal);
    },
    Engine,
    Operation,
    clientFsCapabilities: exported('clientFsCapabilities'),
    toolDefinitions: exported('toolDefinitions'),
    checkToolArguments: exported('checkToolArguments', requestError),
    buildRequest: exported('buildRequest', requestError),
    toolResult: exported('toolResult'),
    /**
     * A merge the module asked for (`{op: "merge"}`): the merge module's, given to `ready` by
     * an entry whose module leaves the merge out. A module with the merge built in never asks.
     */
    merge(base, current, ours) {
      if (merge === undefined) return Promise.reject(new TypeError('the module asked for a merge, and its entry gave it no merge module'));
      return merge(base, current, ours);
    },
    /**
     * Whether raw messages can be read now (`Engine.dispatch`, `mcpDispatch`, `startJson`):
     * `undefined` when they can (a module that reads them itself, or the JSON-RPC module loaded,
     * which Node does at once), else a promise that resolves once the JSON-RPC module its entry
     * gave `ready` is loaded (a browser fetches it the first time) or rejects with why not.
     */
    rpcReady() {
      if (readsJson || rpc === undefined) return undefined;
      try {
        // Node loads it at once: nothing to wait for, so a message still starts synchronously.
        if (rpc.now() !== undefined) return undefined;
        return rpc.load().then(() => undefined);
      } catch (e) {
        return Promise.reject(e);
      }
    },
  });

  return {
    binding,
    /**
     * The module is instantiated (`exports`: its exports, as wasm-bindgen's init returns them):
     * take the core's constants and where its outbox is while the instance is sound.
     * `wideText(units)`: a `Uint16Array` of UTF-16 code units as a string, where the host has a
     * decoder for them much faster than its UTF-8 one (Node's `Buffer`; see the `WIDE` text of
     * bindings-wasm/src/outbox.rs). `merge(base, current, ours)`: the merge module's merge, a
     * promise of the text or of `null` (lib/lazy-module.mjs), for a module built without it. `rpc`:
     * the JSON-RPC module's loader (lib/lazy-module.mjs), for a module that reads no JSON text.
     */
    ready(exports, { wideText: decoder, merge: merger, rpc: reader } = {}) {
      if (typeof decoder === 'function') wideText = decoder;
      if (typeof merger === 'function') merge = merger;
      if (reader !== undefined) rpc = reader;
      if (info === undefined) {
        memory = exports.memory;
        taken = outboxReader(memory, raw.__outbox(), (units) => wideText(units));
        writeAnswer = answerWriter(memory, (len) => raw.__answer(len));
        raw.hostInfo();
        info = taken();
      }
    },
    isReady: () => info !== undefined,
  };
}
