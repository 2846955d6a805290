// `npm pack` of @acp-fs/node and its linux-x64-gnu platform package, installed offline into a
// fresh project: imported, required and type-checked as a user would, the addon coming from the
// platform package. And what every package's tarball carries besides its code: the licenses.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeTempDir } from './harness.mjs';
import { CLIENT_INFO, stdioClient } from './mcp-clients.mjs';
import { fails, ok, runEveryTool, text } from './mcp-tool-cases.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = join(root, 'npm', 'node');
const platformDir = join(pkgDir, 'npm', 'linux-x64-gnu');
const supported = process.platform === 'linux' && process.arch === 'x64';

let work;
let project;

const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });

before(() => {
  if (!supported) return;
  work = makeTempDir('acpfs-pack-');
  const out = join(work, 'tarballs');
  nodeFs.mkdirSync(out);
  const packed = [pkgDir, platformDir].map((dir) => {
    const json = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], dir));
    return join(out, json[0].filename);
  });
  project = join(work, 'project');
  nodeFs.mkdirSync(join(project, 'files'), { recursive: true });
  nodeFs.writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...packed], project);
  nodeFs.writeFileSync(join(project, 'files', 'a.txt'), 'one\ntwo\n');
});

after(() => {
  if (work) nodeFs.rmSync(work, { recursive: true, force: true });
});

test('the packed package holds the driver and types but no addon; the platform package holds the addon', { skip: !supported && 'linux-x64 only' }, () => {
  const installed = join(project, 'node_modules', '@acp-fs', 'node');
  const files = nodeFs.readdirSync(installed).sort();
  assert.deepEqual(files.filter((f) => f.endsWith('.node')), []);
  for (const f of ['index.mjs', 'index.cjs', 'index.d.mts', 'index.d.cts', 'binding.js', 'load.cjs', 'wasm', 'package.json']) {
    assert.ok(files.includes(f), `${f} is shipped`);
  }
  const platform = join(project, 'node_modules', '@acp-fs', 'node-linux-x64-gnu');
  assert.deepEqual(nodeFs.readdirSync(platform).sort(), ['LICENSE-APACHE', 'LICENSE-MIT', 'acp-fs.linux-x64-gnu.node', 'package.json']);
});

// The crate and the packages are MIT OR Apache-2.0; either text must travel with every tarball,
// the platform packages included (they are installed on their own, without the main package).
test('every package\'s tarball ships both license texts, as the repository root has them', () => {
  const packages = [
    pkgDir,
    ...nodeFs.readdirSync(join(pkgDir, 'npm')).map((platform) => join(pkgDir, 'npm', platform)),
    join(root, 'npm', 'wasm'),
  ];
  assert.equal(packages.length, 7, 'the main package, its 5 platform packages and @acp-fs/wasm');
  for (const dir of packages) {
    const [{ name, files }] = JSON.parse(run('npm', ['pack', '--dry-run', '--json'], dir));
    const shipped = files.map((f) => f.path);
    for (const license of ['LICENSE-MIT', 'LICENSE-APACHE']) {
      assert.ok(shipped.includes(license), `${name} ships ${license} (it ships ${shipped.join(' ')})`);
      assert.ok(nodeFs.readFileSync(join(dir, license)).equals(nodeFs.readFileSync(join(root, license))), `${name}'s ${license} is the repository's`);
    }
  }
});

test('import and require both work in a fresh project', { skip: !supported && 'linux-x64 only' }, () => {
  const dir = join(project, 'files');
  nodeFs.writeFileSync(
    join(project, 'use.mjs'),
    `import { AcpFs, AcpFsError } from '@acp-fs/node';
     const fs = new AcpFs();
     fs.openSession('s', { cwd: ${JSON.stringify(dir)} });
     const r = await fs.readTextFile({ sessionId: 's', path: ${JSON.stringify(join(dir, 'a.txt'))}, line: 2 });
     await fs.writeTextFile({ sessionId: 's', path: ${JSON.stringify(join(dir, 'new', 'b.txt'))}, content: 'b' });
     const e = await fs.readTextFile({ sessionId: 's', path: 'rel' }).catch((e) => e);
     console.log(JSON.stringify({ r, isError: e instanceof AcpFsError, code: e.code }));`,
  );
  nodeFs.writeFileSync(
    join(project, 'use.cjs'),
    `const { AcpFs } = require('@acp-fs/node');
     const { promises } = require('node:fs');
     const fs = new AcpFs({ storage: promises });
     fs.openSession('s', { cwd: ${JSON.stringify(dir)} });
     fs.readTextFile({ sessionId: 's', path: ${JSON.stringify(join(dir, 'new', 'b.txt'))} })
       .then((r) => console.log(JSON.stringify({ r, addon: require.resolve('@acp-fs/node-linux-x64-gnu') })));`,
  );
  assert.deepEqual(JSON.parse(run(process.execPath, ['use.mjs'], project)), {
    r: { content: 'two\n' },
    isError: true,
    code: 'invalid_params',
  });
  const cjs = JSON.parse(run(process.execPath, ['use.cjs'], project));
  assert.deepEqual(cjs.r, { content: 'b' });
  assert.ok(cjs.addon.startsWith(join(project, 'node_modules')), cjs.addon);
});

test('the installed types serve both import and require', { skip: !supported && 'linux-x64 only' }, () => {
  const body = `const fs = new AcpFs({ readOnly: true });
    fs.openSession('s', { cwd: '/w' });
    const p: Promise<{ content: string }> = fs.readTextFile({ sessionId: 's', path: '/w/a' });
    const e: AcpFsError | undefined = undefined;
    void p; void e;
    // @ts-expect-error: unknown option
    new AcpFs({ pastEnd: 'wrap' });\n`;
  nodeFs.writeFileSync(join(project, 'check.mts'), `import { AcpFs, AcpFsError } from '@acp-fs/node';\n${body}`);
  nodeFs.writeFileSync(join(project, 'check.cts'), `import { AcpFs, AcpFsError } from '@acp-fs/node';\n${body}`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(
    process.execPath,
    [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      '--typeRoots', join(root, 'node_modules', '@types'), '--types', 'node', 'check.mts', 'check.cts'],
    { cwd: project, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('without a platform package the installed package runs the wasm fallback and says why', { skip: !supported && 'linux-x64 only' }, () => {
  // Only the main tarball: as on a platform with no prebuilt addon, or when optional
  // dependencies were left out (npm --omit=optional, a lockfile made elsewhere).
  const bare = join(work, 'bare');
  nodeFs.mkdirSync(bare);
  nodeFs.writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'bare-project', version: '1.0.0', private: true }));
  const main = nodeFs.readdirSync(join(work, 'tarballs')).find((f) => /^acp-fs-node-\d/.test(f));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, 'tarballs', main)], bare);
  const dir = join(project, 'files');
  nodeFs.writeFileSync(
    join(bare, 'use.cjs'),
    `const { AcpFs } = require('@acp-fs/node');
     const fs = new AcpFs();
     fs.openSession('s', { cwd: ${JSON.stringify(dir)} });
     Promise.all([
       fs.readTextFile({ sessionId: 's', path: ${JSON.stringify(join(dir, 'a.txt'))}, line: 2 }),
       import('@acp-fs/node').then((m) => m.AcpFs.backend),
     ]).then(([r, esm]) => console.log(JSON.stringify({ r, backend: AcpFs.backend, esm, reason: AcpFs.backendReason, caps: fs.capabilities() })));`,
  );
  const out = JSON.parse(run(process.execPath, ['use.cjs'], bare));
  assert.deepEqual(out.r, { content: 'two\n' });
  assert.equal(out.backend, 'wasm');
  assert.equal(out.esm, 'wasm');
  assert.match(out.reason, /no native binding loaded for linux-x64.*@acp-fs\/node-linux-x64-gnu/);
  assert.deepEqual(out.caps, { readTextFile: true, writeTextFile: true });
});

test('the installed package serves MCP over stdio: the relay ships, import and require both load it', { skip: !supported && 'linux-x64 only' }, () => {
  const dir = join(project, 'files');
  // The editor side and the agent's relay, as an agent would spawn it from the declaration.
  const serve = (load) => `${load}
     const { spawn } = require('node:child_process');
     const fs = new AcpFs();
     fs.openSession('key', { cwd: ${JSON.stringify(dir)} });
     (async () => {
       const files = await fs.serveMcp('key', { transport: 'stdio' });
       const { command, args, env } = files.declaration;
       const child = spawn(command, args, { env: Object.fromEntries(env.map((e) => [e.name, e.value])) });
       let out = '';
       child.stdout.on('data', (c) => (out += c));
       child.stdout.on('data', async () => {
         if (!out.endsWith('\\n')) return;
         await files.close();
         console.log(JSON.stringify({ relay: args[0], out: JSON.parse(out) }));
       });
       child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: ${JSON.stringify(join(dir, 'a.txt'))}, line: 2 } } }) + '\\n');
     })();`;
  nodeFs.writeFileSync(join(project, 'mcp.cjs'), serve(`const { AcpFs } = require('@acp-fs/node');`));
  nodeFs.writeFileSync(join(project, 'mcp.mjs'), serve(`import { AcpFs } from '@acp-fs/node'; import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);`));
  for (const script of ['mcp.cjs', 'mcp.mjs']) {
    const r = JSON.parse(run(process.execPath, [script], project));
    assert.ok(r.relay.startsWith(join(project, 'node_modules', '@acp-fs', 'node', 'shared')), r.relay);
    assert.deepEqual(r.out, { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'two\n' }], structuredContent: { content: 'two\n' }, isError: false } });
  }
});

// The standalone server as an MCP client configuration runs it: `npx @acp-fs/node mcp DIR`, from
// the installed tarball (offline: npx must find the package's own bin, not fetch anything).
test('npx @acp-fs/node mcp DIR: the installed command serves every tool, and takes the client\'s roots', { skip: !supported && 'linux-x64 only' }, async (t) => {
  const served = join(project, 'served');
  const other = join(project, 'other');
  for (const d of [served, other]) nodeFs.mkdirSync(d, { recursive: true });
  nodeFs.writeFileSync(join(other, 'o.txt'), 'other\n');
  const npx = { command: 'npx', args: ['--offline', '--no-install', '@acp-fs/node'], cwd: project, env: { ...process.env, npm_config_update_notifier: 'false' } };
  assert.ok(nodeFs.existsSync(join(project, 'node_modules', '.bin', 'acp-fs')), 'npm links the package\'s bin');

  const plain = await stdioClient({ ...npx, dirs: [served] });
  try {
    await runEveryTool(t, { client: plain.client, root: served, outside: join(project, 'files', 'a.txt') });
  } finally {
    await plain.close();
  }

  // roots/list on initialized, then notifications/roots/list_changed.
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: true } } });
  let roots = [other];
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((d) => ({ uri: pathToFileURL(d).href })) }));
  const s = await stdioClient({ ...npx, dirs: [served], client });
  try {
    assert.equal(text(await ok(client, 'read_text_file', { path: join(other, 'o.txt') })), 'other\n');
    assert.match(text(await fails(client, 'read_text_file', { path: join(project, 'files', 'a.txt') })), /path_outside_roots/);
    roots = [join(project, 'files')];
    await client.sendRootsListChanged();
    assert.equal(text(await ok(client, 'read_text_file', { path: join(project, 'files', 'a.txt') })), 'one\ntwo\n');
    assert.match(text(await fails(client, 'read_text_file', { path: join(other, 'o.txt') })), /path_outside_roots/);
  } finally {
    await s.close();
  }
});
