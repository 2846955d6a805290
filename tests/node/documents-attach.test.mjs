// `fs.documents.attach`: the editor bindings' way in. The engine's questions about an attached
// document (an agent's write, a stale clean buffer) go to the editor, under whichever spelling of
// the path it was attached; the AcpFs options answer for every other document. Both packages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AcpFs as NodeAcpFs } from '../../npm/node/index.mjs';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';

function setup(AcpFs) {
  const files = new Map([
    ['/p/a.txt', 'one\ntwo\n'],
    ['/p/b.txt', 'bee\n'],
  ]);
  const storage = {
    async readFile(path) {
      if (!files.has(path)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return files.get(path);
    },
    async writeFile(path, data) {
      files.set(path, typeof data === 'string' ? data : new TextDecoder().decode(data));
    },
  };
  const options = { writes: [], stale: [] };
  const fs = new AcpFs({
    storage,
    onDocumentWrite: (path, text) => {
      options.writes.push([path, text]);
      return 'buffer';
    },
    onDocumentStale: (path) => options.stale.push(path),
  });
  fs.openSession('s', { cwd: '/p' });
  const editor = { writes: [], staleCalls: 0, write: (text) => (editor.writes.push(text), 'writeThrough'), stale: () => editor.staleCalls++ };
  const read = async (path) => (await fs.readTextFile({ sessionId: 's', path })).content;
  const write = (path, content) => fs.writeTextFile({ sessionId: 's', path, content });
  return { fs, files, options, editor, read, write };
}

for (const [name, AcpFs] of Object.entries({ '@acp-fs/node': NodeAcpFs, '@acp-fs/wasm': WasmAcpFs })) {
  describe(`${name}: documents.attach`, () => {
    test('an agent\'s write to an attached document asks the editor, found under another spelling of its path', async () => {
      const { fs, files, options, editor, write } = setup(AcpFs);
      fs.documents.reloaded('/p/./a.txt', 'one\ntwo\n');
      const detach = fs.documents.attach('/p/x/../a.txt', editor);
      await write('/p/a.txt', 'one\n2\n');
      assert.deepEqual(editor.writes, ['one\n2\n']);
      assert.deepEqual(options.writes, [], 'the option is not asked about an attached document');
      assert.equal(files.get('/p/a.txt'), 'one\n2\n', 'the editor chose writeThrough');
      // Another document is still the option's.
      fs.documents.open('/p/b.txt', 'bee\n');
      await write('/p/b.txt', 'B\n');
      assert.deepEqual(options.writes, [['/p/b.txt', 'B\n']]);
      assert.equal(files.get('/p/b.txt'), 'bee\n');
      detach();
      await write('/p/a.txt', 'one\n3\n');
      assert.deepEqual(editor.writes, ['one\n2\n'], 'detached: the editor hears nothing more');
      assert.deepEqual(options.writes.at(-1), ['/p/a.txt', 'one\n3\n']);
    });

    test('a stale clean document is the attached editor\'s to reload', async () => {
      const { fs, files, options, editor, read } = setup(AcpFs);
      fs.documents.reloaded('/p/a.txt', 'one\ntwo\n');
      fs.documents.attach('/p/a.txt', editor);
      files.set('/p/a.txt', 'one\ntwo\nthree\n');
      assert.equal(await read('/p/a.txt'), 'one\ntwo\nthree\n');
      assert.equal(editor.staleCalls, 1);
      assert.deepEqual(options.stale, []);
    });

    test('an editor needs write and stale', () => {
      const { fs } = setup(AcpFs);
      assert.throws(() => fs.documents.attach('/p/a.txt', { write() {} }), TypeError);
      assert.throws(() => fs.documents.attach(7, { write() {}, stale() {} }), { code: 'invalid_params' });
    });
  });
}
