// The editor bindings with the real editors in Debian's Chromium: CodeMirror 6 (@codemirror/state,
// /view, /commands) and Monaco (monaco-editor), bundled by esbuild with @acp-fs/wasm resolved
// through its package exports, as an app would. The test types with the keyboard while an agent
// (the official ACP SDK, in the page) reads and writes through acp-fs, then checks what the agent
// read, the editors' text, selection and undo history, and the disk. Expected texts are derived
// from what the page held before each step, never typed in here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { launch } from './chromium.mjs';
import { ROOT, serve } from './server.mjs';

const OUT = join(ROOT, 'out', 'browser', 'editors');
const WAIT = { timeout: 60_000 };

async function build() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // @acp-fs/wasm as an installed dependency, resolved through its package.json exports.
  const modules = join(ROOT, 'out', 'browser', 'editors-modules');
  mkdirSync(join(modules, '@acp-fs'), { recursive: true });
  rmSync(join(modules, '@acp-fs', 'wasm'), { recursive: true, force: true });
  symlinkSync(join(ROOT, 'npm', 'wasm'), join(modules, '@acp-fs', 'wasm'), 'dir');
  await esbuild.build({
    entryPoints: {
      app: join(ROOT, 'tests', 'browser', 'editors', 'app.mjs'),
      'editor.worker': join(ROOT, 'node_modules', 'monaco-editor', 'esm', 'vs', 'editor', 'editor.worker.js'),
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: OUT,
    loader: { '.ttf': 'file' },
    nodePaths: [modules],
    logLevel: 'error',
  });
  // The fs/* module's .wasm and its merge module's beside the bundle, where `init()` looks for
  // them: the agent's merged writes load the merge module. The editors make typed calls only, so
  // the JSON-RPC module is never asked for.
  copyFileSync(join(ROOT, 'npm', 'wasm', 'pkg', 'acp_fs_wasm_bg.wasm'), join(OUT, 'acp_fs_wasm_bg.wasm'));
  copyFileSync(join(ROOT, 'npm', 'wasm', 'pkg-merge', 'acp_fs_wasm_merge_bg.wasm'), join(OUT, 'acp_fs_wasm_merge_bg.wasm'));
  copyFileSync(join(ROOT, 'tests', 'browser', 'editors', 'index.html'), join(OUT, 'index.html'));
}

test('editor bindings in real CodeMirror 6 and Monaco', async (t) => {
  await build();
  const server = await serve();
  t.after(() => server.close());
  const browser = await launch({ viewport: { width: 1400, height: 900 } });
  t.after(() => browser.close());
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.stack ?? e}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${server.url}/out/browser/editors/index.html`);
  await page.waitForFunction(() => window.t?.ready === true || document.getElementById('status').textContent.startsWith('failed'), null, WAIT);
  assert.equal(await page.textContent('#status'), 'ready');
  const ev = (fn, arg) => page.evaluate(fn, arg);

  await t.test('CodeMirror: the agent reads what the user typed; its write merges, is one undo step, keeps the cursor', async () => {
    const path = '/p/cm.js';
    const onDisk = await ev((p) => t.disk(p), path);
    assert.equal(await ev((p) => t.agentRead(p), path), onDisk, 'a clean buffer: the agent reads the file');
    assert.equal(await ev(() => t.cm.dirty('typed')), false);

    await page.click('#cm-typed .cm-content');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type(' typed');
    const typed = await ev(() => t.cm.text('typed'));
    assert.ok(typed.includes('line 2 typed\n'), typed);
    assert.equal(await ev(() => t.cm.dirty('typed')), true);
    const base = await ev((p) => t.agentRead(p), path);
    assert.equal(base, typed, 'the agent reads the unsaved buffer');
    assert.equal(await ev((p) => t.disk(p), path), onDisk, 'the disk is untouched');

    // The user goes on typing after the agent's read; the agent writes back its whole-file edit.
    await page.keyboard.type(' more');
    const user = await ev(() => t.cm.text('typed'));
    const head = await ev(() => t.cm.head('typed'));
    const depth = await ev(() => t.cm.undoDepth('typed'));
    await ev(([p, c]) => t.agentWrite(p, c), [path, base.replace('line 9\n', 'line 9 by the agent\n')]);
    const merged = user.replace('line 9\n', 'line 9 by the agent\n');
    assert.notEqual(merged, user);
    assert.equal(await ev(() => t.cm.text('typed')), merged, 'the editor holds the merge: the user\'s edit and the agent\'s');
    assert.equal(await ev((p) => t.document(p), path), merged);
    assert.equal((await ev(() => t.changes.at(-1))).merged, true);
    assert.equal(await ev(() => t.cm.head('typed')), head, 'the cursor stays where the text did not change');
    assert.equal(await ev(() => t.cm.undoDepth('typed')), depth + 1, 'the agent\'s write is one undo step');
    assert.equal(await ev((p) => t.disk(p), path), onDisk, 'a dirty buffer takes the write, the disk does not');

    await page.keyboard.press('Control+z');
    assert.equal(await ev(() => t.cm.text('typed')), user, 'one undo restores the user\'s text');
    assert.equal(await ev((p) => t.agentRead(p), path), user, 'and the agent reads the undone buffer');
    await page.keyboard.type('!');
    assert.equal(await ev((p) => t.agentRead(p), path), await ev(() => t.cm.text('typed')));
  });

  await t.test('CodeMirror: a stale clean buffer is reloaded; a write to a clean buffer goes through to the disk', async () => {
    const path = '/p/clean.js';
    const before = await ev((p) => t.disk(p), path);
    assert.equal(await ev((p) => t.agentRead(p), path), before);
    const depth = await ev(() => t.cm.undoDepth('clean'));
    // "A terminal" rewrites the file the user has open and has not modified.
    const fromTerminal = before.replace('clean 3\n', 'clean 3 from a terminal\n');
    await ev(([p, x]) => t.terminal(p, x), [path, fromTerminal]);
    assert.equal(await ev((p) => t.agentRead(p), path), fromTerminal, 'the agent reads the new text');
    await page.waitForFunction((x) => t.cm.text('clean') === x, fromTerminal, WAIT);
    assert.equal(await ev(() => t.cm.dirty('clean')), false, 'reloaded, the buffer is clean again');
    assert.equal(await ev(() => t.cm.undoDepth('clean')), depth + 1, 'the reload is one undoable step');

    // The user's cursor sits where the agent is about to write.
    await page.click('#cm-clean .cm-line >> nth=4');
    await page.keyboard.press('End');
    const next = fromTerminal.replace('clean 5\n', 'clean 5 by the agent\n');
    await ev(([p, c]) => t.agentWrite(p, c), [path, next]);
    assert.equal(await ev(() => t.cm.text('clean')), next);
    assert.equal(await ev((p) => t.disk(p), path), next, 'a clean buffer is written through');
    assert.equal(await ev(() => t.cm.dirty('clean')), false);
    assert.equal(await ev(() => t.cm.undoDepth('clean')), depth + 2);

    // Typing right after the agent's write, next to its edit, is a step of its own: the history
    // would otherwise join adjacent edits made within its group delay into one.
    const at = await ev(() => t.cm.head('clean'));
    await page.keyboard.type('X');
    assert.equal(await ev(() => t.cm.text('clean')), `${next.slice(0, at)}X${next.slice(at)}`);
    await page.keyboard.press('Control+z');
    assert.equal(await ev(() => t.cm.text('clean')), next, 'the first undo takes back only what the user typed');
    await page.keyboard.press('Control+z');
    assert.equal(await ev(() => t.cm.text('clean')), fromTerminal, 'the second, the agent\'s write');
    await page.keyboard.press('Control+z');
    assert.equal(await ev(() => t.cm.text('clean')), before, 'the third, the reload');
    assert.equal(await ev(() => t.cm.dirty('clean')), true, 'the text before the reload is not what the disk holds');
  });

  await t.test('CodeMirror: a reload never overwrites what the user typed while the file was read', async () => {
    const path = '/p/race.js';
    const before = await ev((p) => t.disk(p), path);
    assert.equal(await ev((p) => t.agentRead(p), path), before);
    await ev(() => t.hold());
    const fromTerminal = before.replace('race 2\n', 'race 2 from a terminal\n');
    await ev(([p, x]) => t.terminal(p, x), [path, fromTerminal]);
    assert.equal(await ev((p) => t.agentRead(p), path), fromTerminal, 'stale: the binding starts reading the file');
    await page.click('#cm-race .cm-content');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('typed while the file was read');
    const typed = await ev(() => t.cm.text('race'));
    await ev(() => t.release());
    await page.waitForFunction(() => t.gatedReads() === 1, null, WAIT);
    // One more round trip: the binding's continuation after the read has run.
    assert.equal(await ev(() => t.cm.text('race')), typed, 'the typing stays; the reload is dropped');
    assert.equal(await ev(() => t.cm.dirty('race')), true);
    assert.equal(await ev((p) => t.agentRead(p), path), typed, 'the unsaved buffer is what the agent reads now');
  });

  await t.test('Monaco: typed text read, merged write as one undo stop with the selection kept', async () => {
    const path = '/p/mo.ts';
    const onDisk = await ev((p) => t.disk(p), path);
    assert.equal(await ev((p) => t.agentRead(p), path), onDisk);
    await page.click('#monaco .view-lines');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type(' typed');
    await page.waitForFunction(() => t.monaco.text('typed').includes('mono 2 typed\n'), null, WAIT);
    const typed = await ev(() => t.monaco.text('typed'));
    assert.equal(await ev(() => t.monaco.dirty('typed')), true);
    const base = await ev((p) => t.agentRead(p), path);
    assert.equal(base, typed);
    await page.keyboard.type(' more');
    const user = await ev(() => t.monaco.text('typed'));
    const selection = await ev(() => t.monaco.selection());
    await ev(([p, c]) => t.agentWrite(p, c), [path, base.replace('mono 9\n', 'mono 9 by the agent\n')]);
    const merged = user.replace('mono 9\n', 'mono 9 by the agent\n');
    assert.equal(await ev(() => t.monaco.text('typed')), merged);
    assert.equal(await ev(() => t.monaco.selection()), selection, 'the selection stays');
    assert.deepEqual(await ev(() => t.monaco.lastEdit('typed')), ['9-9'], 'one edit, on the agent\'s line only');
    assert.equal(await ev((p) => t.disk(p), path), onDisk);
    await page.keyboard.press('Control+z');
    assert.equal(await ev(() => t.monaco.text('typed')), user, 'one undo restores the user\'s text');
    assert.equal(await ev((p) => t.agentRead(p), path), user);
    await page.keyboard.press('Control+z');
    assert.ok(!(await ev(() => t.monaco.text('typed'))).includes('by the agent'), 'the agent\'s edit was one stop, not two');
  });

  await t.test('Monaco: a clean model without an editor is reloaded when a terminal changes its file', async () => {
    const path = '/p/mo-clean.ts';
    const before = await ev((p) => t.disk(p), path);
    assert.equal(await ev((p) => t.agentRead(p), path), before);
    const fromTerminal = `${before}mclean 7 from a terminal\n`;
    await ev(([p, x]) => t.terminal(p, x), [path, fromTerminal]);
    assert.equal(await ev((p) => t.agentRead(p), path), fromTerminal);
    await page.waitForFunction((x) => t.monaco.text('clean') === x, fromTerminal, WAIT);
    assert.equal(await ev(() => t.monaco.dirty('clean')), false);
    const docs = Object.fromEntries(await ev(() => t.monaco.documents()));
    assert.equal(docs['file:///p/mo-clean.ts'], fromTerminal);
    assert.equal(docs['inmemory://scratch'], null, 'a model that is no file is no document');
  });

  await t.test('CRLF files: an LF write lands line for line in both editors, the file keeps CRLF', async () => {
    for (const [path, text, undoDepth] of [
      ['/p/crlf-cm.txt', () => t.cm.text('crlf'), () => t.cm.undoDepth('crlf')],
      ['/p/crlf-mo.txt', () => t.monaco.text('crlf'), null],
    ]) {
      const before = await ev((p) => t.disk(p), path);
      assert.match(before, /\r\n/);
      const read = await ev((p) => t.agentRead(p), path);
      assert.equal(read, before, 'a clean buffer: the agent reads the file, CRLF and all');
      const depth = undoDepth ? await ev(undoDepth) : 0;
      const sent = read.replace(/\r\n/g, '\n').replace('two\n', 'TWO\n');
      await ev(([p, c]) => t.agentWrite(p, c), [path, sent]);
      const onDisk = await ev((p) => t.disk(p), path);
      assert.equal(onDisk, before.replace('two\r\n', 'TWO\r\n'), 'written through, CRLF kept');
      const shown = await ev(text);
      if (undoDepth) {
        assert.equal(shown, sent, 'CodeMirror holds lines: the same lines, no stray \\r');
        assert.equal(await ev(undoDepth), depth + 1);
        assert.equal(await ev(() => t.cm.dirty('crlf')), false);
      } else {
        assert.equal(await ev(() => t.monaco.eol('crlf')), '\r\n');
        assert.equal(shown, onDisk, 'the CRLF model holds the file');
        assert.deepEqual(await ev(() => t.monaco.lastEdit('crlf')), ['2-2'], 'one edit on the changed line');
        assert.equal(await ev(() => t.monaco.dirty('crlf')), false);
      }
    }
  });

  await t.test('dispose closes the documents: the agent reads the disk again', async () => {
    await ev(() => t.cm.dispose('typed'));
    assert.equal(await ev((p) => t.document(p), '/p/cm.js'), null);
    assert.equal(await ev((p) => t.agentRead(p), '/p/cm.js'), await ev((p) => t.disk(p), '/p/cm.js'));
    await ev(() => t.monaco.dispose());
    assert.equal(await ev((p) => t.document(p), '/p/mo.ts'), null);
  });

  mkdirSync(join(ROOT, 'out'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'out', 'editors.png') });
  assert.deepEqual(errors, []);
});
