// @acp-fs/node and @acp-fs/wasm answer alike: for every vector over the same kind of storage,
// the same result or the same error (kind, JSON-RPC code, message, data), the same raw reply, the
// same change record and the same audit events; and their low-level bindings answer the same
// call sequences (docs/binding-interface.md) identically, malformed ones included.
//
// Needs both builds: scripts/build-wasm.sh, and the N-API addon (skipped, with the reason, when it
// is not built).

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/full-node.mjs';
import { binding as wasmBinding } from '../../npm/wasm/lib/full.mjs';
import { loadVectors, runVector } from './harness.mjs';
import { wasmBackends } from './wasm-backends.mjs';

// As tests/node/node-package.mjs decides (imported only once the package is known to load).
const NODE_PKG_DIR = process.env.ACP_FS_NODE_PKG ?? join(fileURLToPath(import.meta.url), '..', '..', '..', 'npm', 'node');

/** The N-API package (or its wasm fallback, under ACP_FS_FORCE_WASM=1), or why it cannot be loaded. */
async function loadNode() {
  const forced = process.env.ACP_FS_FORCE_WASM === '1';
  const addons = nodeFs.existsSync(NODE_PKG_DIR) ? nodeFs.readdirSync(NODE_PKG_DIR).filter((f) => f.endsWith('.node')) : [];
  if (!addons.length && !forced && !process.env.ACP_FS_NODE_PKG) {
    return { skip: `the N-API addon is not built (no npm/node/*.node): run the @acp-fs/node build first` };
  }
  try {
    const mod = await import('./node-package.mjs');
    // The engine the package runs: the addon's, or the fallback's wasm engine.
    const { binding } = createRequire(import.meta.url)(join(NODE_PKG_DIR, 'load.cjs'));
    return { AcpFs: mod.AcpFs, binding };
  } catch (e) {
    return { skip: `@acp-fs/node does not load: ${e.message}` };
  }
}

const native = await loadNode();
const skip = native.skip ?? false;

/** The package's class with every audit event recorded (the host's own hook still called). */
function recording(AcpFs) {
  const audits = [];
  class Recording extends AcpFs {
    constructor(options) {
      super({
        ...options,
        onAudit: (event) => {
          audits.push(event);
          options?.onAudit?.(event);
        },
      });
    }
  }
  return { AcpFs: Recording, audits };
}

/** Everything a host can observe of one run, with the temp-dir prefix taken out. */
function observed(run, audits) {
  const g = run.got;
  const text = JSON.stringify({
    result: g.result ?? null,
    error: g.error ?? null,
    kind: g.errorCode ?? null,
    raw: g.raw ?? null,
    change: g.change,
    changes: g.changes,
    audits: audits.map(({ durationMs, ...rest }) => {
      assert.equal(typeof durationMs, 'number', 'the driver stamps every audit event');
      return rest;
    }),
  });
  return JSON.parse(run.prefix ? text.split(`${run.prefix}/`).join('/').split(run.prefix).join('/') : text);
}

async function runBoth(vector, backend) {
  const outs = [];
  for (const Base of [native.AcpFs, WasmAcpFs]) {
    const { AcpFs, audits } = recording(Base);
    const run = await runVector(AcpFs, vector, backend);
    if (run.skip) return { skip: run.skip };
    outs.push({ run, view: observed(run, audits) });
  }
  return { node: outs[0], wasm: outs[1] };
}

const all = loadVectors();
const byFile = new Map();
for (const x of all) byFile.set(x.file, [...(byFile.get(x.file) ?? []), x]);

describe('parity: every vector, both packages, the same storages', { skip }, () => {
  for (const [file, vectors] of byFile) {
    describe(file, () => {
      for (const { vector } of vectors) {
        test(vector.name, async () => {
          let compared = 0;
          for (const backend of Object.values(wasmBackends)) {
            const both = await runBoth(vector, backend);
            if (both.skip) continue;
            compared += 1;
            // Each must meet the vector on its own, and the two must be indistinguishable.
            assert.deepEqual(both.node.run.failures, [], `[node, ${backend.name}] ${both.node.run.failures.join('\n')}`);
            assert.deepEqual(both.wasm.run.failures, [], `[wasm, ${backend.name}] ${both.wasm.run.failures.join('\n')}`);
            assert.deepStrictEqual(both.wasm.view, both.node.view, `@acp-fs/wasm and @acp-fs/node differ on ${backend.name}`);
          }
          assert.ok(compared > 0, 'no storage could run this vector');
        });
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The low-level bindings, call for call.

const CAPS = { symlinks: 'none', stat: true, rangedReads: false, write: true, makeDirs: true };
const enc = new TextEncoder();

/** A call's answer, or that it threw (errors cross as values: nothing here should throw). */
function outcomeOf(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    return { threw: String(e?.message ?? e) };
  }
}

const isError = (v) => typeof v?.kind === 'string' && typeof v?.code === 'number';

/** `createEngine`'s engine; a script that gets an error value instead fails loudly. */
function engine(B, options, caps) {
  const made = B.createEngine(options, caps);
  if (isError(made)) throw new Error(`createEngine refused: ${made.message}`);
  return made;
}

/** Step results with Buffer/Uint8Array bytes as plain arrays, so both bindings compare. */
const normal = (x) =>
  JSON.parse(JSON.stringify(x, (k, v) => (v instanceof Uint8Array || v?.type === 'Buffer' ? [...(v.data ?? v)] : v)));

const scripts = {
  'bad options and caps': (E) =>
    // 5e9 crosses napi as a float and wasm as an integer: both are the same byte count.
    [{ maxReadBytes: -1 }, { maxReadBytes: 1.5 }, { maxReadBytes: 5e9 }, { ledgerFileBytes: 2 ** 53 }, { pastEnd: 'sideways' }, { deny: 'x' }, { roots: ['relative'] }, { extraRoots: ['/a', 'b'] }, { readOnly: true, maxReadByte: 1 }].map(
      (options) => outcomeOf(() => E.createEngine(options, CAPS)),
    )
      .concat([outcomeOf(() => E.createEngine({}, { symlinks: 'sometimes' }))])
      .map((o) => (isError(o.value) ? o : { value: o.value.capabilities() }))
      .concat([outcomeOf(() => engine(E, null, {}).capabilities())]),
  'sessions and documents': (E) => {
    const e = engine(E, { readOnly: true }, CAPS);
    return [
      e.openSession('s', '/p', []),
      e.openSession('s', 'relative', []),
      e.openSession('s', 'C:foo', []),
      e.openSession('s', '/p', ['/q', 'rel']),
      e.openSession('s', '/p', ['/q', 3]),
      e.openSession('s', '/p', 'not a list'),
      e.openSession('s', 42, []),
      e.openDocument('rel.txt', 'x'),
      e.openDocument('/p/./a.txt', 'buffer'),
      e.document('/p/a.txt'),
      e.document('/p/none.txt'),
      e.capabilities(),
    ];
  },
  'a read by hand, then misuse': (E) => {
    const e = engine(E, {}, CAPS);
    e.openSession('s', '/p', []);
    const op = e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2, _meta: { traceparent: 't' } });
    return [
      op.audit(),
      op.step({ approved: true }), // a first call's answer is ignored: nothing was asked yet
      op.step({ metadata: { kind: 'file', size: 8 } }),
      op.audit(),
      op.step({ bytes: true }, enc.encode('one\ntwo\n')),
      op.audit(),
      op.step({ bytes: true }, enc.encode('again')),
      op.cancel(),
    ].map(normal);
  },
  'malformed answers': (E) => {
    const e = engine(E, {}, CAPS);
    e.openSession('s', '/p', []);
    const answers = [
      [{ bogus: 1 }],
      [{ metadata: { kind: 'fifo', size: 1 } }],
      [{ metadata: { kind: 'file', size: -1 } }],
      [{ bytes: true }],
      [undefined],
      [null],
      [{ path: 5 }],
      [{ error: {} }],
      [{ error: { code: 'EACCES' } }],
      [{ error: { name: 'TypeMismatchError', message: 'nope' } }],
    ];
    return answers.map((args) => {
      const op = e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      op.step();
      return normal({ step: op.step(...args), audit: op.audit() });
    });
  },
  'a write by hand': (E) => {
    const e = engine(E, {}, CAPS);
    e.openSession('s', '/p', []);
    const op = e.start('fs/write_text_file', { sessionId: 's', path: '/p/d/new.txt', content: 'a\u00e9b\n' });
    const steps = [op.step()];
    steps.push(op.step({ error: { code: 'ENOENT', message: 'missing' } }));
    while (!steps.at(-1).done) {
      const { io } = steps.at(-1);
      const answer =
        io.op === 'stat' ? { error: { code: 'ENOENT' } } : io.op === 'approve' ? { approved: true } : { done: true };
      steps.push(op.step(answer));
    }
    steps.push(op.audit());
    return steps.map(normal);
  },
  'params of every shape': (E) => {
    const e = engine(E, { lenientParams: false }, CAPS);
    e.openSession('s', '/p', []);
    const params = [
      null,
      'text',
      [1, 2],
      { sessionId: 's' },
      { sessionId: 's', path: '/p/a.txt', limit: null },
      { sessionId: 's', path: '/p/a.txt', line: 3.0, limit: 2.5 },
      { sessionId: 's', path: '/p/a.txt', _meta: 'x' },
    ];
    return params.map((p) => {
      const op = e.start('fs/read_text_file', p);
      return normal({ step: op.step(), audit: op.audit() });
    });
  },
  'raw messages': (E) => {
    const e = engine(E, {}, CAPS);
    e.openSession('s', '/p', []);
    return [
      '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}',
      '{oops',
      '[]',
      '{"jsonrpc":"1.0","id":"x","method":"fs/read_text_file"}',
      '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}',
      '{"jsonrpc":"2.0","method":"fs/read_text_file","params":{}}',
    ]
      .map((m) => e.dispatch(m))
      .concat([
        (() => {
          const d = e.dispatch('{"jsonrpc":"2.0","id":1e2,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt"}}');
          return { kind: d.kind, id: d.id, method: d.method, first: d.operation.step(), audit: d.operation.audit() };
        })(),
      ]);
  },
};

// The open may carry the first bytes of the file it opened (`head`): the first chunk, so a small
// file needs no readAt; too many bytes, or bytes without an open file, are wrong answers.
const RANGED = { ...CAPS, rangedReads: true };
const opened = (size) => ({ file: 0, metadata: { kind: 'file', size }, bytes: true });
const headScripts = {
  'an open answered with its head': (E) => {
    const e = engine(E, {}, RANGED);
    e.openSession('s', '/p', []);
    const read = (params = {}) => e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt', ...params });
    const small = read({ line: 2 });
    const big = read();
    const whole = enc.encode(`${'x'.repeat(99)}\n`.repeat(200));
    const bigSteps = [big.step(), big.step(opened(whole.length), whole.subarray(0, 16384))];
    while (bigSteps.at(-1).io?.op === 'readAt') {
      const { offset, length } = bigSteps.at(-1).io;
      bigSteps.push(big.step({ bytes: true }, whole.subarray(offset, offset + length)));
    }
    const headless = read({ line: 2 });
    return {
      small: [small.step(), small.step(opened(8), enc.encode('one\ntwo\n')), small.audit()].map(normal),
      big: { steps: bigSteps.map((s) => (s.done ? normal(s) : s.io)), audit: big.audit() },
      headless: [
        headless.step(),
        headless.step({ file: 0, metadata: { kind: 'file', size: 8 } }),
        headless.step({ bytes: true }, enc.encode('one\ntwo\n')),
      ].map(normal),
    };
  },
  'wrong heads': (E) => {
    const e = engine(E, {}, RANGED);
    e.openSession('s', '/p', []);
    return [
      [opened(20000), new Uint8Array(16385).fill(0x61)],
      [{ ...opened(8), file: null }, enc.encode('one\ntwo\n')],
      [{ file: null, metadata: { kind: 'directory', size: 0 }, bytes: true }, new Uint8Array(1)],
      [opened(8)],
    ].map((args) => {
      const op = e.start('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      const open = op.step();
      return normal({ open, step: op.step(...args), audit: op.audit() });
    });
  },
};

describe('parity: the low-level bindings, call for call', { skip }, () => {
  for (const [name, script] of Object.entries({ ...scripts, ...headScripts })) {
    test(name, () => {
      assert.deepStrictEqual(script(wasmBinding), script(native.binding));
    });
  }

  test('the scripts answer what the contract says', () => {
    const byHand = scripts['a read by hand, then misuse'](native.binding);
    assert.equal(byHand[0], null, 'no audit event before the request has begun');
    assert.equal(byHand[3], null, 'nor while it runs');
    assert.equal('audit' in byHand[4].done, false, 'the audit event is asked for apart');
    assert.deepEqual(byHand[5], { op: 'read', sessionId: 's', path: '/p/a.txt', line: 2, limit: null, bytes: 4, outcome: 'ok', durationMs: null, traceparent: 't' });
    for (const { step, audit } of scripts['malformed answers'](native.binding).slice(0, 7)) {
      assert.equal(step.done.error.kind, 'internal', JSON.stringify(step));
      assert.equal(audit.errorKind, 'internal');
    }
    const { small, big, headless } = headScripts['an open answered with its head'](native.binding);
    const OPEN = { io: { op: 'open', root: '/p', path: '/p/a.txt', head: 16384 } };
    assert.deepEqual(small.slice(0, 2), [OPEN, { done: { result: { content: 'two\n' }, change: null } }], 'no readAt after a whole head');
    assert.equal(small[2].outcome, 'ok');
    assert.deepEqual(big.steps[0], OPEN.io);
    assert.deepEqual([big.steps[1].op, big.steps[1].offset], ['readAt', 16384], 'the reads go on where the head ended');
    assert.equal(big.steps.at(-1).done.result.content.length, 20000);
    assert.deepEqual(headless, [OPEN, { io: { op: 'readAt', file: 0, offset: 0, length: 16384 } }, { done: { result: { content: 'two\n' }, change: null } }]);
    const [tooLong, noFile, noFileDir, notSent] = headScripts['wrong heads'](native.binding);
    assert.deepEqual(tooLong.open, OPEN);
    assert.equal(tooLong.step.done.error.kind, 'storage_error');
    assert.equal(tooLong.audit.errorKind, 'storage_error');
    for (const bad of [noFile, noFileDir]) {
      assert.equal(bad.step.done.error.kind, 'internal');
      assert.match(bad.step.done.error.message, /malformed answer: bytes came with metadata but no open file/);
    }
    assert.equal(notSent.step.done.error.kind, 'internal');
    assert.match(notSent.step.done.error.message, /malformed answer/);
  });
});
