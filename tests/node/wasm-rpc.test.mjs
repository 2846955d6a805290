// The JSON-RPC module (docs/design.md#the-json-rpc-module): @acp-fs/wasm's fs/* module reads no
// JSON text; raw messages are read, and their replies written, by pkg-rpc/, which the entry loads
// the first time one comes. The vectors run raw messages through the Node entry
// (wasm-vectors.test.mjs); here: the module really leaves them out, the same replies as the full
// module's, a page's way (loaded only once `rpcReady` resolves), a load that fails, a trap.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import '../../npm/wasm/node.mjs';
import * as raw from '../../npm/wasm/pkg/acp_fs_wasm.js';
import { AcpFs as FullAcpFs } from '../../npm/wasm/full-node.mjs';
import { AcpFs } from '../../npm/wasm/node.mjs';
import { binding } from '../../npm/wasm/lib/fs.mjs';
import { binding as fullBinding } from '../../npm/wasm/lib/full.mjs';
import * as rpcGlue from '../../npm/wasm/pkg-rpc/acp_fs_wasm_rpc.js';
import { guardBinding } from '../../npm/wasm/lib/guard.mjs';
import { lazyRpc } from '../../npm/wasm/lib/lazy-module.mjs';
import { createAcpFs } from '../../npm/shared/index.mjs';
import { MapStorage } from './harness.mjs';

const rpcWasm = readFileSync(new URL('../../npm/wasm/pkg-rpc/acp_fs_wasm_rpc_bg.wasm', import.meta.url));
const message = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const READ = message(7, 'fs/read_text_file', { sessionId: 's', path: '/p/a.txt', line: 2.0 });

function storage() {
  const s = new MapStorage();
  s.put('/p/a.txt', Buffer.from('one\ntwo\n'));
  return s;
}

/** An AcpFs over the fs/* module as a page has it: the JSON-RPC module only from `load()`. */
function pageAcpFs(load) {
  const guarded = guardBinding(raw);
  // The module is instantiated (the Node entry did): a second guard over it, with the page's loader.
  guarded.ready(raw.initSync(), { rpc: lazyRpc(load) });
  return { binding: guarded.binding, AcpFs: createAcpFs(guarded.binding) };
}

describe('the JSON-RPC module', () => {
  test('the fs/* module reads no JSON text; the full module does', () => {
    for (const name of ['dispatch', 'mcpDispatch', 'startJson']) assert.equal(typeof raw.Engine.prototype[name], 'undefined', name);
    for (const name of ['call', 'startJsonChecked']) assert.equal(typeof raw.Engine.prototype[name], 'function', name);
  });

  test('raw messages get the replies the full module gives', async () => {
    const messages = [
      READ,
      message('x', 'fs/read_text_file', { sessionId: 's', path: '/p/none.txt' }),
      message(8, 'fs/read_text_file', { sessionId: 's', path: 'rel' }),
      '{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"s","path":"\\ud800"}}',
      '{"jsonrpc":"2.0","id":10,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/p/b.txt","content":"hi"}}',
      '{"jsonrpc":"2.0","id":11,"method":"fs/read_text_file","params":[1]}',
      '{oops',
      '[1]',
      message(12, 'session/new', {}),
      '{"jsonrpc":"2.0","method":"fs/read_text_file","params":{}}',
      '{"jsonrpc":"2.0","id":13,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt","line":1e400}}',
    ];
    const answers = async (Fs) => {
      const fs = new Fs({ storage: storage(), roots: ['/p'] });
      const out = [];
      for (const m of messages) out.push(await fs.handle(m));
      out.push(await fs.mcpHandler('s').handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'));
      return out;
    };
    const lite = await answers(AcpFs);
    assert.equal(lite[0], '{"jsonrpc":"2.0","id":7,"result":{"content":"two\\n"}}');
    const full = await answers(FullAcpFs);
    // The full module serves MCP tools; the fs/* module refuses them, naming the full one.
    assert.match(lite.pop(), /"code":-32601.*@acp-fs\/wasm\/full/);
    full.pop();
    assert.deepEqual(lite, full);
  });

  test('a raw 2.0 is echoed as line 2 in the audit event, from both modules (semantics.md §7)', async () => {
    for (const Fs of [AcpFs, FullAcpFs]) {
      const events = [];
      const fs = new Fs({ storage: storage(), roots: ['/p'], onAudit: (a) => events.push(a) });
      await fs.handle('{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/p/a.txt","line":2.0,"limit":1e0}}');
      await fs.readTextFile({ sessionId: 's', path: '/p/a.txt', line: 2, limit: 1 });
      assert.deepEqual(
        events.map((e) => [e.line, e.limit]),
        [
          [2, 1],
          [2, 1],
        ],
        Fs === AcpFs ? 'fs/*' : 'full',
      );
    }
  });

  test('a cancelled raw call is answered -32800 as the full module answers it', async () => {
    const cancelled = async (Fs) => {
      const s = storage();
      let release;
      const gate = new Promise((r) => (release = r));
      const slow = { ...s, readFile: async (p) => (await gate, s.readFile(p)), stat: (p) => s.stat(p) };
      const fs = new Fs({ storage: slow, roots: ['/p'] });
      const reply = fs.handle(READ);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(await fs.handle('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'), null);
      release();
      return reply;
    };
    const lite = await cancelled(AcpFs);
    assert.match(lite, /^\{"jsonrpc":"2\.0","id":7,"error":\{"code":-32800/);
    assert.equal(lite, await cancelled(FullAcpFs));
  });

  test('a page loads it the first time a raw message comes, and only then', async () => {
    let loads = 0;
    const { binding: page, AcpFs: PageFs } = pageAcpFs(async () => {
      loads++;
      rpcGlue.initSync({ module: rpcWasm });
      return rpcGlue;
    });
    const fs = new PageFs({ storage: storage(), roots: ['/p'] });
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'one\ntwo\n' });
    assert.equal(loads, 0, 'typed calls need no JSON text');
    const engine = page.createEngine({ roots: ['/p'] }, { symlinks: 'none', stat: true, write: false });
    assert.throws(() => engine.dispatch(READ), /not loaded yet: await binding\.rpcReady\(\)/);
    assert.equal(await fs.handle(READ), '{"jsonrpc":"2.0","id":7,"result":{"content":"two\\n"}}');
    assert.equal(await fs.handle(READ), '{"jsonrpc":"2.0","id":7,"result":{"content":"two\\n"}}');
    assert.equal(loads, 1);
    assert.equal(engine.dispatch(READ).kind, 'call', 'loaded, the low-level call is a plain call again');
    engine.free();
  });

  test('a load that failed is tried again by the next message', async () => {
    let attempts = 0;
    const { AcpFs: PageFs } = pageAcpFs(async () => {
      if (++attempts === 1) throw new Error('fetch failed: 503');
      rpcGlue.initSync({ module: rpcWasm });
      return rpcGlue;
    });
    const fs = new PageFs({ storage: storage(), roots: ['/p'] });
    await assert.rejects(fs.handle(READ), /fetch failed: 503/);
    assert.match(await fs.handle(READ), /"result":\{"content":"two\\n"\}/);
    assert.equal(attempts, 2);
  });

  test('a raw message starts at once, before the next call of its caller, as from the full module', async () => {
    for (const Fs of [AcpFs, FullAcpFs]) {
      const s = storage();
      const fs = new Fs({ storage: s, roots: ['/p'] });
      const raw = fs.handle(message(1, 'fs/write_text_file', { sessionId: 's', path: '/p/a.txt', content: 'raw (first)\n' }));
      const typed = fs.writeTextFile({ sessionId: 's', path: '/p/a.txt', content: 'typed (second)\n' });
      await Promise.all([raw, typed]);
      assert.equal(Buffer.from(s.files.get('/p/a.txt')).toString(), 'typed (second)\n', Fs === AcpFs ? 'fs/*' : 'full');
    }
  });

  test('a JSON-RPC module that fails writing a reply fails that message, not the engine', async () => {
    rpcGlue.initSync({ module: rpcWasm });
    const failing = {
      parseMessage: (m) => rpcGlue.parseMessage(m),
      checkParams: (p) => rpcGlue.checkParams(p),
      respond() {
        throw new WebAssembly.RuntimeError('unreachable');
      },
    };
    const { AcpFs: PageFs } = pageAcpFs(async () => failing);
    const fs = new PageFs({ storage: storage(), roots: ['/p'] });
    await assert.rejects(fs.handle(READ), (e) => e.code === 'internal' && /unreachable/.test(e.message));
    assert.deepEqual(await fs.readTextFile({ sessionId: 's', path: '/p/a.txt' }), { content: 'one\ntwo\n' }, 'the engine serves on');
    await assert.rejects(fs.handle(READ), /the JSON-RPC module trapped \(unreachable\) and is not entered again/);
  });

  test('after a trap in it, it is not entered again', () => {
    let calls = 0;
    const trapping = {
      parseMessage() {
        calls++;
        throw new WebAssembly.RuntimeError('unreachable');
      },
    };
    const rpc = lazyRpc(async () => trapping, () => trapping);
    assert.throws(() => rpc.run((m) => m.parseMessage('{}')), WebAssembly.RuntimeError);
    assert.throws(() => rpc.run((m) => m.parseMessage('{}')), /the JSON-RPC module trapped \(unreachable\) and is not entered again/);
    assert.equal(calls, 1);
  });

  test('startJson reads its params through it, refusing what is not JSON as the full module does', () => {
    const first = (module, text) => {
      const engine = module.createEngine({ roots: ['/p'] }, { symlinks: 'none', stat: true, rangedReads: true, write: false, makeDirs: false });
      const op = engine.startJson('fs/read_text_file', text);
      const step = op.step();
      op.free();
      engine.free();
      return step;
    };
    const texts = [
      '{"sessionId":"s","path":"/p/a.txt"}',
      '{oops',
      '{"sessionId":"s","path":"\\ud800"}',
      '{"sessionId":"s","path":"/p/a.txt","line":-1}',
      '[1]',
    ];
    for (const text of texts) assert.deepEqual(first(binding, text), first(fullBinding, text), text);
    assert.equal(first(binding, '{oops').done.error.kind, 'internal');
    assert.equal(first(binding, texts[0]).io.op, 'open');
  });
});
