// The README's tool table ("Files over MCP") against the registry: every tool a full server
// offers (@acp-fs/node on its native disk, writes allowed) has exactly one row, no row names a
// tool that is not offered, and "changes files" agrees with the tool's readOnlyHint (and with
// --read-only, which keeps only the tools that change nothing).

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpFs } from '../../npm/node/index.mjs';

const README = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md');

function rows() {
  const readme = nodeFs.readFileSync(README, 'utf8');
  const m = readme.match(/<!-- tools: [^>]*-->\n([\s\S]*?)<!-- end tools -->/);
  assert.ok(m, 'README.md has the tools table between its markers');
  const out = new Map();
  for (const line of m[1].split('\n').slice(2).filter(Boolean)) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    assert.equal(cells.length, 3, `a row has three cells: ${line}`);
    const name = cells[0].match(/^`([a-z_]+)`$/)?.[1];
    assert.ok(name, `the first cell is a tool name in backquotes: ${line}`);
    assert.ok(!out.has(name), `${name} has one row`);
    assert.ok(['yes', 'no'].includes(cells[2]), `"changes files" is yes or no: ${line}`);
    out.set(name, cells[2] === 'yes');
  }
  return out;
}

const offered = (options) => {
  const fs = new AcpFs(options);
  fs.openSession('s', { cwd: dirname(README) });
  return fs.mcpHandler('s').tools();
};

test('the README lists every tool offered, and only those, with whether it changes files', () => {
  const table = rows();
  const tools = offered({});
  assert.deepEqual([...table.keys()].sort(), tools.map((t) => t.name).sort(), 'README rows = tools/list');
  for (const tool of tools) {
    if (tool.annotations) assert.equal(!(tool.annotations.readOnlyHint ?? false), table.get(tool.name), `${tool.name}: readOnlyHint`);
  }
  const readOnly = offered({ readOnly: true }).map((t) => t.name).sort();
  assert.deepEqual(readOnly, [...table].filter(([, changes]) => !changes).map(([n]) => n).sort(), 'readOnly keeps the rows that change nothing');
});
