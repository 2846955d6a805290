// The web IDE of the demo. It owns what an editor owns: the files (an in-memory @zenfs/core file
// system), the open buffers, the user's decisions. acp-fs (@acp-fs/wasm) answers the agent's
// fs/read_text_file and fs/write_text_file against those: roots, windows, encodings, the unsaved
// buffers (its document overlay), approvals, change records, errors with their JSON-RPC codes.

import { init, AcpFs, acpClientHandlers } from '@acp-fs/wasm';
import * as acp from '@agentclientprotocol/sdk';
import { configure, fs as zenfs, InMemory } from '@zenfs/core';
import { startDemoAgent, TOUR_PROMPT } from './agent.mjs';
import { diffLines, diffStats, hunks } from './diff.mjs';
import { $, el, appendPinned, keepPinned, plural, withTerminators } from './dom.mjs';
import { createLogView } from './log-view.mjs';
import { ROOT, seedProject, unsavedAppEdit, userEditWhileAgentThinks } from './project.mjs';
import { loggedConnectionPair } from './wire.mjs';

const vfs = zenfs.promises;
const utf8 = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];

// ---------------------------------------------------------------------------------------------
// Files: what the editor itself knows about bytes (the agent never sees this code path).

/** The editor's own decoding, matching acp-fs's rules so that both sides agree on a file. */
function inspect(bytes) {
  if (bytes.subarray(0, 8192).includes(0)) return { kind: 'binary', size: bytes.length };
  const bom = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2];
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    return { kind: 'not-utf8', size: bytes.length };
  }
  const nl = text.indexOf('\n');
  const eol = nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  if (text.endsWith('\n')) lines--;
  return { kind: 'text', text, bom, eol, lines, size: bytes.length };
}

function encode(text, bom) {
  const body = utf8.encode(text);
  if (!bom) return body;
  const out = new Uint8Array(body.length + 3);
  out.set(BOM);
  out.set(body, 3);
  return out;
}

async function readBytes(path) {
  try {
    const b = await vfs.readFile(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (e) {
    if (e?.code === 'ENOENT') return null;
    throw e;
  }
}

const rel = (path) => (path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path);

// ---------------------------------------------------------------------------------------------
// The acp-fs instance: the whole client side of the two fs methods.

const approvals = []; // {change, resolve}
const documentModes = new Map(); // path -> 'buffer' | 'writeThrough', from onDocumentWrite to onChange
const changes = [];
let acpFs;

function createAcpFs() {
  return new AcpFs({
    storage: vfs,
    // The agent's write waits here; its JSON-RPC response goes out only after the user decides.
    approveWrite: (change) =>
      new Promise((resolve) => {
        approvals.push({ change, resolve });
        if (approvals.length === 1) showApproval();
        else updateApprovalQueue();
      }),
    // A write to a file open in the editor: a buffer with unsaved edits takes the agent's text
    // (still unsaved, nothing lost on disk); a clean buffer is written through to the file too.
    onDocumentWrite: (path) => {
      const mode = docs.get(path)?.dirty ? 'buffer' : 'writeThrough';
      documentModes.set(path, mode);
      return mode;
    },
    onChange: (change) => {
      const mode = documentModes.get(change.path) ?? 'storage';
      documentModes.delete(change.path);
      const record = { ...change, id: changes.length + 1, mode, undone: false };
      changes.push(record);
      const doc = docs.get(change.path);
      if (doc) {
        doc.buffer = acpFs.documents.get(change.path) ?? change.newText;
        if (mode !== 'buffer') doc.saved = doc.buffer;
        doc.dirty = doc.buffer !== doc.saved;
        if (current === change.path) showDocument(change.path);
      }
      renderChanges();
      void renderTree();
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Editor: one textarea; every open buffer is registered with acp-fs's document overlay.

/** path -> {saved, buffer, bom, eol, dirty}; buffers keep the file's own line endings. */
const docs = new Map();
let current = null;

const editor = $('editor');

async function openFile(path) {
  if (current && current !== path) {
    const prev = docs.get(current);
    // A clean buffer is closed when the user leaves it; unsaved ones stay open, like tabs.
    if (prev && !prev.dirty) {
      acpFs.documents.close(current);
      docs.delete(current);
    }
  }
  current = path;
  if (!docs.has(path)) {
    const bytes = await readBytes(path);
    const info = bytes ? inspect(bytes) : null;
    if (!info || info.kind !== 'text') {
      editor.value = '';
      editor.disabled = true;
      $('editor-path').textContent = rel(path);
      $('editor-info').textContent = info ? `${info.kind === 'binary' ? 'binary' : 'not UTF-8'} · ${plural(info.size, 'byte')}` : 'missing';
      $('editor-note').textContent = info
        ? 'This file is not text: the editor does not show it, and acp-fs refuses it to agents (binary_file / not_utf8) instead of decoding it lossily.'
        : 'This file no longer exists.';
      $('dirty-indicator').hidden = true;
      $('save-file').disabled = true;
      $('discard-file').disabled = true;
      void renderTree();
      return;
    }
    docs.set(path, { saved: info.text, buffer: info.text, bom: info.bom, eol: info.eol, dirty: false });
    acpFs.documents.open(path, info.text);
  }
  showDocument(path);
  void renderTree();
}

function showDocument(path) {
  const doc = docs.get(path);
  editor.disabled = false;
  // A textarea always holds LF; the buffer keeps the file's CRLF (see onInput).
  const shown = doc.buffer.replace(/\r\n/g, '\n');
  if (editor.value !== shown) editor.value = shown;
  $('editor-path').textContent = rel(path);
  showInfo(doc);
  $('editor-note').textContent = doc.dirty
    ? 'Unsaved: this text lives in acp-fs’s document overlay (fs.documents.update). The agent reads it, not the file on disk.'
    : 'Saved. Type to create unsaved edits: acp-fs serves the agent your buffer, not the disk.';
  updateDirty(path);
}

function showInfo(doc) {
  const lines = doc.buffer.split('\n').length - (doc.buffer.endsWith('\n') ? 1 : 0);
  $('editor-info').textContent = [doc.eol === '\r\n' ? 'CRLF' : 'LF', doc.bom ? 'UTF-8 BOM' : 'UTF-8', plural(lines, 'line')].join(' · ');
}

function updateDirty(path) {
  const doc = docs.get(path);
  const dirty = Boolean(doc?.dirty);
  if (path === current) {
    $('dirty-indicator').hidden = !dirty;
    $('save-file').disabled = !dirty;
    $('discard-file').disabled = !dirty;
    $('editor-path').classList.toggle('is-dirty', dirty);
  }
  for (const node of document.querySelectorAll('#file-tree [data-testid="tree-file"]')) {
    if (node.dataset.path === path) node.classList.toggle('is-dirty', dirty);
  }
}

editor.addEventListener('input', () => {
  const doc = docs.get(current);
  if (!doc) return;
  doc.buffer = doc.eol === '\r\n' ? editor.value.replace(/\r?\n/g, '\r\n') : editor.value;
  doc.dirty = doc.buffer !== doc.saved;
  acpFs.documents.update(current, doc.buffer);
  updateDirty(current);
  showInfo(doc);
  $('editor-note').textContent = doc.dirty
    ? 'Unsaved: this text lives in acp-fs’s document overlay (fs.documents.update). The agent reads it, not the file on disk.'
    : 'Saved.';
});

async function saveCurrent() {
  const doc = docs.get(current);
  if (!doc) return;
  await vfs.writeFile(current, encode(doc.buffer, doc.bom));
  doc.saved = doc.buffer;
  doc.dirty = false;
  showDocument(current);
  void renderTree();
}

$('save-file').addEventListener('click', () => void saveCurrent());
$('discard-file').addEventListener('click', () => {
  const doc = docs.get(current);
  if (!doc) return;
  doc.buffer = doc.saved;
  doc.dirty = false;
  acpFs.documents.update(current, doc.buffer);
  showDocument(current);
});
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 's') {
    e.preventDefault();
    void saveCurrent();
  }
});

// ---------------------------------------------------------------------------------------------
// File tree: the whole virtual disk, so the user sees what exists outside the root too.

let treeGeneration = 0;

async function renderTree() {
  const generation = ++treeGeneration;
  const items = await listDir('/', 0);
  if (generation !== treeGeneration) return; // a newer render started while this one read files
  $('file-tree').replaceChildren(...items);
}

async function listDir(dir, depth) {
  const entries = await vfs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
  const out = [];
  for (const entry of entries) {
    const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
    const inside = path === ROOT || path.startsWith(`${ROOT}/`);
    const pad = { style: `--depth:${depth}` };
    if (entry.isSymbolicLink()) {
      const target = await vfs.readlink(path);
      out.push(
        el(
          'li',
          { class: 'tree-link', ...pad, dataset: { testid: 'tree-link', path } },
          el('span', { class: 'name' }, entry.name),
          el('span', { class: 'badge warn' }, `symlink → ${target}`),
        ),
      );
    } else if (entry.isDirectory()) {
      out.push(
        el(
          'li',
          { class: `tree-dir${inside ? '' : ' outside'}`, ...pad, dataset: { testid: 'tree-dir', path } },
          el('span', { class: 'name' }, `${entry.name}/`),
          path === ROOT ? el('span', { class: 'badge ok' }, 'session root') : null,
          !inside && !ROOT.startsWith(`${path}/`) ? el('span', { class: 'badge muted' }, 'outside root') : null,
        ),
        ...(await listDir(path, depth + 1)),
      );
    } else {
      const bytes = await readBytes(path);
      const info = inspect(bytes ?? new Uint8Array());
      const doc = docs.get(path);
      const badges = [];
      if (info.kind === 'binary') badges.push(el('span', { class: 'badge warn' }, 'binary'));
      if (info.kind === 'text' && info.eol === '\r\n') badges.push(el('span', { class: 'badge' }, 'CRLF'));
      if (info.kind === 'text' && info.bom) badges.push(el('span', { class: 'badge' }, 'BOM'));
      if (info.kind === 'text' && info.lines >= 1000) badges.push(el('span', { class: 'badge' }, plural(info.lines, 'line')));
      out.push(
        el(
          'li',
          {
            class: `tree-file${path === current ? ' is-current' : ''}${doc?.dirty ? ' is-dirty' : ''}${inside ? '' : ' outside'}`,
            ...pad,
            dataset: { testid: 'tree-file', path },
            tabindex: 0,
            title: path,
            onclick: () => void openFile(path),
            onkeydown: (e) => {
              if (e.key === 'Enter') void openFile(path);
            },
          },
          el('span', { class: 'name' }, entry.name),
          el('span', { class: 'dot', 'aria-label': 'unsaved' }, '●'),
          ...badges,
        ),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Approvals: one prompt at a time, with the diff; further writes queue behind it.

const dialog = $('approval');
dialog.addEventListener('cancel', (e) => e.preventDefault()); // Escape is not a decision

function renderDiff(container, oldText, newText) {
  const ops = diffLines(oldText, newText);
  const rows = hunks(ops, 3).map((op) =>
    op.type === '…'
      ? el('div', { class: 'diff-row skip' }, el('span', { class: 'gutter' }, ''), el('span', { class: 'gutter' }, ''), el('span', { class: 'code' }, `⋯ ${plural(op.skipped, 'unchanged line')}`))
      : el(
          'div',
          { class: `diff-row ${op.type === '+' ? 'add' : op.type === '-' ? 'del' : 'ctx'}` },
          el('span', { class: 'gutter' }, op.a ?? ''),
          el('span', { class: 'gutter' }, op.b ?? ''),
          el('span', { class: 'code' }, `${op.type} ${op.text}`),
        ),
  );
  container.replaceChildren(...rows);
  return diffStats(ops);
}

function showApproval() {
  const head = approvals[0];
  if (!head) {
    if (dialog.open) dialog.close();
    return;
  }
  const { change } = head;
  $('approval-action').textContent = change.created ? 'create' : 'modify';
  $('approval-path').textContent = change.path;
  const stats = renderDiff($('approval-diff'), change.oldText, change.newText);
  const buffer = docs.get(change.path)?.dirty ? ' The file is open with unsaved edits: the agent’s text would replace your buffer, not the file.' : '';
  // §9: the text changed since the agent read it, and acp-fs merged the agent's write with those
  // edits; the diff is against what is there now, so it shows the agent's part only.
  const merged = change.merged
    ? ' Merged: this text changed since the agent read it; acp-fs combined the agent’s whole-file write with those edits, so approving keeps both.'
    : buffer;
  $('approval-summary').textContent = `${change.created ? 'New file' : 'Changes'}: +${stats.added} −${stats.removed} lines, session ${change.sessionId}.${merged}`;
  $('approval-merged').hidden = !change.merged;
  dialog.dataset.path = change.path;
  dialog.dataset.merged = String(Boolean(change.merged));
  updateApprovalQueue();
  if (!dialog.open) dialog.showModal();
}

function updateApprovalQueue() {
  const more = approvals.length - 1;
  $('approval-queue').textContent = more > 0 ? `${plural(more, 'more write')} waiting.` : '';
}

function decide(approved) {
  const head = approvals.shift();
  if (!head) return;
  head.resolve(approved);
  showApproval();
}
$('approve-write').addEventListener('click', () => decide(true));
$('reject-write').addEventListener('click', () => decide(false));

// ---------------------------------------------------------------------------------------------
// Change list with Undo: the change records acp-fs reports for every write it performed.

function latestLiveChange(path) {
  for (let i = changes.length - 1; i >= 0; i--) if (changes[i].path === path && !changes[i].undone) return changes[i];
  return null;
}

async function undo(record) {
  const doc = docs.get(record.path);
  if (record.mode === 'buffer') {
    // The agent's text only ever reached the buffer: put the user's previous buffer back.
    doc.buffer = record.oldText;
    doc.dirty = doc.buffer !== doc.saved;
    acpFs.documents.update(record.path, doc.buffer);
  } else if (record.created) {
    await vfs.unlink(record.path);
    if (doc) {
      acpFs.documents.close(record.path);
      docs.delete(record.path);
    }
  } else {
    // oldText is the text as it was stored (line endings included); the BOM is not text, so the
    // file's own BOM, which acp-fs preserved on write, is put back around it.
    const bytes = await readBytes(record.path);
    const bom = bytes ? inspect(bytes).bom === true : false;
    await vfs.writeFile(record.path, encode(record.oldText, bom));
    if (doc) {
      doc.saved = doc.buffer = record.oldText;
      doc.dirty = false;
      acpFs.documents.update(record.path, doc.buffer);
    }
  }
  record.undone = true;
  if (current === record.path) {
    if (docs.has(record.path)) showDocument(record.path);
    else await openFile(record.path);
  }
  renderChanges();
  void renderTree();
}

function renderChanges() {
  $('change-empty').hidden = changes.length > 0;
  const items = changes
    .slice()
    .reverse()
    .map((record) => {
      const stats = diffStats(diffLines(record.oldText, record.newText));
      const canUndo = !record.undone && latestLiveChange(record.path) === record;
      const diff = el('div', { class: 'diff small' });
      renderDiff(diff, record.oldText, record.newText);
      const where = record.mode === 'buffer' ? ' · into the unsaved buffer' : record.mode === 'writeThrough' ? ' · buffer and file' : '';
      return el(
        'li',
        {
          class: `change${record.undone ? ' is-undone' : ''}`,
          dataset: { testid: 'change', path: record.path, created: String(record.created), state: record.undone ? 'undone' : 'applied', mode: record.mode },
        },
        el(
          'div',
          { class: 'change-head' },
          el('span', { class: 'name', title: record.path }, rel(record.path)),
          el('span', { class: 'badge' }, record.created ? 'created' : 'modified'),
          // The file changed since the agent read it and acp-fs merged both edits (semantics.md §9).
          record.merged ? el('span', { class: 'badge', 'data-testid': 'merged' }, 'merged') : null,
          el('span', { class: 'stats' }, `+${stats.added} −${stats.removed}`),
          el('span', { class: 'spacer' }),
          record.undone
            ? el('span', { class: 'badge muted' }, 'undone')
            : el(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  dataset: { testid: 'undo-change' },
                  disabled: !canUndo,
                  title: canUndo ? (record.created ? 'Delete the created file' : 'Write the previous text back') : 'Undo the later change to this file first',
                  onclick: () => void undo(record),
                },
                'Undo',
              ),
        ),
        // The newest change shows its diff; older ones fold away.
        el('details', { open: record === changes[changes.length - 1] }, el('summary', {}, `diff${where}`), diff),
      );
    });
  $('change-list').replaceChildren(...items);
}

// ---------------------------------------------------------------------------------------------
// Agent transcript: what the agent reports through session/update (tool calls, messages).

const toolCalls = new Map(); // toolCallId -> {node, status, body}

function onSessionUpdate({ update }) {
  const list = $('agent-transcript');
  if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text') {
    appendPinned(list, el('li', { class: 'msg agent-msg', dataset: { testid: 'agent-message' } }, update.content.text.trim()));
  } else if (update.sessionUpdate === 'tool_call') {
    const status = el('span', { class: 'status' }, update.status ?? 'pending');
    const body = el('div', { class: 'tool-body' });
    const node = el(
      'li',
      {
        class: `tool ${update.kind ?? ''}`,
        dataset: { testid: 'agent-step', step: update._meta?.demoStep ?? '', status: update.status ?? 'pending', toolCallId: update.toolCallId },
      },
      el('div', { class: 'tool-head' }, el('span', { class: 'tool-kind' }, update.kind ?? 'tool'), el('span', { class: 'tool-title' }, update.title), status),
      body,
    );
    toolCalls.set(update.toolCallId, { node, status, body });
    appendPinned(list, node);
    if (update._meta?.demoStep === 'think-app') void userTypesWhileAgentThinks();
  } else if (update.sessionUpdate === 'tool_call_update') {
    const call = toolCalls.get(update.toolCallId);
    if (!call) return;
    if (update.status) {
      call.status.textContent = update.status;
      call.node.dataset.status = update.status;
    }
    const parts = [];
    const err = update.rawOutput?.error;
    if (update.status === 'failed' && err) {
      call.node.dataset.errorCode = String(err.code ?? '');
      call.node.dataset.errorKind = err.data?.errorKind ?? '';
      parts.push(
        el(
          'div',
          { class: 'tool-error' },
          el('span', { class: 'code' }, String(err.code ?? '')),
          err.data?.errorKind ? el('span', { class: 'badge warn' }, err.data.errorKind) : null,
          ` ${err.message ?? ''}`,
        ),
      );
    }
    for (const c of update.content ?? []) {
      if (c.type === 'content' && c.content?.type === 'text') {
        const text = c.content.text;
        parts.push(el('pre', { class: 'tool-text' }, text === '' ? el('span', { class: 'ctl' }, 'empty string') : withTerminators(text)));
      } else if (c.type === 'diff') {
        const d = el('div', { class: 'diff small' });
        renderDiff(d, c.oldText ?? null, c.newText);
        parts.push(d);
      }
    }
    if (parts.length) keepPinned(list, () => call.body.replaceChildren(...parts));
  }
}

/**
 * The tour's scripted user: while the agent thinks between its read of src/app.js and its write,
 * "you" add a line to the open buffer, through the same path as typing (buffer, then
 * acpFs.documents.update). The agent's write then has to be merged with it (semantics.md §9).
 */
async function userTypesWhileAgentThinks() {
  const path = `${ROOT}/src/app.js`;
  if (current !== path || !docs.has(path)) await openFile(path);
  const doc = docs.get(path);
  const next = doc ? userEditWhileAgentThinks(doc.buffer, doc.eol) : null;
  if (next === null) return; // the user rewrote the end of the items list: nothing scripted to do
  doc.buffer = next;
  doc.dirty = doc.buffer !== doc.saved;
  acpFs.documents.update(path, doc.buffer);
  showDocument(path);
  $('editor-note').textContent =
    'You (scripted) added the Ruler item while the agent was thinking: unsaved, in acp-fs’s document overlay. The agent’s write, based on its earlier read, will be merged with it.';
  editor.classList.remove('flash');
  void editor.offsetWidth; // restart the animation
  editor.classList.add('flash');
  appendPinned(
    $('agent-transcript'),
    el('li', { class: 'msg user-msg', dataset: { testid: 'user-edit' } }, 'You (scripted, while the agent thinks): add { id: 4, name: \'Ruler\' } to src/app.js, unsaved.'),
  );
}

// ---------------------------------------------------------------------------------------------
// Boot: the engine, the virtual disk, the two SDK ends, the session.

let agent;
let agentConn;
let sessionId;
let tourState = 'idle';
const pageErrors = [];

async function main() {
  await init();
  await configure({ mounts: { '/': InMemory } });
  await seedProject(vfs);
  acpFs = createAcpFs();

  const log = createLogView($('protocol-log'));
  $('log-show-updates').addEventListener('change', (e) => $('protocol-log').classList.toggle('hide-updates', !e.target.checked));
  $('clear-log').addEventListener('click', () => log.clear());
  const streams = loggedConnectionPair((dir, line) => log.add(dir, line));

  agent = startDemoAgent(streams.agent);

  // acp-fs errors must reach the agent as the SDK's RequestError, or the SDK turns every one of
  // them into -32603 and the agent cannot tell a missing file (-32002) from a denial.
  const handlers = acpClientHandlers(acpFs, acp.RequestError);
  const client = acp
    .client({ name: 'acp-fs browser demo' })
    .onRequest(acp.methods.client.fs.readTextFile, handlers.readTextFile)
    .onRequest(acp.methods.client.fs.writeTextFile, handlers.writeTextFile)
    .onNotification(acp.methods.client.session.update, ({ params }) => onSessionUpdate(params));
  agentConn = client.connect(streams.client).agent;

  await agentConn.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: acpFs.capabilities() },
    clientInfo: { name: 'acp-fs-browser-demo', version: '0.1.0' },
  });
  ({ sessionId } = await agentConn.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [] }));
  acpFs.openSession(sessionId, { cwd: ROOT });

  // The demo starts with one unsaved edit, so the tour's read of src/app.js shows the buffer.
  await openFile(`${ROOT}/src/app.js`);
  const doc = docs.get(`${ROOT}/src/app.js`);
  doc.buffer = unsavedAppEdit(doc.saved);
  doc.dirty = doc.buffer !== doc.saved;
  acpFs.documents.update(`${ROOT}/src/app.js`, doc.buffer);
  showDocument(`${ROOT}/src/app.js`);
  await renderTree();
  renderChanges();

  $('run-agent').addEventListener('click', () => void runTour());
  setupRequestForm();
  $('run-agent').disabled = false;
  $('req-send').disabled = false;
  editor.disabled = false;

  const caps = acpFs.capabilities();
  setStatus('ready', `Ready · @acp-fs/wasm · clientCapabilities.fs = ${JSON.stringify(caps)} · session ${sessionId}`);
  window.acpFsDemo = debugHandle(log);
}

async function runTour() {
  const button = $('run-agent');
  button.disabled = true;
  tourState = 'running';
  document.body.dataset.tour = tourState;
  appendPinned($('agent-transcript'), el('li', { class: 'msg user-msg' }, `You: ${TOUR_PROMPT}`));
  try {
    const res = await agentConn.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: TOUR_PROMPT }],
    });
    appendPinned($('agent-transcript'), el('li', { class: 'msg end-msg', dataset: { testid: 'tour-end' } }, `Turn ended: ${res.stopReason}`));
    tourState = 'done';
  } catch (e) {
    appendPinned($('agent-transcript'), el('li', { class: 'msg end-msg failed' }, `Prompt failed: ${e.message}`));
    tourState = 'failed';
  }
  document.body.dataset.tour = tourState;
  button.disabled = false;
  button.textContent = 'Run the scripted agent again';
}

function setupRequestForm() {
  const method = $('req-method');
  const sync = () => {
    const write = method.value === 'fs/write_text_file';
    document.querySelector('.request-form .read-only').hidden = write;
    document.querySelector('.request-form .write-only').hidden = !write;
  };
  method.addEventListener('change', sync);
  sync();
  const number = (v) => (v.trim() === '' ? undefined : Number(v));
  $('request-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const out = $('request-result');
    const params = { path: $('req-path').value };
    if (method.value === 'fs/write_text_file') params.content = $('req-content').value;
    else {
      const line = number($('req-line').value);
      const limit = number($('req-limit').value);
      if (line !== undefined) params.line = line;
      if (limit !== undefined) params.limit = limit;
    }
    out.dataset.state = 'pending';
    out.textContent = method.value === 'fs/write_text_file' ? 'waiting for your decision…' : 'sent…';
    const record = await agent.send(sessionId, method.value, params);
    out.dataset.state = record.ok ? 'ok' : 'error';
    out.dataset.errorCode = record.error ? String(record.error.code) : '';
    out.textContent = record.ok
      ? 'content' in record.result
        ? `ok: ${record.result.content.length} chars (see the transcript)`
        : 'ok: {}'
      : `${record.error?.code ?? ''} ${record.error?.message ?? record.skipped}`;
  });
}

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

/** For the end-to-end test and for curious users in the console. */
function debugHandle(log) {
  return {
    ready: true,
    root: ROOT,
    sessionId,
    acpFs,
    vfs,
    get tourState() {
      return tourState;
    },
    async readText(path) {
      const bytes = await readBytes(path);
      return bytes === null ? null : new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    },
    async readBytes(path) {
      const bytes = await readBytes(path);
      return bytes === null ? null : Array.from(bytes);
    },
    documentText: (path) => acpFs.documents.get(path),
    changes: () =>
      changes.map(({ id, sessionId: s, path, created, oldText, newText, mode, undone, merged }) => ({
        id,
        sessionId: s,
        path,
        created,
        oldText,
        newText,
        mode,
        undone,
        merged: merged === true,
      })),
    agentResults: () => JSON.parse(JSON.stringify(agent.results)),
    log: () => log.entries.map((e) => ({ ...e })),
    pendingApprovals: () => approvals.map((a) => a.change.path),
    pageErrors: () => pageErrors.slice(),
  };
}

window.addEventListener('error', (e) => pageErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => pageErrors.push(String(e.reason?.stack ?? e.reason)));

main().catch((e) => {
  console.error(e);
  setStatus('failed', `Failed to start: ${e?.message ?? e}`);
});
