// A read's text as @acp-fs/wasm hands it over in Node: UTF-16 code units from wasm memory
// (bindings-wasm's outbox, lib/node-text.mjs), not UTF-8. Every character width at every
// offset of the 16-byte ASCII runs the binding widens at once, windows, large files with chunked
// reads, and text above the size the binding widens: the content is the text, character for
// character, as a plain decode gives it. Both Node entries (the package's and @acp-fs/node's wasm
// fallback) use this path; the raw binding is asked for both forms and must agree.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { AcpFs } from '../../npm/wasm/node.mjs';
import { guardBinding } from '../../npm/wasm/lib/guard.mjs';
import { wideText as nodeWideText } from '../../npm/wasm/lib/node-text.mjs';
import * as raw from '../../npm/wasm/pkg/acp_fs_wasm.js';

// The module's exports (its memory), as the Node entry instantiated it.
const exports = raw.initSync({ module: readFileSync(new URL('../../npm/wasm/pkg/acp_fs_wasm_bg.wasm', import.meta.url)) });

const enc = new TextEncoder();

/** An in-memory storage: ranged reads (`readRange`) or whole files only. */
function storage(files, ranged) {
  const stat = (p) => ({ isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false, size: files.get(p).length });
  const s = { readFile: (p) => files.get(p), stat };
  if (ranged) s.readRange = (p, offset, length) => files.get(p).subarray(offset, offset + length);
  return s;
}

/** Reads every text whole (ranged and whole-file storages), and in windows of `lines` lines. */
async function readsBack(texts, { lines = 0 } = {}) {
  for (const ranged of [true, false]) {
    const files = new Map(texts.map((t, i) => [`/p/${i}.txt`, enc.encode(t)]));
    const fs = new AcpFs({ storage: storage(files, ranged), roots: ['/p'] });
    for (const [i, text] of texts.entries()) {
      const path = `/p/${i}.txt`;
      const { content } = await fs.readTextFile({ sessionId: 's', path });
      assert.equal(content, text, `whole read of text ${i} (${ranged ? 'ranged' : 'whole-file'} storage)`);
      if (lines > 0) {
        const all = text.split(/(?<=\n)/);
        for (let line = 1; line <= all.length; line += lines) {
          const got = await fs.readTextFile({ sessionId: 's', path, line, limit: lines });
          assert.equal(got.content, all.slice(line - 1, line - 1 + lines).join(''), `text ${i}, line ${line}`);
        }
      }
    }
  }
}

// One character of each UTF-8 length (2, 3, 4 bytes; the 4-byte one is a surrogate pair in
// UTF-16), and the ends of each range.
const WIDE = ['é', 'ÿ', '\u0080', '\u07ff', '—', '€', '\u0800', '\uffef', '😀', '\u{10000}', '\u{10ffff}'];

describe('@acp-fs/wasm in Node: a read\'s text crosses as UTF-16', () => {
  test('every character width at every offset of a 16-byte run', async () => {
    const texts = [];
    for (const c of WIDE) {
      for (let at = 0; at < 34; at++) texts.push(`${'a'.repeat(at)}${c}${'b'.repeat(40 - (at % 7))}\n`);
      texts.push(`${c.repeat(40)}\n`, `${c}`, `x${c}`, `${'z'.repeat(16)}${c}${'z'.repeat(15)}`);
    }
    await readsBack(texts);
  });

  test('mixed lines, windows of them, and text that is all ASCII or empty', async () => {
    const line = (i) => (i % 3 === 0 ? `${i}: café — ünïcödé «quoted» 😀 ok\n` : `${i}: const value = compute(input); // plain\n`);
    const mixed = Array.from({ length: 60 }, (_, i) => line(i + 1)).join('');
    await readsBack([mixed, 'plain ascii\nonly\n', '', 'é'], { lines: 7 });
  });

  test('large files (chunked reads) and text above the size the binding widens', async () => {
    const big = (bytes) => {
      const unit = 'ünïcödé — 😀 and some ASCII to go with it, ok\n';
      return unit.repeat(Math.ceil(bytes / enc.encode(unit).length));
    };
    // 200 KB: several chunks after the head; 1.1 MB: above the binding's 1 MiB bound.
    await readsBack([big(200 * 1024), big(1100 * 1024)]);
  });

  test('the binding gives the same text in both forms', () => {
    for (const [text, wide] of [
      [`héllo — 😀\n${'ascii '.repeat(10)}\n`, 1],
      // All ASCII and long: tagged UTF-8 without a UTF-16 decoder, ASCII with one.
      [`${'plain ascii '.repeat(10)}\n`, 0],
    ]) {
      sameInBothForms(text, wide);
    }
  });

  function sameInBothForms(text, wide) {
    const bytes = enc.encode(text);
    const caps = { symlinks: 'none', stat: true, rangedReads: true, write: false, makeDirs: false };
    const opened = { file: 0, metadata: { kind: 'file', size: bytes.length }, bytes: true };
    // Two guards over the one module: with Node's UTF-16 decoder (counting its calls) and without.
    let widened = 0;
    const read = (wideText) => {
      const guarded = guardBinding(raw);
      guarded.ready(exports, wideText && { wideText: (units) => (widened++, wideText(units)) });
      const engine = guarded.binding.createEngine({ roots: ['/p'] }, caps);
      const op = engine.startFlat('fs/read_text_file', { sessionId: 's', path: '/p/a.txt' });
      assert.equal(op.step().io.op, 'open');
      const { content } = op.step(opened, bytes).done.result;
      op.free();
      engine.free();
      return content;
    };
    assert.equal(read(undefined), text);
    assert.equal(widened, 0);
    assert.equal(read(nodeWideText), text);
    assert.equal(widened, wide, 'a non-ASCII text comes as UTF-16 when the host can decode it, an ASCII one never');
  }
});
