// The real Gemini CLI, asked by its model to create a file, through a client whose fs/* is acp-fs
// (docs/agents.md, semantics.md §8 "Agent quirks"). Gemini CLI 0.61.0 comes from the npm
// registry into .cache/agents/ (once; gitignored), runs as an ACP agent over stdio (`--acp`),
// and talks to a scripted model: a local HTTP server on 127.0.0.1 that speaks the Gemini API
// (`GOOGLE_GEMINI_BASE_URL`). The client is the official SDK's, with acp-fs's handlers.
//
// Gemini's `write_file` reads the file through the client first and creates it only when that
// read says "not found" in a way its bundled connection cannot see (it gets `[object Object]`).
// With `agent: 'gemini-cli'` acp-fs answers that pre-read `""` and the file is created; without
// it the tool fails and no write reaches the client: the bug as it is, pinned so that a Gemini
// CLI that fixes it shows up here.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';
import { makeTempDir } from './harness.mjs';
import { AcpFs as NodeAcpFs, acpClientHandlers } from './node-package.mjs';

const GEMINI_CLI = '0.61.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const installDir = join(root, '.cache', 'agents', `gemini-cli-${GEMINI_CLI}`);
const geminiPackage = join(installDir, 'node_modules', '@google', 'gemini-cli');

/**
 * Installs `@google/gemini-cli@GEMINI_CLI` into .cache/agents/ unless it is there: the bundled
 * CLI only (no optional native modules, no install scripts: ACP over stdio needs neither).
 */
function installGeminiCli() {
  const manifest = join(geminiPackage, 'package.json');
  const installed = nodeFs.existsSync(manifest) && JSON.parse(nodeFs.readFileSync(manifest, 'utf8'));
  const bin = installed && join(geminiPackage, installed.bin.gemini);
  if (installed?.version === GEMINI_CLI && nodeFs.existsSync(bin)) return bin;
  nodeFs.rmSync(installDir, { recursive: true, force: true });
  nodeFs.mkdirSync(installDir, { recursive: true });
  const pkg = { private: true, dependencies: { '@google/gemini-cli': GEMINI_CLI } };
  nodeFs.writeFileSync(join(installDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['install', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const r = spawnSync(npm, args, { cwd: installDir, encoding: 'utf8' });
  assert.equal(r.status, 0, `npm install @google/gemini-cli@${GEMINI_CLI} failed:\n${r.stderr}`);
  return installGeminiCli();
}

/**
 * A scripted Gemini model on 127.0.0.1: asked for the next turn of a conversation, it calls
 * `write_file` for `target` until a tool result is in the conversation, then says it is done. It
 * keeps the tool results it saw: what Gemini CLI told its model the tool did. Other calls (the
 * router's classification) get a fixed small answer.
 */
async function scriptedModel(target, content) {
  const toolResults = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request = body ? JSON.parse(body) : {};
      if (req.url.includes(':streamGenerateContent')) {
        const last = request.contents?.at(-1)?.parts ?? [];
        const results = last.filter((p) => p.functionResponse).map((p) => p.functionResponse);
        toolResults.push(...results);
        const part = results.length
          ? { text: 'Done.' }
          : { functionCall: { name: 'write_file', args: { file_path: target, content } } };
        const chunk = {
          candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      } else {
        const text = JSON.stringify({ complexity_reasoning: 'one file', complexity_score: 1 });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }] }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    toolResults,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Gemini CLI processes still running: a test that timed out leaves its own to `after`. */
const running = new Set();

/**
 * One prompt of Gemini CLI over stdio, its fs/* served by `fs` (opened for `agent`), asking it to
 * create `project/notes/todo.txt`. Answers what reached the client, what Gemini told its model,
 * and what is on disk.
 */
async function createFileThroughGemini(bin, base, fs, agent) {
  const project = join(base, 'project');
  const home = join(base, 'home');
  nodeFs.mkdirSync(project, { recursive: true });
  nodeFs.mkdirSync(join(home, '.gemini'), { recursive: true });
  // No usage statistics, no update checks: nothing but the scripted model is asked anything.
  const settings = { privacy: { usageStatisticsEnabled: false }, general: { enableAutoUpdate: false, enableAutoUpdateNotification: false } };
  nodeFs.writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  const target = join(project, 'notes', 'todo.txt');
  const content = 'write the agent quirks table\n';
  const model = await scriptedModel(target, content);
  const child = spawn(process.execPath, [bin, '--acp'], {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      GEMINI_API_KEY: 'scripted-model',
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const calls = [];
  const handlers = acpClientHandlers(fs, acp.RequestError);
  const recorded = (method, handler) => async (ctx, options) => {
    const call = { method, path: ctx.params.path };
    calls.push(call);
    try {
      call.result = await handler(ctx, options);
      return call.result;
    } catch (e) {
      call.error = { code: e.code, message: e.message };
      throw e;
    }
  };
  const client = acp
    .client({ name: 'acp-fs-gemini-test' })
    .onRequest(acp.methods.client.fs.readTextFile, recorded('read', handlers.readTextFile))
    .onRequest(acp.methods.client.fs.writeTextFile, recorded('write', handlers.writeTextFile))
    // The user approves the write once (Gemini asks before write_file runs).
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => ({
      outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'allow_once').optionId },
    }))
    .onNotification(acp.methods.client.session.update, () => {});
  let stopReason;
  try {
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    await client.connectWith(stream, async (conn) => {
      await conn.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: fs.capabilities() },
      });
      const { sessionId } = await conn.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
      fs.openSession(sessionId, agent === undefined ? { cwd: project } : { cwd: project, agent });
      const done = await conn.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'Create notes/todo.txt with one line.' }],
      });
      stopReason = done.stopReason;
    });
  } catch (e) {
    e.message += `\nGemini CLI's stderr:\n${stderr.slice(-4000)}`;
    throw e;
  } finally {
    child.kill();
    await model.close();
  }
  const written = nodeFs.existsSync(target) ? nodeFs.readFileSync(target, 'utf8') : null;
  const told = JSON.stringify(model.toolResults);
  return { target, content, calls, told, written, stopReason, stderr };
}

describe(`Gemini CLI ${GEMINI_CLI} creates a file through acp-fs (a scripted model on 127.0.0.1)`, () => {
  let bin;
  let base;
  before(() => {
    bin = installGeminiCli();
    base = makeTempDir('acpfs-gemini-');
  }, { timeout: 300_000 });
  after(() => {
    for (const child of running) child.kill();
    if (base) nodeFs.rmSync(base, { recursive: true, force: true });
  });

  const runs = [
    ['@acp-fs/node (native disk)', () => new NodeAcpFs()],
    ['@acp-fs/wasm (fs.promises)', () => new WasmAcpFs({ storage: nodeFs.promises })],
  ];
  for (const [label, makeFs] of runs) {
    test(`${label}, agent: 'gemini-cli': the pre-read answers "" and the write creates the file`, { timeout: 120_000 }, async () => {
      const run = await createFileThroughGemini(bin, join(base, `on-${label.replace(/\W+/g, '-')}`), makeFs(), 'gemini-cli');
      const why = `\ncalls: ${JSON.stringify(run.calls)}\nmodel was told: ${run.told}\nstderr: ${run.stderr.slice(-2000)}`;
      const reads = run.calls.filter((c) => c.method === 'read');
      assert.ok(reads.length >= 1, `Gemini pre-reads through the client${why}`);
      for (const read of reads) assert.deepEqual([read.path, read.result], [run.target, { content: '' }], why);
      assert.deepEqual(run.calls.filter((c) => c.method === 'write'), [{ method: 'write', path: run.target, result: {} }], why);
      assert.equal(run.written, run.content, `the file is on disk${why}`);
      assert.match(run.told, /Successfully/, why);
      assert.equal(run.stopReason, 'end_turn');
    });
  }

  test('@acp-fs/node (native disk), no agent: -32002 on the pre-read, and Gemini never sends the write', { timeout: 120_000 }, async () => {
    const run = await createFileThroughGemini(bin, join(base, 'off'), new NodeAcpFs(), undefined);
    const why = `\ncalls: ${JSON.stringify(run.calls)}\nmodel was told: ${run.told}`;
    const reads = run.calls.filter((c) => c.method === 'read');
    assert.ok(reads.length >= 1, `Gemini pre-reads through the client${why}`);
    for (const read of reads) assert.equal(read.error?.code, -32002, why);
    assert.deepEqual(run.calls.filter((c) => c.method === 'write'), [], `no write reaches the client${why}`);
    assert.equal(run.written, null, `no file${why}`);
    // What Gemini's model hears: its "not found" check missed the -32002.
    assert.match(run.told, /Error checking existing file/, why);
    assert.equal(run.stopReason, 'end_turn');
  });
});
