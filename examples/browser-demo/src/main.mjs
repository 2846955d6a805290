// The web IDE of the demo. It owns what an editor owns: the files (an in-memory @zenfs/core file
// system), the open buffers, the user's decisions. acp-fs (@acp-fs/wasm) answers the agent's
// fs/read_text_file and fs/write_text_file against those: roots, windows, encodings, the unsaved
// buffers (its document overlay), approvals, change records, errors with their JSON-RPC codes.
// Each pane is a module of its own; this file boots the engine and the disk, makes the panes and
// connects them to acp-fs and to the two ends of the agent connection.

import { init, AcpFs, acpClientHandlers } from '@acp-fs/wasm';
import * as acp from '@agentclientprotocol/sdk';
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
  const client = acp
    .client({ name: 'acp-fs browser demo' })
    .onRequest(acp.methods.client.fs.readTextFile, handlers.readTextFile)
    .onRequest(acp.methods.client.fs.writeTextFile, handlers.writeTextFile)
    .onNotification(acp.methods.client.session.update, ({ params }) => transcript.onSessionUpdate(params));
  const agentConn = client.connect(streams.client).agent;

  await agentConn.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: acpFs.capabilities() },
    clientInfo: { name: 'acp-fs-browser-demo', version: '0.1.0' },
  });
  const { sessionId } = await agentConn.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [] });
  acpFs.openSession(sessionId, { cwd: ROOT });

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
  setStatus('ready', `Ready · @acp-fs/wasm · clientCapabilities.fs = ${JSON.stringify(caps)} · session ${sessionId}`);
  window.acpFsDemo = debugHandle({ log, sessionId, acpFs, editor, tour, changes: changeList.changes, agent, approvals, pageErrors });
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
