// The page of tests/browser/editors.test.mjs: real CodeMirror 6 views and a real Monaco editor
// bound to one @acp-fs/wasm engine with `bindCodeMirror` and `bindMonaco`, and an agent made with
// the official ACP SDK that reaches the files only through fs/read_text_file and
// fs/write_text_file over an in-page connection. The test types with the keyboard; this page only
// exposes what it needs to look at (`window.t`).
import { init, AcpFs, acpClientHandlers } from '@acp-fs/wasm';
import { bindCodeMirror } from '@acp-fs/wasm/codemirror';
import { bindMonaco } from '@acp-fs/wasm/monaco';
import * as acp from '@agentclientprotocol/sdk';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, undoDepth } from '@codemirror/commands';
import * as monaco from 'monaco-editor/editor/editor.api.js';

self.MonacoEnvironment = { getWorker: () => new Worker(new URL('./editor.worker.js', import.meta.url), { type: 'module' }) };

const utf8 = new TextEncoder();
const text8 = new TextDecoder();
const lines = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

/** The disk: a map of paths to bytes, shaped like the part of fs.promises acp-fs uses. */
const files = new Map(
  Object.entries({
    '/p/cm.js': lines('line', 10),
    '/p/clean.js': lines('clean', 6),
    '/p/mo.ts': lines('mono', 10),
    '/p/mo-clean.ts': lines('mclean', 6),
    '/p/race.js': lines('race', 4),
    // Written on Windows: an editor holds lines, the file keeps its CRLF.
    '/p/crlf-cm.txt': 'one\r\ntwo\r\nthree\r\n',
    '/p/crlf-mo.txt': 'one\r\ntwo\r\nthree\r\n',
  }).map(([k, v]) => [k, utf8.encode(v)]),
);
const enoent = (path) => Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
const storage = {
  async readFile(path) {
    const bytes = files.get(path);
    if (!bytes) throw enoent(path);
    return bytes.slice();
  },
  async writeFile(path, data) {
    files.set(path, typeof data === 'string' ? utf8.encode(data) : new Uint8Array(data));
  },
};
const disk = (path) => (files.has(path) ? text8.decode(files.get(path)) : null);
/** How the editor opens a file: what the bindings reload a stale buffer from. */
const read = async (path) => text8.decode(await storage.readFile(path));
/** The same, held while the test has a gate up: the user types while the file is being read. */
let gate = null;
let gatedReads = 0;
const gatedRead = async (path) => {
  if (gate) await gate.promise;
  gatedReads++;
  return read(path);
};

async function main() {
  await init();
  const changes = [];
  const fs = new AcpFs({ storage, onChange: (c) => changes.push(c) });
  fs.openSession('s1', { cwd: '/p' });

  // The ACP connection: the page is the client (acp-fs answers fs/*), the agent is the SDK's.
  const toAgent = new TransformStream();
  const toClient = new TransformStream();
  const handlers = acpClientHandlers(fs, acp.RequestError);
  acp
    .client({ name: 'editors test page' })
    .onRequest(acp.methods.client.fs.readTextFile, handlers.readTextFile)
    .onRequest(acp.methods.client.fs.writeTextFile, handlers.writeTextFile)
    .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  const agent = acp.agent({ name: 'editors test agent' }).connect(acp.ndJsonStream(toClient.writable, toAgent.readable)).client;
  const agentRead = async (path) => (await agent.request(acp.methods.client.fs.readTextFile, { sessionId: 's1', path })).content;
  const agentWrite = (path, content) => agent.request(acp.methods.client.fs.writeTextFile, { sessionId: 's1', path, content });

  // CodeMirror: one view per file, with the real history and its keymap (Ctrl+Z).
  const cm = {};
  for (const [name, path] of [
    ['typed', '/p/cm.js'],
    ['clean', '/p/clean.js'],
    ['crlf', '/p/crlf-cm.txt'],
    ['race', '/p/race.js'],
  ]) {
    const view = new EditorView({
      state: EditorState.create({ doc: disk(path), extensions: [history(), keymap.of([...historyKeymap, ...defaultKeymap])] }),
      parent: document.getElementById(`cm-${name}`),
    });
    cm[name] = { view, path, binding: bindCodeMirror(fs, view, { path, read: name === 'race' ? gatedRead : read }) };
  }

  // Monaco: every file: model is bound, shown in an editor or not.
  const mo = bindMonaco(fs, monaco, { read });
  const models = {
    typed: monaco.editor.createModel(disk('/p/mo.ts'), 'plaintext', monaco.Uri.file('/p/mo.ts')),
    clean: monaco.editor.createModel(disk('/p/mo-clean.ts'), 'plaintext', monaco.Uri.file('/p/mo-clean.ts')),
    crlf: monaco.editor.createModel(disk('/p/crlf-mo.txt'), 'plaintext', monaco.Uri.file('/p/crlf-mo.txt')),
  };
  // The lines each model's last change replaced: an agent's write must touch only its own.
  const lastEdit = {};
  for (const [name, model] of Object.entries(models)) {
    model.onDidChangeContent((e) => {
      lastEdit[name] = e.changes.map((c) => `${c.range.startLineNumber}-${c.range.endLineNumber}`);
    });
  }
  // A model that is no file: not a document.
  monaco.editor.createModel('scratch\n', 'plaintext', monaco.Uri.parse('inmemory://scratch'));
  const editor = monaco.editor.create(document.getElementById('monaco'), { model: models.typed, automaticLayout: false, minimap: { enabled: false } });

  window.t = {
    ready: true,
    changes,
    disk,
    terminal: (path, text) => files.set(path, utf8.encode(text)),
    document: (path) => fs.documents.get(path),
    agentRead,
    agentWrite,
    hold() {
      let release;
      gate = { promise: new Promise((r) => (release = r)), release };
    },
    release() {
      gate.release();
      gate = null;
    },
    gatedReads: () => gatedReads,
    cm: {
      text: (name) => cm[name].view.state.doc.toString(),
      head: (name) => cm[name].view.state.selection.main.head,
      undoDepth: (name) => undoDepth(cm[name].view.state),
      dirty: (name) => cm[name].binding.dirty,
      dispose: (name) => cm[name].binding.dispose(),
    },
    monaco: {
      text: (name) => models[name].getValue(),
      selection: () => editor.getSelection().toString(),
      eol: (name) => models[name].getEOL(),
      lastEdit: (name) => lastEdit[name],
      dirty: (name) => mo.isDirty(models[name]),
      documents: () => monaco.editor.getModels().map((m) => [m.uri.toString(), fs.documents.get(m.uri.scheme === 'file' ? m.uri.fsPath : '/none')]),
      dispose: () => mo.dispose(),
    },
  };
  document.getElementById('status').textContent = 'ready';
}

main().catch((e) => {
  document.getElementById('status').textContent = `failed: ${e?.stack ?? e}`;
  console.error(e);
});
