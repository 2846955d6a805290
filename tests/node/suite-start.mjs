// `Engine.startJson`: the params of a request as JSON text (the driver's form for small flat
// params), through a binding's low-level interface, and where a binding has it (wasm)
// `Engine.startFlat`, the same params as they are. One suite for the napi addon and the wasm
// module (run by suite-binding.mjs): every form starts the same request.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

/** Steps `op` to its end with no storage: every io is answered "not found". */
function run(op) {
  const steps = [];
  let step = op.step();
  while (!step.done) {
    steps.push(step.io);
    step = op.step({ error: { code: 'ENOENT', message: 'no such file' } });
  }
  return { steps, done: step.done, audit: op.audit() };
}

/** `engine()` gives an engine with session `s` on root `/p`. */
export function startSuite({ label, engine }) {
  describe(`${label}: startJson`, () => {
    test('an operation for the fs methods, null otherwise', () => {
      const e = engine();
      assert.notEqual(e.startJson('fs/read_text_file', '{"sessionId":"s","path":"/p/a"}'), null);
      assert.notEqual(e.startJson('fs/write_text_file', 'null'), null);
      assert.equal(e.startJson('session/prompt', '{}'), null);
      if (typeof e.startFlat === 'function') {
        assert.notEqual(e.startFlat('fs/read_text_file', { sessionId: 's', path: '/p/a' }), null);
        assert.equal(e.startFlat('session/prompt', {}), null);
      }
    });

    test('params as JSON text start the same request as params as values', () => {
      const e = engine();
      const cases = [
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt' }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 3, limit: 2 }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 0 }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2 ** 60 }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', limit: 1.5 }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: -1, limit: 1e21 }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: -0, limit: null, lenient: true, _meta: null }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 4294967295, limit: 4294967296 }],
        // Not flat: startFlat's params that nest are read as the JSON value they are.
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2, _meta: { traceparent: '00-1-2-01' } }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: [3] }],
        ['fs/read_text_file', { sessionId: 's', path: '/p/é/ü\u{1F600}.txt', '': 'x' }],
        ['fs/read_text_file', { sessionId: 's', path: 'relative.txt' }],
        ['fs/read_text_file', { sessionId: 'other', path: '/p/a.txt' }],
        ['fs/read_text_file', { sessionId: 's', path: '/elsewhere/a.txt' }],
        ['fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'é\r\n' }],
        ['fs/write_text_file', { sessionId: 's', path: '/p/a.txt' }],
        ['fs/read_text_file', []],
      ];
      for (const [method, params] of cases) {
        const asValues = run(e.start(method, params));
        const asText = run(e.startJson(method, JSON.stringify(params)));
        assert.deepEqual(asText, asValues, `${method} ${JSON.stringify(params)}`);
        if (typeof e.startFlat === 'function' && !Array.isArray(params)) {
          assert.deepEqual(run(e.startFlat(method, params)), asValues, `${method} ${JSON.stringify(params)} as they are`);
        }
      }
    });

    test('a request ended before its first step ends as one started from values does', () => {
      // The wasm guard starts a startJson request with its first step: one ended first is
      // started then, and must end as it would have.
      const e = engine();
      const params = { sessionId: 's', path: '/p/a.txt', line: 2 };
      const ends = [(op) => op.cancel(), (op) => op.refuse('path', 'has no JSON form'), (op) => op.abort('the driver broke')];
      const forms = [(m, p) => e.startJson(m, JSON.stringify(p))];
      if (typeof e.startFlat === 'function') forms.push((m, p) => e.startFlat(m, p));
      for (const [end, start] of ends.flatMap((end) => forms.map((start) => [end, start]))) {
        const byValues = e.start('fs/read_text_file', params);
        const byText = start('fs/read_text_file', params);
        assert.equal(byText.audit(), null, 'no event before the end');
        const outcome = end(byText);
        assert.deepEqual(outcome, end(byValues));
        assert.deepEqual(byText.audit(), byValues.audit());
        assert.equal(byText.step().done.error.kind, 'internal', 'a step after the end');
        byText.free?.();
        byValues.free?.();
      }
      // Freed before its first step (wasm): nothing to release, nothing thrown.
      e.startJson('fs/read_text_file', JSON.stringify(params)).free?.();
    });

    test('text that is not JSON ends the request as internal, reported like any request', () => {
      for (const text of ['{"sessionId":', '', '{"path":"\\ud800"}']) {
        const op = engine().startJson('fs/read_text_file', text);
        const { done } = op.step();
        assert.equal(done.error.kind, 'internal');
        assert.match(done.error.message, /the driver sent params that are not JSON/);
        assert.equal(op.audit().outcome, 'error');
      }
    });
  });
}
