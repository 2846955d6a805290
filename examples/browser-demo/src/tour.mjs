// The page's side of the scripted tour: the prompt that starts it, and the scripted user.

import * as acp from '@agentclientprotocol/sdk';
import { TOUR_PROMPT } from './agent.mjs';
import { $, el, appendPinned } from './dom.mjs';
import { ROOT, userEditWhileAgentThinks } from './project.mjs';

export function createTour({ acpFs, editor }) {
  const { docs, openFile, showDocument } = editor;
  let tourState = 'idle';

  /**
   * The tour's scripted user: while the agent thinks between its read of src/app.js and its write,
   * "you" add a line to the open buffer, through the same path as typing (buffer, then
   * acpFs.documents.update). The agent's write then has to be merged with it (semantics.md §9).
   */
  async function userTypesWhileAgentThinks() {
    const path = `${ROOT}/src/app.js`;
    if (editor.current !== path || !docs.has(path)) await openFile(path);
    const doc = docs.get(path);
    const next = doc ? userEditWhileAgentThinks(doc.buffer, doc.eol) : null;
    if (next === null) return; // the user rewrote the end of the items list: nothing scripted to do
    doc.buffer = next;
    doc.dirty = doc.buffer !== doc.saved;
    acpFs.documents.update(path, doc.buffer);
    showDocument(path);
    $('editor-note').textContent =
      'You (scripted) added the Ruler item while the agent was thinking: unsaved, in acp-fs’s document overlay. The agent’s write, based on its earlier read, will be merged with it.';
    editor.textarea.classList.remove('flash');
    void editor.textarea.offsetWidth; // restart the animation
    editor.textarea.classList.add('flash');
    appendPinned(
      $('agent-transcript'),
      el('li', { class: 'msg user-msg', dataset: { testid: 'user-edit' } }, 'You (scripted, while the agent thinks): add { id: 4, name: \'Ruler\' } to src/app.js, unsaved.'),
    );
  }

  async function runTour(agentConn, sessionId) {
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

  return {
    run: runTour,
    userTypesWhileAgentThinks,
    get state() {
      return tourState;
    },
  };
}
