// The demo's agent, built with the official @agentclientprotocol/sdk the way a real coding agent
// is: it answers initialize / session/new / session/prompt, reports its work as tool calls
// (session/update), and reaches the editor's files only through the protocol: ACP v1's
// fs/read_text_file and fs/write_text_file, or, when session/new declared the editor's MCP server
// over the ACP connection (ACP v2, `mcp/message`), that server's tools. It runs in the page, but
// it only ever sees the JSON-RPC stream.

// The unstable entry: MCP over ACP (`McpOverAcpCaller`) is not in the stable schema yet.
import * as acp from '@agentclientprotocol/sdk/unstable';

const READ = acp.methods.client.fs.readTextFile;
const WRITE = acp.methods.client.fs.writeTextFile;
const UPDATE = acp.methods.client.session.update;

export const TOUR_PROMPT = 'Show me what you can do with my files.';

/** How long the agent "thinks" between reading src/app.js and writing it back: long enough to see. */
const THINK_MS = 900;

const PREVIEW = 2_000;

/**
 * Connects the agent to `stream`.
 * @returns {{ results: object[], send(sessionId, method, params): Promise<object> }}
 *   `results`: every fs call the agent made and what it got back (the page exposes it to tests);
 *   `send`: one call as this agent, over the same connection (the page's request form).
 */
export function startDemoAgent(stream) {
  const results = [];
  let clientFs = { readTextFile: false, writeTextFile: false };
  // ACP v2: MCP requests to the client's servers, carried as mcp/message over this connection.
  const caller = new acp.McpOverAcpCaller({ clientInfo: { name: 'acp-fs-demo-agent', version: '0.1.0' } });

  /**
   * One file operation the way this session is served: fs/* (ACP v1), or the tools of the MCP
   * server the client declared in session/new (ACP v2), whose results are shaped back into what
   * fs/* answers so the tour reads both alike. A tool's failure is an `isError` result.
   */
  async function perform(client, session, method, params) {
    if (!session?.files) return client.request(method, params);
    const { sessionId: _, ...args } = params;
    const tool = method === WRITE ? 'write_text_file' : 'read_text_file';
    const out = await caller.request(client, session.files.serverId, 'tools/call', { name: tool, arguments: args });
    if ('error' in out) throw Object.assign(new Error(out.error.message), { code: out.error.code, data: out.error.data });
    const text = (out.result.content ?? []).map((c) => c.text ?? '').join('');
    if (out.result.isError) throw Object.assign(new Error(text), { code: null, data: { isError: true } });
    return method === WRITE ? {} : { content: text };
  }
  let nextCall = 1;
  let nextSession = 1;

  /** One fs call, reported to the client as a tool call before and after. */
  async function fsCall(client, sessionId, step, title, method, params, diffBase) {
    const toolCallId = `call_${nextCall++}`;
    const update = (u) => client.notify(UPDATE, { sessionId, update: u });
    await update({
      sessionUpdate: 'tool_call',
      toolCallId,
      title,
      kind: method === WRITE ? 'edit' : 'read',
      status: 'in_progress',
      locations: [{ path: params.path, ...(Number.isInteger(params.line) ? { line: params.line } : {}) }],
      rawInput: { method, params: method === WRITE ? { ...params, content: clip(params.content) } : params },
      _meta: { demoStep: step },
    });
    const record = { step, method, params, ok: false };
    const session = sessions.get(sessionId);
    const capable = session?.files
      ? session.tools.includes(method === WRITE ? 'write_text_file' : 'read_text_file')
      : method === WRITE
        ? clientFs.writeTextFile
        : clientFs.readTextFile;
    if (!capable) {
      // ACP: an agent MUST NOT call a method the client did not advertise (nor a tool not listed).
      record.skipped = session?.files
        ? `the client's MCP server has no ${method === WRITE ? 'write_text_file' : 'read_text_file'} tool`
        : `the client does not advertise fs.${method === WRITE ? 'writeTextFile' : 'readTextFile'}`;
    } else {
      try {
        record.result = await perform(client, session, method, params);
        record.ok = true;
      } catch (e) {
        // The SDK rejects with its RequestError: code, message and data exactly as the client sent them.
        record.error = { code: e.code, message: e.message, data: e.data ?? null };
      }
    }
    results.push(record);
    const content = [];
    if (record.ok && method === READ) {
      content.push({ type: 'content', content: { type: 'text', text: clip(record.result.content) } });
    } else if (record.ok && method === WRITE) {
      content.push({ type: 'diff', path: params.path, oldText: diffBase ?? null, newText: clip(params.content) });
    }
    await update({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: record.ok ? 'completed' : 'failed',
      content,
      rawOutput: record.ok ? summarize(record.result) : { error: record.error ?? { message: record.skipped } },
    });
    return record;
  }

  /** A pause reported as a `think` tool call: the user may edit files meanwhile. */
  async function think(client, sessionId, step, title, ms) {
    const toolCallId = `call_${nextCall++}`;
    const update = (u) => client.notify(UPDATE, { sessionId, update: u });
    await update({ sessionUpdate: 'tool_call', toolCallId, title, kind: 'think', status: 'in_progress', _meta: { demoStep: step } });
    await new Promise((resolve) => setTimeout(resolve, ms));
    await update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
  }

  async function say(client, sessionId, text) {
    await client.notify(UPDATE, {
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
  }

  /** The scripted tour: each call shows one rule of docs/semantics.md at work. */
  async function tour(client, sessionId, root) {
    const p = (rel) => `${root}/${rel}`;
    const call = (step, title, method, params, base) => fsCall(client, sessionId, step, title, method, { sessionId, ...params }, base);
    const first = results.length;
    const session = sessions.get(sessionId);
    if (session.files) {
      // ACP v2: what the editor's MCP server offers decides what this agent may call.
      const listed = await caller.request(client, session.files.serverId, 'tools/list', {});
      session.tools = 'result' in listed ? listed.result.tools.map((t) => t.name) : [];
      await say(client, sessionId, `ACP v2: the editor serves its files as MCP tools over this connection (${session.tools.join(', ')}). Reading the project through them, then proposing three edits.\n`);
    } else {
      await say(client, sessionId, 'Reading the project through the editor (fs/read_text_file), then proposing three edits.\n');
    }

    await call('window-start', 'Read lines 1–3 of logs/server.log', READ, { path: p('logs/server.log'), line: 1, limit: 3 });
    await call('window-middle', 'Read lines 10000–10002 of logs/server.log', READ, { path: p('logs/server.log'), line: 10000, limit: 3 });
    await call('window-end', 'Read 10 lines from line 19999 of logs/server.log (only 2 left)', READ, {
      path: p('logs/server.log'),
      line: 19999,
      limit: 10,
    });
    await call('crlf', 'Read lines 2–3 of docs/windows-notes.txt (CRLF kept)', READ, { path: p('docs/windows-notes.txt'), line: 2, limit: 2 });
    await call('bom', 'Read data/report.csv (its UTF-8 BOM is not content)', READ, { path: p('data/report.csv') });
    const app = await call('unsaved', 'Read src/app.js (open in the editor with unsaved edits)', READ, { path: p('src/app.js') });
    await call('outside-root', 'Read /etc/hosts (outside the session root)', READ, { path: '/etc/hosts' });
    await call('symlink-escape', 'Read etc-link/hosts (a symlink leading out of the root)', READ, { path: p('etc-link/hosts') });
    await call('denied', 'Read .env (secrets are on the deny list)', READ, { path: p('.env') });
    await call('missing', 'Read src/missing.js (no such file)', READ, { path: p('src/missing.js') });
    await call('binary', 'Read assets/logo.png (binary)', READ, { path: p('assets/logo.png') });

    // A file the user has open and has not modified; a terminal rewrites it while the agent waits,
    // and the agent's next read gets the new text, not the editor's old copy (semantics.md §9).
    await call('read-package', 'Read package.json (open in the editor, unmodified)', READ, { path: p('package.json') });
    await think(client, sessionId, 'think-terminal', 'Waiting for `npm version minor` in the terminal', THINK_MS);
    await call('after-terminal', 'Read package.json again (a terminal changed it; the editor had it open)', READ, { path: p('package.json') });

    const util = await call('read-util', 'Read src/util.js before editing it', READ, { path: p('src/util.js') });
    if (util.ok) {
      const next = `${util.result.content}\n/** Lower-case, dash-separated: "Blue Pencil" -> "blue-pencil". */\nexport function slugify(name) {\n  return name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-');\n}\n`;
      await call('write-modify', 'Edit src/util.js: add slugify()', WRITE, { path: p('src/util.js'), content: next }, util.result.content);
    }
    await call('write-create', 'Create docs/CHANGELOG.md', WRITE, {
      path: p('docs/CHANGELOG.md'),
      content: '# Changelog\n\n## 1.5.0\n- `slugify()` for item URLs\n',
    });

    // Like a real agent, it writes back its whole-file version of what it read minutes ago. The
    // user kept typing meanwhile: acp-fs merges both edits instead of losing theirs (§9).
    if (app.ok) {
      await think(client, sessionId, 'think-app', 'Thinking about src/app.js: take the port from $PORT', THINK_MS);
      const next = app.result.content.replace('}).listen(3000);', '}).listen(Number(process.env.PORT) || 3000);');
      if (next !== app.result.content) {
        await call('write-merge', 'Edit src/app.js: listen on $PORT (whole file, from the earlier read)', WRITE, { path: p('src/app.js'), content: next }, app.result.content);
      }
    }

    const mine = results.slice(first).filter((r) => r.step !== 'custom');
    const failed = mine.filter((r) => !r.ok).length;
    await say(client, sessionId, `Done: ${mine.length} calls, ${failed} refused by the editor.\n`);
  }

  const sessions = new Map();
  const app = acp
    .agent({ name: 'acp-fs demo agent' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientFs = { ...clientFs, ...(params.clientCapabilities?.fs ?? {}) };
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        // It takes MCP servers carried over this ACP connection (the client's files in ACP v2).
        agentCapabilities: { mcpCapabilities: { acp: true } },
        agentInfo: { name: 'acp-fs-demo-agent', version: '0.1.0' },
      };
    })
    .onRequest(acp.methods.agent.session.new, ({ params }) => {
      const sessionId = `sess_${nextSession++}`;
      sessions.set(sessionId, { cwd: params.cwd, files: (params.mcpServers ?? []).find((s) => s.type === 'acp') ?? null, tools: [] });
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.invalidParams({ sessionId: params.sessionId }, 'unknown session');
      const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
      if (text.trim() === TOUR_PROMPT) await tour(client, params.sessionId, session.cwd);
      else {
        await say(client, params.sessionId, `This demo agent only knows the scripted tour ("${TOUR_PROMPT}"); use the request form to send single calls.\n`);
      }
      return { stopReason: 'end_turn' };
    });

  const connection = app.connect(stream);
  return {
    results,
    send: (sessionId, method, params) =>
      fsCall(connection.client, sessionId, 'custom', `${method === WRITE ? 'Write' : 'Read'} ${params.path} (typed by you)`, method, {
        sessionId,
        ...params,
      }),
  };
}

function clip(text) {
  return typeof text === 'string' && text.length > PREVIEW ? `${text.slice(0, PREVIEW)}… (${text.length - PREVIEW} more characters)` : text;
}

function summarize(result) {
  if (result && typeof result.content === 'string') return { contentLength: result.content.length };
  return result;
}
