// What the race tests share (tests/node/race.test.mjs on this machine's disk,
// tests/cross/platforms.test.mjs under Wine): the swapping helper, the request mix and the
// snapshots that prove nothing outside the root was read, changed or created.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join, relative } from 'node:path';

export const MARKER = 'OUTSIDE-SECRET';
export const TEMP = /\.acp-fs-\d+-\d+\.tmp$/;

// The swapper: root/sub <-> symlink to ../outside, and root/b.txt <-> symlink to the outside
// canary, by renames (Node has no RENAME_EXCHANGE, so each swap passes through a moment with no
// entry at all). Missing links are put back, so writes that replace a link do not end the race.
export const SWAPPER = `
const fs = require('node:fs');
const [root, outside] = process.argv.slice(1);
const p = (n) => root + '/' + n;
const kind = (name) => {
  try {
    const st = fs.lstatSync(p(name));
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
  } catch { return null; }
};
const mv = (a, b) => { try { fs.renameSync(p(a), p(b)); } catch {} };
// Back to the resting state (name real, .name.real absent, .name.link a link): writes that
// replaced a link or created a missing directory must not stop the swapping.
const settle = (name, type, target) => {
  try {
    const now = kind(name);
    const parked = kind('.' + name + '.real');
    if (now !== type) {
      if (now) fs.rmSync(p(name), { recursive: true, force: true });
      if (parked === type) mv('.' + name + '.real', name);
      else if (type === 'dir') fs.mkdirSync(p(name));
      else fs.writeFileSync(p(name), 'inside\\n');
    } else if (parked) fs.rmSync(p('.' + name + '.real'), { recursive: true, force: true });
    if (kind('.' + name + '.link') !== 'link') {
      fs.rmSync(p('.' + name + '.link'), { recursive: true, force: true });
      fs.symlinkSync(target, p('.' + name + '.link'));
    }
  } catch {}
};
const parent = process.ppid;
let rounds = 0;
for (;;) {
  settle('sub', 'dir', '../outside');
  settle('b.txt', 'file', outside + '/canary.txt');
  mv('sub', '.sub.real'); mv('.sub.link', 'sub');
  mv('b.txt', '.b.txt.real'); mv('.b.txt.link', 'b.txt');
  mv('sub', '.sub.link'); mv('.sub.real', 'sub');
  mv('b.txt', '.b.txt.link'); mv('.b.txt.real', 'b.txt');
  // A synchronous loop never sees signals' handlers or a lost IPC channel: watch the parent.
  if (++rounds % 1000 === 0) {
    if (process.ppid !== parent) process.exit(0);
    process.send(rounds);
  }
}
`;

/** Every file under `dir` (relative name → bytes, symlinks as `-> target`), for comparison. */
export function snapshot(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of nodeFs.readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      const name = relative(dir, full);
      if (e.isSymbolicLink()) out.set(name, `-> ${nodeFs.readlinkSync(full)}`);
      else if (e.isDirectory()) {
        out.set(`${name}/`, 'dir');
        walk(full);
      } else out.set(name, nodeFs.readFileSync(full).toString('latin1'));
    }
  };
  walk(dir);
  return out;
}

export function temps(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of nodeFs.readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (TEMP.test(e.name)) found.push(full);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(full);
    }
  };
  walk(dir);
  return found;
}

/**
 * The i-th request of a race: reads of a file in the swapped directory and of the swapped file,
 * whole-file writes to both, and creations of new files and new directories in the swapped
 * directory. `join` is the path module of the side that serves them (POSIX or win32).
 */
export function requestOf(i, root, join) {
  const kind = i % 20;
  if (kind < 6) return ['read', { sessionId: 's', path: join(root, 'sub', 'a.txt') }];
  if (kind < 12) return ['read', { sessionId: 's', path: join(root, 'b.txt'), line: 1, limit: 1 }];
  if (kind < 14) return ['write', { sessionId: 's', path: join(root, 'sub', 'a.txt'), content: `inside a ${i}\n` }];
  if (kind < 16) return ['write', { sessionId: 's', path: join(root, 'b.txt'), content: `inside b ${i}\n` }];
  if (kind < 18) return ['write', { sessionId: 's', path: join(root, 'sub', `new-${i}.txt`), content: `new ${i}\n` }];
  return ['write', { sessionId: 's', path: join(root, 'sub', `deep-${i}`, 'x.txt'), content: `deep ${i}\n` }];
}

/** Starts the swapper over `root` and waits for its first round; `rounds()` counts them. */
export async function startSwapper(root, outside) {
  const swapper = spawn(process.execPath, ['-e', SWAPPER, root, outside], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let rounds = 0;
  swapper.on('message', (n) => {
    rounds = n;
  });
  const started = await new Promise((resolve) => {
    swapper.once('message', () => resolve(true));
    swapper.once('exit', () => resolve(false));
  });
  assert.ok(started, 'the swapper died before its first round');
  return {
    rounds: () => rounds,
    async stop() {
      swapper.kill('SIGKILL');
      await new Promise((resolve) => (swapper.exitCode !== null ? resolve() : swapper.once('exit', resolve)));
    },
  };
}
