// The agent transcript: what the agent reports through session/update (tool calls and what they got
// back, messages), the user's side of the conversation as it sees it.

import { renderDiff } from './diff-view.mjs';
import { $, el, appendPinned, keepPinned, withTerminators } from './dom.mjs';

/**
 * @param {object} deps
 * @param {(step: string) => void} deps.onStep  told each tool call's demo step as it starts
 * @returns `onSessionUpdate(params)` (the client's session/update handler) and
 *   `message(kind, text, testid?)`
 */
export function createTranscript({ onStep }) {
  const list = $('agent-transcript');
  const toolCalls = new Map(); // toolCallId -> {node, status, body}

  function onSessionUpdate({ update }) {
    if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text') {
      message('agent-msg', update.content.text.trim(), 'agent-message');
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
      if (update._meta?.demoStep) onStep(update._meta.demoStep);
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

  /** One line of the conversation; `kind` is its class: agent-msg, user-msg, end-msg. */
  function message(kind, text, testid) {
    appendPinned(list, el('li', { class: `msg ${kind}`, dataset: testid ? { testid } : undefined }, text));
  }

  return { onSessionUpdate, message };
}
