// The approval prompt: acp-fs's approveWrite hook lands here. One prompt at a time, with the diff;
// further writes queue behind it, each agent request still unanswered until its turn is decided.

import { renderDiff } from './diff-view.mjs';
import { $, plural } from './dom.mjs';

/**
 * @param {object} deps
 * @param {(path: string) => boolean} deps.isDirty  whether the file has unsaved edits in the editor
 * @param {'v1' | 'v2'} deps.mode  how the agent writes: fs/write_text_file, or a tool call (ACP v2)
 * @returns `approveWrite(change)` (AcpFs's hook: resolves when the user decides) and `pending()`
 *   (the paths waiting, the one on screen first)
 */
export function createApprovalDialog({ isDirty, mode }) {
  const approvals = []; // {change, resolve}
  if (mode === 'v2') $('approval-request').textContent = 'tools/call (mcp/message)';

  const dialog = $('approval');
  dialog.addEventListener('cancel', (e) => e.preventDefault()); // Escape is not a decision

  // The agent's write waits here; its JSON-RPC response goes out only after the user decides.
  const approveWrite = (change) =>
    new Promise((resolve) => {
      approvals.push({ change, resolve });
      if (approvals.length === 1) showApproval();
      else updateApprovalQueue();
    });

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
    const buffer = isDirty(change.path) ? ' The file is open with unsaved edits: the agent’s text would replace your buffer, not the file.' : '';
    // §9: the text changed since the agent read it, and acp-fs merged the agent's write with those
    // edits (or applied its edit_file, anchored by the text it quotes, to the text as it is now);
    // the diff is against what is there now, so it shows the agent's part only.
    const merged = !change.merged
      ? buffer
      : mode === 'v2'
        ? ' Merged: this text changed since the agent read it; acp-fs applied the agent’s change on top of those edits, so approving keeps both.'
        : ' Merged: this text changed since the agent read it; acp-fs combined the agent’s whole-file write with those edits, so approving keeps both.';
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

  return { approveWrite, pending: () => approvals.map((a) => a.change.path) };
}
