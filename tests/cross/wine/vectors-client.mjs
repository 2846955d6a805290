// The Windows side of tests/cross/wine-vectors.test.mjs: run by `node.exe` under Wine, it runs the
// behaviour vectors whose trees the Linux side laid out in the Wine prefix's C: drive (symlinks
// included, which Windows code under Wine cannot make) on @acp-fs/node's native Windows disk, with
// the shared vector runner, and prints one line `VECTOR <json>` a vector: its file, name, and the
// reason it was skipped or its failures against the vector's own expectations.
//
// Usage: node.exe vectors-client.mjs <manifest: {vector name: its tree's C:\ directory}>
// ACP_FS_NODE_PKG names the package (tests/node/node-package.mjs).

import { readFileSync } from 'node:fs';
import { AcpFs } from '../../node/node-package.mjs';
import { backends, laidOut, loadVectors } from '../../node/harness.mjs';
import { runOnEvery } from '../../shared/vectors.mjs';

const prefixes = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const disk = laidOut(backends.native, prefixes);
console.log(`BACKEND ${AcpFs.backend}`);
for (const { file, vector } of loadVectors()) {
  if (!(vector.name in prefixes)) continue;
  const { ran, skipped, failures } = await runOnEvery(AcpFs, vector, [disk]);
  console.log(`VECTOR ${JSON.stringify({ file, name: vector.name, ran: ran.length, skipped, failures })}`);
}
console.log('DONE');
