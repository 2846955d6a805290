// The sample project the demo starts with. Each file is here to show one thing acp-fs does with
// real-world text: windows of a large log, CRLF kept, a UTF-8 BOM removed and restored, binary
// refused, a symlink that leaves the root, a file outside the root altogether.

import { encode } from './text-file.mjs';

export const ROOT = '/project';

/** `path` as the page shows it: relative to the session root when inside it. */
export const rel = (path) => (path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path);

/** A 20,000-line server log, deterministic so that a reload shows the same lines. */
export function serverLog(lines = 20_000) {
  let x = 42; // xorshift32: small, deterministic, good enough for fake log lines
  const rand = (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const levels = ['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN '];
  const routes = ['/api/items', '/api/users', '/api/orders', '/health', '/api/search?q=acp'];
  const out = [];
  const start = Date.UTC(2026, 10, 21, 9, 0, 0);
  for (let i = 1; i <= lines; i++) {
    const t = new Date(start + i * 137).toISOString();
    const route = routes[rand(routes.length)];
    const status = rand(50) === 0 ? 500 : rand(12) === 0 ? 404 : 200;
    out.push(
      `${t} ${status === 500 ? 'ERROR' : levels[rand(levels.length)]} [worker-${rand(4)}] #${String(i).padStart(5, '0')} GET ${route} ${status} ${1 + rand(240)}ms`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** A PNG header and IHDR chunk: the NUL bytes make it binary for any text tool. */
function pngBytes() {
  return new Uint8Array([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0xf3, 0xff,
    0x61, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
  ]);
}

/** path -> bytes or text (text is stored as UTF-8). */
export function sampleFiles() {
  return {
    '/project/README.md': [
      '# shop-api',
      '',
      'A tiny HTTP service used to show what an ACP agent sees through acp-fs.',
      '',
      '- `src/` the service',
      '- `docs/windows-notes.txt` written on Windows (CRLF)',
      '- `data/report.csv` exported from a spreadsheet (UTF-8 with BOM)',
      '- `logs/server.log` 20,000 lines: agents read it in windows',
      '',
    ].join('\n'),
    '/project/package.json': `${JSON.stringify({ name: 'shop-api', version: '1.4.0', type: 'module', main: 'src/app.js' }, null, 2)}\n`,
    '/project/src/app.js': [
      "import { createServer } from 'node:http';",
      "import { formatPrice } from './util.js';",
      '',
      'const items = [',
      "  { id: 1, name: 'Notebook', price: 1250 },",
      "  { id: 2, name: 'Pencil', price: 199 },",
      '];',
      '',
      'createServer((req, res) => {',
      "  res.setHeader('content-type', 'application/json');",
      '  res.end(JSON.stringify(items.map((i) => ({ ...i, price: formatPrice(i.price) }))));',
      '}).listen(3000);',
      '',
    ].join('\n'),
    '/project/src/util.js': [
      '/** Cents to a display price. */',
      'export function formatPrice(cents) {',
      '  return `$${(cents / 100).toFixed(2)}`;',
      '}',
      '',
    ].join('\n'),
    '/project/docs/windows-notes.txt': [
      'Release checklist (kept on the Windows build machine)',
      '1. bump the version in package.json',
      '2. run the tests',
      '3. tag and push',
      '',
    ].join('\r\n'),
    '/project/data/report.csv': encode('month,orders,revenue\n2026-09,1204,18211.50\n2026-10,1379,20934.10\n', true),
    '/project/logs/server.log': serverLog(),
    '/project/assets/logo.png': pngBytes(),
    '/project/.env': 'STRIPE_KEY=sk_test_not_a_real_key\n',
    '/etc/hosts': '127.0.0.1 localhost\n10.0.0.7 db.internal\n',
  };
}

/** Symlinks: path -> target. `etc-link` points out of the root. */
export const sampleLinks = { '/project/etc-link': '/etc' };

/** Writes the sample project into a node:fs/promises-shaped storage. */
export async function seedProject(fsp) {
  for (const [path, data] of Object.entries(sampleFiles())) {
    await fsp.mkdir(path.slice(0, path.lastIndexOf('/')) || '/', { recursive: true });
    await fsp.writeFile(path, typeof data === 'string' ? encode(data, false) : data);
  }
  for (const [path, target] of Object.entries(sampleLinks)) await fsp.symlink(target, path);
}

/**
 * What the tour's "terminal" does to package.json while the editor has it open and unmodified
 * (`npm version minor --no-git-tag-version`): the next minor version. `null` when the file holds
 * no version line this can bump.
 */
export function npmVersionMinor(text) {
  const m = /"version": "(\d+)\.(\d+)\.(\d+)"/.exec(text);
  return m ? text.replace(m[0], `"version": "${m[1]}.${Number(m[2]) + 1}.0"`) : null;
}

/** The unsaved edit the demo starts with, so the agent's read of src/app.js shows the buffer. */
export function unsavedAppEdit(text) {
  return text.replace(
    "  { id: 2, name: 'Pencil', price: 199 },\n",
    "  { id: 2, name: 'Pencil', price: 199 },\n  { id: 3, name: 'Eraser', price: 99 }, // unsaved: not on disk yet\n",
  );
}

/** The tour's user edit, typed into the src/app.js buffer while the agent thinks (after its read,
 * before its write): one more item, far from the line the agent changes, so acp-fs can merge the
 * two (docs/semantics.md §9). `null` when the buffer no longer has the items list's end, or already
 * has the line (the tour run again). */
export const USER_EDIT_LINE = "  { id: 4, name: 'Ruler', price: 349 }, // typed while the agent was thinking";
export function userEditWhileAgentThinks(text, eol = '\n') {
  if (text.includes(USER_EDIT_LINE)) return null;
  const end = text.search(/^\];\r?$/m);
  return end < 0 ? null : `${text.slice(0, end)}${USER_EDIT_LINE}${eol}${text.slice(end)}`;
}
