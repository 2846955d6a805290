// The guarded wasm module's low-level interface (docs/binding-interface.md, lib/guard.mjs): the
// suite both bindings share (suite-binding.mjs), then what only wasm has to hold: bytes in every
// view a browser hands over, params converted without overflowing the wasm stack, and files larger
// than wasm32 memory.
//
// The full module (npm/wasm/pkg-full): the suite covers the MCP and agent calls too; the fs/*
// module's answers to them are tested in wasm-package.test.mjs, its fs/* by the vectors.
//
// Needs `scripts/build-wasm.sh` first (npm/wasm/pkg-full is generated).

import assert from 'node:assert/strict';
import vm from 'node:vm';
import { describe, test } from 'node:test';
// The Node entry instantiates the module on import; the binding is its guarded interface.
import '../../npm/wasm/full-node.mjs';
import { binding } from '../../npm/wasm/lib/full.mjs';
import { drive, engines, PLAIN_CAPS } from './engines.mjs';
import { bindingSuite } from './suite-binding.mjs';
import { assertWire } from './wire-values.mjs';

const { newEngine, engineWith } = engines(binding);
const read = (engine, extra = {}) => engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...extra });

bindingSuite({
  label: 'wasm binding',
  binding,
  methods: { Engine: ['free', 'startFlat'], Operation: ['free'] },
  functions: ['merge', 'rpcReady'],
  byteForms: [
    (b) => b,
    (b) => b.buffer,
    (b) => new DataView(new Uint8Array([0, 0, ...b]).buffer, 2),
    (b) => vm.runInNewContext('Uint8Array.from(b)', { b }),
    (b) => Buffer.from(b),
    (b) => new Uint8Array(new Uint8Array([0, 0, ...b, 0, 0]).buffer, 2, b.length),
  ],
});

describe('wasm binding: in wasm memory', () => {
  test('stricter than the addon: wrong argument types are TypeErrors or wire errors, never converted', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    assert.throws(() => engine.dispatch({ jsonrpc: '2.0' }), TypeError);
    assert.throws(() => engine.mcpDispatch(5, '{}'), TypeError);
    assert.throws(() => engine.mcpTools(null), TypeError);
    assert.equal(engine.openSession(Symbol('s'), '/p', []).data.field, 'sessionId', 'no JSON form: named all the same');
    assert.equal(engine.documentVersion(() => 1), null);
    assert.equal(engine.start(17, {}), null, 'a method that is not a string is not ours');
    // A plain array is not bytes, and a BigInt past 2^64 is no JSON number.
    const op = read(engine);
    op.step();
    assert.match(op.step({ bytes: true }, [1, 2, 3]).done.error.message, /^Internal error: the driver sent a malformed answer: ./);
    const big = drive(read(engine, { _meta: { n: 2n ** 70n } }), storage).outcome;
    assert.equal(big.error.kind, 'internal');
    // The reason is the core's one wording for a value with no JSON form (host::NOT_JSON).
    assert.match(big.error.message, /not JSON: params is not representable as JSON \(.*a bigint past 64 bits/);
  });

  test('params as deep as serde_json allows convert inside wasm without overflowing its stack', () => {
    const { engine, storage } = engineWith({ '/p/a.txt': 'x' });
    const nested = (levels) => {
      let meta = {};
      for (let i = 1; i < levels; i++) meta = { meta };
      return meta;
    };
    // The params object is level 1: `_meta` may nest 127 levels under it (hostInfo().maxDepth).
    for (let round = 0; round < 3; round++) {
      const { outcome } = drive(engine.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', _meta: nested(127) }), storage);
      assert.deepEqual(outcome.result, { content: 'x' });
    }
    // Options convert as deep: the engine then judges the key (unknown) rather than the depth.
    assert.equal(assertWire(binding.createEngine({ deny: [], extra: nested(127) }, PLAIN_CAPS)).data.field, 'extra');
  });

  test('a file larger than the engine can hold is a storage error, not an abort', () => {
    const { engine } = engineWith();
    const op = read(engine);
    op.step();
    op.step({ metadata: { kind: 'file', size: 1 } });
    // 2 GiB of zero pages: reserved, never touched, more than a wasm32 Vec can hold.
    const huge = new Uint8Array(2 ** 31);
    const done = op.step({ bytes: true }, huge).done;
    assert.equal(done.error.kind, 'storage_error');
    assert.match(done.error.message, /2147483648 bytes do not fit/);
    const { engine: fresh, storage } = engineWith({ '/p/a.txt': 'still here' });
    assert.deepEqual(drive(read(fresh), storage).outcome.result, { content: 'still here' });
  });
});
