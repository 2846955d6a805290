// The page's side of the scripted tour (the agent's side is in agent.mjs): the prompt that starts
// it, and a scripted user who types into src/app.js while the agent is thinking, so that the
// agent's write has something to be merged with (docs/semantics.md §9).

import * as acp from '@agentclientprotocol/sdk';
import { TOUR_PROMPT } from './agent.mjs';
import { $ } from './dom.mjs';
import { vfs } from './disk.mjs';
import { npmVersionMinor, ROOT, userEditWhileAgentThinks } from './project.mjs';
import { encode } from './text-file.mjs';

/**
 * @param {object} deps
 * @param {ReturnType<import('./editor.mjs').createEditor>} deps.editor
 * @param {ReturnType<import('./transcript.mjs').createTranscript>} deps.transcript
 * @returns `run(agentConn, sessionId)` (sends the prompt, the Run button), `onAgentStep(step)` (the
 *   transcript's hook), and `state`: 'idle', 'running', 'done' or 'failed'.
 */
export function createTour({ editor, transcript }) {
  let tourState = 'idle';

  /**
   * The scripted user adds a line to the open buffer through the same path as typing; the agent's
   * whole-file write, made from its earlier read, then has to be merged with it.
   */
  async function userTypesWhileAgentThinks() {
    const path = `${ROOT}/src/app.js`;
    if (editor.current !== path || !editor.doc(path)) await editor.openFile(path);
    const doc = editor.doc(path);
    // The view holds "\n" lines whatever the file uses (saving restores the file's own).
    const next = doc ? userEditWhileAgentThinks(doc.buffer) : null;
    if (next === null) return; // the user rewrote the end of the items list: nothing scripted to do
    editor.setBuffer(path, next);
    editor.showDocument(path);
    editor.note(
      'You (scripted) added the Ruler item while the agent was thinking: unsaved, in acp-fs’s document overlay. The agent’s write, based on its earlier read, will be merged with it.',
    );
    editor.flash();
    transcript.message('user-msg', 'You (scripted, while the agent thinks): add { id: 4, name: \'Ruler\' } to src/app.js, unsaved.', 'user-edit');
  }

  /**
   * The user has package.json open, unmodified; a terminal rewrites the file (the editor does not
   * watch the disk). The agent's next read gets the new text, and the binding reloads the view.
   */
  async function terminalRewritesOpenFile() {
    const path = `${ROOT}/package.json`;
    if (editor.current !== path || !editor.doc(path)) await editor.openFile(path);
    const doc = editor.doc(path);
    const next = doc && !doc.dirty ? npmVersionMinor(doc.saved) : null;
    if (next === null) return; // the user edited it: the scripted terminal leaves it alone
    await vfs.writeFile(path, encode(next, doc.bom));
    transcript.message(
      'user-msg',
      'A terminal (scripted): `npm version minor --no-git-tag-version` rewrote package.json, which the editor has open and unmodified.',
      'terminal-edit',
    );
  }

  // The agent announces its pauses as 'think' tool calls: before writing src/app.js ('think-app',
  // the user's moment to type) and between two reads of package.json ('think-terminal').
  function onAgentStep(step) {
    if (step === 'think-app') void userTypesWhileAgentThinks();
    if (step === 'think-terminal') void terminalRewritesOpenFile();
  }

  async function run(agentConn, sessionId) {
    const button = $('run-agent');
    button.disabled = true;
    tourState = 'running';
    document.body.dataset.tour = tourState;
    transcript.message('user-msg', `You: ${TOUR_PROMPT}`);
    try {
      const res = await agentConn.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: TOUR_PROMPT }],
      });
      transcript.message('end-msg', `Turn ended: ${res.stopReason}`, 'tour-end');
      tourState = 'done';
    } catch (e) {
      transcript.message('end-msg failed', `Prompt failed: ${e.message}`);
      tourState = 'failed';
    }
    document.body.dataset.tour = tourState;
    button.disabled = false;
    button.textContent = 'Run the scripted agent again';
  }

  return {
    run,
    onAgentStep,
    get state() {
      return tourState;
    },
  };
}
