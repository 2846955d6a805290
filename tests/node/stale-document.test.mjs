// A buffer the editor saved or reloaded mirrors the file; a terminal changes the file on a real
// disk; the agent's next read, whole or windowed, answers the file, and the host is told the
// buffer is stale (semantics.md §9 "Open documents"), on every Node route. The vectors hold the
// same rules over virtual storages (edits.json, clean-buffer-*).

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AcpFs } from '../../npm/node/index.mjs';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';
import { makeTempDir } from './harness.mjs';

const routes = {
  'native disk': (options) => new AcpFs(options),
  'fs.promises': (options) => new AcpFs({ ...options, storage: nodeFs.promises }),
  'wasm over fs.promises': (options) => new WasmAcpFs({ ...options, storage: nodeFs.promises }),
};

function project(make, text) {
  const root = makeTempDir('acp-fs-stale-');
  const path = join(root, 'a.txt');
  nodeFs.writeFileSync(path, text);
  const stale = [];
  const fs = make({ onDocumentStale: (p) => stale.push(p) });
  fs.openSession('s', { cwd: root });
  const read = async (window = {}) => (await fs.readTextFile({ sessionId: 's', path, ...window })).content;
  return { fs, path, stale, read };
}

for (const [route, make] of Object.entries(routes)) {
  describe(`${route}: a clean buffer after a terminal changed its file`, () => {
    test('a saved buffer: the whole read answers the file and the host hears of it', async () => {
      const { fs, path, stale, read } = project(make, 'one\ntwo\n');
      fs.documents.open(path, 'one\ntwo\n');
      fs.documents.saved(path);
      assert.equal(await read(), 'one\ntwo\n');
      assert.deepEqual(stale, []);
      nodeFs.writeFileSync(path, 'one\ntwo\nthree from a terminal\n');
      assert.equal(await read(), 'one\ntwo\nthree from a terminal\n');
      assert.deepEqual(stale, [path]);
      assert.equal(await read({ line: 3, limit: 1 }), 'three from a terminal\n');
      fs.documents.reloaded(path, 'one\ntwo\nthree from a terminal\n');
      assert.equal(await read(), 'one\ntwo\nthree from a terminal\n');
      assert.equal(stale.length, 2, 'the window found it stale too; after the reload, nothing more');
    });

    test("a window names it stale once the file's version moved", async () => {
      const { fs, path, stale, read } = project(make, '1\n2\n3\n');
      fs.documents.reloaded(path, '1\n2\n3\n');
      assert.equal(await read(), '1\n2\n3\n');
      nodeFs.writeFileSync(path, '1\nTWO\n3\n');
      assert.equal(await read({ line: 2, limit: 1 }), 'TWO\n');
      assert.deepEqual(stale, [path]);
    });

    test('a write merges what the terminal added instead of writing over it', async () => {
      const { fs, path, stale, read } = project(make, 'a\nb\nc\nd\ne\n');
      assert.equal(await read(), 'a\nb\nc\nd\ne\n');
      fs.documents.reloaded(path, 'a\nb\nc\nd\ne\n');
      nodeFs.writeFileSync(path, 'a\nb\nc\nd\ne\nf from a terminal\n');
      await fs.writeTextFile({ sessionId: 's', path, content: 'A\nb\nc\nd\ne\n' });
      assert.equal(fs.documents.get(path), 'A\nb\nc\nd\ne\nf from a terminal\n', 'the buffer holds the merge');
      assert.deepEqual(stale, [path]);
    });

    test('a buffer with unsaved edits is what the agent reads; nothing is reported', async () => {
      const { fs, path, stale, read } = project(make, 'x\n');
      fs.documents.open(path, 'typed by the user\n');
      nodeFs.writeFileSync(path, 'changed on disk\n');
      assert.equal(await read(), 'typed by the user\n');
      assert.deepEqual(stale, []);
    });
  });
}
