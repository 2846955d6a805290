// Runs examples/node-sdk-client as a user would and checks what it printed and what it left on
// disk: the official SDK agent's four fs calls against @acp-fs/node over a real directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const example = path.join(repo, 'examples', 'node-sdk-client', 'main.mjs');

function run(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [example, ...args], { cwd: repo, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('node-sdk-client example: window read, approved write, rejected write, outside-root denial', async (t) => {
  const work = await mkdtemp(path.join(tmpdir(), 'acp-fs-example-test-'));
  t.after(() => rm(work, { recursive: true, force: true }));

  const { code, stdout, stderr } = await run([work]);
  assert.equal(code, 0, `exit code\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  assert.equal(stderr, '', 'nothing on stderr');

  const lines = stdout.split('\n');
  const after = (needle) => {
    const i = lines.findIndex((l) => l.includes(needle));
    assert.ok(i >= 0, `output has a line with ${JSON.stringify(needle)}:\n${stdout}`);
    return lines[i + 1] ?? '';
  };
  // The window is lines 3-4 exactly, terminators kept.
  assert.match(after('fs/read_text_file project/src/app.js line 3 limit 2'), /-> ok, content "export function main\(argv\) \{\\n  const name = argv\[2\] \?\? \\"world\\";\\n"$/);
  assert.match(stdout, /approveWrite src\/greeting\.js \(new file\) -> approved/);
  assert.match(stdout, /approveWrite README\.md \(modifies\) -> rejected/);
  assert.match(stdout, /-> error -32603 user_rejected: /);
  assert.match(stdout, /-> error -32603 path_outside_roots: /);
  assert.match(stdout, /change record: src\/greeting\.js created=true/);
  assert.doesNotMatch(stdout, /change record: README/);
  assert.match(stdout, /prompt finished: end_turn/);
  assert.match(stdout, /all four calls ended as expected/);

  // The disk, read independently of the example.
  assert.equal(
    await readFile(path.join(work, 'project', 'src', 'greeting.js'), 'utf8'),
    'export const greet = (name) => `Hello, ${name}!`;\n',
  );
  assert.equal(
    await readFile(path.join(work, 'project', 'README.md'), 'utf8'),
    '# sample\n\nHand-written; agents should not rewrite it.\n',
  );
  assert.equal(await readFile(path.join(work, 'outside-secret.txt'), 'utf8'), 'not for agents\n');
  // Atomic writes leave no temp files behind.
  assert.deepEqual((await readdir(path.join(work, 'project', 'src'))).sort(), ['app.js', 'greeting.js']);
});

test('node-sdk-client example without a workdir cleans up its temporary directory', async () => {
  const { code, stdout } = await run([]);
  assert.equal(code, 0, stdout);
  const m = stdout.match(/root (\S+)\/project$/m);
  assert.ok(m, `the output names the root:\n${stdout}`);
  await assert.rejects(stat(m[1]), { code: 'ENOENT' });
});
