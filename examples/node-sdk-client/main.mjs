#!/usr/bin/env node
// An editor (client) serving ACP fs/read_text_file and fs/write_text_file with @acp-fs/node over a
// real directory, and an agent built with the official @agentclientprotocol/sdk calling them. The
// two talk over an in-memory stream pair carrying the same newline-delimited JSON a stdio
// transport would; swap the pair for a child process's stdio and nothing else changes.
//
//   node examples/node-sdk-client/main.mjs [workdir]
//
// With `workdir`, the sample project is created there and kept (tests inspect it); without it a
// temporary directory is used and removed. Exit code 0 means every call ended as expected.

import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
// In an application this is `import { AcpFs, acpClientHandlers } from '@acp-fs/node'`; the
// example runs from the repository, where the package is built in place.
import { AcpFs, acpClientHandlers } from '../../npm/node/index.mjs';

const say = (who, text) => console.log(`${who.padEnd(6)} ${text}`);
const quote = (s) => JSON.stringify(s.length > 90 ? `${s.slice(0, 87)}...` : s);

// ---------------------------------------------------------------------------------------------
// The sample project: a root the agent may use, and a file beside it that it must not reach.
const keep = process.argv[2] !== undefined;
const work = keep ? path.resolve(process.argv[2]) : await mkdtemp(path.join(tmpdir(), 'acp-fs-example-'));
const root = path.join(work, 'project');
const outside = path.join(work, 'outside-secret.txt');
await mkdir(path.join(root, 'src'), { recursive: true });
await writeFile(
  path.join(root, 'src', 'app.js'),
  [
    "import { greet } from './greeting.js';",
    '',
    'export function main(argv) {',
    '  const name = argv[2] ?? "world";',
    '  console.log(greet(name));',
    '}',
    '',
  ].join('\n'),
);
await writeFile(path.join(root, 'README.md'), '# sample\n\nHand-written; agents should not rewrite it.\n');
await writeFile(outside, 'not for agents\n');

// ---------------------------------------------------------------------------------------------
// The agent: answers initialize / session/new, and on a prompt performs four fs calls, checking
// the capabilities the client advertised first (an agent MUST NOT call what is not advertised).
const agentResults = [];
let clientFs = { readTextFile: false, writeTextFile: false };

async function call(client, label, method, params) {
  try {
    const result = await client.request(method, params);
    agentResults.push({ label, ok: true, result });
    return { ok: true, result };
  } catch (e) {
    // Errors arrive as the SDK's RequestError, code and data as the client sent them.
    const error = { code: e.code, message: e.message, data: e.data };
    agentResults.push({ label, ok: false, error });
    return { ok: false, error };
  }
}

function describe(outcome) {
  if (outcome.ok) return 'content' in outcome.result ? `ok, content ${quote(outcome.result.content)}` : 'ok {}';
  const kind = outcome.error.data?.errorKind ? ` ${outcome.error.data.errorKind}` : '';
  return `error ${outcome.error.code}${kind}: ${outcome.error.message}`;
}

const agentApp = acp
  .agent({ name: 'example-agent' })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientFs = params.clientCapabilities?.fs ?? clientFs;
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
  })
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: 'example-session' }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const file = (rel) => path.join(root, rel);
    if (!clientFs.readTextFile || !clientFs.writeTextFile) {
      throw new Error(`the client does not offer fs reads and writes: ${JSON.stringify(clientFs)}`);
    }
    const steps = [
      ['read window', acp.methods.client.fs.readTextFile, { sessionId, path: file('src/app.js'), line: 3, limit: 2 }],
      [
        'write new file',
        acp.methods.client.fs.writeTextFile,
        { sessionId, path: file('src/greeting.js'), content: 'export const greet = (name) => `Hello, ${name}!`;\n' },
      ],
      ['rewrite README', acp.methods.client.fs.writeTextFile, { sessionId, path: file('README.md'), content: '# rewritten\n' }],
      ['read outside root', acp.methods.client.fs.readTextFile, { sessionId, path: outside }],
    ];
    for (const [label, method, p] of steps) {
      const extra = p.line !== undefined ? ` line ${p.line} limit ${p.limit}` : '';
      say('agent', `${method} ${path.relative(work, p.path)}${extra}`);
      say('agent', `  -> ${describe(await call(client, label, method, p))}`);
    }
    return { stopReason: 'end_turn' };
  });

// ---------------------------------------------------------------------------------------------
// The client: acp-fs over the real directory (no `storage`: the native disk backend, atomic
// writes, symlink-safe roots). Its approval policy stands in for the user's prompt: writes under
// src/ are accepted, anything else is refused; the agent's response waits for the decision.
const changes = [];
const approvals = [];
const fs = new AcpFs({
  approveWrite: async (change) => {
    const rel = path.relative(root, change.path);
    const ok = rel.startsWith(`src${path.sep}`);
    approvals.push({ path: rel, approved: ok });
    say('client', `approveWrite ${rel} (${change.created ? 'new file' : 'modifies'}) -> ${ok ? 'approved' : 'rejected'}`);
    return ok;
  },
  onChange: (change) => {
    changes.push(change);
    say('client', `change record: ${path.relative(root, change.path)} created=${change.created}`);
  },
});
// acp-fs errors become the SDK's RequestError, so -32002 / -32603 and their data reach the agent.
const handlers = acpClientHandlers(fs, acp.RequestError);
const clientApp = acp
  .client({ name: 'example-editor' })
  .onRequest(acp.methods.client.fs.readTextFile, handlers.readTextFile)
  .onRequest(acp.methods.client.fs.writeTextFile, handlers.writeTextFile);

// Two byte pipes with ndJSON on both ends: exactly what a stdio transport carries.
const toAgent = new TransformStream();
const toClient = new TransformStream();
agentApp.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));

let exitCode = 0;
try {
  await clientApp.connectWith(acp.ndJsonStream(toAgent.writable, toClient.readable), async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: fs.capabilities() },
      clientInfo: { name: 'example-editor', version: '0.1.0' },
    });
    say('client', `initialized, protocol ${init.protocolVersion}, advertised fs ${JSON.stringify(fs.capabilities())}`);
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    fs.openSession(sessionId, { cwd: root });
    say('client', `session ${sessionId}, root ${root}`);
    const done = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Add a greeting module.' }],
    });
    say('client', `prompt finished: ${done.stopReason}`);
  });

  // What is on disk now, read directly (not through acp-fs).
  const greeting = await readFile(path.join(root, 'src', 'greeting.js'), 'utf8').catch(() => null);
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  say('disk', `src/greeting.js ${greeting === null ? 'missing' : `= ${quote(greeting)}`}`);
  say('disk', `README.md ${readme.startsWith('# sample') ? 'unchanged' : 'CHANGED'}`);

  // The example checks its own story so that a broken build fails loudly instead of printing
  // something plausible.
  const byLabel = Object.fromEntries(agentResults.map((r) => [r.label, r]));
  const problems = [];
  if (byLabel['read window']?.result?.content !== 'export function main(argv) {\n  const name = argv[2] ?? "world";\n') {
    problems.push('the read window is not lines 3-4 of src/app.js');
  }
  if (!byLabel['write new file']?.ok || greeting === null) problems.push('the approved write did not land');
  if (byLabel['rewrite README']?.error?.data?.errorKind !== 'user_rejected') problems.push('the rejected write was not user_rejected');
  if (!readme.startsWith('# sample')) problems.push('the rejected write changed README.md');
  if (byLabel['read outside root']?.error?.data?.errorKind !== 'path_outside_roots') {
    problems.push('the read outside the root was not path_outside_roots');
  }
  if (changes.length !== 1) problems.push(`expected one change record, got ${changes.length}`);
  for (const p of problems) say('FAIL', p);
  exitCode = problems.length ? 1 : 0;
  say('done', problems.length ? `${problems.length} problem(s)` : 'all four calls ended as expected');
} catch (e) {
  say('FAIL', e?.stack ?? String(e));
  exitCode = 1;
} finally {
  if (!keep) await rm(work, { recursive: true, force: true });
}
process.exitCode = exitCode;
