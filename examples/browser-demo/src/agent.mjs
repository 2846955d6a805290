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

/** ACP v2: the tool that does what an fs method does; any other `op` names its tool. */
const toolOf = (op) => (op === READ ? 'read_text_file' : op === WRITE ? 'write_text_file' : op);
/** The tools of the tour that change files (the rest only look). */
const WRITING_TOOLS = new Set(['write_text_file', 'write_file', 'edit_file']);
/** The ACP tool-call kind each of those tools is reported as (read, unless named here). */
const KIND = { search_text: 'search', search_files: 'search', edit_file: 'edit', write_file: 'edit', write_text_file: 'edit' };

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
   * One file operation the way this session is served: fs/* (ACP v1), or a tool of the MCP server
   * the client declared in session/new (ACP v2): `read_text_file` / `write_text_file` for the two
   * fs methods, or any other tool named by `op`. Results are shaped back into what fs/* answers
   * (`{content}` for a read, `{}` for a write), other tools' as `{content: text, structuredContent}`,
   * so the tour reads both modes alike. A tool's failure is an `isError` result.
   */
  async function perform(client, session, op, params) {
    if (!session?.files) return client.request(op, params);
    const { sessionId: _, ...args } = params;
    const tool = toolOf(op);
    const out = await caller.request(client, session.files.serverId, 'tools/call', { name: tool, arguments: args });
    if ('error' in out) throw Object.assign(new Error(out.error.message), { code: out.error.code, data: out.error.data });
    const text = (out.result.content ?? []).map((c) => c.text ?? '').join('');
    if (out.result.isError) throw Object.assign(new Error(text), { code: null, data: { isError: true } });
    if (op === WRITE) return {};
    if (op === READ) return { content: text };
    return { content: text, ...(out.result.structuredContent ? { structuredContent: out.result.structuredContent } : {}) };
  }
  let nextCall = 1;
  let nextSession = 1;

  /**
   * One call, reported to the client as a tool call before and after. `op` is an fs method (the
   * read or write tool in ACP v2), or, in ACP v2 only, the name of another tool of the server.
   * `diff`: for an edit, `{oldText, newText}` the agent expects, shown in the transcript.
   */
  async function fsCall(client, sessionId, step, title, op, params, diff) {
    const toolCallId = `call_${nextCall++}`;
    const update = (u) => client.notify(UPDATE, { sessionId, update: u });
    const writes = op === WRITE || WRITING_TOOLS.has(op);
    const session = sessions.get(sessionId);
    await update({
      sessionUpdate: 'tool_call',
      toolCallId,
      title,
      kind: KIND[op] ?? (writes ? 'edit' : 'read'),
      status: 'in_progress',
      locations: [{ path: params.path, ...(Number.isInteger(params.line) ? { line: params.line } : {}) }],
      rawInput: session?.files
        ? { tool: toolOf(op), arguments: clipArgs(params) }
        : { method: op, params: op === WRITE ? { ...params, content: clip(params.content) } : params },
      _meta: { demoStep: step },
    });
    const record = { step, method: op, params, ok: false };
    if (session?.files) record.tool = toolOf(op);
    const capable = session?.files ? session.tools.includes(toolOf(op)) : op === WRITE ? clientFs.writeTextFile : clientFs.readTextFile;
    if (!capable) {
      // ACP: an agent MUST NOT call a method the client did not advertise (nor a tool not listed).
      record.skipped = session?.files
        ? `the client's MCP server has no ${toolOf(op)} tool`
        : `the client does not advertise fs.${op === WRITE ? 'writeTextFile' : 'readTextFile'}`;
    } else {
      try {
        record.result = await perform(client, session, op, params);
        record.ok = true;
      } catch (e) {
        // The SDK rejects with its RequestError: code, message and data exactly as the client sent them.
        record.error = { code: e.code, message: e.message, data: e.data ?? null };
      }
    }
    results.push(record);
    const content = [];
    if (record.ok && op === WRITE) {
      content.push({ type: 'diff', path: params.path, oldText: diff ?? null, newText: clip(params.content) });
    } else if (record.ok && diff) {
      content.push({ type: 'diff', path: params.path, oldText: diff.oldText, newText: diff.newText });
    } else if (record.ok && typeof record.result.content === 'string') {
      content.push({ type: 'content', content: { type: 'text', text: clip(record.result.content) } });
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
    const call = (step, title, op, params, diff) => fsCall(client, sessionId, step, title, op, { sessionId, ...params }, diff);
    const first = results.length;
    const session = sessions.get(sessionId);
    if (session.files) {
      // ACP v2: what the editor's MCP server offers decides what this agent may call.
      const listed = await caller.request(client, session.files.serverId, 'tools/list', {});
      session.tools = 'result' in listed ? listed.result.tools.map((t) => t.name) : [];
      await say(
        client,
        sessionId,
        `ACP v2: the editor serves its files as MCP tools over this connection (${session.tools.join(', ')}). Finding my way around with list_directory, search_files, search_text and get_file_info, reading through read_text_file, then proposing three edits (edit_file, write_text_file).\n`,
      );
      // Like an agent new to a project: its layout, the code files, where a name is used, and
      // whether the file it will change is open in the editor. The listing hides what the deny
      // list hides (.env) and shows the symlink as a link; the search reads the unsaved buffer.
      await call('list-root', 'List the project (list_directory)', 'list_directory', { path: root });
      await call('find-js', 'Find the JavaScript files (search_files **/*.js)', 'search_files', { path: root, pattern: '**/*.js' });
      await call('search-text', 'Search the project for formatPrice (search_text)', 'search_text', { path: root, pattern: 'formatPrice' });
      await call('file-info', 'File info of src/app.js (get_file_info)', 'get_file_info', { path: p('src/app.js') });
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
      const slugify = `\n/** Lower-case, dash-separated: "Blue Pencil" -> "blue-pencil". */\nexport function slugify(name) {\n  return name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-');\n}\n`;
      const next = `${util.result.content}${slugify}`;
      if (session.files) {
        // An exact-text edit: it quotes the file's last two lines and adds the function after them.
        const anchor = util.result.content.split(/(?<=\n)/).slice(-2).join('');
        await call('edit-util', 'Edit src/util.js: add slugify() (edit_file)', 'edit_file', { path: p('src/util.js'), edits: [{ oldText: anchor, newText: `${anchor}${slugify}` }] }, {
          oldText: util.result.content,
          newText: next,
        });
      } else {
        await call('write-modify', 'Edit src/util.js: add slugify()', WRITE, { path: p('src/util.js'), content: next }, util.result.content);
      }
    }
    await call('write-create', 'Create docs/CHANGELOG.md', WRITE, {
      path: p('docs/CHANGELOG.md'),
      content: '# Changelog\n\n## 1.5.0\n- `slugify()` for item URLs\n',
    });

    // ACP v1: like a real agent, it writes back its whole-file version of what it read minutes
    // ago. ACP v2: it quotes the line it read then (edit_file). The user kept typing meanwhile:
    // either way acp-fs keeps both edits instead of losing theirs (§9, §10.7).
    if (app.ok) {
      await think(client, sessionId, 'think-app', 'Thinking about src/app.js: take the port from $PORT', THINK_MS);
      const edit = { oldText: '}).listen(3000);', newText: '}).listen(Number(process.env.PORT) || 3000);' };
      const next = app.result.content.replace(edit.oldText, edit.newText);
      if (next !== app.result.content && session.files) {
        await call('edit-app', 'Edit src/app.js: listen on $PORT (edit_file, quoting the line it read earlier)', 'edit_file', { path: p('src/app.js'), edits: [edit] }, {
          oldText: app.result.content,
          newText: next,
        });
      } else if (next !== app.result.content) {
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

/** A tool call's arguments as the transcript's rawInput shows them: long texts clipped. */
function clipArgs({ sessionId: _, ...args }) {
  if (typeof args.content === 'string') args.content = clip(args.content);
  if (Array.isArray(args.edits)) args.edits = args.edits.map((e) => ({ oldText: clip(e.oldText), newText: clip(e.newText) }));
  return args;
}

function summarize(result) {
  if (result && typeof result.content === 'string') return { contentLength: result.content.length };
  return result;
}
