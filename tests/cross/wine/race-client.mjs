// The Windows side of the race under Wine (tests/cross/platforms.test.mjs): run by `node.exe`,
// it serves the race's reads, writes and creations through @acp-fs/node's native Windows disk
// storage while a Linux helper swaps `root\sub` and `root\b.txt` for symlinks that lead outside.
// Prints one line `RACE <json>` with what it saw; the Linux side judges the disk afterwards.
//
// Usage: node.exe race-client.mjs <root as a Windows path> <requests>
// ACP_FS_NODE_PKG names the installed package (tests/node/node-package.mjs).

import { win32 } from 'node:path';
import { AcpFs } from '../../node/node-package.mjs';
import { MARKER, requestOf } from '../../node/race-kit.mjs';

const [root, requests] = process.argv.slice(2);
const REQUESTS = Number(requests);
const CONCURRENCY = 8;

const fs = new AcpFs({});
fs.openSession('s', { cwd: root });
const counts = { backend: AcpFs.backend, ok: 0, refused: 0, outsideBytesRead: 0, errorKinds: {}, leaks: [], samples: {} };
let next = 0;
const worker = async () => {
  while (next < REQUESTS) {
    const [op, params] = requestOf(next++, root, win32.join);
    try {
      const r = op === 'read' ? await fs.readTextFile(params) : await fs.writeTextFile(params);
      counts.ok += 1;
      if (op === 'read' && r.content.includes(MARKER)) {
        counts.outsideBytesRead += 1;
        if (counts.leaks.length < 5) counts.leaks.push(`${params.path}: ${JSON.stringify(r.content)}`);
      }
    } catch (e) {
      counts.refused += 1;
      const k = e?.data?.errorKind ?? e?.code ?? String(e);
      counts.errorKinds[k] = (counts.errorKinds[k] ?? 0) + 1;
      if (!counts.samples[k]) counts.samples[k] = `${op} ${params.path}: ${e?.message}`;
    }
  }
};
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
console.log(`RACE ${JSON.stringify(counts)}`);
