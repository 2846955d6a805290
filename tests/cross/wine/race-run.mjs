// One race under Wine, shared by the Windows disk's two races (tests/cross/platforms.test.mjs:
// reads, writes and creations; tests/cross/wine-dirs.test.mjs: listings, searches, new
// directories and moves): lays out a root and an outside directory of marked files in the Wine
// prefix's C: drive, swaps the root's `sub` for a symlink to the outside from this (Linux) side
// (tests/node/race-kit.mjs), runs a client script in `node.exe` under Wine against the root, and
// answers what the client saw and what happened outside.

import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { basename, join } from 'node:path';
import { MARKER, snapshot, startSwapper } from '../../node/race-kit.mjs';

/**
 * `drive`: the prefix's drive_c; `client`: the script (relative to `cwd`), given the root's
 * Windows path and `requests`; it prints one line `<tag> <json>`. `insideFiles`: the root's
 * files besides `sub/a.txt` (relative name → text). `env`: added to the client's environment.
 * The base directory is removed when `t` ends. Answers `{seen, base, changed, created, rounds}`.
 */
export async function wineRace(t, { wine, winNode, winePrefix, drive, cwd, client, tag, requests, insideFiles, env = {} }) {
  const base = nodeFs.mkdtempSync(join(drive, 'acpfs-race-'));
  t.after(() => nodeFs.rmSync(base, { recursive: true, force: true }));
  const inside = join(base, 'root');
  const outside = join(base, 'outside');
  nodeFs.mkdirSync(join(inside, 'sub'), { recursive: true });
  nodeFs.mkdirSync(join(outside, 'nested'), { recursive: true });
  nodeFs.writeFileSync(join(inside, 'sub', 'a.txt'), 'inside a\n');
  for (const [name, text] of Object.entries(insideFiles)) nodeFs.writeFileSync(join(inside, name), text);
  nodeFs.writeFileSync(join(outside, 'a.txt'), `${MARKER} a\n`);
  nodeFs.writeFileSync(join(outside, 'canary.txt'), `${MARKER} canary\n`);
  nodeFs.writeFileSync(join(outside, 'nested', 'x.txt'), `${MARKER} nested\n`);
  const before = snapshot(outside);
  const swapper = await startSwapper(inside, outside);
  // Output to a file: node.exe under Wine cannot write to a pipe.
  const log = join(base, 'client.log');
  const fd = nodeFs.openSync(log, 'w');
  let code;
  try {
    const childEnv = { ...process.env, ACP_FS_EXPECT_BACKEND: 'native', WINEPREFIX: winePrefix, WINEDEBUG: '-all', ...env };
    delete childEnv.NODE_TEST_CONTEXT;
    const child = spawn(wine, [winNode, client, `C:\\${basename(base)}\\root`, String(requests)], {
      cwd,
      stdio: ['ignore', fd, fd],
      env: childEnv,
    });
    code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? signal)));
  } finally {
    nodeFs.closeSync(fd);
    await swapper.stop();
  }
  const out = nodeFs.readFileSync(log, 'utf8');
  const line = out.split(/\r?\n/).find((l) => l.startsWith(`${tag} `));
  if (code !== 0 || !line) throw new Error(`node.exe exited ${code}:\n${out.slice(-3000)}`);
  const after = snapshot(outside);
  return {
    seen: JSON.parse(line.slice(tag.length + 1)),
    base,
    changed: [...before].filter(([n, c]) => after.get(n) !== c).map(([n]) => n),
    created: [...after.keys()].filter((n) => !before.has(n)),
    rounds: swapper.rounds(),
  };
}
