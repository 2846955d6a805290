#!/usr/bin/env node
// Serves the built browser demo (examples/browser-demo/dist, made by scripts/build-demo.sh) on
// 127.0.0.1 only: the demo needs no network, and nothing else should be able to reach it.
//
//   node scripts/serve-demo.mjs [dir]        PORT=8080 by default; PORT=0 picks a free port
//
// Also importable: `startDemoServer({root, port})` resolves to `{url, port, close()}` (tests).

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT = path.resolve(here, '..', 'examples', 'browser-demo', 'dist');
const HOST = '127.0.0.1';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  // Streaming compilation (WebAssembly.instantiateStreaming) requires exactly this type.
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

async function resolveFile(root, urlPath) {
  let rel;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (rel.includes('\0')) return null;
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.resolve(root, `.${path.posix.normalize(`/${rel}`)}`);
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  try {
    const s = await stat(file);
    if (s.isFile()) return file;
    if (s.isDirectory()) return resolveFile(root, `${urlPath.replace(/\/?$/, '/')}`);
  } catch {
    // fall through to the favicon rule / 404
  }
  // Browsers ask for /favicon.ico whatever the page says; answer with the SVG icon so that the
  // console stays free of 404s.
  if (rel === '/favicon.ico') {
    const svg = path.join(root, 'favicon.svg');
    if (await stat(svg).then((s) => s.isFile(), () => false)) return svg;
  }
  return null;
}

export function startDemoServer({ root = DEFAULT_ROOT, port = 8080 } = {}) {
  const base = path.resolve(root);
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    // The request target read as a path below this origin: against a base URL, '//x' would name
    // a host (and '//' none, which throws and took the server down).
    const target = req.url?.startsWith('/') ? req.url : '/';
    const { pathname } = new URL(`http://localhost${target}`);
    const file = await resolveFile(base, pathname);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: ${pathname}\n`);
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'content-length': body.length,
        // A rebuilt demo must never be mixed with a cached older bundle or wasm module.
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${e.message}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      const actual = server.address().port;
      resolve({
        url: `http://${HOST}:${actual}/`,
        port: actual,
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(process.argv[2] ?? DEFAULT_ROOT);
  const index = path.join(root, 'index.html');
  if (!(await stat(index).then((s) => s.isFile(), () => false))) {
    console.error(`serve-demo: ${index} is missing; build the demo first: scripts/build-demo.sh`);
    process.exit(1);
  }
  const port = process.env.PORT === undefined || process.env.PORT === '' ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve-demo: PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
    process.exit(2);
  }
  try {
    const { url, close } = await startDemoServer({ root, port });
    console.log(`acp-fs demo: ${url}  (serving ${path.relative(process.cwd(), root) || '.'}; Ctrl-C to stop)`);
    const stop = () => close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (e) {
    console.error(`serve-demo: cannot listen on ${HOST}:${port}: ${e.message}`);
    process.exit(1);
  }
}
