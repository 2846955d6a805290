// Options in both packages (and both entries of @acp-fs/node): an unknown key is refused by the
// engine, naming it, as a bad value is; the host-only keys never reach the engine, and the
// engine's own still take effect beside them.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import * as nodeImport from '../../npm/node/index.mjs';
import * as wasm from '../../npm/wasm/node.mjs';

const require = createRequire(import.meta.url);
const packages = [
  ['@acp-fs/node (import)', nodeImport],
  ['@acp-fs/node (require)', require('../../npm/node/index.cjs')],
  ['@acp-fs/wasm', wasm],
];

/** A writable storage of one file, `/p/a.txt` (8 bytes), without symlinks. */
const storage = () => ({
  readFile: (path) => {
    if (path === '/p/a.txt') return 'one\ntwo\n';
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  },
  writeFile: () => {},
  capabilities: { symlinks: 'none' },
});

/** The error `fn` throws, checked to be an `invalid_params` AcpFsError naming `field`. */
function refusal(fn, field) {
  let error;
  assert.throws(fn, (e) => {
    error = e;
    return true;
  });
  assert.equal(error.name, 'AcpFsError');
  assert.equal(error.code, 'invalid_params');
  assert.equal(error.jsonRpcCode, -32602);
  assert.equal(error.data.field, field);
  assert.equal(error.message, `Invalid params: ${field}: ${error.data.reason}`);
  return error;
}

for (const [label, { AcpFs }] of packages) {
  describe(`${label}: options`, () => {
    test('a misspelt option is refused, naming it, as a bad value is', () => {
      const e = refusal(() => new AcpFs({ storage: storage(), maxReadByte: 1 }), 'maxReadByte');
      assert.match(e.data.reason, /^unknown field `maxReadByte`, expected one of .*`maxReadBytes`/);
      assert.deepEqual(e.toJsonRpc(), { code: -32602, message: e.message, data: { field: 'maxReadByte', reason: e.data.reason } });
      // Beside valid options, after them: still the unknown key.
      refusal(() => new AcpFs({ storage: storage(), readOnly: true, zedCompat: true, onConflict: 'reject', cwd: '/p' }), 'cwd');
      // The same form as a bad value.
      refusal(() => new AcpFs({ storage: storage(), maxReadBytes: -1 }), 'maxReadBytes');
    });

    test('a misspelt hook is refused too, though JSON would drop a function', () => {
      refusal(() => new AcpFs({ storage: storage(), onAudits: () => {} }), 'onAudits');
      refusal(() => new AcpFs({ storage: storage(), [Symbol.iterator]: 1, tag: Symbol('x') }), 'tag');
      // An engine option given a function is its bad value, not left at its default.
      refusal(() => new AcpFs({ storage: storage(), deny: () => [] }), 'deny');
    });

    test('a key whose value is undefined counts as left out', () => {
      assert.doesNotThrow(() => new AcpFs({ storage: storage(), maxReadByte: undefined }));
    });

    test('the host-only options are taken out before the engine, whose options still apply', async () => {
      const seen = [];
      const fs = new AcpFs({
        storage: storage(),
        approveWrite: () => true,
        onChange: () => {},
        onAudit: (event) => seen.push(event.outcome),
        onDocumentWrite: () => 'buffer',
        roots: ['/p'],
        maxReadBytes: 3,
        readOnly: true,
      });
      assert.deepEqual(fs.capabilities(), { readTextFile: true, writeTextFile: false });
      const whole = await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }).catch((e) => e);
      assert.equal(whole.code, 'file_too_large');
      assert.deepEqual(seen, ['error']);
    });
  });
}

describe('@acp-fs/node without a storage (the native disk)', () => {
  test('a misspelt option is refused there too', () => {
    refusal(() => new nodeImport.AcpFs({ maxReadByte: 1 }), 'maxReadByte');
  });
});
