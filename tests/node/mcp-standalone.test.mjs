// The standalone MCP file server, `acp-fs mcp [--read-only] DIR...` (npm/node/bin/acp-fs.mjs over
// npm/shared/mcp-standalone.mjs), spawned as an MCP client spawns it and driven by the official
// MCP SDK client over stdio: usage errors, --read-only, and MCP roots (roots/list on
// initialized, notifications/roots/list_changed) replacing the command line's directories.
// (The packed and installed command: pack.test.mjs; every tool on every transport: mcp-sdk.test.mjs.)

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeTempDir } from './harness.mjs';
import { BIN, CLIENT_INFO, stdioClient } from './mcp-clients.mjs';
import { CASES, fails, ok, runEveryTool, text } from './mcp-tool-cases.mjs';

let work;
let one;
let two;
let three;
before(() => {
  work = makeTempDir('acpfs-mcp-standalone-');
  for (const [name, file] of [['one', 'a.txt'], ['two', 'b.txt'], ['three', 'c.txt']]) {
    nodeFs.mkdirSync(join(work, name));
    nodeFs.writeFileSync(join(work, name, file), `${name}\n`);
  }
  [one, two, three] = ['one', 'two', 'three'].map((n) => join(work, n));
  nodeFs.writeFileSync(join(work, 'outside.txt'), 'outside\n');
});
after(() => nodeFs.rmSync(work, { recursive: true, force: true }));

const run = (args, opts = {}) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000, ...opts });

describe('usage', () => {
  const usage = /usage: acp-fs mcp \[--read-only\] DIR\.\.\./;
  for (const [why, args, message] of [
    ['no command', [], /acp-fs: no command given/],
    ['an unknown command', ['serve', '.'], /acp-fs: unknown command "serve"/],
    ['no directory', ['mcp'], /acp-fs: mcp: no directory given: name at least one directory to serve/],
    ['only flags', ['mcp', '--read-only'], /no directory given/],
    ['an unknown option', ['mcp', '--readonly', '.'], /acp-fs: unknown option "--readonly"/],
    ['a directory that does not exist', ['mcp', '.', 'no-such-dir'], /acp-fs: mcp: "no-such-dir": no such directory/],
    ['a file', ['mcp', 'one/a.txt'], /acp-fs: mcp: "one\/a.txt": not a directory/],
  ]) {
    test(`${why}: a precise message, the usage, exit code 2, nothing on stdout`, () => {
      const r = run(args, { cwd: work });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, usage);
      assert.equal(r.stdout, '');
    });
  }

  test('--help prints the usage on stdout and exits 0', () => {
    for (const args of [['--help'], ['mcp', '--help']]) {
      const r = run(args);
      assert.equal(r.status, 0);
      assert.match(r.stdout, usage);
    }
  });

  test('relative directories are resolved against the working directory; `--` ends the options', async () => {
    nodeFs.mkdirSync(join(work, '--dash'), { recursive: true });
    nodeFs.writeFileSync(join(work, '--dash', 'd.txt'), 'dash\n');
    const s = await stdioClient({ dirs: ['one', '--', '--dash'], cwd: work });
    try {
      assert.equal(text(await ok(s.client, 'read_text_file', { path: join(one, 'a.txt') })), 'one\n');
      assert.equal(text(await ok(s.client, 'read_text_file', { path: join(work, '--dash', 'd.txt') })), 'dash\n');
      assert.match(text(await fails(s.client, 'read_text_file', { path: join(two, 'b.txt') })), /path_outside_roots/);
    } finally {
      await s.close();
    }
  });

  test('the server exits 0 when its stdin ends, answering what was asked first; a line that is not JSON is a parse error', () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: join(one, 'a.txt') } } },
    ];
    // A line that is not JSON is answered with a parse error, and the server goes on.
    const input = `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n`;
    const r = run(['mcp', one], { input });
    assert.equal(r.status, 0, r.stderr);
    const replies = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const byId = new Map(replies.map((m) => [m.id, m]));
    assert.deepEqual([...byId.keys()].sort(), [1, 2, null].sort());
    assert.equal(byId.get(2).result.content[0].text, 'one\n');
    assert.equal(byId.get(null).error.code, -32700);
  });
});

describe('--read-only', () => {
  test('offers only the tools that change nothing; a write tool is an unknown tool', async (t) => {
    const root = join(work, 'ro');
    nodeFs.mkdirSync(root);
    const s = await stdioClient({ flags: ['--read-only'], dirs: [root] });
    try {
      const names = await runEveryTool(t, { client: s.client, root, outside: join(work, 'outside.txt') });
      const writers = names.filter((n) => !CASES[n].readOnly);
      assert.deepEqual(writers, [], 'no tool that changes anything');
      const e = await s.client.callTool({ name: 'write_text_file', arguments: { path: join(root, 'w.txt'), content: 'w' } }).catch((e) => e);
      assert.equal(e.code, ErrorCode.InvalidParams, String(e));
      assert.equal(nodeFs.existsSync(join(root, 'w.txt')), false);
      // Without the flag the same directory gets the write tools.
      const rw = await stdioClient({ dirs: [root] });
      try {
        const { tools } = await rw.client.listTools();
        assert.ok(tools.some((x) => !CASES[x.name].readOnly), 'write tools are offered without --read-only');
      } finally {
        await rw.close();
      }
    } finally {
      await s.close();
    }
  });
});

describe('MCP roots', () => {
  /** An SDK client that declares roots and answers roots/list with `roots.current` (URIs). */
  function rootsClient(initial, { listChanged = true } = {}) {
    const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged } } });
    const roots = { current: initial, asked: 0 };
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      roots.asked += 1;
      return { roots: roots.current.map((uri) => ({ uri, name: 'r' })) };
    });
    return { client, roots };
  }
  const uri = (dir) => pathToFileURL(dir).href;
  const reads = async (client, path) => (await client.callTool({ name: 'read_text_file', arguments: { path } })).isError !== true;

  test('roots/list on initialized replaces the command line; list_changed replaces them again', async () => {
    const { client, roots } = rootsClient([uri(two)]);
    const s = await stdioClient({ dirs: [one], client });
    try {
      // The first call waits for the client's roots: no window where the command line's serve.
      assert.equal(await reads(client, join(two, 'b.txt')), true);
      assert.equal(await reads(client, join(one, 'a.txt')), false, 'the command-line directory is replaced');
      assert.equal(roots.asked, 1);
      const { tools } = await client.listTools();
      assert.ok(tools[0].description.includes(two), 'the tool descriptions name the roots served');
      assert.ok(!tools[0].description.includes(one));

      roots.current = [uri(three), uri(one)];
      await client.sendRootsListChanged();
      assert.equal(await reads(client, join(three, 'c.txt')), true);
      assert.equal(await reads(client, join(one, 'a.txt')), true);
      assert.equal(await reads(client, join(two, 'b.txt')), false);
      assert.equal(roots.asked, 2);
      // Relative paths resolve against the first root, if the tools take them; either way the
      // first root is three now.
      const rel = await client.callTool({ name: 'read_text_file', arguments: { path: 'c.txt' } });
      if (rel.isError !== true) assert.equal(text(rel), 'three\n');
    } finally {
      await s.close();
    }
    assert.match(s.stderr(), /serving the client's roots: /);
  });

  test('roots that are not directories, not file:// URIs or missing are skipped; none usable keeps what is served', async () => {
    const { client, roots } = rootsClient([uri(join(two, 'b.txt')), 'https://example.com/x', uri(join(work, 'gone')), uri(three)]);
    const s = await stdioClient({ dirs: [one], client });
    try {
      assert.equal(await reads(client, join(three, 'c.txt')), true, 'the one usable root is served');
      assert.equal(await reads(client, join(one, 'a.txt')), false);

      roots.current = [uri(join(work, 'gone'))];
      await client.sendRootsListChanged();
      assert.equal(await reads(client, join(three, 'c.txt')), true, 'no usable root: the roots served stay');
      roots.current = [];
      await client.sendRootsListChanged();
      assert.equal(await reads(client, join(three, 'c.txt')), true, 'an empty list keeps them too');
    } finally {
      await s.close();
    }
    // The whole log, now that the server is gone (it may arrive after the answers).
    const log = s.stderr();
    assert.match(log, /skipping root .*b\.txt: not a directory/);
    assert.match(log, /skipping root https:\/\/example\.com\/x: not a file:\/\/ URI/);
    assert.match(log, /skipping root .*gone: no such directory/);
    assert.equal(log.match(/the client listed no usable root; serving .*three/g)?.length, 2, `the missing root, then the empty list:\n${log}`);
  });

  test('a client without the roots capability is served the command line, and never asked', async () => {
    const client = new Client(CLIENT_INFO);
    let asked = 0;
    // Not declared, so the server must not ask (the SDK refuses a handler for an undeclared capability).
    const s = await stdioClient({ dirs: [one, two], client });
    try {
      client.fallbackRequestHandler = async (req) => {
        asked += 1;
        throw new Error(`unexpected ${req.method}`);
      };
      assert.equal(await reads(client, join(one, 'a.txt')), true);
      assert.equal(await reads(client, join(two, 'b.txt')), true);
      assert.equal(await reads(client, join(three, 'c.txt')), false);
      assert.equal(asked, 0);
    } finally {
      await s.close();
    }
  });

  test('every tool works on the roots the client gave', async (t) => {
    const root = join(work, 'given');
    nodeFs.mkdirSync(root);
    const { client } = rootsClient([uri(root)]);
    const s = await stdioClient({ dirs: [one], client });
    try {
      await runEveryTool(t, { client, root, outside: join(one, 'a.txt') });
    } finally {
      await s.close();
    }
  });
});

