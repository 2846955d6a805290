// @acp-fs/wasm: values are walked by the driver before the binding converts them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AcpFs, AcpFsError } from '../../npm/wasm/node.mjs';
import { MapStorage } from './harness.mjs';

const enc = new TextEncoder();

// What the binding no longer does itself: the driver walks every value once (hostInfo()'s limits
// and lone-surrogate rule) before the binding converts it, so no value can overflow the wasm
// stack, hang the conversion, or lose a lone surrogate to U+FFFD. These held at the binding
// before; they hold for the package now.

describe('package: values are walked by the driver before the binding converts them', () => {
  /** A package instance over a Map storage with these files, rooted at /p. */
  function fsWith(files = {}, options = {}) {
    const storage = new MapStorage({ ranged: false });
    for (const [p, text] of Object.entries(files)) storage.put(p, enc.encode(text));
    return { fs: new AcpFs({ storage, roots: ['/p'], ...options }), storage };
  }

  const failure = (promise) =>
    promise.then(
      (r) => assert.fail(`resolved ${JSON.stringify(r)}`),
      (e) => {
        assert.ok(e instanceof AcpFsError, `an AcpFsError, not ${e}`);
        return e;
      },
    );

  const nested = (levels) => {
    let meta = {};
    for (let i = 1; i < levels; i++) meta = { meta };
    return meta;
  };

  test('an unknown option may be anything (functions, cycles, host objects): it is refused by name', async () => {
    const cyclic = {};
    cyclic.self = cyclic;
    for (const [key, value] of [['onSomething', () => 1], ['host', cyclic], ['big', 10n]]) {
      let err;
      try {
        fsWith({}, { pastEnd: 'empty', [key]: value });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AcpFsError, `an AcpFsError, not ${err}`);
      assert.deepEqual([err.code, err.data.field], ['invalid_params', key]);
    }
    const { fs } = fsWith({ '/p/a.txt': 'one\n' }, { pastEnd: 'empty' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 9 }), { content: '' });
  });

  test('an option too deeply nested to convert is a precise error, and the module lives on', async () => {
    let deny = [];
    for (let i = 0; i < 100000; i++) deny = [deny];
    // Repeated: a stack overflow inside wasm would leave the instance corrupt after the first.
    for (let round = 0; round < 3; round++) {
      let err;
      try {
        fsWith({}, { deny });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AcpFsError, `an AcpFsError, not ${err}`);
      assert.equal(err.code, 'invalid_params');
      assert.equal(err.data.field, 'deny');
    }
    const { fs } = fsWith({ '/p/a.txt': 'one\ntwo\n' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 2 }), { content: 'two\n' });
  });

  test('params: a function is left out, as JSON leaves it; a cycle is invalid params naming its field', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'one\ntwo\n' });
    const read = (params) => fs.readTextFile({ sessionId: 's', path: '/p/a.txt', ...params });
    assert.deepEqual(await read({ line: 2, _meta: { f: () => 1 } }), { content: 'two\n' });
    assert.deepEqual(await read({ line: undefined, limit: null }), { content: 'one\ntwo\n' }, 'undefined is absent');
    const cyclic = {};
    cyclic.self = cyclic;
    const refused = await failure(read({ _meta: cyclic }));
    assert.equal(refused.code, 'invalid_params');
    assert.equal(refused.data.field, '_meta', 'the field it sits under');
    assert.match(refused.data.reason, /cyclic/);
  });

  test('a lone surrogate is invalid params naming the field, never silently replaced (§8.1)', async () => {
    const { fs, storage } = fsWith({ '/p/a.txt': 'before' });
    const write = (params) => fs.writeTextFile({ sessionId: 's', path: '/p/a.txt', content: 'ok', ...params });
    for (const [params, field] of [
      [{ content: 'a\uD800b' }, 'content'],
      [{ content: 'end\uDC00' }, 'content'],
      [{ path: '/p/\uD800.txt' }, 'path'],
      [{ _meta: { note: ['x', '\uDBFF'] } }, '_meta'],
    ]) {
      const err = await failure(write(params));
      assert.equal(err.code, 'invalid_params', JSON.stringify(params));
      assert.equal(err.data.field, field);
      assert.match(err.data.reason, /lone surrogate/);
    }
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'before', 'nothing was written');
    assert.deepEqual(await write({ content: 'pair \uD83D\uDE00 kept' }), {}, 'a surrogate pair is text');
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'pair 😀 kept');
    assert.deepEqual(await write({ content: 'a real \uFFFD is text' }), {});
    assert.equal(Buffer.from(storage.files.get('/p/a.txt')).toString(), 'a real \uFFFD is text');
    assert.equal((await failure(write({ _meta: { ['k\uD800']: 1 } }))).data.field, '_meta', 'keys are text too');
  });

  test('params as deep as serde_json allows pass; deeper or exploding ones are refused, never overflow', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'x' });
    const read = (params) => fs.readTextFile({ sessionId: 's', path: '/p/a.txt', ...params });
    // The params object is level 1: `_meta` may nest 127 levels under it, as in the N-API binding.
    assert.deepEqual(await read({ _meta: nested(127) }), { content: 'x' });
    assert.match((await failure(read({ _meta: nested(128) }))).data.reason, /nested deeper than 128 levels/);
    // Shared objects: 40 levels of {a: o, b: o} are 40 objects in memory and 2^40 values walked.
    let dag = { leaf: 1 };
    for (let i = 0; i < 40; i++) dag = { a: dag, b: dag };
    assert.match((await failure(read({ _meta: dag }))).data.reason, /more than 1000000 values/);
  });

  test('deeply nested params from an agent are refused, not a stack overflow', async () => {
    const { fs } = fsWith({ '/p/a.txt': 'x' });
    const err = await failure(fs.readTextFile({ sessionId: 's', path: '/p/a.txt', _meta: nested(50000) }));
    assert.equal(err.code, 'invalid_params');
    assert.equal(err.data.field, '_meta');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'x' });
  });
});
