// The request form: any single fs call, sent as the demo agent over its own connection.

import { $ } from './dom.mjs';

/**
 * @param {ReturnType<import('./agent.mjs').startDemoAgent>} agent  sends the call
 * @param {string} sessionId  the session the call is made in
 * @param {'v1' | 'v2'} mode  ACP v2: the call goes out as the MCP tool of the same name
 */
export function setupRequestForm(agent, sessionId, mode) {
  const method = $('req-method');
  if (mode === 'v2') for (const o of method.options) o.textContent = `tools/call ${o.value.slice('fs/'.length)}`;
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
