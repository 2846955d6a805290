// A window is always a slice of the file as it is now (semantics.md §8 "Line index"), on every
// Node route, whatever was done behind the engine's back: the case that broke it was a
// same-size rewrite with the old modification time put back (touch -r, cp -p, rsync -t, tar x),
// which the line index took for the version it had scanned. The Rust disk has the same test
// (core/tests/identity.rs).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AcpFs } from '../../npm/node/index.mjs';
import { AcpFs as WasmAcpFs } from '../../npm/wasm/node.mjs';
import { makeTempDir } from './harness.mjs';

const routes = {
  'native disk': () => new AcpFs(),
  'fs.promises': () => new AcpFs({ storage: nodeFs.promises }),
  'wasm over fs.promises': () => new WasmAcpFs({ storage: nodeFs.promises }),
};

/** Rows of varied length. */
const text = (rows) => Array.from({ length: rows }, (_, i) => `${i + 1}:${'x'.repeat(((i + 1) * 7) % 23)}\n`).join('');

/** The same bytes with the rows' boundaries moved: same size, other line starts. */
function shifted(old) {
  let cut = Math.floor(old.length / 3) + 1;
  while (old[cut - 1] === '\n') cut++;
  return old.slice(cut) + old.slice(0, cut);
}

/** Rows `line ..` (1-based), at most `limit`, terminators kept (semantics.md §2). */
const slice = (s, line, limit) => s.split(/(?<=\n)/).slice(line - 1, line - 1 + limit).join('');

const WINDOWS = [[251, 250], [1000, 40], [1700, 300], [2, 5], [1999, 10], [600, 600]];

const rewrites = {
  'in place, utimes': (path, content) => {
    const { atime, mtime } = nodeFs.statSync(path);
    nodeFs.writeFileSync(path, content);
    nodeFs.utimesSync(path, atime, mtime);
  },
  'by rename, utimes': (path, content) => {
    const { atime, mtime } = nodeFs.statSync(path);
    nodeFs.writeFileSync(`${path}.new`, content);
    nodeFs.utimesSync(`${path}.new`, atime, mtime);
    nodeFs.renameSync(`${path}.new`, path);
  },
  'in place, touch -r': (path, content) => {
    const { atime, mtime } = nodeFs.statSync(path);
    nodeFs.writeFileSync(`${path}.ref`, '');
    nodeFs.utimesSync(`${path}.ref`, atime, mtime);
    nodeFs.writeFileSync(path, content);
    execFileSync('touch', ['-r', `${path}.ref`, path]);
  },
};

for (const [route, make] of Object.entries(routes)) {
  describe(`${route}: a same-size rewrite with the old modification time put back`, () => {
    for (const [how, rewrite] of Object.entries(rewrites)) {
      test(how, async () => {
        const root = makeTempDir('acp-fs-identity-');
        const path = join(root, 'big.txt');
        const old = text(2000);
        const next = shifted(old);
        assert.equal(next.length, old.length);
        nodeFs.writeFileSync(path, old);
        const fs = make();
        fs.openSession('s', { cwd: root });
        const readAll = async (now, when) => {
          for (const [line, limit] of WINDOWS) {
            const { content } = await fs.readTextFile({ sessionId: 's', path, line, limit });
            assert.equal(content, slice(now, line, limit), `${when}: line ${line}, limit ${limit}`);
          }
        };
        await readAll(old, 'before');
        rewrite(path, next);
        assert.equal(nodeFs.statSync(path).size, old.length);
        await readAll(next, 'after the rewrite');
        rewrite(path, old);
        await readAll(old, 'after rewriting it back');
      });
    }
  });
}
