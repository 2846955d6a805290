// The guard around the wasm module (lib/guard.mjs): a panic or trap inside wasm becomes an internal
// error value, a panicked engine keeps serving, any other trap disables the instance, and nothing is
// asked of a module before it is instantiated.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// The Node entry instantiates the module on import, as the tests need it.
import '../../npm/wasm/node.mjs';
import { guardBinding } from '../../npm/wasm/lib/guard.mjs';
import { binding as realBinding } from '../../npm/wasm/lib/fs.mjs';
import { assertWire, thrownWire } from './wire-values.mjs';

const FULL_CAPS = { symlinks: 'resolvable', stat: true, rangedReads: true, write: true, makeDirs: true };

/**
 * Puts `value` (JSON values, ASCII strings) in a fake module's outbox, as
 * bindings-wasm/src/outbox.rs lays it out: its slots at 0, the value from 16.
 */
function putInOutbox(memory, value) {
  const bytes = [];
  const u32 = (n) => bytes.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  const put = (v) => {
    if (v === null || typeof v === 'boolean') bytes.push(v === null ? 0 : v ? 2 : 1);
    else if (typeof v === 'number') bytes.push(3, ...new Uint8Array(new Float64Array([v]).buffer));
    else if (typeof v === 'string') {
      bytes.push(4); // ASCII
      u32(v.length);
      for (const c of v) bytes.push(c.charCodeAt(0));
    } else if (Array.isArray(v)) {
      bytes.push(9);
      u32(v.length);
      v.forEach(put);
    } else {
      bytes.push(10);
      u32(Object.keys(v).length);
      for (const [k, m] of Object.entries(v)) {
        put(k);
        put(m);
      }
    }
  };
  put(value);
  new Uint8Array(memory.buffer).set(bytes, 16);
  new DataView(memory.buffer).setUint32(0, 16, true);
  new DataView(memory.buffer).setUint32(4, bytes.length, true);
}

describe('binding: traps', () => {
  // A stand-in for the generated module whose calls trap the way wasm does; the guard is what is
  // under test (a real panic cannot be provoked: the binding has no panicking path). Its hostInfo
  // is the real one, so the errors below are the core's template.
  function fakeModule({ panic, ...extra }) {
    const state = { panic, taken: 0, calls: 0, infos: 0, audits: 0 };
    // Where its calls leave their values (the outbox), as the module's memory.
    const memory = new WebAssembly.Memory({ initial: 1 });
    const INBOX = 32768;
    // Operations are the raw engine's numbers.
    class RawEngine {
      start() {
        return 7;
      }
      startJson() {
        return 8;
      }
      step() {
        state.calls += 1;
        throw new WebAssembly.RuntimeError('unreachable');
      }
      audit() {
        state.audits += 1;
        putInOutbox(memory, null);
      }
      cancel() {
        throw new WebAssembly.RuntimeError('unreachable');
      }
      release() {
        throw new Error('recursive use of an object detected which would lead to unsafe aliasing in rust');
      }
      openSession() {
        throw new RangeError('Maximum call stack size exceeded');
      }
      capabilities() {
        putInOutbox(memory, { readTextFile: true, writeTextFile: true });
      }
      dispatch(message) {
        // Only ever given a number here: a TypeError, as wasm-bindgen's conversion throws.
        if (typeof message !== 'string') throw new TypeError('dispatch: the message must be a string');
        throw new Error('not used by these tests');
      }
    }
    const raw = {
      Engine: RawEngine,
      hostInfo() {
        state.infos += 1;
        putInOutbox(memory, realBinding.hostInfo());
      },
      __outbox: () => 0,
      // The inbox, where the guard writes a call's arguments (bindings-wasm/src/inbox.rs).
      __answer: () => INBOX,
      createEngine(len) {
        const args = new TextDecoder().decode(new Uint8Array(memory.buffer, INBOX, len));
        if (args.includes('trapHere')) throw new WebAssembly.RuntimeError('unreachable');
        return new RawEngine();
      },
      __takePanicMessage() {
        state.taken += 1;
        const p = state.panic;
        state.panic = undefined;
        return p;
      },
      ...extra,
    };
    return { raw, state, memory };
  }

  /** The guarded binding over a fake module, instantiated. */
  function guarded(fake) {
    const g = guardBinding(fake.raw);
    g.ready({ memory: fake.memory });
    return g.binding;
  }


  const internal = (message) => ({ kind: 'internal', code: -32603, message: `Internal error: ${message}`, data: { errorKind: 'internal' } });

  test("after a call's arguments the guard asks the module for room afresh, so a large one can be given back", () => {
    const asked = [];
    const fake = fakeModule({
      // The room at the fake's inbox, the memory grown to hold it.
      __answer: (len) => {
        asked.push(len);
        const short = 32768 + len - fake.memory.buffer.byteLength;
        if (short > 0) fake.memory.grow(Math.ceil(short / 65536));
        return 32768;
      },
    });
    const b = guarded(fake);
    b.createEngine({ large: 'x'.repeat(3 << 20) }, FULL_CAPS);
    assert.ok(Math.max(...asked) > 3 << 20, 'the large arguments had their room');
    const before = asked.length;
    b.createEngine({}, FULL_CAPS);
    assert.ok(asked.length > before, 'room asked for again');
    assert.ok(asked[before] < 1 << 20, `and for a small one: ${asked[before]}`);
  });

  test("startFlat's params are laid out as the generic writer lays them out, flat or not", () => {
    const layouts = [];
    const fake = fakeModule({});
    fake.raw.Engine.prototype.beginFlat = function (len) {
      layouts.push(new Uint8Array(fake.memory.buffer, 32768, len).slice());
      return undefined;
    };
    const engine = guarded(fake).createEngine({}, FULL_CAPS);
    const layout = (params) => {
      layouts.length = 0;
      engine.startFlat('fs/read_text_file', params).step();
      assert.equal(layouts.length, 1);
      return layouts[0];
    };
    const cases = [
      { sessionId: 's', path: '/p/a.txt' },
      { sessionId: 'sé', path: '/p/ünï — «x».txt', line: 3, limit: null },
      { a: undefined, b: Number.NaN, c: -Infinity, d: -0, e: true, f: false, g: 1.5, ключ: 'x', lone: 'a\uD800b', '\uDC00': 1 },
      {},
      // Not flat: the generic writer's, whatever the fast one would make of them.
      { sessionId: 's', _meta: { traceparent: 't' } },
      { sessionId: 's', f: () => 1, s: Symbol('x') },
      { sessionId: 's', n: 1n },
      { sessionId: 's', toJSON: () => ({ path: '/p/b' }) },
    ];
    for (const params of cases) {
      // A null prototype always takes the generic writer.
      const generic = Object.defineProperties(Object.create(null), Object.getOwnPropertyDescriptors(params));
      assert.deepEqual(layout(params), layout(generic), Object.keys(params).join());
    }
  });

  test('a panic becomes an internal outcome with its message; the engine keeps serving', () => {
    const fake = fakeModule({ panic: 'panicked at core/src/window.rs:1:1: boom $& $1' });
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    assert.ok(engine instanceof b.Engine);
    const op = engine.start('fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'x', line: 3 });
    const done = op.step().done;
    // `$&` and `$1` are text, not replacement patterns.
    assert.deepEqual(done.error, internal('the wasm engine panicked: panicked at core/src/window.rs:1:1: boom $& $1'));
    assert.equal(done.change, null);
    assert.equal('audit' in done, false);
    // The engine cannot say what the request was: the guard's event echoes the params.
    assert.deepEqual(op.audit(), {
      op: 'write',
      sessionId: 's',
      path: '/p/a.txt',
      line: 3,
      limit: null,
      bytes: 0,
      outcome: 'error',
      errorKind: 'internal',
      durationMs: null,
    });
    assert.equal(op.step({ done: true }).done.error.message, 'Internal error: the operation has already finished');
    assert.equal(op.audit().errorKind, 'internal', 'still the event of the trap');
    assert.equal(fake.state.calls, 1, 'a trapped operation is not entered again');
    assert.equal(fake.state.audits, 0, 'its audit() is not entered either');
    op.free(); // the raw engine is stuck borrowed after a trap: releasing the operation must not throw
    assert.deepEqual(engine.capabilities(), { readTextFile: true, writeTextFile: true }, 'still serving');
    assert.throws(() => engine.dispatch(5), TypeError, 'ordinary errors pass through untouched');
    assert.equal(fake.state.infos, 1, 'the template was fetched once, at load');
  });

  test('startJson is guarded the same way: the audit of a trap echoes the params of its text', () => {
    const fake = fakeModule({ panic: 'boom' });
    const engine = guarded(fake).createEngine({}, FULL_CAPS);
    const op = engine.startJson('fs/read_text_file', '{"sessionId":"s","path":"/p/a.txt","line":2}');
    assert.match(op.step().done.error.message, /the wasm engine panicked: boom/);
    const { sessionId, path, line } = op.audit();
    assert.deepEqual({ sessionId, path, line }, { sessionId: 's', path: '/p/a.txt', line: 2 });
    fake.state.panic = 'again';
    const bad = engine.startJson('fs/read_text_file', '{oops');
    assert.match(bad.step().done.error.message, /the wasm engine panicked: again/);
    assert.equal(bad.audit().path, null, 'text that is not JSON echoes nothing');
    assert.equal(bad.audit().errorKind, 'internal');
  });

  test('any other trap disables the engine: every later call is an internal error value', () => {
    const fake = fakeModule({ panic: undefined });
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    const wire = assertWire(engine.openSession('s', '/p', []));
    assert.equal(wire.kind, 'internal');
    assert.match(wire.message, /^Internal error: the wasm engine trapped \(Maximum call stack size exceeded\) and is disabled/);
    const op = engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
    const done = op.step().done;
    assert.equal(done.error.kind, 'internal');
    assert.match(done.error.message, /disabled/);
    assert.equal(op.audit().path, '/p/a.txt');
    assert.equal(op.audit().errorKind, 'internal');
    assert.match(thrownWire(() => engine.capabilities()).message, /disabled/, 'a call with no error in its answer throws the value');
    assert.match(thrownWire(() => engine.dispatch('{}')).message, /disabled/);
    assert.match(assertWire(b.createEngine({}, FULL_CAPS)).message, /disabled/, 'createEngine answers with it, never throws');
    assert.match(assertWire(b.invalidParams('a', 'b')).message, /disabled/);
    assert.equal(b.hostInfo().readMethod, 'fs/read_text_file', 'the constants are still known');
    assert.equal(fake.state.infos, 1, 'a disabled instance is not asked again');
    engine.free(); // not entered: nothing thrown
  });

  test('audit() is guarded too: a trap in it ends the operation, and the event is the guard’s', () => {
    const fake = fakeModule({ panic: 'panicked at core/src/host.rs:1:1: boom' });
    class RawEngine extends fake.raw.Engine {
      audit() {
        throw new WebAssembly.RuntimeError('unreachable');
      }
      step() {
        fake.state.calls += 1;
        putInOutbox(fake.memory, { io: { op: 'readAll', path: '/p/a.txt' } });
      }
      release() {}
    }
    fake.raw.Engine = RawEngine;
    fake.raw.createEngine = () => new RawEngine();
    const b = guarded(fake);
    const op = b.createEngine({}, FULL_CAPS).start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', limit: 5 });
    assert.deepEqual(op.step(), { io: { op: 'readAll', path: '/p/a.txt' } });
    assert.deepEqual(op.audit(), {
      op: 'read',
      sessionId: 's',
      path: '/p/a.txt',
      line: null,
      limit: 5,
      bytes: 0,
      outcome: 'error',
      errorKind: 'internal',
      durationMs: null,
    });
    assert.equal(op.step({ bytes: true }, new Uint8Array()).done.error.message, 'Internal error: the operation has already finished');
    assert.equal(fake.state.calls, 1, 'a trapped operation is not entered again');
    op.free();
  });

  test('a value read from the outbox has members of any name, "__proto__" too, as JSON.parse makes them', () => {
    const fake = fakeModule({});
    const value = { ['__proto__']: { polluted: true }, constructor: 'c', n: 1 };
    class RawEngine extends fake.raw.Engine {
      capabilities() {
        putInOutbox(fake.memory, value);
      }
    }
    fake.raw.Engine = RawEngine;
    fake.raw.createEngine = () => new RawEngine();
    const got = guarded(fake).createEngine({}, FULL_CAPS).capabilities();
    assert.equal(Object.getPrototypeOf(got), Object.prototype, 'the prototype is untouched');
    assert.equal(got.polluted, undefined);
    assert.deepEqual(Object.keys(got), ['__proto__', 'constructor', 'n']);
    assert.deepEqual(got, JSON.parse(JSON.stringify(value)));
  });

  test('a trap in createEngine is the internal error value it answers with', () => {
    const b = guarded(fakeModule({ panic: 'bad state' }));
    assert.deepEqual(assertWire(b.createEngine({ trapHere: true }, FULL_CAPS)), internal('the wasm engine panicked: bad state'));
    assert.ok(b.createEngine({}, FULL_CAPS) instanceof b.Engine, 'after a panic it goes on');
  });

  test('an engine made before the module is instantiated says how to fix it', () => {
    const fake = fakeModule({});
    const { binding: early, ready, isReady } = guardBinding(fake.raw);
    assert.equal(isReady(), false);
    assert.throws(() => early.createEngine({}, FULL_CAPS), /not initialized: `await init\(\)` before creating an AcpFs/);
    assert.throws(() => early.hostInfo(), /not initialized: `await init\(\)`/);
    assert.throws(() => early.toolDefinitions({}), /not initialized: `await init\(\)` before calling toolDefinitions/);
    assert.equal(fake.state.infos, 0, 'nothing is asked of a module that is not there');
    ready({ memory: fake.memory });
    assert.equal(isReady(), true);
    assert.ok(early.createEngine({}, FULL_CAPS) instanceof early.Engine);
    assert.throws(() => new early.Engine({}), TypeError, 'engines come from createEngine');
  });

  test('the MCP calls, refuse/abort and the agent functions are guarded the same way', () => {
    let panic = 'panicked at core/src/mcp.rs:1:1: boom';
    const trap = () => {
      throw new WebAssembly.RuntimeError('unreachable');
    };
    const fake = fakeModule({
      toolResult: trap,
      checkToolArguments: trap,
      buildRequest: trap,
      __takePanicMessage: () => [panic, (panic = undefined)][0],
    });
    class RawEngine extends fake.raw.Engine {
      mcpTools = trap;
      refuse = trap;
      abort = trap;
      release() {}
      mcpDispatch() {
        putInOutbox(fake.memory, { kind: 'call', id: '1', method: 'fs/write_text_file' });
        return 3;
      }
    }
    fake.raw.Engine = RawEngine;
    fake.raw.createEngine = () => new RawEngine();
    const b = guarded(fake);
    const engine = b.createEngine({}, FULL_CAPS);
    const d = engine.mcpDispatch('s', '{}');
    assert.ok(d.operation instanceof b.Operation);
    const refused = d.operation.refuse('path', 'no');
    assert.equal(refused.error.kind, 'internal');
    assert.match(refused.error.message, /panicked at core\/src\/mcp\.rs/);
    assert.equal('audit' in refused, false);
    assert.equal(d.operation.audit().op, 'write', 'the audit says which request it was');
    assert.match(d.operation.abort('x').error.message, /already finished/, 'a trapped operation is not entered again');
    d.operation.free();
    // No panic message this time: the instance is disabled.
    assert.match(b.checkToolArguments('read_text_file', 's', {}).error.message, /disabled/, '{error}: the answer carries it');
    assert.match(b.buildRequest({}, 'read_text_file', 's', {}).error.message, /disabled/);
    assert.match(thrownWire(() => b.toolResult('read_text_file', {}, {})).message, /disabled/);
    assert.match(thrownWire(() => engine.mcpTools('s')).message, /disabled/);
    assert.match(thrownWire(() => engine.mcpDispatch('s', '{}')).message, /disabled/);
  });
});
