// One case per MCP tool acp-fs offers, run through the official MCP SDK client on every transport
// (tests/node/mcp-sdk.test.mjs) and against the standalone command (mcp-standalone.test.mjs).
// A tool in `tools/list` without a case here fails those tests: a new tool lands with its case.
//
// Each case gets a fresh directory `dir` below the first root, fills it on the real disk, calls
// its tool with real arguments and checks the answer against the contract (docs/semantics.md and
// docs/mcp.md; the reference server's text forms where the tool is one of its). The SDK client
// itself checks every `structuredContent` against the tool's `outputSchema`.
//
// - `readOnly`: whether the tool changes nothing (its `readOnlyHint`; what `--read-only` keeps).
// - `minimal(dir)`: valid arguments, used to check that an unknown extra argument is refused by name.
// - `run({client, dir, root, outside})`: the case; `outside` is a file outside every root.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';

export const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/** Calls a tool; fails unless the result is a success. */
export async function ok(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError ?? false, false, `${name} ${JSON.stringify(args)} failed: ${text(r)}`);
  return r;
}

/** Calls a tool; fails unless the result is a tool error (`isError`). */
export async function fails(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail: ${text(r)}`);
  return r;
}

const put = (dir, files) => {
  for (const [name, content] of Object.entries(files)) nodeFs.writeFileSync(join(dir, name), content);
};

export const CASES = {
  read_text_file: {
    readOnly: true,
    minimal: (dir) => ({ path: join(dir, 'a.txt') }),
    async run({ client, dir, outside, tool }) {
      put(dir, { 'a.txt': 'one\r\ntwo\r\nthree\r\n' });
      const a = join(dir, 'a.txt');
      // The exact text, line endings kept (§4).
      assert.equal(text(await ok(client, 'read_text_file', { path: a })), 'one\r\ntwo\r\nthree\r\n');
      const props = tool.inputSchema.properties ?? {};
      if ('line' in props) {
        assert.equal(text(await ok(client, 'read_text_file', { path: a, line: 2, limit: 1 })), 'two\r\n');
      }
      // The reference server's head/tail: the first / last N lines and nothing else.
      if ('head' in props) {
        const head = text(await ok(client, 'read_text_file', { path: a, head: 2 }));
        assert.match(head, /^one\r?\ntwo/);
        assert.doesNotMatch(head, /three/);
      }
      if ('tail' in props) {
        const tail = text(await ok(client, 'read_text_file', { path: a, tail: 1 }));
        assert.match(tail, /three/);
        assert.doesNotMatch(tail, /two/);
      }
      // A missing file and a file outside the roots are tool errors the model can read.
      assert.match(text(await fails(client, 'read_text_file', { path: join(dir, 'missing.txt') })), /not found/i);
      assert.match(text(await fails(client, 'read_text_file', { path: outside })), /path_outside_roots/);
    },
  },

  write_text_file: {
    readOnly: false,
    minimal: (dir) => ({ path: join(dir, 'min.txt'), content: '' }),
    async run({ client, dir, outside }) {
      const b = join(dir, 'new', 'b.txt');
      await ok(client, 'write_text_file', { path: b, content: 'x\ny\n' });
      assert.equal(nodeFs.readFileSync(b, 'utf8'), 'x\ny\n');
      await ok(client, 'write_text_file', { path: b, content: 'replaced' });
      assert.equal(nodeFs.readFileSync(b, 'utf8'), 'replaced');
      const before = nodeFs.readFileSync(outside, 'utf8');
      assert.match(text(await fails(client, 'write_text_file', { path: outside, content: 'no' })), /path_outside_roots/);
      assert.equal(nodeFs.readFileSync(outside, 'utf8'), before, 'nothing written outside the roots');
    },
  },
};

/**
 * Runs every case for the tools `client` offers, each as a subtest of `t`, after the checks every
 * tool shares. `root` is the first root (served, on disk); `outside` a file outside every root.
 */
export async function runEveryTool(t, { client, root, outside }) {
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  assert.equal(new Set(names).size, names.length, `tool names are unique: ${names}`);
  assert.ok(names.includes('read_text_file'), 'read_text_file is always offered');
  const missing = names.filter((n) => !Object.hasOwn(CASES, n));
  assert.deepEqual(missing, [], 'every tool offered has a case in tests/node/mcp-tool-cases.mjs');
  for (const tool of tools) {
    await t.test(tool.name, async () => {
      const c = CASES[tool.name];
      assert.equal(typeof tool.description, 'string');
      assert.ok(tool.description.length > 0, 'a description the model reads');
      assert.equal(tool.inputSchema.type, 'object');
      if (tool.annotations) {
        assert.equal(tool.annotations.readOnlyHint ?? false, c.readOnly, 'readOnlyHint says whether the tool changes anything');
        assert.equal(tool.annotations.openWorldHint, false, 'the tools reach only the roots');
      }
      const dir = join(root, tool.name);
      nodeFs.rmSync(dir, { recursive: true, force: true });
      nodeFs.mkdirSync(dir);
      // An argument the tool does not take is refused by name, before anything happens.
      const extra = await fails(client, tool.name, { ...c.minimal(dir), bogus_argument: 1 });
      assert.match(text(extra), /bogus_argument/);
      await c.run({ client, dir, root, outside, tool });
    });
  }
  return names;
}
