// What the shared JS driver promises beyond the vectors, as a suite any package can run against
// its `AcpFs` (JS storages only): errors always as rejected AcpFsErrors, `this`-bound storage
// calls, causes, AbortSignal, handle() and $/cancel_request, capabilities, hooks, audit events,
// streaming through ranged reads.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Volume } from 'memfs';
import { MapStorage } from './harness.mjs';

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

function assertAcpFsError(e, code, jsonRpcCode) {
  assert.ok(e instanceof Error, 'an Error');
  assert.equal(e.name, 'AcpFsError');
  assert.equal(e.code, code, `code (message: ${e.message})`);
  assert.equal(e.jsonRpcCode, jsonRpcCode);
}

function mapFs(AcpFs, files = { '/project/a.txt': 'one\ntwo\nthree\n' }, options = {}) {
  const storage = options.storage ?? new MapStorage();
  for (const [p, c] of Object.entries(files)) storage.put(p, Buffer.from(c));
  const fs = new AcpFs({ ...options, storage });
  fs.openSession('s1', { cwd: '/project' });
  return { fs, storage };
}

/** Defines the suite for one package's `AcpFs` class. */
export function driverSuite({ AcpFs, label }) {
  describe(`${label}: the JS driver`, () => {
    test('every failure is a rejected AcpFsError, never a synchronous throw', async () => {
      const { fs } = mapFs(AcpFs);
      const cases = [
        [fs.readTextFile, undefined, 'invalid_params'],
        [fs.readTextFile, null, 'invalid_params'],
        [fs.readTextFile, 'not params', 'invalid_params'],
        [fs.readTextFile, 42, 'invalid_params'],
        [fs.readTextFile, {}, 'invalid_params'],
        [fs.readTextFile, 10n, 'invalid_params'],
        [fs.readTextFile, { sessionId: 's1', path: '/project/a.txt', limit: 10n }, 'invalid_params'],
        [fs.readTextFile, { sessionId: 5n, path: '/project/a.txt' }, 'invalid_params'],
        [fs.readTextFile, { sessionId: 's1', path: '/project/missing.txt' }, 'not_found'],
        [fs.writeTextFile, undefined, 'invalid_params'],
        [fs.writeTextFile, { sessionId: 's1', path: '/project/b.txt' }, 'invalid_params'],
        [fs.writeTextFile, { sessionId: 's1', path: '/project/b.txt', content: Symbol('x') }, 'invalid_params'],
      ];
      for (const [call, params, code] of cases) {
        let promise;
        assert.doesNotThrow(() => {
          promise = call(params);
        });
        assert.ok(promise instanceof Promise);
        assertAcpFsError(await rejection(promise), code, code === 'not_found' ? -32002 : -32602);
      }
    });

    test('params are judged as JSON would carry them', async () => {
      const { fs } = mapFs(AcpFs);
      // undefined and functions are left out by JSON: absent.
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', line: undefined, limit: 1 }), {
        content: 'one\n',
      });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', line: () => 2, limit: 1 }), {
        content: 'one\n',
      });
      // A bigint cannot travel as JSON: the field that holds it is refused, in field order.
      const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', line: 2n, limit: -1 }));
      assert.equal(e.data.field, 'line');
      const lenient = new AcpFs({ storage: new MapStorage(), lenientParams: true });
      lenient.openSession('s1', { cwd: '/project' });
      await lenient.writeTextFile({ sessionId: 's1', path: '/project/l.txt', content: 'a\nb\n' });
      assert.deepEqual(await lenient.readTextFile({ sessionId: 's1', path: '/project/l.txt', line: 2n, limit: 1 }), {
        content: 'a\n',
      });
      // NaN and the infinities are sent as null by JSON: absent, whichever way the params cross
      // (small flat params as JSON text, large ones as values, nested ones after the walk).
      const whole = await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' });
      const padded = { _meta: { note: 'x'.repeat(2000) } };
      for (const extra of [{}, { pad: 'x'.repeat(2000) }, padded]) {
        for (const odd of [NaN, Infinity, -Infinity]) {
          const params = { sessionId: 's1', path: '/project/a.txt', line: odd, limit: odd, ...extra };
          assert.deepEqual(await fs.readTextFile(params), whole, `${odd} ${Object.keys(extra)}`);
        }
      }
      // A cyclic _meta is not JSON either.
      const meta = {};
      meta.self = meta;
      const m = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', _meta: meta }));
      assert.equal(m.data.field, '_meta');
    });

    test('methods are bound and accept the official SDK handler context', async () => {
      const { fs } = mapFs(AcpFs);
      const { readTextFile, writeTextFile } = fs;
      assert.deepEqual(await readTextFile({ sessionId: 's1', path: '/project/a.txt', line: 2, limit: 1 }), {
        content: 'two\n',
      });
      const ctx = {
        method: 'fs/write_text_file',
        params: { sessionId: 's1', path: '/project/c.txt', content: 'c' },
        signal: new AbortController().signal,
        requestId: 1,
      };
      assert.deepEqual(await writeTextFile(ctx), {});
      assert.deepEqual(await readTextFile({ method: 'fs/read_text_file', params: { sessionId: 's1', path: '/project/c.txt' } }), {
        content: 'c',
      });
    });

    test('storage methods are called with this bound; strings and ArrayBuffers are bytes', async () => {
      class Store {
        #files = new Map([
          ['/project/s.txt', 'héllo\nwörld\n'],
          ['/project/ab.txt', new TextEncoder().encode('array\nbuffer\n').buffer],
        ]);
        readFile(path) {
          if (!this.#files.has(path)) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
          return this.#files.get(path);
        }
        async writeFile(path, data) {
          assert.ok(data instanceof Uint8Array);
          this.#files.set(path, new TextDecoder().decode(data));
        }
        peek(path) {
          return this.#files.get(path);
        }
      }
      const storage = new Store();
      const fs = new AcpFs({ storage });
      fs.openSession('s1', { cwd: '/project' });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/s.txt', line: 2 }), { content: 'wörld\n' });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/ab.txt', limit: 1 }), { content: 'array\n' });
      await fs.writeTextFile({ sessionId: 's1', path: '/project/n.txt', content: 'new' });
      assert.equal(storage.peek('/project/n.txt'), 'new');
      assert.deepEqual(fs.capabilities(), { readTextFile: true, writeTextFile: true });
    });

    test("the host's error is the cause, and its code decides the kind", async () => {
      const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      const odd = new Error('disk on fire');
      const notFound = Object.assign(new Error('not there'), { name: 'NotFoundError' });
      for (const [thrown, code] of [
        [denied, 'permission_denied'],
        [odd, 'storage_error'],
        [notFound, 'not_found'],
      ]) {
        const fs = new AcpFs({
          storage: {
            readFile: async () => {
              throw thrown;
            },
          },
        });
        fs.openSession('s1', { cwd: '/project' });
        const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }));
        assertAcpFsError(e, code, code === 'not_found' ? -32002 : -32603);
        assert.equal(e.cause, thrown);
      }
      // A storage returning something that is not bytes fails as storage, with the TypeError as cause.
      const fs = new AcpFs({ storage: { readFile: () => 42 } });
      fs.openSession('s1', { cwd: '/project' });
      const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }));
      assertAcpFsError(e, 'storage_error', -32603);
      assert.ok(e.cause instanceof TypeError);
    });

    test('an aborted signal cancels before any storage call', async () => {
      const { fs, storage } = mapFs(AcpFs);
      const audits = [];
      const fs2 = new AcpFs({ storage, onAudit: (a) => audits.push(a) });
      fs2.openSession('s1', { cwd: '/project' });
      const signal = AbortSignal.abort();
      for (const f of [fs, fs2]) {
        const e = await rejection(f.readTextFile({ sessionId: 's1', path: '/project/a.txt' }, { signal }));
        assertAcpFsError(e, 'cancelled', -32800);
        assert.deepEqual(e.toJsonRpc(), { code: -32800, message: 'Request cancelled' });
      }
      assert.deepEqual(storage.calls, []);
      assert.equal(audits.length, 1);
      assert.equal(audits[0].outcome, 'cancelled');
    });

    test('aborting while storage works rejects at once, and no storage call follows', async () => {
      const gate = deferred();
      const calls = [];
      const storage = {
        stat: (p) => {
          calls.push(['stat', p]);
          return { isFile: () => true, isDirectory: () => false, size: 4 };
        },
        readFile: (p) => {
          calls.push(['readFile', p]);
          return gate.promise;
        },
        writeFile: (p) => calls.push(['writeFile', p]),
      };
      const fs = new AcpFs({ storage });
      fs.openSession('s1', { cwd: '/project' });
      const controller = new AbortController();
      const pending = fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'new' }, { signal: controller.signal });
      while (!calls.some(([op]) => op === 'readFile')) await tick();
      controller.abort();
      assertAcpFsError(await rejection(pending), 'cancelled', -32800);
      const seen = calls.length;
      gate.resolve(new TextEncoder().encode('old\n'));
      await tick();
      await tick();
      assert.equal(calls.length, seen, `no storage call after the abort: ${JSON.stringify(calls.slice(seen))}`);
      assert.ok(!calls.some(([op]) => op === 'writeFile'));
    });

    test('aborting during approval cancels the write', async () => {
      const asked = deferred();
      const decision = deferred();
      const { fs, storage } = mapFs(AcpFs, {}, {
        approveWrite: () => {
          asked.resolve();
          return decision.promise;
        },
      });
      const controller = new AbortController();
      const pending = fs.writeTextFile({ sessionId: 's1', path: '/project/x.txt', content: 'x' }, { signal: controller.signal });
      await asked.promise;
      controller.abort();
      assertAcpFsError(await rejection(pending), 'cancelled', -32800);
      decision.resolve(true);
      await tick();
      assert.equal(storage.files.has('/project/x.txt'), false);
    });

    test('an abort after the storage started writing reports the write, with its change record', async () => {
      const written = deferred();
      const done = deferred();
      const files = new Map([['/project/a.txt', new TextEncoder().encode('old\n')]]);
      const storage = {
        stat: (p) => ({ isFile: () => true, isDirectory: () => false, size: files.get(p)?.length ?? 0 }),
        readFile: (p) => files.get(p),
        writeFile: async (p, bytes) => {
          written.resolve();
          await done.promise;
          files.set(p, bytes);
        },
      };
      const changes = [];
      const fs = new AcpFs({ storage, onChange: (c) => changes.push(c) });
      fs.openSession('s1', { cwd: '/project' });
      const controller = new AbortController();
      const pending = fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'new\n' }, { signal: controller.signal });
      await written.promise;
      controller.abort();
      await tick();
      done.resolve();
      // Reported as cancelled, the editor would never learn of a change that is on disk.
      assert.deepEqual(await pending, {});
      assert.equal(new TextDecoder().decode(files.get('/project/a.txt')), 'new\n');
      assert.deepEqual(
        changes.map((c) => [c.path, c.oldText, c.newText]),
        [['/project/a.txt', 'old\n', 'new\n']],
      );
    });

    test('a file an abandoned open opens is closed once the open settles', async () => {
      const opening = deferred();
      const release = deferred();
      let closed = 0;
      const bytes = new TextEncoder().encode('one\n');
      const storage = {
        readFile: () => bytes,
        stat: () => ({ isFile: () => true, isDirectory: () => false, size: bytes.length }),
        open: async () => {
          opening.resolve();
          await release.promise;
          return {
            read: (buffer, offset, length, position) => {
              const got = bytes.subarray(position, position + length);
              buffer.set(got, offset);
              return { bytesRead: got.length };
            },
            close: () => {
              closed += 1;
            },
          };
        },
      };
      const fs = new AcpFs({ storage });
      fs.openSession('s1', { cwd: '/project' });
      const controller = new AbortController();
      const pending = fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }, { signal: controller.signal });
      await opening.promise;
      controller.abort();
      assertAcpFsError(await rejection(pending), 'cancelled', -32800);
      assert.equal(closed, 0, 'nothing was open yet');
      release.resolve();
      for (let i = 0; i < 5 && closed === 0; i++) await tick();
      assert.equal(closed, 1, 'the handle the open returned after the abort is closed');
    });

    test('handle(): strings in and out, objects in and out, null when not ours', async () => {
      const { fs } = mapFs(AcpFs);
      const text = await fs.handle(
        '{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/project/a.txt","line":3}}',
      );
      assert.equal(text, '{"jsonrpc":"2.0","id":"r1","result":{"content":"three\\n"}}');
      const obj = await fs.handle({
        jsonrpc: '2.0',
        id: 2,
        method: 'fs/read_text_file',
        params: { sessionId: 's1', path: '/project/missing.txt' },
      });
      assert.deepEqual(obj, {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32002, message: 'Resource not found: /project/missing.txt', data: { uri: '/project/missing.txt' } },
      });
      assert.equal(await fs.handle({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: {} }), null);
      assert.equal(await fs.handle('{"jsonrpc":"2.0","id":3,"result":{}}'), null);
      assert.deepEqual(JSON.parse(await fs.handle('[]')), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid request', data: { reason: 'batches are not supported' } },
      });
    });

    test('$/cancel_request cancels the matching request in flight (-32800, same id)', async () => {
      const asked = deferred();
      const decision = deferred();
      const { fs, storage } = mapFs(AcpFs, {}, {
        approveWrite: () => {
          asked.resolve();
          return decision.promise;
        },
      });
      const pending = fs.handle(
        '{"jsonrpc":"2.0","id":"w-\\u0031","method":"fs/write_text_file","params":{"sessionId":"s1","path":"/project/w.txt","content":"w"}}',
      );
      await asked.promise;
      // Another id: no effect.
      assert.equal(await fs.handle({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'w-2' } }), null);
      // The same id spelled differently is the same request.
      assert.equal(await fs.handle('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w-1"}}'), null);
      assert.equal(
        await pending,
        '{"jsonrpc":"2.0","id":"w-\\u0031","error":{"code":-32800,"message":"Request cancelled"}}',
      );
      decision.resolve(true);
      await tick();
      assert.equal(storage.files.has('/project/w.txt'), false);
    });

    test('capabilities(): only what is wired', () => {
      const ro = new AcpFs({ storage: { readFile: () => '' } });
      assert.deepEqual(ro.capabilities(), { readTextFile: true, writeTextFile: false });
      const opt = new AcpFs({ storage: new MapStorage(), readOnly: true });
      assert.deepEqual(opt.capabilities(), { readTextFile: true, writeTextFile: false });
      const rw = new AcpFs({ storage: new MapStorage() });
      assert.deepEqual(rw.capabilities(), { readTextFile: true, writeTextFile: true });
      const override = new AcpFs({ storage: { ...new MapStorage(), readFile: () => '', writeFile() {}, capabilities: { write: false } } });
      assert.deepEqual(override.capabilities(), { readTextFile: true, writeTextFile: false });
    });

    test('a storage that shows symlinks but cannot resolve them fails closed; an override can say it has none', async () => {
      const vol = Volume.fromJSON({ '/project/a.txt': 'alpha\n' });
      const p = vol.promises;
      const half = { readFile: (x) => p.readFile(x), stat: (x) => p.stat(x), lstat: (x) => p.lstat(x) };
      const fs = new AcpFs({ storage: half });
      fs.openSession('s1', { cwd: '/project' });
      const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }));
      assertAcpFsError(e, 'symlink_escape', -32603);
      const declared = new AcpFs({ storage: { ...half, capabilities: { symlinks: 'none' } } });
      declared.openSession('s1', { cwd: '/project' });
      assert.deepEqual(await declared.readTextFile({ sessionId: 's1', path: '/project/a.txt' }), { content: 'alpha\n' });
    });

    test('memfs vol.promises plugs in as it is, symlinks resolved', async () => {
      const vol = Volume.fromJSON({ '/project/a.txt': 'alpha\n', '/outside/s.txt': 'secret\n' });
      vol.symlinkSync('/outside/s.txt', '/project/link.txt');
      vol.symlinkSync('/project/a.txt', '/project/alias.txt');
      const fs = new AcpFs({ storage: vol.promises });
      fs.openSession('s1', { cwd: '/project' });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/alias.txt' }), { content: 'alpha\n' });
      assertAcpFsError(await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/link.txt' })), 'symlink_escape', -32603);
      await fs.writeTextFile({ sessionId: 's1', path: '/project/deep/new.txt', content: 'n\n' });
      assert.equal(vol.readFileSync('/project/deep/new.txt', 'utf8'), 'n\n');
    });

    test('audit events: one per request, stamped with a duration', async () => {
      const audits = [];
      const { fs } = mapFs(AcpFs, undefined, { onAudit: (a) => audits.push(a) });
      await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', line: 2, limit: 1 });
      await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/none.txt' }));
      await fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'x', _meta: { traceparent: '00-abc-def-01' } });
      assert.equal(audits.length, 3);
      for (const a of audits) assert.ok(typeof a.durationMs === 'number' && a.durationMs >= 0);
      assert.deepEqual(
        audits.map(({ op, path, line, limit, bytes, outcome, errorKind }) => ({ op, path, line, limit, bytes, outcome, errorKind })),
        [
          { op: 'read', path: '/project/a.txt', line: 2, limit: 1, bytes: 4, outcome: 'ok', errorKind: undefined },
          { op: 'read', path: '/project/none.txt', line: null, limit: null, bytes: 0, outcome: 'error', errorKind: 'not_found' },
          { op: 'write', path: '/project/a.txt', line: null, limit: null, bytes: 1, outcome: 'ok', errorKind: undefined },
        ],
      );
      assert.equal(audits[2].traceparent, '00-abc-def-01');
    });

    test('change records follow successful writes only; a throwing observer changes no answer', async () => {
      const changes = [];
      const errors = [];
      const original = console.error;
      console.error = (...args) => errors.push(args);
      try {
        const { fs } = mapFs(AcpFs, undefined, {
          onChange: (c) => {
            changes.push(c);
            throw new Error('observer bug');
          },
          onAudit: () => {
            throw new Error('audit bug');
          },
        });
        assert.deepEqual(await fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'x\n' }), {});
        await rejection(fs.writeTextFile({ sessionId: 's1', path: '/project/.env', content: 'x' }));
        assert.deepEqual(changes, [
          { sessionId: 's1', path: '/project/a.txt', created: false, oldText: 'one\ntwo\nthree\n', newText: 'x\n' },
        ]);
        assert.equal(errors.length, 3, 'each observer failure is reported');
      } finally {
        console.error = original;
      }
    });

    test('approveWrite that throws fails the write as storage, with its error as cause', async () => {
      const boom = new Error('approval UI crashed');
      const { fs, storage } = mapFs(AcpFs, undefined, {
        approveWrite: () => {
          throw boom;
        },
      });
      const e = await rejection(fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'x' }));
      assertAcpFsError(e, 'storage_error', -32603);
      assert.equal(e.cause, boom);
      assert.equal(storage.files.get('/project/a.txt').toString(), 'one\ntwo\nthree\n');
    });

    test('open documents: reads prefer them; writes go to the buffer or through', async () => {
      const { fs, storage } = mapFs(AcpFs, undefined, {
        onDocumentWrite: (path) => (path.endsWith('through.txt') ? 'writeThrough' : 'buffer'),
      });
      fs.documents.open('/project/./a.txt', 'unsaved\n');
      assert.equal(fs.documents.get('/project/a.txt'), 'unsaved\n');
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }), { content: 'unsaved\n' });
      fs.documents.update('/project/a.txt', 'typed more\n');
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }), { content: 'typed more\n' });
      await fs.writeTextFile({ sessionId: 's1', path: '/project/a.txt', content: 'agent\n' });
      assert.equal(fs.documents.get('/project/a.txt'), 'agent\n');
      assert.equal(storage.files.get('/project/a.txt').toString(), 'one\ntwo\nthree\n');
      fs.documents.open('/project/through.txt', 'b');
      await fs.writeTextFile({ sessionId: 's1', path: '/project/through.txt', content: 'both' });
      assert.equal(storage.files.get('/project/through.txt').toString(), 'both');
      fs.documents.close('/project/a.txt');
      assert.equal(fs.documents.get('/project/a.txt'), null);
      assert.throws(() => fs.documents.open('relative.txt', 'x'), (e) => e.name === 'AcpFsError' && e.code === 'invalid_params');
    });

    test('sessions: bad roots and bad options throw AcpFsError naming them', () => {
      const { fs } = mapFs(AcpFs);
      assert.throws(
        () => fs.openSession('s2', { cwd: 'relative' }),
        (e) => e.name === 'AcpFsError' && e.code === 'invalid_params' && e.data.field === 'cwd',
      );
      assert.throws(
        () => fs.openSession('s2', { cwd: '/p', additionalDirectories: ['/ok', 'bad'] }),
        (e) => e.name === 'AcpFsError' && e.data.field === 'additionalDirectories[1]',
      );
      assert.throws(
        () => new AcpFs({ storage: new MapStorage(), pastEnd: 'sometimes' }),
        (e) => e.name === 'AcpFsError' && e.code === 'invalid_params' && e.jsonRpcCode === -32602,
      );
      assert.throws(() => new AcpFs({ storage: {} }), TypeError);
      assert.throws(() => fs.openSession(7, { cwd: '/p' }), (e) => e.name === 'AcpFsError' && e.data.field === 'sessionId');
      assert.throws(() => fs.documents.open('/project/a.txt', null), (e) => e.name === 'AcpFsError' && e.data.field === 'text');
      // The session's options (semantics.md §8 "Agent quirks"): the engine names what it does
      // not know, a misspelt key and a function (which JSON would drop) included.
      for (const [session, field] of [
        [{ agent: 'qwen-code' }, 'agent'],
        [{ agent: 'Gemini-CLI' }, 'agent'],
        [{ agent: 3 }, 'agent'],
        [{ agnet: 'gemini-cli' }, 'agnet'],
        [{ agent: () => 'gemini-cli' }, 'agent'],
      ]) {
        assert.throws(
          () => fs.openSession('s3', { cwd: '/p', ...session }),
          (e) => e.name === 'AcpFsError' && e.code === 'invalid_params' && e.data.field === field,
          JSON.stringify(session),
        );
      }
      fs.openSession('s3', { cwd: '/p', agent: 'gemini-cli' });
      fs.openSession('s3', { cwd: '/p', agent: undefined });
      fs.openSession('s3', { cwd: '/p', agent: null });
    });

    test('a session closed is unknown again', async () => {
      const { fs } = mapFs(AcpFs);
      fs.closeSession('s1');
      const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt' }));
      assertAcpFsError(e, 'invalid_params', -32602);
      assert.equal(e.data.field, 'sessionId');
    });

    test('a window streams through ranged reads: the bytes after it are never read', async () => {
      const storage = new MapStorage({ ranged: true });
      const line = `${'x'.repeat(99)}\n`;
      storage.put('/project/big.txt', Buffer.from(line.repeat(50_000))); // 5 MB
      const fs = new AcpFs({ storage });
      fs.openSession('s1', { cwd: '/project' });
      assert.deepEqual(await fs.readTextFile({ sessionId: 's1', path: '/project/big.txt', line: 3, limit: 2 }), {
        content: line + line,
      });
      assert.ok(!storage.calls.some(([op]) => op === 'readFile'), 'no whole-file read');
      const read = storage.calls.filter(([op]) => op === 'readRange').reduce((n, c) => n + c[3], 0);
      assert.ok(read < 1024 * 1024, `read ${read} bytes of a 5 MB file for a 2-line window`);

      // Through FileHandles (memfs): every handle the driver opened is closed.
      const vol = Volume.fromJSON({ '/project/big.txt': line.repeat(50_000) });
      let opened = 0;
      let closed = 0;
      const p = vol.promises;
      const viaHandles = {
        readFile: (x) => p.readFile(x),
        stat: (x) => p.stat(x),
        open: async (x, flags) => {
          opened += 1;
          const h = await p.open(x, flags);
          return { read: (...a) => h.read(...a), close: () => ((closed += 1), h.close()) };
        },
      };
      const fs2 = new AcpFs({ storage: viaHandles });
      fs2.openSession('s1', { cwd: '/project' });
      assert.deepEqual(await fs2.readTextFile({ sessionId: 's1', path: '/project/big.txt', line: 40_000, limit: 1 }), {
        content: line,
      });
      assert.ok(opened >= 1);
      assert.equal(closed, opened);
    });

    test('AcpFsError serializes to its JSON-RPC error', async () => {
      const { fs } = mapFs(AcpFs);
      const e = await rejection(fs.readTextFile({ sessionId: 's1', path: '/project/a.txt', line: -1 }));
      assert.deepEqual(e.toJsonRpc(), { code: -32602, message: e.message, data: e.data });
      assert.equal(e.data.field, 'line');
      assert.deepEqual(JSON.parse(JSON.stringify(e)), {
        name: 'AcpFsError',
        code: 'invalid_params',
        jsonRpcCode: -32602,
        message: e.message,
        data: e.data,
      });
    });
  });
}
