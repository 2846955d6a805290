// The adapters of @acp-fs/wasm (npm/adapters): overlay, fromOPFS, realpathByLinks.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memfs } from 'memfs';
import { nodeToFsa } from 'memfs/lib/node-to-fsa/index.js';
import { AcpFs } from '../../npm/wasm/node.mjs';
import { fromOPFS, overlay, realpathByLinks } from '../../npm/adapters/index.mjs';
import { MapStorage } from './harness.mjs';

const enc = new TextEncoder();

// Adapters (their vector runs are above; these pin what vectors cannot say).

describe('adapters', () => {
  test('overlay: reads and windows see the buffer, writes go to the base', async () => {
    const base = new MapStorage();
    base.put('/p/a.txt', enc.encode('saved 1\nsaved 2\n'));
    base.put('/p/b.txt', enc.encode('b on disk\n'));
    const buffers = new Map([['/p/a.txt', 'unsaved 1\nunsaved 2\nunsaved 3\n']]);
    const storage = overlay(async (p) => buffers.get(p), base);
    // The overlay reports no modification times, so after a windowed read a write could not be
    // judged (semantics.md §9: stale_write); this test is about where reads and writes go.
    const fs = new AcpFs({ storage, roots: ['/p'], onConflict: 'overwrite' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 3 }), { content: 'unsaved 3\n' });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/b.txt' }), { content: 'b on disk\n' });
    await fs.writeTextFile({ sessionId: 's', path: '/p/a.txt', content: 'agent\n' });
    assert.equal(Buffer.from(base.files.get('/p/a.txt')).toString(), 'agent\n');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'unsaved 1\nunsaved 2\nunsaved 3\n' });
    buffers.delete('/p/a.txt'); // the user closed the buffer
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'agent\n' });
    buffers.set('/p/new.txt', 'never saved\n');
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/new.txt' }), { content: 'never saved\n' });
  });

  test('overlay over a handle-reading base keeps ranged reads', async () => {
    const { vol } = memfs({ '/p/a.txt': 'disk\n' });
    const p = vol.promises;
    const storage = overlay((path) => (path === '/p/b.txt' ? `${'x'.repeat(100)}\n`.repeat(2000) : undefined), {
      readFile: (path) => p.readFile(path),
      stat: (path) => p.stat(path),
      open: (path, flags) => p.open(path, flags),
    });
    assert.equal(typeof storage.open, 'function');
    const fs = new AcpFs({ storage, roots: ['/p'] });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/b.txt', line: 2000 }), { content: `${'x'.repeat(100)}\n` });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'disk\n' });
  });

  test('fromOPFS: DOMExceptions become the error a disk would give, the DOMException kept as cause', async () => {
    const { fs } = memfs({ '/p/a.txt': 'hello', '/p/d/x.txt': 'x' });
    const storage = fromOPFS(nodeToFsa(fs, '/', { mode: 'readwrite' }));
    const failure = async (fn) => {
      try {
        await fn();
      } catch (e) {
        return e;
      }
      assert.fail('did not fail');
    };
    const missing = await failure(() => storage.readFile('/p/none.txt'));
    assert.equal(missing.code, 'ENOENT');
    assert.equal(missing.cause?.name, 'NotFoundError');
    assert.equal((await failure(() => storage.readFile('/p/d'))).code, 'EISDIR');
    assert.equal((await failure(() => storage.stat('/p/a.txt/x'))).code, 'ENOTDIR');
    assert.equal((await failure(() => storage.writeFile('/p/d', enc.encode('x')))).code, 'EISDIR');
    assert.equal((await failure(() => storage.readFile('C:\\p\\a.txt'))).code, 'ENOENT');
    assert.equal((await storage.stat('/')).isDirectory(), true);
    assert.equal((await storage.stat('/p/a.txt')).size, 5);
    assert.deepEqual([...(await storage.readRange('/p/a.txt', 1, 3))], [...enc.encode('ell')]);
    await storage.mkdir('/q/r', { recursive: true });
    await storage.writeFile('/q/r/new.txt', enc.encode('new'));
    assert.equal(fs.readFileSync('/q/r/new.txt', 'utf8'), 'new');
  });

  test('realpathByLinks: relative and absolute links, chains, loops, dangling links', async () => {
    const { vol } = memfs({ '/a/f.txt': 'x' });
    vol.symlinkSync('f.txt', '/a/rel');
    vol.symlinkSync('/a', '/abs');
    vol.symlinkSync('../abs/rel', '/a/chain');
    vol.symlinkSync('loop2', '/a/loop1');
    vol.symlinkSync('loop1', '/a/loop2');
    vol.symlinkSync('/nowhere/x', '/a/dangling');
    const fs = { lstat: (p) => vol.lstatSync(p), readlink: (p) => vol.readlinkSync(p) };
    assert.equal(await realpathByLinks(fs, '/a/rel'), '/a/f.txt');
    assert.equal(await realpathByLinks(fs, '/abs/chain'), '/a/f.txt');
    assert.equal(await realpathByLinks(fs, '/abs/../a/./f.txt'), '/a/f.txt');
    await assert.rejects(realpathByLinks(fs, '/a/loop1'), { code: 'ELOOP' });
    await assert.rejects(realpathByLinks(fs, '/a/dangling'), { code: 'ENOENT' });
  });
});
