// scripts/serve-demo.mjs: the static server the demo and its browser test use. It must bind
// 127.0.0.1 only, send application/wasm (streaming compilation refuses anything else), answer
// /favicon.ico from the SVG icon, and never serve a file outside its root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDemoServer } from '../../scripts/serve-demo.mjs';

function get(port, rawPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    // A raw path, so that `..` reaches the server as typed (URL parsing would resolve it).
    const req = request({ host: '127.0.0.1', port, path: rawPath, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serve-demo: types, favicon, index, traversal, loopback only', async (t) => {
  const base = await mkdtemp(path.join(tmpdir(), 'acp-fs-serve-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = path.join(base, 'site');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>x</title>');
  await writeFile(path.join(root, 'm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  await writeFile(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(root, 'sub', 'index.html'), 'sub index');
  await writeFile(path.join(base, 'secret.txt'), 'outside the root');

  const server = await startDemoServer({ root, port: 0 });
  t.after(() => server.close());
  assert.equal(server.server.address().address, '127.0.0.1');
  assert.equal(server.url, `http://127.0.0.1:${server.port}/`);

  const index = await get(server.port, '/');
  assert.equal(index.status, 200);
  assert.equal(index.type, 'text/html; charset=utf-8');
  const wasm = await get(server.port, '/m.wasm');
  assert.equal(wasm.type, 'application/wasm');
  assert.deepEqual([...wasm.body], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const icon = await get(server.port, '/favicon.ico');
  assert.equal(icon.status, 200);
  assert.equal(icon.type, 'image/svg+xml');
  assert.equal((await get(server.port, '/sub')).body.toString(), 'sub index');
  assert.equal((await get(server.port, '/sub/')).body.toString(), 'sub index');
  assert.equal((await get(server.port, '/m.wasm', 'HEAD')).body.length, 0);
  assert.equal((await get(server.port, '/m.wasm', 'POST')).status, 405);
  assert.equal((await get(server.port, '/missing.js')).status, 404);
  // A target starting with '//' is a path, not a host: `${url}/?x` (one slash too many) is the index.
  const doubled = await get(server.port, '//?acp=v2');
  assert.equal(doubled.status, 200);
  assert.equal(doubled.type, 'text/html; charset=utf-8');
  for (const evil of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/sub/../../secret.txt', '/%00']) {
    const res = await get(server.port, evil);
    assert.equal(res.status, 404, evil);
    assert.ok(!res.body.toString().includes('outside the root'), evil);
  }
});
