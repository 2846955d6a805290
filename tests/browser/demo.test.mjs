// End to end: the in-browser demo (examples/browser-demo) in Debian's Chromium, driven by
// playwright-core. Builds the demo, serves it on 127.0.0.1, runs the scripted agent (official ACP
// SDK) against @acp-fs/wasm over a @zenfs/core disk, approves one write and rejects the other,
// and checks the virtual disk, the change list, what the agent received and the protocol log; then
// the same tour in the ACP v2 mode, over the editor's MCP tools.
// Expected values are derived from the page's own disk, never typed in here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTwoFilesPatch } from 'diff';
import { launch } from './chromium.mjs';
import { startDemoServer } from '../../scripts/serve-demo.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(repo, 'out');
const WAIT = { timeout: 60_000 };
const P = '/project';


function sh(cmd, args) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: repo, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${cmd} ${args.join(' ')} failed:\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Lines of `text` with their terminators, as acp-fs counts them (only `\n` ends a line). */
const linesOf = (text) => text.split(/(?<=\n)/);
const windowOf = (text, line, limit) => linesOf(text).slice(line - 1, line - 1 + limit).join('');

/** The demo is built once for both tests of this file (they run one after the other). */
let built;
const build = () =>
  (built ??= (async () => {
    await sh('bash', ['scripts/build-demo.sh']);
    await mkdir(OUT, { recursive: true });
  })());

test('browser demo: scripted agent, approvals, overlay, errors, undo, save', async (t) => {
  await build();

  const server = await startDemoServer({ port: 0 });
  t.after(() => server.close());
  const browser = await launch({ viewport: { width: 1500, height: 1000 } });
  t.after(() => browser.close());
  const { context } = browser;

  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.stack ?? e}`));
  // The demo is offline: any request that is not to our server is a bug (a CDN, a font, …).
  const foreign = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
  });

  const demo = (fn, arg) => page.evaluate(fn, arg);
  const marker = `e2e-${Math.random().toString(36).slice(2, 10)}`;
  let typed; // the src/app.js buffer after the test typed into it: what the agent's read must get
  let beforeMerge; // the src/app.js buffer when the agent's write was up for approval

  await t.test('loads: engine ready, sample project in the tree, app.js open with unsaved edits', async () => {
    await page.goto(server.url);
    await page.waitForFunction(() => window.acpFsDemo?.ready === true, null, WAIT);
    assert.equal(await page.getAttribute('#status', 'data-state'), 'ready');
    assert.match(await page.textContent('#status'), /"readTextFile":true,"writeTextFile":true/);
    const tree = await page.$$eval('[data-testid="tree-file"]', (n) => n.map((x) => x.dataset.path));
    for (const f of ['src/app.js', 'src/util.js', 'docs/windows-notes.txt', 'data/report.csv', 'logs/server.log', 'assets/logo.png']) {
      assert.ok(tree.includes(`${P}/${f}`), `tree lists ${f}: ${tree}`);
    }
    assert.ok(await page.isVisible('[data-testid="tree-link"][data-path="/project/etc-link"]'));
    assert.equal(await page.textContent('#editor-path'), 'src/app.js');
    assert.ok(await page.isVisible('#dirty-indicator'), 'the demo starts with unsaved edits');
  });

  await t.test('typing goes to the acp-fs document overlay, not to the disk', async () => {
    await page.click('#editor .cm-box:not([hidden]) .cm-content');
    await page.keyboard.press('Control+Home');
    await page.keyboard.type(`// ${marker}\n`);
    await page.waitForFunction((m) => window.acpFsDemo.documentText('/project/src/app.js')?.includes(m), marker, WAIT);
    assert.ok(!(await demo((p) => window.acpFsDemo.readText(p), `${P}/src/app.js`)).includes(marker));
    assert.ok(await page.isVisible('#dirty-indicator'));
    typed = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
  });

  await t.test('scripted agent: writes wait for the user; approve one, reject the other', async () => {
    await page.click('#run-agent');

    await page.waitForSelector('#approval[open][data-path="/project/src/util.js"]', WAIT);
    assert.match(await page.textContent('#approval-diff'), /\+ export function slugify\(name\) \{/);
    assert.match(await page.textContent('#approval-action'), /modify/);
    // The agent's write request is on the wire and still unanswered while the prompt is open.
    const pending = await demo(() => {
      const log = window.acpFsDemo.log();
      const req = log.find((e) => e.kind === 'request' && e.method === 'fs/write_text_file' && e.params.path.endsWith('/src/util.js'));
      return { req: Boolean(req), answered: log.some((e) => e.kind === 'response' && req && e.id === req.id && e.method === 'fs/write_text_file') };
    });
    assert.deepEqual(pending, { req: true, answered: false });
    assert.ok(!(await demo(() => window.acpFsDemo.readText('/project/src/util.js'))).includes('slugify'), 'nothing written before approval');
    await page.screenshot({ path: path.join(OUT, 'demo-approval.png') });
    await page.click('#approve-write');

    await page.waitForSelector('#approval[open][data-path="/project/docs/CHANGELOG.md"]', WAIT);
    assert.match(await page.textContent('#approval-action'), /create/);
    assert.equal(await page.getAttribute('#approval', 'data-merged'), 'false');
    await page.click('#reject-write');

    // §9: after its read of src/app.js the agent thinks; the scripted user edit lands in the
    // buffer meanwhile, then the agent's whole-file write arrives, merged with it.
    await page.waitForSelector('#approval[open][data-path="/project/src/app.js"]', WAIT);
    assert.equal(await page.getAttribute('#approval', 'data-merged'), 'true');
    assert.ok(await page.isVisible('#approval-merged'));
    assert.match(await page.textContent('#approval-summary'), /Merged:/);
    beforeMerge = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
    const userLines = beforeMerge.split('\n').filter((l) => !typed.split('\n').includes(l));
    assert.equal(userLines.length, 1, `one line typed while the agent thought: ${userLines}`);
    assert.ok((await demo(() => window.acpFsDemo.editorText())).includes(userLines[0]), 'the user edit is visible in the editor');
    assert.ok(await page.isVisible('[data-testid="user-edit"]'));
    // The dialog's diff is against what is there now: the agent's line comes in, the user's stays.
    const diff = await page.textContent('#approval-diff');
    assert.match(diff, /\+ \}\)\.listen\(Number\(process\.env\.PORT\) \|\| 3000\);/);
    assert.ok(!diff.includes(`- ${userLines[0]}`), diff);
    await page.screenshot({ path: path.join(OUT, 'demo-merge.png') });
    await page.click('#approve-write');

    await page.waitForFunction(() => window.acpFsDemo.tourState === 'done', null, WAIT);
    await page.waitForSelector('[data-testid="tour-end"]', WAIT);
    assert.equal(await page.isVisible('#approval'), false);
  });

  const results = await demo(() => window.acpFsDemo.agentResults());
  const byStep = Object.fromEntries(results.filter((r) => r.step !== 'custom').map((r) => [r.step, r]));

  await t.test('virtual disk and change list: two changes applied, the rejected file never created', async () => {
    const util = await demo(() => window.acpFsDemo.readText('/project/src/util.js'));
    const original = byStep['read-util'].result.content;
    assert.ok(util.startsWith(original) && util.includes('export function slugify(name)'), util);
    assert.equal(await demo(() => window.acpFsDemo.readText('/project/docs/CHANGELOG.md')), null);

    const changes = await demo(() => window.acpFsDemo.changes());
    assert.deepEqual(changes.map((c) => c.path), [`${P}/src/util.js`, `${P}/src/app.js`], JSON.stringify(changes));
    assert.equal(changes[0].created, false);
    assert.equal(changes[0].oldText, original);
    assert.equal(changes[0].newText, util);
    assert.equal(changes[0].merged, false, 'nobody touched util.js between read and write');

    const items = await page.$$eval('[data-testid="change"]', (n) => n.map((x) => [x.dataset.path, x.dataset.state]));
    assert.deepEqual(items, [
      [`${P}/src/app.js`, 'applied'],
      [`${P}/src/util.js`, 'applied'],
    ]);
  });

  await t.test('edits that never clobber: the agent\'s write to src/app.js is merged with the user\'s edit', async () => {
    const read = byStep.unsaved.result.content;
    const sent = byStep['write-merge'].params.content;
    assert.equal(byStep['write-merge'].ok, true, JSON.stringify(byStep['write-merge']));
    const linesIn = (a, b) => a.split('\n').filter((l) => !b.split('\n').includes(l));
    const [userLine] = linesIn(beforeMerge, read);
    const [agentLine] = linesIn(sent, read);
    assert.ok(userLine && agentLine, 'both sides changed something');
    assert.ok(!sent.includes(userLine), 'the agent wrote from its old read, without the user edit');

    const change = (await demo(() => window.acpFsDemo.changes())).find((c) => c.path === `${P}/src/app.js`);
    assert.equal(change.merged, true);
    assert.equal(change.mode, 'buffer', 'the buffer had unsaved edits: the merge lands there');
    assert.equal(change.oldText, beforeMerge);

    const buffer = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
    assert.equal(change.newText, buffer);
    for (const line of [userLine, agentLine, `// ${marker}`, "  { id: 3, name: 'Eraser', price: 99 }, // unsaved: not on disk yet"]) {
      assert.ok(buffer.split('\n').includes(line), `final buffer has ${line}:\n${buffer}`);
    }
    assert.equal(buffer.split('\n').length, read.split('\n').length + 1, 'one line added, one replaced');
    assert.equal(await demo(() => window.acpFsDemo.editorText()), buffer);
    // The agent's edit is one step of the editor's undo history: Ctrl+Z takes back only its line.
    await page.click('#editor .cm-box:not([hidden]) .cm-content');
    await page.keyboard.press('Control+z');
    assert.equal(await demo(() => window.acpFsDemo.editorText()), beforeMerge, 'one undo: the buffer as it was before the agent\'s write');
    assert.equal(await demo(() => window.acpFsDemo.documentText('/project/src/app.js')), beforeMerge, 'and the agent would read that');
    await page.keyboard.press('Control+y');
    assert.equal(await demo(() => window.acpFsDemo.editorText()), buffer, 'redo brings the merge back');

    const badge = '[data-testid="change"][data-path="/project/src/app.js"] [data-testid="merged"]';
    assert.ok(await page.isVisible(badge));
    assert.equal(await page.textContent(badge), 'merged');
    assert.equal(await page.$('[data-testid="change"][data-path="/project/src/util.js"] [data-testid="merged"]'), null);
  });

  await t.test('what the agent received: windows, CRLF, BOM, the unsaved buffer', async () => {
    const log = await demo(() => window.acpFsDemo.readText('/project/logs/server.log'));
    assert.equal(linesOf(log).length, 20_000);
    assert.equal(byStep['window-start'].result.content, windowOf(log, 1, 3));
    assert.equal(byStep['window-middle'].result.content, windowOf(log, 10_000, 3));
    assert.equal(byStep['window-end'].result.content, windowOf(log, 19_999, 10));
    assert.equal(linesOf(byStep['window-end'].result.content).length, 2);

    const notes = await demo(() => window.acpFsDemo.readText('/project/docs/windows-notes.txt'));
    assert.equal(byStep.crlf.result.content, windowOf(notes, 2, 2));
    assert.match(byStep.crlf.result.content, /\r\n$/);

    const csvBytes = await demo(() => window.acpFsDemo.readBytes('/project/data/report.csv'));
    assert.deepEqual(csvBytes.slice(0, 3), [0xef, 0xbb, 0xbf]);
    assert.equal(byStep.bom.result.content, Buffer.from(csvBytes.slice(3)).toString('utf8'));

    assert.equal(byStep.unsaved.result.content, typed);
    assert.ok(typed.includes(marker) && typed.includes("name: 'Eraser'"), 'the agent got the typed text');
    const disk = await demo(() => window.acpFsDemo.readText('/project/src/app.js'));
    assert.notEqual(byStep.unsaved.result.content, disk);
  });

  await t.test('a terminal rewrites a file open and unmodified in the editor: the agent reads the new text, the editor reloads', async () => {
    const before = byStep['read-package'].result.content;
    const after = byStep['after-terminal'].result.content;
    const disk = await demo(() => window.acpFsDemo.readText('/project/package.json'));
    assert.notEqual(before, after, 'the terminal changed the file between the two reads');
    assert.equal(after, disk, 'the agent\'s next read is the file as the terminal left it');
    assert.ok(await page.isVisible('[data-testid="terminal-edit"]'));
    assert.deepEqual(await demo(() => window.acpFsDemo.reloads()), ['/project/package.json'], 'the clean buffer was reloaded');
  });

  await t.test('what the agent received: errors with their JSON-RPC codes', async () => {
    const expected = {
      'outside-root': [-32603, 'path_outside_roots'],
      'symlink-escape': [-32603, 'symlink_escape'],
      denied: [-32603, 'denied_by_pattern'],
      missing: [-32002, undefined],
      binary: [-32603, 'binary_file'],
      'write-create': [-32603, 'user_rejected'],
    };
    for (const [step, [code, kind]] of Object.entries(expected)) {
      const r = byStep[step];
      assert.equal(r.ok, false, step);
      assert.equal(r.error.code, code, step);
      assert.equal(r.error.data?.errorKind, kind, step);
    }
    assert.equal(byStep.missing.error.message, 'Resource not found: /project/src/missing.js');
    assert.deepEqual(byStep.missing.error.data, { uri: '/project/src/missing.js' });
    for (const step of ['window-start', 'crlf', 'bom', 'unsaved', 'read-package', 'after-terminal', 'read-util', 'write-modify', 'write-merge']) assert.equal(byStep[step].ok, true, step);
    assert.deepEqual(byStep['write-modify'].result, {});
    assert.deepEqual(byStep['write-merge'].result, {});

    // The transcript shows the same outcomes the agent reported through session/update.
    const shown = await page.$$eval('[data-testid="agent-step"]', (n) =>
      n.map((x) => ({ step: x.dataset.step, status: x.dataset.status, code: x.dataset.errorCode ?? null })),
    );
    assert.deepEqual(shown.find((s) => s.step === 'missing'), { step: 'missing', status: 'failed', code: '-32002' });
    assert.deepEqual(shown.find((s) => s.step === 'write-modify'), { step: 'write-modify', status: 'completed', code: null });
    assert.deepEqual(shown.find((s) => s.step === 'think-app'), { step: 'think-app', status: 'completed', code: null });
    assert.deepEqual(shown.find((s) => s.step === 'write-merge'), { step: 'write-merge', status: 'completed', code: null });
  });

  await t.test('protocol log: every fs request answered once, error codes on the wire', async () => {
    const log = await demo(() => window.acpFsDemo.log());
    const requests = log.filter((e) => e.kind === 'request' && e.method?.startsWith('fs/'));
    assert.equal(requests.length, results.length);
    // The same request may be sent twice (package.json, before and after the terminal): the nth
    // such request on the wire is the agent's nth.
    const seen = new Map();
    for (const req of requests) {
      assert.equal(req.dir, 'agent→client');
      const answers = log.filter((e) => e.kind === 'response' && e.dir === 'client→agent' && e.id === req.id);
      assert.equal(answers.length, 1, `one response for #${req.id}`);
      const res = answers[0];
      assert.equal(res.method, req.method);
      assert.ok(res.seq > req.seq);
      const same = results.filter((r) => r.params.path === req.params.path && r.method === req.method && (r.params.line ?? null) === (req.params.line ?? null));
      const key = JSON.stringify([req.method, req.params.path, req.params.line ?? null]);
      const mine = same[seen.get(key) ?? 0];
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (mine.ok) assert.deepEqual(res.result, mine.result, req.params.path);
      else assert.deepEqual(res.error, { code: mine.error.code, message: mine.error.message, ...(mine.error.data ? { data: mine.error.data } : {}) });
    }
    for (const [code, kind] of [
      ['-32002', ''],
      ['-32603', 'path_outside_roots'],
      ['-32603', 'symlink_escape'],
      ['-32603', 'binary_file'],
      ['-32603', 'user_rejected'],
    ]) {
      const sel = `[data-testid="log-entry"][data-kind="response"][data-error-code="${code}"]${kind ? `[data-error-kind="${kind}"]` : ''}`;
      assert.ok((await page.$$(sel)).length >= 1, `log shows ${code} ${kind}`);
    }
    // The screenshot shows the fs traffic: session/update notifications hidden by the filter.
    await page.uncheck('#log-show-updates');
    assert.equal(await page.isVisible('[data-testid="log-entry"][data-method="session/update"] >> nth=0'), false);
    assert.equal(await page.isVisible('[data-testid="log-entry"][data-method="fs/read_text_file"] >> nth=0'), true);
    await page.$eval('#protocol-log', (n) => {
      n.scrollTop = n.scrollHeight;
    });
    await page.screenshot({ path: path.join(OUT, 'demo.png'), fullPage: true });
  });

  await t.test('request form: a window and a bad path, sent as the agent', async () => {
    const log = await demo(() => window.acpFsDemo.readText('/project/logs/server.log'));
    await page.fill('#req-path', '/project/logs/server.log');
    await page.fill('#req-line', '5');
    await page.fill('#req-limit', '2');
    await page.click('#req-send');
    await page.waitForSelector('#request-result[data-state="ok"]', WAIT);
    let custom = (await demo(() => window.acpFsDemo.agentResults())).filter((r) => r.step === 'custom');
    assert.equal(custom.length, 1);
    assert.equal(custom[0].result.content, windowOf(log, 5, 2));

    await page.fill('#req-path', 'project/relative.txt');
    await page.click('#req-send');
    await page.waitForSelector('#request-result[data-state="error"]', WAIT);
    assert.equal(await page.getAttribute('#request-result', 'data-error-code'), '-32602');
    custom = (await demo(() => window.acpFsDemo.agentResults())).filter((r) => r.step === 'custom');
    assert.equal(custom[1].error.data.field, 'path');
  });

  await t.test('undo writes the old text back', async () => {
    const original = byStep['read-util'].result.content;
    await page.click('[data-testid="change"][data-path="/project/src/util.js"] [data-testid="undo-change"]');
    await page.waitForFunction((o) => window.acpFsDemo.readText('/project/src/util.js').then((t) => t === o), original, WAIT);
    await page.waitForSelector('[data-testid="change"][data-path="/project/src/util.js"][data-state="undone"]', WAIT);
  });

  await t.test('save writes the buffer to the virtual disk', async () => {
    await page.click('#save-file');
    await page.waitForFunction(
      (m) => window.acpFsDemo.readText('/project/src/app.js').then((t) => t.includes(m)),
      marker,
      WAIT,
    );
    assert.equal(await page.isVisible('#dirty-indicator'), false);
    const buffer = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
    assert.equal(await demo(() => window.acpFsDemo.readText('/project/src/app.js')), buffer, 'both edits saved');
  });

  await t.test('no console errors, no page errors, no requests leaving 127.0.0.1', async () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(await demo(() => window.acpFsDemo.pageErrors()), []);
    assert.deepEqual(foreign, []);
  });
});

// ACP v2 mode (`?acp=v2`): the page advertises no `clientCapabilities.fs` and declares its MCP
// server in session/new instead (`fs.mcpOverAcp`), carried over the same ACP connection as
// `mcp/message`. The scripted agent finds its way with the listing and search tools, makes the
// same reads through read_text_file (the unsaved buffer, the terminal step, the refusals), and
// edits with edit_file: each call a `tools/call` row in the protocol log.

/** The tools of the README's table ("Files over MCP"): what a server that can list, rename and make directories offers. */
async function readmeTools() {
  const readme = await readFile(path.join(repo, 'README.md'), 'utf8');
  const table = readme.match(/<!-- tools: [^>]*-->\n([\s\S]*?)<!-- end tools -->/)[1];
  return table.split('\n').slice(2).filter(Boolean).map((row) => row.match(/^\| `([a-z_]+)`/)[1]);
}

/** The agent's v2 tour, in order: its step names and the tool each one calls. */
const V2_TOUR = [
  ['list-root', 'list_directory'],
  ['find-js', 'search_files'],
  ['search-text', 'search_text'],
  ['file-info', 'get_file_info'],
  ...['window-start', 'window-middle', 'window-end', 'crlf', 'bom', 'unsaved', 'outside-root', 'symlink-escape', 'denied', 'missing', 'binary'].map((s) => [s, 'read_text_file']),
  ['read-package', 'read_text_file'],
  ['after-terminal', 'read_text_file'],
  ['read-util', 'read_text_file'],
  ['edit-util', 'edit_file'],
  ['write-create', 'write_text_file'],
  ['edit-app', 'edit_file'],
];

test('browser demo, ACP v2 mode: the agent lists, searches, reads and edits over the editor\'s MCP tools, carried by mcp/message', async (t) => {
  await build();
  const server = await startDemoServer({ port: 0 });
  t.after(() => server.close());
  const browser = await launch({ viewport: { width: 1500, height: 1000 } });
  t.after(() => browser.close());
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.stack ?? e}`));
  const foreign = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  const demo = (fn, arg) => page.evaluate(fn, arg);

  await page.goto(`${server.url}?acp=v2`);
  await page.waitForFunction(() => window.acpFsDemo?.ready === true, null, WAIT);
  assert.equal(await demo(() => window.acpFsDemo.mode), 'v2');
  assert.match(await page.textContent('#status'), /ACP v2/);
  assert.ok(await page.isVisible('.tagline[data-acp="v2"]'));
  assert.equal(await page.isVisible('.tagline[data-acp="v1"]'), false);
  const unsaved = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
  const onDisk = await demo(() => window.acpFsDemo.readText('/project/src/app.js'));
  assert.notEqual(unsaved, onDisk, 'the demo starts with unsaved edits in src/app.js');

  // What the disk and the editor hold before the tour, walked in the page: the expectations of
  // the listing and search steps. Links are not followed (the tools never follow them).
  const disk = await demo(async () => {
    const { vfs } = window.acpFsDemo;
    const walk = async (dir) => {
      const out = [];
      for (const name of (await vfs.readdir(dir)).sort()) {
        const p = `${dir}/${name}`;
        const st = await vfs.lstat(p);
        out.push({ path: p, name, type: st.isSymbolicLink() ? 'LINK' : st.isDirectory() ? 'DIR' : 'FILE' });
        if (st.isDirectory()) out.push(...(await walk(p)));
      }
      return out;
    };
    const entries = await walk('/project');
    const texts = {};
    for (const e of entries.filter((x) => x.type === 'FILE')) {
      const bytes = await window.acpFsDemo.readBytes(e.path);
      if (!bytes.includes(0)) texts[e.path] = window.acpFsDemo.documentText(e.path) ?? (await window.acpFsDemo.readText(e.path));
    }
    return { entries, texts };
  });

  let beforeMerge; // the src/app.js buffer when the agent's edit of it was up for approval
  await page.click('#run-agent');
  await page.waitForSelector('#approval[open][data-path="/project/src/util.js"]', WAIT);
  assert.match(await page.textContent('#approval-diff'), /\+ export function slugify\(name\) \{/);
  assert.equal(await page.textContent('#approval-request'), 'tools/call (mcp/message)');
  // The agent's edit_file call is on the wire, unanswered while the prompt is open.
  const pending = await demo(() => {
    const log = window.acpFsDemo.log();
    const req = log.find((e) => e.kind === 'request' && e.method === 'mcp/message' && e.params.params?.name === 'edit_file');
    return { path: req?.params.params.arguments.path, answered: log.some((e) => e.kind === 'response' && req && e.id === req.id && e.method === 'mcp/message') };
  });
  assert.deepEqual(pending, { path: '/project/src/util.js', answered: false });
  assert.ok(!(await demo(() => window.acpFsDemo.readText('/project/src/util.js'))).includes('slugify'), 'nothing written before approval');
  await page.screenshot({ path: path.join(OUT, 'demo-v2-approval.png') });
  await page.click('#approve-write');
  await page.waitForSelector('#approval[open][data-path="/project/docs/CHANGELOG.md"]', WAIT);
  await page.click('#reject-write');
  await page.waitForSelector('#approval[open][data-path="/project/src/app.js"]', WAIT);
  assert.equal(await page.getAttribute('#approval', 'data-merged'), 'true');
  assert.match(await page.textContent('#approval-summary'), /Merged:/);
  assert.match(await page.textContent('#approval-diff'), /\+ \}\)\.listen\(Number\(process\.env\.PORT\) \|\| 3000\);/);
  beforeMerge = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
  await page.click('#approve-write');
  await page.waitForFunction(() => window.acpFsDemo.tourState === 'done', null, WAIT);

  const log = await demo(() => window.acpFsDemo.log());
  const results = await demo(() => window.acpFsDemo.agentResults());
  const byStep = Object.fromEntries(results.map((r) => [r.step, r]));

  await t.test('the handshake: no fs capability, the MCP server declared in session/new, every tool offered', async () => {
    const init = log.find((e) => e.kind === 'request' && e.method === 'initialize');
    assert.equal(init.params.clientCapabilities.fs, undefined);
    const initResult = log.find((e) => e.kind === 'response' && e.method === 'initialize');
    assert.equal(initResult.result.agentCapabilities.mcpCapabilities.acp, true);
    const created = log.find((e) => e.kind === 'request' && e.method === 'session/new');
    assert.equal(created.params.mcpServers.length, 1);
    assert.equal(created.params.mcpServers[0].type, 'acp');
    // The demo's storage (@zenfs/core) can list, rename and make directories and writes are on,
    // so no tool is left out of tools/list: the README's whole table is offered.
    const toolsOf = (e) => (e.result?.result ?? e.result)?.tools;
    const listed = toolsOf(log.find((e) => e.kind === 'response' && Array.isArray(toolsOf(e))) ?? {});
    assert.deepEqual(listed.map((x) => x.name).sort(), (await readmeTools()).sort());
    const shown = await page.$$eval('[data-testid="log-entry"][data-method="mcp/message"] .text', (n) => n.map((x) => x.textContent));
    assert.ok(shown.includes(`tools: ${listed.map((x) => x.name).join(', ')}`), shown.join('\n'));
  });

  await t.test('the tools called, in order, each a tools/call row of the protocol log answered once; none is fs/*', async () => {
    assert.deepEqual(log.filter((e) => e.method?.startsWith('fs/')), []);
    assert.deepEqual(results.map((r) => [r.step, r.tool]), V2_TOUR);
    assert.ok(results.every((r) => !r.skipped), 'every tool the agent called was listed');
    const calls = log.filter((e) => e.kind === 'request' && e.method === 'mcp/message' && e.dir === 'agent→client');
    assert.equal(calls[0].params.method, 'tools/list', 'the agent lists the tools before calling one');
    const toolCalls = calls.filter((e) => e.params.method === 'tools/call');
    assert.deepEqual(
      toolCalls.map((e) => [e.params.params.name, e.params.params.arguments.path]),
      results.map((r) => [r.tool, r.params.path]),
    );
    for (const call of calls) {
      const answers = log.filter((e) => e.kind === 'response' && e.dir === 'client→agent' && e.id === call.id);
      assert.equal(answers.length, 1, `one answer for #${call.id}`);
    }
    // The log's rows name the tool and the file of each call, in the order they went out.
    const rows = await page.$$eval('[data-testid="log-entry"][data-method="mcp/message"][data-kind="request"] .text', (n) => n.map((x) => x.textContent));
    const callRows = rows.filter((r) => r.startsWith('tools/call '));
    assert.equal(callRows.length, results.length);
    results.forEach((r, i) => assert.ok(callRows[i].startsWith(`tools/call ${r.tool} · ${r.params.path}`), `${callRows[i]} is ${r.step}`));
    assert.ok(callRows.includes('tools/call search_text · /project · pattern formatPrice'), callRows.join('\n'));
    assert.ok(callRows.includes('tools/call edit_file · /project/src/app.js · 1 edit'), callRows.join('\n'));
  });

  await t.test('listing and searching: what the agent got, and the transcript shows it', async () => {
    // The deny list hides .env from listings as it refuses its read (the `denied` step).
    assert.equal(byStep.denied.error.data.isError, true);
    assert.match(byStep.denied.error.message, /denied_by_pattern/);
    const hidden = ['/project/.env'];
    assert.ok(disk.entries.some((e) => e.path === hidden[0]), '.env is on the disk');
    const top = disk.entries.filter((e) => e.path === `/project/${e.name}` && !hidden.includes(e.path));
    assert.equal(byStep['list-root'].result.content, top.map((e) => `[${e.type}] ${e.name}`).join('\n'));
    assert.match(byStep['list-root'].result.content, /^\[LINK\] etc-link$/m, 'the symlink is shown as a link');

    const js = disk.entries.filter((e) => e.type === 'FILE' && e.path.endsWith('.js')).map((e) => e.path);
    assert.ok(js.length >= 2);
    assert.equal(byStep['find-js'].result.content, js.join('\n'));

    // search_text reads the unsaved buffer: src/app.js's matches are at the buffer's line numbers.
    const matches = [];
    for (const [file, text] of Object.entries(disk.texts).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (hidden.includes(file)) continue;
      text.split(/\r?\n/).forEach((line, i) => {
        if (line.includes('formatPrice')) matches.push(`${file}:${i + 1}: ${line}`);
      });
    }
    assert.equal(byStep['search-text'].result.content, matches.join('\n'));
    assert.equal(byStep['search-text'].result.structuredContent.matches.length, matches.length);
    const answers = await page.$$eval('[data-testid="log-entry"][data-method="mcp/message"][data-kind="response"] .text', (n) => n.map((x) => x.textContent));
    assert.ok(answers.includes(`${matches.length} matching lines`), answers.join('\n'));
    const diskLines = onDisk.split('\n').map((l, i) => (l.includes('formatPrice') ? i + 1 : 0)).filter(Boolean);
    const found = matches.filter((m) => m.startsWith('/project/src/app.js:')).map((m) => Number(m.split(':')[1]));
    assert.notDeepEqual(found, diskLines, 'the buffer\'s lines, not the file\'s');

    const info = byStep['file-info'].result.content.split('\n');
    assert.ok(info.includes('openInEditor: true') && info.includes('unsavedChanges: true'), info.join('\n'));
    assert.ok(info.includes(`size: ${Buffer.byteLength(unsaved)}`), `the unsaved buffer's size: ${info}`);

    for (const step of ['list-root', 'find-js', 'search-text', 'file-info']) {
      const shown = await page.$eval(`[data-testid="agent-step"][data-step="${step}"]`, (n) => ({
        status: n.dataset.status,
        kind: n.querySelector('.tool-kind').textContent,
        text: n.querySelector('.tool-text')?.textContent.replaceAll('↵', ''),
      }));
      assert.deepEqual(shown, { status: 'completed', kind: step.includes('find') || step.includes('search') ? 'search' : 'read', text: byStep[step].result.content }, step);
    }
  });

  await t.test('edit_file: exact-text edits, approved with a diff, one undo step in CodeMirror, merged with the user\'s typing', async () => {
    const original = byStep['read-util'].result.content;
    const util = await demo(() => window.acpFsDemo.readText('/project/src/util.js'));
    const [edit] = byStep['edit-util'].params.edits;
    assert.ok(original.endsWith(edit.oldText), 'the agent quoted the end of what it read');
    assert.equal(util, original.slice(0, -edit.oldText.length) + edit.newText);
    assert.match(byStep['edit-util'].result.content, /^```diff\nIndex: \/project\/src\/util\.js\n/);
    assert.match(byStep['edit-util'].result.content, /^\+export function slugify\(name\) \{$/m);
    // The log's row for edit_file's answer counts the diff's lines.
    const added = edit.newText.split('\n').length - edit.oldText.split('\n').length;
    const answers = await page.$$eval('[data-testid="log-entry"][data-method="mcp/message"][data-kind="response"] .text', (n) => n.map((x) => x.textContent));
    assert.ok(answers.includes(`diff: +${added} −0 lines`), answers.join('\n'));

    const changes = await demo(() => window.acpFsDemo.changes());
    assert.deepEqual(changes.map((c) => [c.path, c.merged]), [['/project/src/util.js', false], ['/project/src/app.js', true]]);
    assert.equal(await demo(() => window.acpFsDemo.readText('/project/docs/CHANGELOG.md')), null, 'the rejected file was never created');
    assert.match(byStep['write-create'].error.message, /user_rejected/);

    // src/app.js: the agent quoted one line of its earlier read; the user typed a line meanwhile
    // (the scripted user, while the agent thought). The edit lands on the buffer as it is now.
    const app = changes[1];
    const [appEdit] = byStep['edit-app'].params.edits;
    assert.ok(byStep.unsaved.result.content.includes(appEdit.oldText));
    assert.equal(byStep.unsaved.result.content, unsaved, 'the agent read the unsaved buffer');
    assert.notEqual(beforeMerge, unsaved, 'the user typed between the agent\'s read and its edit');
    assert.equal(app.mode, 'buffer', 'the buffer had unsaved edits: the edit lands there');
    assert.equal(app.oldText, beforeMerge);
    const buffer = await demo(() => window.acpFsDemo.documentText('/project/src/app.js'));
    assert.equal(buffer, beforeMerge.replace(appEdit.oldText, appEdit.newText));
    assert.equal(app.newText, buffer);
    assert.equal(await demo(() => window.acpFsDemo.editorText()), buffer, 'the editor shows it');
    assert.equal(await demo(() => window.acpFsDemo.readText('/project/src/app.js')), onDisk, 'the disk is untouched');
    // One Ctrl+Z takes back the agent's edit and nothing else; Ctrl+Y brings it back.
    await page.click('#editor .cm-box:not([hidden]) .cm-content');
    await page.keyboard.press('Control+z');
    assert.equal(await demo(() => window.acpFsDemo.editorText()), beforeMerge, 'one undo: the buffer as it was before the agent\'s edit');
    assert.equal(await demo(() => window.acpFsDemo.documentText('/project/src/app.js')), beforeMerge, 'and the agent would read that');
    await page.keyboard.press('Control+y');
    assert.equal(await demo(() => window.acpFsDemo.editorText()), buffer, 'redo brings the edit back');
    assert.equal(app.sessionId, 'demo-editor', 'the change is the host\'s session key');
    // Each edit answers the reference server's diff (jsdiff's createTwoFilesPatch, in a fence) of
    // the text before and after, as the change record has them.
    for (const [step, change] of [['edit-util', changes[0]], ['edit-app', app]]) {
      const patch = createTwoFilesPatch(change.path, change.path, change.oldText, change.newText, 'original', 'modified');
      assert.equal(byStep[step].result.content, `\`\`\`diff\n${patch}\`\`\`\n\n`, step);
    }
    assert.ok(await page.isVisible('[data-testid="change"][data-path="/project/src/app.js"] [data-testid="merged"]'));
  });

  await t.test('a terminal rewrites package.json, open and unmodified: the agent\'s next read_text_file gets the new text', async () => {
    const steps = await page.$$eval('[data-testid="agent-step"]', (n) => n.map((x) => x.dataset.step));
    const at = (s) => steps.indexOf(s);
    assert.ok(at('read-package') < at('think-terminal') && at('think-terminal') < at('after-terminal'), steps.join(' '));
    assert.notEqual(byStep['read-package'].result.content, byStep['after-terminal'].result.content);
    assert.equal(byStep['after-terminal'].result.content, await demo(() => window.acpFsDemo.readText('/project/package.json')));
    assert.ok(await page.isVisible('[data-testid="terminal-edit"]'));
    assert.deepEqual(await demo(() => window.acpFsDemo.reloads()), ['/project/package.json'], 'the editor reloaded its clean buffer');
  });

  await t.test('refusals are isError results naming the error kind, for the model to read', () => {
    const kinds = { 'outside-root': 'path_outside_roots', 'symlink-escape': 'symlink_escape', denied: 'denied_by_pattern', binary: 'binary_file', 'write-create': 'user_rejected' };
    for (const [step, kind] of Object.entries(kinds)) {
      assert.equal(byStep[step].ok, false, step);
      assert.equal(byStep[step].error.data.isError, true, step);
      assert.ok(byStep[step].error.message.includes(`(${kind})`), `${step}: ${byStep[step].error.message}`);
    }
    assert.equal(byStep.missing.error.data.isError, true);
    assert.match(byStep.missing.error.message, /not found: \/project\/src\/missing\.js/i);
    const refused = results.filter((r) => !r.ok).map((r) => r.step);
    assert.deepEqual(refused, ['outside-root', 'symlink-escape', 'denied', 'missing', 'binary', 'write-create']);
  });

  // Screenshots: the agent finding its way (the listing and search steps, and their rows in the
  // log with session/update hidden), then the whole page at the end.
  await page.uncheck('#log-show-updates');
  await page.$eval('[data-testid="agent-step"][data-step="list-root"]', (n) => n.scrollIntoView({ block: 'start' }));
  await page.$eval('[data-testid="log-entry"][data-method="mcp/message"][data-kind="request"]', (n) => n.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(OUT, 'demo-v2-explore.png'), fullPage: true });
  for (const list of ['#protocol-log', '#agent-transcript']) {
    await page.$eval(list, (n) => {
      n.scrollTop = n.scrollHeight;
    });
  }
  await page.screenshot({ path: path.join(OUT, 'demo-v2.png'), fullPage: true });
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreign, [], 'the page asks nothing of any server but ours');
  assert.deepEqual(await demo(() => window.acpFsDemo.pageErrors()), []);
});
