// The stdio framing both MCP servers share (npm/shared/lines.mjs): newline-delimited messages
// on a real Node stream, however the bytes are chunked.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { serveLines } from '../../npm/shared/lines.mjs';

const bytes = (s) => Buffer.from(s, 'utf8');
const tick = () => new Promise((r) => setImmediate(r));

test('lines arrive whole and in order, however the bytes are cut; CRLF and blank lines', async () => {
  const input = new PassThrough();
  const seen = [];
  const drained = serveLines(input, (line) => void seen.push(line), { maxBytes: () => 1024 });
  // "é" is two bytes: the cut falls inside it.
  const all = bytes('{"a":1}\r\n\n   \r\n{"b":"é"}\n{"c"');
  const cut = all.indexOf(0xc3) + 1;
  input.write(all.subarray(0, 3));
  input.write(all.subarray(3, cut));
  input.write(all.subarray(cut));
  input.end(bytes(':3}\n'));
  await drained;
  assert.deepEqual(seen, ['{"a":1}', '{"b":"é"}', '{"c":3}']);
});

test('a line with no newline before the end is not a message', async () => {
  const input = new PassThrough();
  const seen = [];
  const drained = serveLines(input, (line) => void seen.push(line), { maxBytes: () => 1024 });
  input.end(bytes('one\ntwo'));
  await drained;
  assert.deepEqual(seen, ['one']);
});

test('it resolves only when the input has ended and every handler has settled', async () => {
  const input = new PassThrough();
  const waiting = [];
  let resolved = false;
  const drained = serveLines(input, () => new Promise((r) => waiting.push(r)), { maxBytes: () => 1024 }).then(() => {
    resolved = true;
  });
  input.end(bytes('a\nb\n'));
  await tick();
  assert.equal(waiting.length, 2, 'both lines were handed on without waiting for the first');
  waiting[0]();
  await tick();
  assert.equal(resolved, false, 'one handler is still running');
  waiting[1]();
  await drained;
  assert.equal(resolved, true);
});

test('a handler that destroys the input gets no later line', async () => {
  const input = new PassThrough();
  const seen = [];
  const drained = serveLines(
    input,
    (line) => {
      seen.push(line);
      if (line === 'stop') input.destroy();
    },
    { maxBytes: () => 1024 },
  );
  input.write(bytes('go\nstop\nnever\n'));
  await drained;
  assert.deepEqual(seen, ['go', 'stop']);
});

test('an unfinished line past the limit closes the input; the limit is asked after each chunk', async () => {
  const input = new PassThrough();
  const seen = [];
  const tooLong = [];
  let limit = 4;
  const drained = serveLines(
    input,
    (line) => {
      seen.push(line);
      limit = 10;
    },
    { maxBytes: () => limit, onTooLong: (n) => tooLong.push(n) },
  );
  input.write(bytes('abc\n'));
  input.write(bytes('123456789'));
  await tick();
  assert.equal(input.destroyed, false, 'nine characters are within the limit after the first line');
  input.write(bytes('0ab'));
  await drained;
  assert.deepEqual(seen, ['abc']);
  assert.deepEqual(tooLong, [10]);
  assert.equal(input.destroyed, true);
});
