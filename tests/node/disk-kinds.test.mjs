// The real disk answers with the contract's kind on every Node route, not the errno it met
// (semantics.md §3, §8.2): a Unix socket is not_a_file; a parent directory swapped for a
// symlink after the engine's check is symlink_escape. The Rust storage has the same tests
// (core/tests/disk_kinds.rs).

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fromNodeDisk } from '../../npm/shared/storage.mjs';
import { AcpFs } from '../../npm/node/index.mjs';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';
import { makeTempDir } from './harness.mjs';

const routes = {
  'native disk': () => new AcpFs(),
  'fs.promises': () => new AcpFs({ storage: nodeFs.promises }),
  'wasm over fs.promises': () => new WasmAcpFs({ storage: nodeFs.promises }),
};

const kindOf = (promise) =>
  promise.then(
    (ok) => `answered ${JSON.stringify(ok)}`,
    (e) => e.data?.errorKind ?? `${e.code}: ${e.message}`,
  );

describe('a Unix socket inside the root is not_a_file', () => {
  let base;
  let server;
  before(async () => {
    base = makeTempDir('acp-fs-sock-');
    nodeFs.mkdirSync(join(base, 'project'));
    server = net.createServer().listen(join(base, 'project', 'agent.sock'));
    await new Promise((resolve) => server.on('listening', resolve));
  });
  after(() => server.close());

  for (const [route, make] of Object.entries(routes)) {
    test(route, async () => {
      const fs = make();
      fs.openSession('s', { cwd: join(base, 'project') });
      const path = join(base, 'project', 'agent.sock');
      assert.equal(await kindOf(fs.readTextFile({ sessionId: 's', path })), 'not_a_file');
      assert.equal(await kindOf(fs.readTextFile({ sessionId: 's', path, line: 2, limit: 1 })), 'not_a_file');
      assert.equal(await kindOf(fs.writeTextFile({ sessionId: 's', path, content: 'x' })), 'not_a_file');
      assert.ok(nodeFs.lstatSync(path).isSocket(), 'the socket stays');
    });
  }
});

// The engine checked project/a (a directory); a moment later `a` is a symlink to outside/. The
// storage is called with the checked paths, as the engine would call it.
describe('fromNodeDisk: a parent swapped for a symlink after the check is a symlink escape', () => {
  let base;
  let root;
  const disk = fromNodeDisk(nodeFs);
  before(() => {
    base = makeTempDir('acp-fs-swap-');
    root = join(base, 'project');
    nodeFs.mkdirSync(root);
    nodeFs.mkdirSync(join(base, 'outside'));
    nodeFs.symlinkSync(join(base, 'outside'), join(root, 'a'));
  });
  const escape = (e) => e.code === 'ERR_ACP_FS_ESCAPE';
  test('a write below it', async () => {
    await assert.rejects(disk.replaceFile(root, join(root, 'a', 'x.txt'), Buffer.from('x')), escape);
    assert.deepEqual(nodeFs.readdirSync(join(base, 'outside')), []);
  });
  test('directories made below it', async () => {
    await assert.rejects(disk.makeDirs(root, join(root, 'a', 'b', 'c')), escape);
    assert.deepEqual(nodeFs.readdirSync(join(base, 'outside')), []);
  });
  test('a file in place of a parent is still "not a directory"', async () => {
    nodeFs.writeFileSync(join(root, 'plain'), 'x');
    await assert.rejects(disk.makeDirs(root, join(root, 'plain', 'b')), (e) => e.code === 'ENOTDIR');
    await assert.rejects(disk.replaceFile(root, join(root, 'plain', 'x.txt'), Buffer.from('x')), (e) => e.code === 'ENOTDIR');
  });
});
