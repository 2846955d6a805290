// The web IDE of the demo. It owns what an editor owns: the files (an in-memory @zenfs/core file
// system), the open buffers, the user's decisions. acp-fs (@acp-fs/wasm) answers the agent's
// fs/read_text_file and fs/write_text_file against those: roots, windows, encodings, the unsaved
// buffers (its document overlay), approvals, change records, errors with their JSON-RPC codes.
// Each pane is a module of its own; this file boots the engine and the disk, makes the panes and
// connects them to acp-fs and to the two ends of the agent connection.

// The full module: the demo's ACP v2 mode serves the files as MCP tools (fs.mcpOverAcp).
import { init, AcpFs, acpClientHandlers, toRequestError } from '@acp-fs/wasm/full';
// The unstable entry: ACP v2 mode answers `mcp/message`, not in the stable schema yet.
import * as acp from '@agentclientprotocol/sdk/unstable';
import { startDemoAgent } from './agent.mjs';
import { createApprovalDialog } from './approval-dialog.mjs';
import { createChangeList } from './change-list.mjs';
import { debugHandle } from './debug-handle.mjs';
import { mountDisk, vfs } from './disk.mjs';
import { $ } from './dom.mjs';
import { createEditor } from './editor.mjs';
import { createFileTree } from './file-tree.mjs';
import { createLogView } from './log-view.mjs';
import { ROOT, unsavedAppEdit } from './project.mjs';
import { setupRequestForm } from './request-form.mjs';
import { createTour } from './tour.mjs';
import { createTranscript } from './transcript.mjs';
import { loggedConnectionPair } from './wire.mjs';

const pageErrors = [];

/**
 * How the page serves its files to the agent: 'v1' advertises `clientCapabilities.fs` and answers
 * fs/read_text_file and fs/write_text_file; 'v2' (`?acp=v2`) advertises no fs and declares its MCP
 * server in session/new instead, carried over this same connection (`fs.mcpOverAcp`, `mcp/message`).
 */
const MODE = new URLSearchParams(location.search).get('acp') === 'v2' ? 'v2' : 'v1';
/** ACP v2: the host's own key for the session, opened before session/new names the agent's. */
const HOST_KEY = 'demo-editor';

async function main() {
  await init();
  await mountDisk();
  // The whole client side of the two fs methods. Its callbacks run only once the agent calls, by
  // which time the panes below exist.
  const acpFs = new AcpFs({
    storage: vfs,
    approveWrite: (change) => approvals.approveWrite(change),
    onChange: (change) => {
      changeList.add(change, editor.applyAgentWrite(change));
      void tree.render();
    },
  });
  const editor = createEditor({ acpFs, renderTree: () => tree.render() });
  const tree = createFileTree(editor);
  const approvals = createApprovalDialog({ isDirty: editor.isDirty });
  const changeList = createChangeList({ editor, renderTree: () => tree.render() });
  const transcript = createTranscript({ onStep: (step) => tour.onAgentStep(step) });
  const tour = createTour({ editor, transcript });

  const log = createLogView($('protocol-log'));
  $('log-show-updates').addEventListener('change', (e) => $('protocol-log').classList.toggle('hide-updates', !e.target.checked));
  $('clear-log').addEventListener('click', () => log.clear());
  const streams = loggedConnectionPair((dir, line) => log.add(dir, line));

  const agent = startDemoAgent(streams.agent);

  // acp-fs errors must reach the agent as the SDK's RequestError, or the SDK turns every one of
  // them into -32603 and the agent cannot tell a missing file (-32002) from a denial.
  const handlers = acpClientHandlers(acpFs, acp.RequestError);
  let files = null; // ACP v2: the session's MCP server, over this connection
  let client = acp
    .client({ name: 'acp-fs browser demo' })
    .onNotification(acp.methods.client.session.update, ({ params }) => transcript.onSessionUpdate(params));
  client =
    MODE === 'v1'
      ? client.onRequest(acp.methods.client.fs.readTextFile, handlers.readTextFile).onRequest(acp.methods.client.fs.writeTextFile, handlers.writeTextFile)
      : client.onRequest('mcp/message', (ctx) => files.handleMessage(ctx.params, ctx).catch((e) => Promise.reject(toRequestError(e, acp.RequestError))));
  const agentConn = client.connect(streams.client).agent;

  const { agentCapabilities } = await agentConn.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: MODE === 'v1' ? { fs: acpFs.capabilities() } : {},
    clientInfo: { name: 'acp-fs-browser-demo', version: '0.1.0' },
  });
  let sessionId;
  if (MODE === 'v1') {
    ({ sessionId } = await agentConn.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [] }));
    acpFs.openSession(sessionId, { cwd: ROOT });
  } else {
    // Open with the host's key, serve, then declare: the agent names the session only in its answer.
    acpFs.openSession(HOST_KEY, { cwd: ROOT });
    if (acpFs.mcpServerFor(HOST_KEY, agentCapabilities) !== 'acp') throw new Error('the agent takes no MCP server over ACP');
    files = acpFs.mcpOverAcp(HOST_KEY, { name: 'editor-files' });
    ({ sessionId } = await agentConn.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [files.declaration] }));
  }

  // The demo starts with one unsaved edit, so the tour's read of src/app.js shows the buffer.
  const app = `${ROOT}/src/app.js`;
  await editor.openFile(app);
  editor.setBuffer(app, unsavedAppEdit(editor.doc(app).saved));
  editor.showDocument(app);
  await tree.render();
  changeList.render();

  $('run-agent').addEventListener('click', () => void tour.run(agentConn, sessionId));
  setupRequestForm(agent, sessionId);
  $('run-agent').disabled = false;
  $('req-send').disabled = false;

  const caps = acpFs.capabilities();
  setStatus(
    'ready',
    MODE === 'v1'
      ? `Ready · @acp-fs/wasm · ACP v1 · clientCapabilities.fs = ${JSON.stringify(caps)} · session ${sessionId}`
      : `Ready · @acp-fs/wasm · ACP v2 · no clientCapabilities.fs: files served as MCP tools over this connection (mcp/message) · session ${sessionId}`,
  );
  const other = $('mode-switch');
  other.href = MODE === 'v1' ? '?acp=v2' : '?';
  other.textContent = MODE === 'v1' ? 'Switch to ACP v2 (files over MCP)' : 'Switch to ACP v1 (fs/* methods)';
  window.acpFsDemo = debugHandle({
    mode: MODE, log, sessionId, acpFs, editor, tour, changes: changeList.changes, agent, approvals, pageErrors });
}

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

window.addEventListener('error', (e) => pageErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => pageErrors.push(String(e.reason?.stack ?? e.reason)));

main().catch((e) => {
  console.error(e);
  setStatus('failed', `Failed to start: ${e?.message ?? e}`);
});
