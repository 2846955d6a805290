// The Windows side of the listing and move race under Wine (tests/cross/wine-dirs.test.mjs): run
// by `node.exe`, it lists `root\sub`, walks the root and searches `sub`, makes directories in `sub` and
// moves files in and out of it through the MCP tools on @acp-fs/node's native Windows disk, while
// a Linux helper swaps `sub` for a symlink to `outside` (tests/node/race-kit.mjs). Prints one line
// `DIRSRACE <json>`: what it saw, and any answer that showed an outside name or outside bytes.
// The Linux side judges the disk afterwards.
//
// Usage: node.exe dirs-race-client.mjs <root as a Windows path> <requests>

import { AcpFs } from '../../node/node-package.mjs';
import { MARKER } from '../../node/race-kit.mjs';

const [root, requests] = process.argv.slice(2);
const REQUESTS = Number(requests);
const CONCURRENCY = 8;
/** What only `outside` has: names, and the marker in its files' text. */
const OUTSIDE = ['canary.txt', 'nested', MARKER];

const fs = new AcpFs({});
fs.openSession('s', { cwd: root });
const mcp = fs.mcpHandler('s');
const sub = `${root}\\sub`;
const counts = { backend: AcpFs.backend, ok: 0, refused: 0, errorKinds: {}, leaks: [], samples: {} };

let id = 0;
async function call(name, args) {
  const reply = await mcp.handle({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
  const text = reply.error ? JSON.stringify(reply.error) : reply.result.content.map((c) => c.text).join('');
  if (reply.error || reply.result.isError) {
    counts.refused += 1;
    const kind = text.match(/\((\w+)\)\s*$/)?.[1] ?? reply.error?.data?.errorKind ?? 'other';
    counts.errorKinds[kind] = (counts.errorKinds[kind] ?? 0) + 1;
    if (!counts.samples[kind]) counts.samples[kind] = `${name} ${JSON.stringify(args)}: ${text.slice(0, 300)}`;
    return null;
  }
  counts.ok += 1;
  return text;
}

let next = 0;
const worker = async () => {
  while (next < REQUESTS) {
    const i = next++;
    const seen = (text) => {
      if (text !== null && OUTSIDE.some((n) => text.includes(n))) {
        counts.outsideShown = (counts.outsideShown ?? 0) + 1;
        if (counts.leaks.length < 5) counts.leaks.push(text.slice(0, 500));
      }
    };
    switch (i % 6) {
      case 0:
        seen(await call('list_directory', { path: sub }));
        break;
      case 4:
        seen(await call('directory_tree', { path: root }));
        break;
      case 5:
        // Every file's text below `sub`: with `sub` swapped, outside's files would be searched.
        // (Not the root: root\b.txt, swapped for a link to a file, is the read race's subject.)
        seen(await call('search_text', { path: sub, pattern: 'OUTSIDE|inside', regex: true, maxResults: 1000 }));
        break;
      case 1:
        await call('create_directory', { path: `${sub}\\made-${i}` });
        break;
      case 2:
        // Out of `sub` and back: with `sub` swapped, the source would be outside's a.txt.
        if ((await call('move_file', { source: `${sub}\\a.txt`, destination: `${root}\\a-${i}.txt` })) !== null) {
          await call('move_file', { source: `${root}\\a-${i}.txt`, destination: `${sub}\\a.txt` });
        }
        break;
      default:
        // Into `sub` and back: with `sub` swapped, the file would land outside.
        if ((await call('move_file', { source: `${root}\\c.txt`, destination: `${sub}\\c-${i}.txt` })) !== null) {
          await call('move_file', { source: `${sub}\\c-${i}.txt`, destination: `${root}\\c.txt` });
        }
    }
  }
};
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
console.log(`DIRSRACE ${JSON.stringify(counts)}`);
