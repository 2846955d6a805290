// A static server for the browser runs: 127.0.0.1 only, an ephemeral port, and only the folders
// a page needs (the wasm package, the adapters, these tests, generated bundles under out/).
// `.wasm` is served as application/wasm so browsers can compile it while it streams.

import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVED = ['tests/shared/', 'npm/wasm/', 'npm/adapters/', 'npm/shared/', 'tests/browser/', 'bench/', 'out/browser/'];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
};

/** Every vector of tests/vectors, as one JSON array. */
async function vectors() {
  const dir = join(ROOT, 'tests', 'vectors');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const all = [];
  for (const f of files) all.push(...JSON.parse(await readFile(join(dir, f), 'utf8')));
  return JSON.stringify(all);
}

/** Starts the server; resolves to `{url, close()}`. */
export function serve() {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path === '/favicon.ico') return void res.writeHead(204).end();
      if (path === '/vectors.json') {
        res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
        return void res.end(await vectors());
      }
      const rel = normalize(path).replace(/^[/\\]+/, '');
      if (rel.split(sep).includes('..') || !SERVED.some((p) => rel.startsWith(p))) {
        return void res.writeHead(404).end('not served');
      }
      const body = await readFile(join(ROOT, rel));
      res.writeHead(200, {
        'content-type': TYPES[extname(rel)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'EISDIR' ? 404 : 500).end(String(e.message));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
