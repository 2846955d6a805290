// The protocol log: every JSON-RPC line on the wire, one entry each, with a one-line summary and
// the full message on demand. Responses are matched to their request's method by id, per
// direction, since JSON-RPC responses do not repeat the method.

import { el, appendPinned } from './dom.mjs';
import { AGENT_TO_CLIENT, CLIENT_TO_AGENT } from './wire.mjs';

const MAX_JSON = 20_000;

export function createLogView(list) {
  const entries = [];
  const pending = new Map(); // `${requester direction}:${id}` -> method

  function classify(msg) {
    if (typeof msg.method === 'string') return 'id' in msg ? 'request' : 'notification';
    return 'result' in msg || 'error' in msg ? 'response' : 'invalid';
  }

  function add(dir, line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = { unparsable: line };
    }
    const kind = classify(msg);
    const other = dir === AGENT_TO_CLIENT ? CLIENT_TO_AGENT : AGENT_TO_CLIENT;
    let method = msg.method;
    if (kind === 'request') pending.set(`${dir}:${JSON.stringify(msg.id)}`, msg.method);
    if (kind === 'response') {
      const key = `${other}:${JSON.stringify(msg.id)}`;
      method = pending.get(key);
      pending.delete(key);
    }
    const entry = {
      seq: entries.length + 1,
      dir,
      kind,
      method: method ?? null,
      id: 'id' in msg ? msg.id : null,
      params: msg.params,
      result: msg.result,
      error: msg.error,
      bytes: line.length,
    };
    entries.push(entry);
    appendPinned(list, render(entry, line));
    return entry;
  }

  function render(entry, line) {
    const { dir, kind, method, id, error } = entry;
    const summary = summarize(entry);
    const pretty = line.length > MAX_JSON ? `${line.slice(0, MAX_JSON)}\n… (${line.length - MAX_JSON} more characters)` : prettyJson(line);
    return el(
      'li',
      {
        class: `log-entry ${kind}${error ? ' is-error' : ''}`,
        dataset: {
          testid: 'log-entry',
          dir: dir === AGENT_TO_CLIENT ? 'a2c' : 'c2a',
          kind,
          method: method ?? '',
          id: id === null ? '' : String(id),
          errorCode: error ? String(error.code) : '',
          errorKind: error?.data?.errorKind ?? '',
        },
      },
      el(
        'details',
        {},
        el(
          'summary',
          {},
          el('span', { class: 'dir' }, dir === AGENT_TO_CLIENT ? 'agent → client' : 'client → agent'),
          el('span', { class: 'kind' }, kind === 'response' ? (error ? 'error' : 'result') : kind),
          el('span', { class: 'method' }, method ?? '?'),
          el('span', { class: 'id' }, id !== null ? `#${id}` : ''),
          el('span', { class: 'text' }, summary),
        ),
        el('pre', { class: 'json' }, pretty),
      ),
    );
  }

  return {
    add,
    entries,
    clear() {
      list.replaceChildren();
    },
  };
}

function prettyJson(line) {
  try {
    return JSON.stringify(JSON.parse(line), null, 2);
  } catch {
    return line;
  }
}

const lines = (text) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

/** The lines a unified diff (edit_file's answer) adds and removes, its headers not counted. */
function diffStats(text) {
  const lines = text.split('\n');
  const body = lines.slice(lines.findIndex((l) => l.startsWith('@@')));
  return { added: body.filter((l) => l.startsWith('+')).length, removed: body.filter((l) => l.startsWith('-')).length };
}

/** An MCP result inside mcp/message: the tools listed, a search's count, an edit's diff size, or a tool's text (an error marked). */
function mcpResult(result) {
  const inner = result?.result ?? result;
  if (Array.isArray(inner?.tools)) return `tools: ${inner.tools.map((t) => t.name).join(', ')}`;
  if (Array.isArray(inner?.content)) {
    const text = inner.content.map((c) => c.text ?? '').join('');
    const found = inner.structuredContent?.matches;
    if (!inner.isError && Array.isArray(found)) {
      return `${found.length === 1 ? '1 matching line' : `${found.length} matching lines`}${inner.structuredContent.truncated ? ' (truncated)' : ''}`;
    }
    const diff = /^`{3,}diff\n/.test(text) && diffStats(text);
    if (diff) return `diff: +${diff.added} −${diff.removed} lines`;
    return `${inner.isError ? 'isError: ' : ''}${text.length > 120 ? `${lines(text)} line(s), ${text.length} chars` : text}`;
  }
  return JSON.stringify(result);
}

function summarize({ kind, method, params, result, error }) {
  if (kind === 'response') {
    if (error) {
      const errorKind = error.data?.errorKind ? ` [${error.data.errorKind}]` : '';
      return `${error.code} ${error.message}${errorKind}`;
    }
    if (result && typeof result.content === 'string') {
      return `content: ${lines(result.content)} line(s), ${result.content.length} chars`;
    }
    if (method === 'initialize') return `protocolVersion ${result?.protocolVersion}`;
    if (method === 'session/new') return `sessionId ${result?.sessionId}`;
    if (method === 'session/prompt') return `stopReason ${result?.stopReason}`;
    if (method === 'mcp/message') return mcpResult(result);
    return JSON.stringify(result);
  }
  if (!params || typeof params !== 'object') return '';
  if (method === 'fs/read_text_file' || method === 'fs/write_text_file') {
    const parts = [params.path];
    if (params.line !== undefined && params.line !== null) parts.push(`line ${params.line}`);
    if (params.limit !== undefined && params.limit !== null) parts.push(`limit ${params.limit}`);
    if (typeof params.content === 'string') parts.push(`content ${params.content.length} chars`);
    return parts.join(' · ');
  }
  if (method === 'session/update') {
    const u = params.update ?? {};
    if (u.sessionUpdate === 'tool_call') return `tool_call ${u.toolCallId}: ${u.title}`;
    if (u.sessionUpdate === 'tool_call_update') return `tool_call_update ${u.toolCallId}: ${u.status}`;
    if (u.sessionUpdate === 'agent_message_chunk') return `message: ${u.content?.text ?? ''}`;
    return u.sessionUpdate ?? '';
  }
  if (method === 'initialize') return `clientCapabilities.fs ${JSON.stringify(params.clientCapabilities?.fs)}`;
  if (method === 'session/new') {
    const servers = (params.mcpServers ?? []).map((s) => `${s.type ?? 'stdio'} ${s.name}`);
    return `cwd ${params.cwd}${servers.length ? ` · mcpServers: ${servers.join(', ')}` : ''}`;
  }
  if (method === 'mcp/message') {
    // ACP v2: an MCP request to the client's server; the file operation is a tool call.
    const inner = params.params ?? {};
    if (params.method !== 'tools/call') return params.method;
    const args = inner.arguments ?? {};
    const parts = [`tools/call ${inner.name}`, args.path];
    if (args.line !== undefined && args.line !== null) parts.push(`line ${args.line}`);
    if (args.limit !== undefined && args.limit !== null) parts.push(`limit ${args.limit}`);
    if (typeof args.pattern === 'string') parts.push(`pattern ${args.pattern}`);
    if (Array.isArray(args.edits)) parts.push(args.edits.length === 1 ? '1 edit' : `${args.edits.length} edits`);
    if (typeof args.content === 'string') parts.push(`content ${args.content.length} chars`);
    return parts.join(' · ');
  }
  if (method === 'session/prompt') return params.prompt?.map((b) => b.text ?? `[${b.type}]`).join(' ');
  return '';
}
