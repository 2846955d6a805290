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
// - `minimal(dir, tool)`: valid arguments, used to check that an unknown extra argument is refused by name.
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

/** The name search_text gives the text to find (its schema's, so the case follows the tool). */
const patternKey = (tool) => ['pattern', 'query', 'regex'].find((k) => k in (tool.inputSchema.properties ?? {})) ?? 'pattern';

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

  // The reference server's deprecated alias of read_text_file.
  read_file: {
    readOnly: true,
    minimal: (dir) => ({ path: join(dir, 'a.txt') }),
    async run({ client, dir, outside }) {
      put(dir, { 'a.txt': 'alpha\nbeta\n' });
      assert.equal(text(await ok(client, 'read_file', { path: join(dir, 'a.txt') })), 'alpha\nbeta\n');
      assert.match(text(await fails(client, 'read_file', { path: outside })), /path_outside_roots/);
    },
  },

  read_media_file: {
    readOnly: true,
    minimal: (dir) => ({ path: join(dir, 'p.png') }),
    async run({ client, dir, outside }) {
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
      nodeFs.writeFileSync(join(dir, 'p.png'), png);
      const r = await ok(client, 'read_media_file', { path: join(dir, 'p.png') });
      const image = r.content.find((c) => c.type === 'image');
      assert.ok(image, `an image block: ${JSON.stringify(r.content)}`);
      assert.equal(image.mimeType, 'image/png');
      assert.deepEqual(Buffer.from(image.data, 'base64'), png, 'the bytes, base64');
      await fails(client, 'read_media_file', { path: outside });
    },
  },

  read_multiple_files: {
    readOnly: true,
    minimal: (dir) => ({ paths: [join(dir, 'a.txt')] }),
    async run({ client, dir, outside }) {
      put(dir, { 'a.txt': 'first\n', 'b.txt': 'second\n' });
      const [a, b, missing] = ['a.txt', 'b.txt', 'missing.txt'].map((n) => join(dir, n));
      // One failed file does not fail the call (the reference's form: `path:\ntext` blocks, `---` between).
      const t = text(await ok(client, 'read_multiple_files', { paths: [a, missing, b, outside] }));
      assert.ok(t.includes(`${a}:\nfirst\n`), t);
      assert.ok(t.includes(`${b}:\nsecond\n`), t);
      assert.ok(t.includes(`${missing}:`), t);
      assert.ok(t.includes(`${outside}:`), t);
      assert.ok(!t.includes('outside\n---') && !t.includes(`${outside}:\noutside`), 'nothing read outside the roots');
      assert.equal(t.split('\n---\n').length, 4, t);
    },
  },

  write_file: {
    readOnly: false,
    minimal: (dir) => ({ path: join(dir, 'min.txt'), content: '' }),
    async run({ client, dir, outside }) {
      const w = join(dir, 'w.txt');
      await ok(client, 'write_file', { path: w, content: 'one\n' });
      assert.equal(nodeFs.readFileSync(w, 'utf8'), 'one\n');
      await ok(client, 'write_file', { path: w, content: 'two\n' });
      assert.equal(nodeFs.readFileSync(w, 'utf8'), 'two\n');
      const before = nodeFs.readFileSync(outside, 'utf8');
      assert.match(text(await fails(client, 'write_file', { path: outside, content: 'no' })), /path_outside_roots/);
      assert.equal(nodeFs.readFileSync(outside, 'utf8'), before);
    },
  },

  edit_file: {
    readOnly: false,
    minimal: (dir) => ({ path: join(dir, 'e.txt'), edits: [{ oldText: 'x', newText: 'y' }] }),
    async run({ client, dir }) {
      const e = join(dir, 'e.txt');
      put(dir, { 'e.txt': 'alpha\r\nbeta\r\ngamma\r\n' });
      // A dry run changes nothing and shows the change as a diff.
      const dry = text(await ok(client, 'edit_file', { path: e, edits: [{ oldText: 'beta', newText: 'BETA' }], dryRun: true }));
      assert.match(dry, /-beta/);
      assert.match(dry, /\+BETA/);
      assert.equal(nodeFs.readFileSync(e, 'utf8'), 'alpha\r\nbeta\r\ngamma\r\n');
      // Applied where the text is found; line endings kept (§4: the reference's CRLF→LF is a defect).
      await ok(client, 'edit_file', { path: e, edits: [{ oldText: 'beta', newText: 'BETA' }] });
      assert.equal(nodeFs.readFileSync(e, 'utf8'), 'alpha\r\nBETA\r\ngamma\r\n');
      // Text that is not there is an error, and nothing changes.
      await fails(client, 'edit_file', { path: e, edits: [{ oldText: 'delta', newText: 'x' }] });
      assert.equal(nodeFs.readFileSync(e, 'utf8'), 'alpha\r\nBETA\r\ngamma\r\n');
    },
  },

  create_directory: {
    readOnly: false,
    minimal: (dir) => ({ path: join(dir, 'm') }),
    async run({ client, dir, root }) {
      const deep = join(dir, 'x', 'y', 'z');
      await ok(client, 'create_directory', { path: deep });
      assert.ok(nodeFs.statSync(deep).isDirectory());
      await ok(client, 'create_directory', { path: deep }); // already there: fine, as the reference
      const out = join(root, '..', `created-outside-${Date.now()}`);
      await fails(client, 'create_directory', { path: out });
      assert.equal(nodeFs.existsSync(out), false, 'nothing created outside the roots');
    },
  },

  list_directory: {
    readOnly: true,
    minimal: (dir) => ({ path: dir }),
    async run({ client, dir, root }) {
      put(dir, { 'f.txt': 'f', '.env': 'SECRET=1' });
      nodeFs.mkdirSync(join(dir, 'sub'));
      const lines = text(await ok(client, 'list_directory', { path: dir })).split('\n');
      assert.ok(lines.includes('[FILE] f.txt'), lines.join('\n'));
      assert.ok(lines.includes('[DIR] sub'), lines.join('\n'));
      assert.ok(!lines.some((l) => l.includes('.env')), 'the deny list hides what it denies');
      await fails(client, 'list_directory', { path: join(root, '..') });
    },
  },

  list_directory_with_sizes: {
    readOnly: true,
    minimal: (dir) => ({ path: dir }),
    async run({ client, dir, root }) {
      put(dir, { 'big.txt': 'x'.repeat(2048), 'small.txt': 'xy' });
      nodeFs.mkdirSync(join(dir, 'sub'));
      const lines = text(await ok(client, 'list_directory_with_sizes', { path: dir, sortBy: 'size' })).split('\n');
      const files = lines.filter((l) => l.startsWith('[FILE] '));
      assert.match(files[0] ?? '', /^\[FILE\] big\.txt\s+2\.00 KB$/, lines.join('\n'));
      assert.match(files[1] ?? '', /^\[FILE\] small\.txt\s+2 B$/, lines.join('\n'));
      assert.ok(lines.some((l) => /^\[DIR\] sub\b/.test(l)), lines.join('\n'));
      await fails(client, 'list_directory_with_sizes', { path: join(root, '..') });
    },
  },

  directory_tree: {
    readOnly: true,
    minimal: (dir) => ({ path: dir }),
    async run({ client, dir, root }) {
      put(dir, { 'top.txt': 't', 'skip.log': 's' });
      nodeFs.mkdirSync(join(dir, 'sub'));
      put(join(dir, 'sub'), { 'inner.txt': 'i' });
      const tree = JSON.parse(text(await ok(client, 'directory_tree', { path: dir, excludePatterns: ['*.log'] })));
      const byName = (list) => [...list].sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(byName(tree).map((e) => ({ ...e, children: e.children && byName(e.children) })), [
        { name: 'sub', type: 'directory', children: [{ name: 'inner.txt', type: 'file' }] },
        { name: 'top.txt', type: 'file', children: undefined },
      ]);
      await fails(client, 'directory_tree', { path: join(root, '..') });
    },
  },

  move_file: {
    readOnly: false,
    minimal: (dir) => ({ source: join(dir, 'a'), destination: join(dir, 'b') }),
    async run({ client, dir, outside }) {
      put(dir, { 'a.txt': 'a', 'taken.txt': 'taken' });
      const [a, b, taken] = ['a.txt', 'b.txt', 'taken.txt'].map((n) => join(dir, n));
      await ok(client, 'move_file', { source: a, destination: b });
      assert.equal(nodeFs.existsSync(a), false);
      assert.equal(nodeFs.readFileSync(b, 'utf8'), 'a');
      // An existing destination is refused: no silent overwrite.
      await fails(client, 'move_file', { source: b, destination: taken });
      assert.equal(nodeFs.readFileSync(taken, 'utf8'), 'taken');
      assert.equal(nodeFs.readFileSync(b, 'utf8'), 'a');
      // Nothing moves out of the roots, or in.
      const before = nodeFs.readFileSync(outside, 'utf8');
      await fails(client, 'move_file', { source: b, destination: `${outside}.moved` });
      await fails(client, 'move_file', { source: outside, destination: join(dir, 'in.txt') });
      assert.equal(nodeFs.readFileSync(outside, 'utf8'), before);
      assert.equal(nodeFs.existsSync(`${outside}.moved`), false);
      assert.equal(nodeFs.existsSync(join(dir, 'in.txt')), false);
    },
  },

  search_files: {
    readOnly: true,
    minimal: (dir) => ({ path: dir, pattern: '*.md' }),
    async run({ client, dir }) {
      put(dir, { 'x.md': 'x', 'z.txt': 'z' });
      nodeFs.mkdirSync(join(dir, 'sub'));
      put(join(dir, 'sub'), { 'y.md': 'y' });
      const found = text(await ok(client, 'search_files', { path: dir, pattern: '**/*.md' })).split('\n');
      assert.ok(found.includes(join(dir, 'x.md')), found.join('\n'));
      assert.ok(found.includes(join(dir, 'sub', 'y.md')), found.join('\n'));
      assert.ok(!found.some((l) => l.endsWith('z.txt')), found.join('\n'));
      const excluded = text(await ok(client, 'search_files', { path: dir, pattern: '**/*.md', excludePatterns: ['sub'] })).split('\n');
      assert.ok(excluded.includes(join(dir, 'x.md')) && !excluded.some((l) => l.includes('y.md')), excluded.join('\n'));
    },
  },

  get_file_info: {
    readOnly: true,
    minimal: (dir) => ({ path: dir }),
    async run({ client, dir, outside }) {
      put(dir, { 'i.txt': '12345' });
      const info = text(await ok(client, 'get_file_info', { path: join(dir, 'i.txt') }));
      assert.match(info, /^size: 5$/m, info);
      assert.match(info, /^isFile: true$/m, info);
      assert.match(info, /^isDirectory: false$/m, info);
      assert.match(text(await ok(client, 'get_file_info', { path: dir })), /^isDirectory: true$/m);
      await fails(client, 'get_file_info', { path: outside });
    },
  },

  list_allowed_directories: {
    readOnly: true,
    minimal: () => ({}),
    async run({ client, root }) {
      const t = text(await ok(client, 'list_allowed_directories', {}));
      assert.ok(t.split('\n').includes(root), `the roots served, one per line: ${t}`);
    },
  },

  // Ours: a grep through the editor (file contents below a path, `path:line: text`).
  search_text: {
    readOnly: true,
    minimal: (dir, tool) => ({ path: dir, [patternKey(tool)]: 'x' }),
    async run({ client, dir, tool }) {
      put(dir, { 'a.txt': 'nothing\nhello NEEDLE world\n', 'b.txt': 'no match here\n' });
      const found = text(await ok(client, 'search_text', { path: dir, [patternKey(tool)]: 'NEEDLE' }));
      assert.match(found, /a\.txt:2: ?hello NEEDLE world/, found);
      assert.doesNotMatch(found, /b\.txt/, found);
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
      const extra = await fails(client, tool.name, { ...c.minimal(dir, tool), bogus_argument: 1 });
      assert.match(text(extra), /bogus_argument/);
      await c.run({ client, dir, root, outside, tool });
    });
  }
  return names;
}
