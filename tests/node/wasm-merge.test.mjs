// The merge module (docs/design.md#the-merge-module): @acp-fs/wasm's fs/* module leaves out the
// three-way merge of a stale write and asks the host for it (`{op: "merge"}`); the driver answers
// with `binding.merge`, which the entry loads from pkg-merge/ the first time. The vectors run the
// merges themselves through the Node entry (wasm-vectors.test.mjs); here: what the engine asks,
// what it makes of each answer, a merge module that fails to load, and loading it once.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// The Node entry instantiates the module on import and gives the guard the merge module.
import '../../npm/wasm/node.mjs';
import { binding } from '../../npm/wasm/lib/fs.mjs';
import { binding as fullBinding } from '../../npm/wasm/lib/full.mjs';
import '../../npm/wasm/full-node.mjs';
import { lazyMerge } from '../../npm/wasm/lib/lazy-module.mjs';
import { createAcpFs } from '../../npm/shared/index.mjs';
import { MapStorage } from './harness.mjs';

const PATH = '/p/a.txt';
const BASE = 'one\ntwo\nthree\nfour\nfive\n';
const USER = 'one\ntwo (user)\nthree\nfour\nfive\n';
const AGENT = 'one\ntwo\nthree\nfour\nfive (agent)\n';
const BOTH = 'one\ntwo (user)\nthree\nfour\nfive (agent)\n';

/**
 * The agent has read the file and the user changed it since: the engine and its storage, ready
 * for the agent's stale write. `merge`: the binding's merge for this engine (the fs/* module's,
 * or a stand-in, given the storage); `module`: the module's binding.
 */
async function readThenChanged(merge, { base = BASE, user = USER, module = binding } = {}) {
  const storage = new MapStorage();
  storage.put(PATH, Buffer.from(base));
  const AcpFs = createAcpFs(merge === undefined ? module : { ...module, merge: (...args) => merge(...args, storage) });
  const changes = [];
  const fs = new AcpFs({ storage, onChange: (c) => changes.push(c) });
  fs.openSession('s', { cwd: '/p' });
  assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: PATH }), { content: base });
  storage.put(PATH, Buffer.from(user));
  return { fs, storage, changes };
}

const fileOf = (storage) => Buffer.from(storage.files.get(PATH)).toString();

/** The agent's stale write after `readThenChanged`: its result or error, the file, the changes. */
async function staleWrite(merge, { agent = AGENT, signal, ...options } = {}) {
  const { fs, storage, changes } = await readThenChanged(merge, options);
  const written = await fs.writeTextFile({ sessionId: 's', path: PATH, content: agent }, { signal }).then(
    (result) => ({ result }),
    (error) => ({ error }),
  );
  return { ...written, file: fileOf(storage), changes };
}

describe('@acp-fs/wasm: the fs/* module asks for its merges', () => {
  test('a stale write asks with what the agent read, what is there and what it sent', async () => {
    const asked = [];
    const { result, file, changes } = await staleWrite(async (base, current, ours) => {
      asked.push([base, current, ours]);
      return 'merged by the host\n';
    });
    assert.deepEqual(asked, [[BASE, USER, AGENT]]);
    // The answer is what is written, and the change record says it was merged.
    assert.deepEqual(result, {});
    assert.equal(file, 'merged by the host\n');
    assert.equal(changes.length, 1);
    assert.equal(changes[0].merged, true);
    assert.equal(changes[0].newText, 'merged by the host\n');
  });

  test('null (the edits overlap) refuses the write as stale, and writes nothing', async () => {
    const { error, file } = await staleWrite(async () => null);
    assert.equal(error?.jsonRpcCode, -32603);
    assert.equal(error.data.errorKind, 'stale_write');
    assert.equal(file, USER);
  });

  test('a write the file has not moved under asks nothing', async () => {
    const asked = [];
    const { result, file } = await staleWrite(async (...args) => asked.push(args), { user: BASE });
    assert.deepEqual([result, file, asked], [{}, AGENT, []]);
  });

  test('a merge module that failed to load fails the write saying so, and writes nothing', async () => {
    const offline = new TypeError('Failed to fetch');
    // A missing .wasm in Node is ENOENT: about the merge module, not the file written.
    const missing = Object.assign(new Error('no such file or directory'), { code: 'ENOENT' });
    for (const why of [offline, missing]) {
      const { error, file } = await staleWrite(async () => {
        throw why;
      });
      assert.equal(error?.jsonRpcCode, -32603);
      assert.equal(error.data.errorKind, 'storage_error');
      // The host's words, as every host error is quoted: its code first, where it has one.
      const words = why.code ? `${why.code}: ${why.message}` : why.message;
      assert.equal(error.data.hint, `the three-way merge could not be run (${words}); nothing was written`);
      assert.equal(error.cause, why);
      assert.equal(file, USER);
    }
  });

  test('a write cancelled while the merge module loads ends cancelled, and writes nothing', async () => {
    const abort = new AbortController();
    let loaded;
    const loading = new Promise((resolve) => (loaded = resolve));
    const written = staleWrite(
      async () => {
        abort.abort();
        await loading;
        return BOTH;
      },
      { signal: abort.signal },
    );
    const { error, file } = await written;
    loaded();
    assert.equal(error?.jsonRpcCode, -32800);
    assert.equal(file, USER);
  });

  test('a file that moves while the merge module loads: stale_write, nothing written', async () => {
    const again = 'one\ntwo (user)\nthree (user, again)\nfour\nfive\n';
    const { error, file } = await staleWrite(async (base, current, ours, storage) => {
      storage.put(PATH, Buffer.from(again));
      return BOTH;
    });
    assert.equal(error?.data?.errorKind, 'stale_write');
    assert.match(error.message, /changed while this write waited \(for its approval or its merge\)/);
    assert.equal(file, again);
  });

  test('an answer that is not a merge is the driver bug it is: internal, nothing written', async () => {
    const { error, file } = await staleWrite(async () => 42);
    assert.equal(error?.jsonRpcCode, -32603);
    assert.equal(error.data.errorKind, 'internal');
    assert.equal(file, USER);
  });

  test("the Node entry's merge module merges as the engine does", async () => {
    const { result, file, changes } = await staleWrite(undefined);
    assert.deepEqual([result, file, changes[0].merged], [{}, BOTH, true]);
    assert.equal(await binding.merge(BASE, USER, AGENT), BOTH);
    assert.equal(await binding.merge('a\n', 'b\n', 'c\n'), null);
  });

  test('the full module has the merge built in and never asks', async () => {
    const never = () => assert.fail('the full module asked for a merge');
    const { result, file } = await staleWrite(never, { module: fullBinding });
    assert.deepEqual([result, file], [{}, BOTH]);
  });
});

describe('lazyMerge: the merge module is loaded once, when first needed', () => {
  test('nothing is loaded before the first merge; one load serves every merge after it', async () => {
    let loads = 0;
    const merge = lazyMerge(async () => {
      loads += 1;
      return (base, current, ours) => `${base}|${current}|${ours}`;
    });
    assert.equal(loads, 0);
    const both = await Promise.all([merge('a', 'b', 'c'), merge('d', 'e', 'f')]);
    assert.deepEqual(both, ['a|b|c', 'd|e|f']);
    assert.equal(await merge('g', 'h', 'i'), 'g|h|i');
    assert.equal(loads, 1);
  });

  test('a trap in the merge module: that merge fails, and the module is not entered again', async () => {
    let calls = 0;
    const merge = lazyMerge(async () => () => {
      calls += 1;
      throw new WebAssembly.RuntimeError('unreachable');
    });
    await assert.rejects(merge('a', 'b', 'c'), WebAssembly.RuntimeError);
    await assert.rejects(merge('a', 'b', 'c'), /the merge module trapped \(unreachable\) and is not entered again/);
    assert.equal(calls, 1);
  });

  test("the module's undefined (the edits overlap) is null; a failed load is tried again", async () => {
    let loads = 0;
    const merge = lazyMerge(async () => {
      loads += 1;
      if (loads === 1) throw new Error('offline');
      return () => undefined;
    });
    await assert.rejects(merge('a', 'b', 'c'), /offline/);
    assert.equal(await merge('a', 'b', 'c'), null);
    assert.equal(loads, 2);
  });
});
