// docs/options.md's table lists exactly the options there are: the engine's, as generated from
// Rust into npm/types/api.d.ts (`EngineOptions`), and the driver's host-only ones (`HOST_ONLY`).
// An option added, renamed or dropped on either side without the table fails here by name.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { HOST_ONLY } from '../../npm/shared/hooks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The member names of `export type <name> = { … }` in the generated declarations. */
function generatedKeys(name = 'EngineOptions') {
  const path = join(root, 'npm', 'types', 'api.d.ts');
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  const alias = file.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  assert.ok(alias && ts.isTypeLiteralNode(alias.type), `api.d.ts declares ${name} as an object type`);
  return alias.type.members.map((m) => {
    assert.ok(ts.isPropertySignature(m) && m.questionToken, `${name} member ${m.name?.getText(file)} is an optional property`);
    return m.name.getText(file);
  });
}

const engineOptionKeys = () => generatedKeys('EngineOptions');

/**
 * The rows of the table whose first column is `first`: the names of the first cell (`a` / `b`
 * names two) and the meaning.
 */
function tableRows(first = 'option') {
  const lines = readFileSync(join(root, 'docs', 'options.md'), 'utf8').split('\n');
  const head = lines.indexOf(`| ${first} | default | meaning |`);
  assert.ok(head >= 0, `docs/options.md has the table "| ${first} | default | meaning |"`);
  const rows = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    // `\|` is a pipe inside a cell, not a column.
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    assert.equal(cells.length, 3, `three cells: ${line}`);
    const names = [...cells[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    assert.ok(names.length > 0, `the first cell names an option: ${line}`);
    rows.push({ names, meaning: cells[2] });
  }
  return rows;
}

const sorted = (xs) => [...xs].sort();

test('the option table holds every generated engine option and host-only option, and nothing else', () => {
  const engine = engineOptionKeys();
  const hostOnly = [...HOST_ONLY];
  assert.deepEqual(engine.filter((k) => HOST_ONLY.has(k)), [], 'no key is both an engine and a host-only option');
  const want = new Set([...engine, ...hostOnly]);
  const listed = tableRows().flatMap((r) => r.names);
  const missing = sorted([...want].filter((k) => !listed.includes(k)));
  const extra = sorted(listed.filter((k) => !want.has(k)));
  const twice = sorted(listed.filter((k, i) => listed.indexOf(k) !== i));
  assert.deepEqual(missing, [], `options missing from docs/options.md: ${missing.join(', ')}`);
  assert.deepEqual(extra, [], `docs/options.md lists options there are not: ${extra.join(', ')}`);
  assert.deepEqual(twice, [], `docs/options.md lists options twice: ${twice.join(', ')}`);
});

test('the table marks the host-only options, and only those', () => {
  for (const { names, meaning } of tableRows()) {
    for (const name of names) {
      assert.equal(meaning.startsWith('host-only:'), HOST_ONLY.has(name), `${name}: "host-only:" ${HOST_ONLY.has(name) ? 'missing' : 'on an engine option'}`);
    }
  }
});

test('the session option table holds every generated session option, and nothing else', () => {
  // openSession's keys besides the roots (`SessionOptions`, generated from Rust).
  assert.deepEqual(sorted(tableRows('session option').flatMap((r) => r.names)), sorted(generatedKeys('SessionOptions')));
});
