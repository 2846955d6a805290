// @acp-fs/node and @acp-fs/wasm agree on the agent side and the MCP surface: the same tool
// definitions, argument errors, requests, tool results and MCP replies (with the same change
// records and audit events), the same refusal of params JSON cannot carry (§8.1: lone
// surrogates, cycles, nesting), and low-level bindings that answer the new calls identically
// (docs/binding-interface.md). Each comparison also checks the contract on its own, so two
// packages that are wrong alike still fail.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Volume } from 'memfs';
import * as wasmPkg from '../../npm/wasm/full-node.mjs';
import { binding as wasmBinding } from '../../npm/wasm/lib/full.mjs';
import { subset } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const NODE_PKG = join(here, '..', '..', 'npm', 'node');
const TOOL_ARGUMENTS = JSON.parse(nodeFs.readFileSync(join(here, '..', 'vectors', 'tools', 'tool-arguments.json'), 'utf8'));

/** The N-API package and its raw binding, or why they cannot be loaded. */
async function loadNode() {
  const addons = nodeFs.existsSync(NODE_PKG) ? nodeFs.readdirSync(NODE_PKG).filter((f) => f.endsWith('.node')) : [];
  if (!addons.length) return { skip: 'the N-API addon is not built (no npm/node/*.node): run the @acp-fs/node build first' };
  try {
    const pkg = await import('../../npm/node/index.mjs');
    const binding = createRequire(import.meta.url)(join(NODE_PKG, 'binding.js'));
    return { pkg, binding };
  } catch (e) {
    return { skip: `the N-API addon does not load: ${e.message}` };
  }
}

const native = await loadNode();
const skip = native.skip ?? false;
const packages = () => [
  ['node', native.pkg],
  ['wasm', wasmPkg],
];

/** What a call gave: its value, or the AcpFsError it threw as `{code, error}`. */
function outcomeOf(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    if (e?.name !== 'AcpFsError') throw e;
    return { kind: e.code, error: e.toJsonRpc() };
  }
}

/** Runs `fn(pkg)` for both packages, checks each with `check`, and asserts they are identical. */
async function same(fn, check = () => {}) {
  const out = {};
  for (const [name, pkg] of packages()) {
    out[name] = await fn(pkg);
    check(out[name], name);
  }
  assert.deepStrictEqual(out.wasm, out.node, '@acp-fs/wasm and @acp-fs/node differ');
  return out.node;
}

const CAPS = [
  { readTextFile: true, writeTextFile: true },
  { readTextFile: true, writeTextFile: false },
  { readTextFile: false, writeTextFile: true },
  { readTextFile: false, writeTextFile: false },
];

describe('parity: the agent helpers', { skip }, () => {
  test('tool definitions for every capability set', async () => {
    for (const caps of CAPS) {
      await same(
        ({ agent }) => agent.toolDefinitions(caps),
        (defs) => {
          const want = [caps.readTextFile && 'read_text_file', caps.writeTextFile && 'write_text_file'].filter(Boolean);
          assert.deepEqual(defs.map((d) => d.name), want);
        },
      );
    }
  });

  test('capabilities from initialize messages, params and capability objects', async () => {
    const values = [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } },
      { protocolVersion: 1, clientCapabilities: { fs: { writeTextFile: true } } },
      { fs: { readTextFile: 1, writeTextFile: 'true' } },
      { terminal: true },
      null,
      'initialize',
    ];
    const got = await same(({ agent }) => values.map((v) => agent.clientFsCapabilities(v)));
    assert.deepEqual(got.map((c) => [c.readTextFile, c.writeTextFile]), [
      [true, true],
      [false, true],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  test('the shared tool-argument cases: same requests and errors, with every capability set', async () => {
    for (const c of TOOL_ARGUMENTS.cases) {
      const sid = TOOL_ARGUMENTS.sessionId;
      await same(
        ({ agent }) => [
          outcomeOf(() => agent.checkToolArguments(c.tool, sid, c.arguments)),
          ...CAPS.map((caps) => outcomeOf(() => agent.buildRequest(caps, c.tool, sid, c.arguments))),
        ],
        ([checked, ...built]) => {
          if (c.expect.error) {
            assert.equal(checked.error?.code, c.expect.error.code, c.name);
            assert.ok(subset(c.expect.error.data, checked.error.data), c.name);
            // The capability is judged first (semantics.md §8): a tool the client did not
            // advertise is -32601 whatever its arguments; otherwise the argument error.
            const method = { read_text_file: 'fs/read_text_file', write_text_file: 'fs/write_text_file' }[c.tool];
            for (const [i, b] of built.entries()) {
              const offered = method === 'fs/read_text_file' ? CAPS[i].readTextFile : CAPS[i].writeTextFile;
              if (method && !offered) {
                assert.deepEqual(b, { kind: 'method_not_found', error: { code: -32601, message: `Method not found: ${method}`, data: { method } } }, c.name);
              } else {
                assert.deepEqual(b, checked, c.name);
              }
            }
          } else {
            assert.deepEqual(checked.value, { method: c.expect.method, params: c.expect.params }, c.name);
            for (const [i, b] of built.entries()) {
              const allowed = c.expect.method === 'fs/read_text_file' ? CAPS[i].readTextFile : CAPS[i].writeTextFile;
              if (allowed) assert.deepEqual(b, checked, c.name);
              else assert.deepEqual(b, { kind: 'method_not_found', error: { code: -32601, message: `Method not found: ${c.expect.method}`, data: { method: c.expect.method } } }, c.name);
            }
          }
        },
      );
    }
  });

  test('tool results for every answer shape', async () => {
    const read = { path: '/p/a.txt', line: 2, limit: 2 };
    const write = { path: '/p/a.txt', content: 'héllo' };
    const answers = [
      ['read', read, { content: 'b\nc\n' }],
      ['read', read, { content: 'b\nc\nd\ne' }],
      ['read', read, { content: 'b\r\nc\r\nd\r\n' }],
      ['read', read, {}],
      ['read', read, null],
      ['read', read, { jsonrpc: '2.0', id: 1, result: { content: 'x' } }],
      ['read', read, { error: { code: -32002, message: 'Resource not found: /p/a.txt', data: { uri: '/p/a.txt' } } }],
      ['read', read, { error: { code: -32603, message: 'path outside roots: /p/a.txt: not in any root', data: { errorKind: 'path_outside_roots', path: '/p/a.txt', hint: 'not in any root' } } }],
      ['read', read, { error: { code: -32602, message: 'Invalid params: limit: must be an integer', data: { field: 'limit', reason: 'must be an integer' } } }],
      ['read', read, { error: { code: -32000, message: 'custom' } }],
      ['read', read, Object.assign(new Error('Resource not found: /q'), { code: -32002, data: { uri: '/q' } })],
      ['read', read, new Error('connection closed')],
      ['read', read, { content: 'lone \uD800' }],
      ['write', write, {}],
      ['write', write, null],
      ['write', write, undefined],
      ['write', write, { jsonrpc: '2.0', id: 'w', result: null }],
      ['write', write, { error: { code: -32603, message: 'user rejected: /p/a.txt: no', data: { errorKind: 'user_rejected', path: '/p/a.txt', hint: 'no' } } }],
      ['write', {}, {}],
      ['write', 'not an object', {}],
    ];
    for (const [tool, args, answer] of answers) {
      const name = `${tool}_text_file`;
      await same(
        ({ agent }) => agent.toolResult(name, args, answer),
        (r) => {
          assert.equal(typeof r.isError, 'boolean');
          assert.ok(r.content.length >= 1 && r.content.every((c) => c.type === 'text' && typeof c.text === 'string'));
        },
      );
    }
    // A few spelled out, so both being wrong alike fails too.
    const { agent } = native.pkg;
    assert.deepEqual(agent.toolResult('read_text_file', read, { content: 'b\nc\nd\ne' }).content[0].text, 'b\nc\n');
    assert.deepEqual(agent.toolResult('write_text_file', write, {}).content[0].text, 'Wrote /p/a.txt (6 bytes).');
    assert.deepEqual(agent.toolResult('write_text_file', {}, {}).content[0].text, 'Wrote the file (0 bytes).');
  });
});

/** A memfs storage both packages serve, the same files each time. */
function memStorage() {
  const vol = new Volume();
  vol.mkdirSync('/project/src', { recursive: true });
  vol.writeFileSync('/project/src/main.rs', 'fn main() {\r\n    hello();\r\n}\r\n');
  vol.writeFileSync('/project/.env', 'SECRET=1\n');
  vol.writeFileSync('/outside.txt', 'outside\n');
  return { vol, storage: vol.promises };
}

/** An AcpFs of `pkg` over fresh memfs with every hook recorded (audit times dropped). */
function recorded(pkg, options = {}) {
  const { vol, storage } = memStorage();
  const seen = { approvals: [], changes: [], audits: [] };
  const fs = new pkg.AcpFs({
    storage,
    approveWrite: (change) => {
      seen.approvals.push(change);
      return !change.path.endsWith('no.txt');
    },
    onChange: (change) => seen.changes.push(change),
    onAudit: ({ durationMs, ...event }) => {
      assert.equal(typeof durationMs, 'number');
      seen.audits.push(event);
    },
    ...options,
  });
  fs.openSession('s1', { cwd: '/project' });
  return { fs, vol, seen };
}

const MCP_SCRIPT = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
  '{"jsonrpc":"2.0","id":"v","method":"initialize","params":{"protocolVersion":"1999-01-01"}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/project/src/main.rs","line":2,"limit":1}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/project/src/main.rs","content":"fn main() {}\\n"}}}',
  '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/project/new/yes.txt","content":"yes"}}}',
  '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/project/no.txt","content":"no"}}}',
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/outside.txt"}}}',
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/project/.env"}}}',
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/project/missing.txt"}}}',
  '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"~/rel.txt"}}}',
  '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read_text_file"}}',
  '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"rm","arguments":{}}}',
  '{"jsonrpc":"2.0","id":13,"method":"resources/list"}',
  '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/project/\\ud800"}}}',
  '{"jsonrpc":"2.0","id":15,"method":"tools/call"',
  '[{"jsonrpc":"2.0","id":16,"method":"ping"}]',
  '{"jsonrpc":"2.0","id":17,"result":{}}',
  '{"jsonrpc":"1.0","id":18,"method":"ping"}',
];

describe('parity: the MCP surface', { skip }, () => {
  test('the same replies, change records, approvals, audit events and files', async () => {
    const run = async (pkg) => {
      const { fs, vol, seen } = recorded(pkg);
      const mcp = fs.mcpHandler('s1');
      const replies = [];
      for (const message of MCP_SCRIPT) replies.push(await mcp.handle(message));
      const files = ['/project/src/main.rs', '/project/new/yes.txt', '/project/no.txt'].map((p) =>
        vol.existsSync(p) ? vol.readFileSync(p, 'utf8') : null,
      );
      return { tools: mcp.tools(), replies, files, ...seen };
    };
    const got = await same(run);
    const byId = new Map(got.replies.filter(Boolean).map((r) => JSON.parse(r)).map((r) => [r.id, r]));
    assert.equal(got.replies[2], null, 'notifications get no answer');
    assert.equal(got.replies[19], null, 'responses get no answer');
    assert.equal(byId.get(0).result.protocolVersion, '2025-06-18');
    assert.equal(byId.get('v').result.protocolVersion, '2025-11-25', 'an unknown version gets the newest');
    assert.deepEqual(byId.get(1).result, {});
    assert.deepEqual(byId.get(2).result.tools, got.tools);
    assert.deepEqual(byId.get(3).result, { content: [{ type: 'text', text: '    hello();\r\n' }], structuredContent: { content: '    hello();\r\n' }, isError: false });
    assert.equal(byId.get(4).result.isError, false);
    assert.equal(byId.get(6).result.isError, true);
    assert.match(byId.get(6).result.content[0].text, /user_rejected/);
    assert.match(byId.get(7).result.content[0].text, /path_outside_roots/);
    assert.match(byId.get(8).result.content[0].text, /denied_by_pattern/);
    assert.equal(byId.get(9).result.content[0].text, 'File not found: /project/missing.txt');
    assert.equal(byId.get(10).result.isError, true);
    assert.equal(byId.get(11).result.isError, true, 'missing arguments: the path is required');
    assert.equal(byId.get(12).error.code, -32602);
    assert.equal(byId.get(13).error.code, -32601);
    const lone = JSON.parse(got.replies[16]);
    assert.deepEqual([lone.id, lone.error.code, lone.error.data.field], [14, -32602, 'arguments']);
    assert.equal(JSON.parse(got.replies[17]).error.code, -32700);
    assert.equal(JSON.parse(got.replies[18]).error.code, -32600);
    assert.equal(JSON.parse(got.replies[20]).error.code, -32600);
    assert.deepEqual(got.files, ['fn main() {}\r\n', 'yes', null]);
    assert.deepEqual(got.changes.map((c) => c.path), ['/project/src/main.rs', '/project/new/yes.txt']);
    assert.deepEqual(got.approvals.map((c) => c.path), ['/project/src/main.rs', '/project/new/yes.txt', '/project/no.txt']);
    // One audit event per call that reached the engine: ids 3-9. Arguments the tool refuses
    // (10, 11) are answered before the engine starts a request, and so is 14 (undecodable params).
    assert.deepEqual(got.audits.map((a) => a.path), [
      '/project/src/main.rs',
      '/project/src/main.rs',
      '/project/new/yes.txt',
      '/project/no.txt',
      '/outside.txt',
      '/project/.env',
      '/project/missing.txt',
    ]);
  });

  test('a session the engine does not know: tools without roots, calls refused alike', async () => {
    const got = await same(async (pkg) => {
      const { fs } = recorded(pkg);
      const mcp = fs.mcpHandler('nobody');
      return {
        tools: mcp.tools(),
        reply: await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: '/project/src/main.rs' } } }),
      };
    });
    assert.ok(!got.tools[0].description.includes('allowed roots'));
    assert.equal(got.reply.result.isError, true);
    assert.match(got.reply.result.content[0].text, /sessionId/);
  });
});

describe('parity: params JSON cannot carry (§8.1)', { skip }, () => {
  const cyclic = () => {
    const o = { a: 1 };
    o.self = o;
    return o;
  };
  const nested = (levels) => {
    let o = {};
    for (let i = 1; i < levels; i++) o = { o };
    return o;
  };
  const dag = () => {
    let o = { leaf: 1 };
    for (let i = 0; i < 40; i++) o = { a: o, b: o };
    return o;
  };
  const cases = [
    ['read', { sessionId: 's1', path: '/project/\uD800.txt' }, 'path', /lone surrogate/],
    ['read', { sessionId: 's1\uDFFF', path: '/project/src/main.rs' }, 'sessionId', /lone surrogate/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: { traceparent: 'x\uD83D' } }, '_meta', /lone surrogate/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: { ['k\uDC00']: 1 } }, '_meta', /lone surrogate/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', ['x\uD800']: 1 }, 'x\uFFFD', /lone surrogate/],
    ['write', { sessionId: 's1', path: '/project/w.txt', content: 'end\uD800' }, 'content', /lone surrogate/],
    ['write', { sessionId: 's1', path: '/project/w.txt', content: ['\uDC00'] }, 'content', /lone surrogate/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: cyclic() }, '_meta', /cyclic/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', extra: cyclic() }, 'extra', /cyclic/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: nested(128) }, '_meta', /nested deeper than 128 levels/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: nested(50000) }, '_meta', /nested deeper than 128 levels/],
    ['read', { sessionId: 's1', path: '/project/src/main.rs', _meta: dag() }, '_meta', /more than 1000000 values/],
    ['read', 'params\uD800', 'params', /lone surrogate/],
  ];

  test('refused with -32602 naming the field, the same error and audit event from both, nothing written', async () => {
    for (const [op, params, field, reason] of cases) {
      await same(
        async (pkg) => {
          const { fs, vol, seen } = recorded(pkg);
          const call = op === 'read' ? fs.readTextFile : fs.writeTextFile;
          const e = await call(params).then(
            (r) => assert.fail(`${JSON.stringify(params)} answered ${JSON.stringify(r)}`),
            (err) => err,
          );
          assert.equal(e.name, 'AcpFsError');
          return { kind: e.code, error: e.toJsonRpc(), audits: seen.audits, written: vol.existsSync('/project/w.txt') };
        },
        (got) => {
          assert.equal(got.kind, 'invalid_params');
          assert.equal(got.error.code, -32602);
          assert.equal(got.error.data.field, field);
          assert.match(got.error.data.reason, reason);
          assert.equal(got.written, false);
          assert.equal(got.audits.length, 1, 'the request is audited like any refused request');
          assert.equal(got.audits[0].outcome, 'error');
          assert.equal(got.audits[0].errorKind, 'invalid_params');
        },
      );
    }
  });

  test('what JSON can carry still passes: surrogate pairs, U+FFFD, 127 levels under the params', async () => {
    const got = await same(async (pkg) => {
      const { fs, vol } = recorded(pkg);
      await fs.writeTextFile({ sessionId: 's1', path: '/project/w.txt', content: 'pair \uD83D\uDE00 and \uFFFD' });
      // eslint-disable-next-line no-sparse-arrays
      const read = await fs.readTextFile({ sessionId: 's1', path: '/project/w.txt', _meta: { nested: nested(126), sparse: [, 1] } });
      return { read, file: vol.readFileSync('/project/w.txt', 'utf8') };
    });
    assert.deepEqual(got, { read: { content: 'pair 😀 and \uFFFD' }, file: 'pair 😀 and \uFFFD' });
  });

  test('the audit event keeps what the refused params did say', async () => {
    const got = await same(async (pkg) => {
      const { fs, seen } = recorded(pkg);
      await fs.readTextFile({ sessionId: 's1', path: '/project/src/main.rs', line: 2, limit: 1, _meta: cyclic() }).catch(() => {});
      return seen.audits;
    });
    assert.deepEqual(got, [
      { op: 'read', sessionId: 's1', path: '/project/src/main.rs', line: 2, limit: 1, bytes: 0, outcome: 'error', errorKind: 'invalid_params' },
    ]);
  });

  test('host calls refuse text JSON cannot carry too', async () => {
    await same(({ AcpFs }) => {
      const fs = new AcpFs({ storage: memStorage().storage });
      return [
        outcomeOf(() => fs.openSession('s\uD800', { cwd: '/project' })),
        outcomeOf(() => fs.documents.open('/project/a.txt', 'unsaved \uDC00')),
        outcomeOf(() => fs.mcpHandler('\uD800')),
      ];
    }, (outs) => {
      assert.deepEqual(outs.map((o) => [o.kind, o.error?.data?.field]), [
        ['invalid_params', 'sessionId'],
        ['invalid_params', 'text'],
        ['invalid_params', 'sessionId'],
      ]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The low-level bindings, call for call.

const ENGINE_CAPS = { symlinks: 'none', stat: true, rangedReads: false, write: true, makeDirs: true };
const enc = new TextEncoder();

/** A call's answer, or what it threw (as a wire error when it carries one). */
function called(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    try {
      return { threw: JSON.parse(e.message) };
    } catch {
      return { threw: 'not a wire error' };
    }
  }
}

/** Step results with bytes as plain arrays, so both bindings compare. */
const normal = (x) =>
  JSON.parse(JSON.stringify(x, (k, v) => (v instanceof Uint8Array || v?.type === 'Buffer' ? [...(v.data ?? v)] : v)));

/** Runs an operation against a tiny in-memory file table: stat, readAll, write, approve. */
function drive(op, files) {
  const steps = [];
  let step = op.step();
  while (!step.done) {
    const { io } = step;
    let answer;
    let bytes;
    if (io.op === 'stat') {
      answer = files[io.path] === undefined ? { error: { code: 'ENOENT' } } : { metadata: { kind: 'file', size: files[io.path].length } };
    } else if (io.op === 'readAll') {
      answer = { bytes: true };
      bytes = enc.encode(files[io.path]);
    } else if (io.op === 'write') {
      files[io.path] = new TextDecoder().decode(step.bytes);
      answer = { done: true };
    } else if (io.op === 'makeDirs') {
      answer = { done: true };
    } else if (io.op === 'approve') {
      answer = { approved: true };
    } else {
      answer = { error: { code: 'ENOSYS' } };
    }
    steps.push(normal(step));
    step = op.step(answer, bytes);
  }
  return { steps, outcome: step.done, audit: op.audit() };
}

/** An outcome with the audit event its operation gives once it has ended. */
const ended = (op, outcome) => ({ outcome: normal(outcome), audit: op.audit() });

const bindingScripts = {
  'agent free functions': (F) => [
    F.clientFsCapabilities({ params: { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } }),
    F.clientFsCapabilities({ clientCapabilities: { fs: { readTextFile: true } } }),
    F.clientFsCapabilities({ fs: { writeTextFile: true } }),
    F.clientFsCapabilities(null),
    F.toolDefinitions({ readTextFile: true, writeTextFile: true }),
    F.toolDefinitions({ readTextFile: 'yes', writeTextFile: true }),
    F.toolDefinitions({}),
    F.toolDefinitions(null),
    F.checkToolArguments('read_text_file', 's', { path: '/p/a', line: 2 }),
    F.checkToolArguments('read_text_file', 's', { path: 'rel' }),
    F.checkToolArguments('write_text_file', 's', { path: '/p/a' }),
    F.checkToolArguments('nope', 's', {}),
    F.checkToolArguments('read_text_file', 's', 'args'),
    F.checkToolArguments('read_text_file', 's', null),
    F.buildRequest({ readTextFile: true }, 'write_text_file', 's', { path: '/p/a', content: '' }),
    F.buildRequest({ readTextFile: true }, 'read_text_file', 's', { path: '/p/a' }),
    F.buildRequest({ readTextFile: false }, 'read_text_file', 's', { path: 'rel' }),
    F.toolResult('read_text_file', { path: '/p/a', limit: 1 }, { result: { content: 'a\nb\n' } }),
    F.toolResult('read_text_file', { path: '/p/a' }, { result: null }),
    F.toolResult('read_text_file', { path: '/p/a' }, {}),
    F.toolResult('read_text_file', { path: '/p/a' }, { error: { code: -32002, message: 'Resource not found: /p/a', data: { uri: '/p/a' } } }),
    F.toolResult('read_text_file', { path: '/p/a' }, { error: null, result: { content: 'x' } }),
    F.toolResult('write_text_file', { path: '/p/a', content: 'abc' }, { result: {} }),
    F.toolResult('write_text_file', null, null),
    F.toolResult('write_text_file', { path: '/p/a' }, { error: 'text' }),
  ],
  'Engine.mcpTools and mcpDispatch: replies and calls': (E) => {
    const e = E.createEngine({ readOnly: true }, ENGINE_CAPS);
    e.openSession('s', '/p', ['/q']);
    const messages = [
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{oops',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/p/a","content":""}}}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"~/rel"}}}',
    ];
    const out = [e.mcpTools('s'), e.mcpTools('unknown'), ...messages.map((m) => e.mcpDispatch('s', m))];
    const d = e.mcpDispatch('s', '{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt","line":2}}}');
    const { steps, outcome, audit } = drive(d.operation, { '/p/a.txt': 'one\ntwo\n' });
    out.push({ kind: d.kind, method: d.method, steps, outcome, audit });
    // However a call ends, its outcome carries the reply: cancelled, refused, aborted, failed.
    const call = (id) =>
      e.mcpDispatch('s', `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/p/a.txt"}}}`);
    const started = (id) => {
      const c = call(id);
      c.operation.step();
      return c.operation;
    };
    const end = (op, how) => ended(op, how(op));
    out.push(
      end(started(10), (op) => op.cancel()),
      end(call(11).operation, (op) => op.refuse('path', 'no')),
      end(started(12), (op) => op.abort('the driver broke')),
      end(started(13), (op) => op.step({ error: { code: 'ENOENT', message: 'gone' } })),
      end(started(14), (op) => op.step({ bogus: 1 })),
    );
    return out;
  },
  'Engine.mcpDispatch: a write call through approval': (E) => {
    const e = E.createEngine({}, ENGINE_CAPS);
    e.openSession('s', '/p', []);
    const d = e.mcpDispatch('s', '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"/p/d/n.txt","content":"n\\n"}}}');
    const files = {};
    const { steps, outcome, audit } = drive(d.operation, files);
    return { method: d.method, steps, outcome, audit, files, reply: outcome.reply };
  },
  'Operation.refuse and abort': (E) => {
    const e = E.createEngine({}, ENGINE_CAPS);
    e.openSession('s', '/p', []);
    const start = (params) => e.start('fs/read_text_file', params);
    const a = start({ sessionId: 's', path: '/p/a.txt', line: 3, _meta: { traceparent: 't' } });
    const b = start({ sessionId: 's', path: '/p/a.txt' });
    b.step();
    const running = { audit: b.audit() };
    const c = start({});
    const d = start({});
    return [
      ended(a, a.refuse('path', 'no')),
      normal(a.step({ metadata: { kind: 'file', size: 1 } })),
      running,
      ended(b, b.cancel()),
      ended(c, c.abort('the driver broke')),
      ended(d, d.refuse('params', 'is not valid Unicode (a lone surrogate)')),
    ];
  },
};

describe('parity: the low-level bindings, call for call (agent side and MCP)', { skip }, () => {
  for (const [name, script] of Object.entries(bindingScripts)) {
    test(name, () => {
      const [wasmSide, nodeSide] = [wasmBinding, native.binding];
      const wasm = called(() => script(wasmSide));
      const node = called(() => script(nodeSide));
      assert.ok('value' in node, `the N-API binding threw: ${JSON.stringify(node.threw)}`);
      assert.deepStrictEqual(wasm, node);
    });
  }

  test('the scripts answer what the contract says', () => {
    const [caps, , , none, both, lax, empty] = bindingScripts['agent free functions'](native.binding);
    assert.deepEqual(caps, { readTextFile: true, writeTextFile: true });
    assert.deepEqual(none, { readTextFile: false, writeTextFile: false });
    assert.equal(both.length, 2);
    assert.deepEqual(lax.map((t) => t.name), ['write_text_file'], 'only a real true counts');
    assert.deepEqual(empty, []);
    const mcp = bindingScripts['Engine.mcpDispatch: a write call through approval'](native.binding);
    assert.equal(mcp.method, 'fs/write_text_file');
    assert.equal('audit' in mcp.outcome, false, 'the audit event is asked for apart');
    assert.equal(mcp.audit.op, 'write');
    assert.equal(mcp.audit.outcome, 'ok');
    assert.equal(mcp.audit.path, '/p/d/n.txt');
    assert.deepEqual(mcp.files, { '/p/d/n.txt': 'n\n' });
    assert.equal(mcp.reply, '{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Wrote /p/d/n.txt (2 bytes)."}],"isError":false}}');
    const fails = bindingScripts['Operation.refuse and abort'](native.binding);
    for (const f of [fails[0], ...fails.slice(3)]) assert.equal('audit' in f.outcome, false, 'the audit event is asked for apart');
    assert.equal(fails[0].outcome.error.data.field, 'path');
    assert.deepEqual(fails[0].audit, { op: 'read', sessionId: 's', path: '/p/a.txt', line: 3, limit: null, bytes: 0, outcome: 'error', errorKind: 'invalid_params', durationMs: null, traceparent: 't' });
    assert.equal(fails[1].done.error.kind, 'internal', 'no io after a failed operation');
    assert.equal(fails[2].audit, null, 'no audit event while the request runs');
    assert.equal(fails[3].outcome.error.kind, 'cancelled');
    assert.equal(fails[3].audit.outcome, 'cancelled');
    assert.equal(fails[4].outcome.error.kind, 'internal', 'an abort is the driver’s bug, said so');
    assert.equal(fails[4].outcome.error.message, 'Internal error: the driver broke');
    assert.equal(fails[4].audit.errorKind, 'internal');
    assert.equal(fails[5].outcome.error.data.field, 'params');
    assert.equal(fails[5].audit.errorKind, 'invalid_params');
    const calls = bindingScripts['Engine.mcpTools and mcpDispatch: replies and calls'](native.binding);
    const read = calls.at(-6);
    // A call that came as a message ends with its reply alone: the answer crosses once.
    assert.equal('result' in read.outcome, false);
    const answer = JSON.parse(read.outcome.reply);
    assert.equal(answer.id, 'r');
    assert.deepEqual(answer.result.structuredContent, { content: 'two\n' });
    assert.deepEqual(answer.result.content, [{ type: 'text', text: 'two\n' }]);
    assert.equal(read.audit.outcome, 'ok');
    assert.equal(read.audit.line, 2);
    const replies = calls.slice(-5);
    for (const [i, r] of replies.entries()) {
      assert.equal(r.audit.outcome, i === 0 ? 'cancelled' : 'error', `call ${10 + i} is audited as it ended`);
      const reply = JSON.parse(r.outcome.reply ?? r.outcome.done.reply);
      assert.equal(reply.id, 10 + i, 'each call answers under its own id');
      assert.equal(reply.result.isError, true, `call ${10 + i} ends as an error the model can read`);
    }
  });
});
