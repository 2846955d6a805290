// The behaviour vectors that lay out symlinks (containment by real path, links leading outside,
// links in listings and moves...), on the Windows disk under Wine through @acp-fs/node's native
// storage in `node.exe`. Windows code under Wine 8 cannot make a link (CreateSymbolicLink succeeds
// and makes nothing), so tests/node/napi.test.mjs skips these there; this (Linux) side lays each
// vector's tree out in the Wine prefix's C: drive instead, prefixed and in Windows form as the
// harness does it (prefixVector, layOutDisk), its links as Unix symlinks (Wine's only links), and
// node.exe runs them with the shared vector runner against those trees
// (tests/cross/wine/vectors-client.mjs), each held to the vector's own expectations.
//
// ./dev test sets up Wine and node.exe (need_cross) and builds the addon (build_cross); without
// them (ACP_FS_CROSS unset) this is skipped with the reason.

import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { basename, join, posix } from 'node:path';
import { test } from 'node:test';
import { backends, layOutDisk, loadVectors, prefixVector } from '../node/harness.mjs';
import { fileEntries, hasSymlinks, rangedVariants } from '../shared/vectors.mjs';
import { linuxPathOf, missing, root, underWine, wine, wineDrive, winNode } from './kit.mjs';

const addon = join(root, 'npm', 'node', 'acp-fs.win32-x64-gnu.node');

/** Every path the vector's requests and tool calls name (a move's source and destination too). */
function pathsAsked(vector) {
  const calls = [vector, ...(vector.steps ?? []).flatMap((s) => [s, ...(s.together ?? [])])];
  return calls.flatMap(({ request, tool }) => {
    const args = tool?.arguments ?? {};
    return [request?.params?.path, args.path, args.source, args.destination, ...(args.paths ?? [])].filter((p) => typeof p === 'string');
  });
}

const LISTINGS = ['list_directory', 'list_directory_with_sizes', 'directory_tree'];

/**
 * Why Windows code under Wine cannot see the vector's links as Windows would show them, or
 * undefined (docs/security.md, "where Wine falls short"). Wine shows a Unix symlink as what it
 * leads to: one to a file as that file (in a listing, and to the engine, which then takes a move
 * of it for a move of a file), and one that leads nowhere not at all. Where each link leads is
 * asked of the vector's own tree, laid out in memory (memfs).
 */
async function wineCannotShow(vector) {
  const links = fileEntries(vector).filter(([, c]) => c && typeof c === 'object' && 'symlink' in c).map(([p]) => p);
  const tree = await backends.memfsRanged.prepare(vector);
  const leadsTo = async (link) => {
    try {
      return (await tree.storage.stat(link)).isFile() ? 'file' : 'directory';
    } catch (e) {
      // A loop is no link that leads nowhere: Wine shows it (as a name that cannot be opened).
      return e.code === 'ENOENT' ? 'nowhere' : e.code;
    }
  };
  const kinds = new Map();
  for (const link of links) kinds.set(link, await leadsTo(link));
  const asked = pathsAsked(vector);
  const through = (p, link) => p === link || p.startsWith(`${link}/`);
  if (asked.some((p) => links.some((l) => through(p, l) && kinds.get(l) === 'nowhere'))) {
    return 'Wine hides a symlink that leads nowhere from Windows code (Windows shows the link)';
  }
  const tools = [vector.tool, ...(vector.steps ?? []).map((s) => s.tool)].filter(Boolean);
  for (const { name, arguments: args = {} } of tools) {
    const holds = (l) => (name === 'directory_tree' ? l.startsWith(`${args.path}/`) : posix.dirname(l) === args.path);
    if (LISTINGS.includes(name) && links.some((l) => holds(l) && ['file', 'nowhere'].includes(kinds.get(l)))) {
      return 'Wine lists a symlink to a file as that file and leaves one that leads nowhere out (Windows lists both as links)';
    }
    if (name === 'move_file' && kinds.get(args.source) === 'file') {
      return 'Wine shows a symlink to a file as that file, so the engine cannot call it not_a_file; the storage refuses the move (core/tests/dirs_windows.rs)';
    }
  }
  return undefined;
}

test(
  'Windows disk under Wine: the vectors with symlinks, laid out from Linux, on the native storage in node.exe',
  { skip: missing([wine, winNode, addon, join(wineDrive, 'windows')]), timeout: 30 * 60_000 },
  async (t) => {
    const base = nodeFs.mkdtempSync(join(wineDrive, 'acpfs-vectors-'));
    t.after(() => nodeFs.rmSync(base, { recursive: true, force: true }));
    const windowsBase = `C:\\${basename(base)}`;
    const withLinks = loadVectors().filter(({ vector }) => hasSymlinks(vector));
    // What the Windows disk cannot hold (drive paths of their own, FIFOs, raw messages, ...) is
    // left out by the harness's own rule, all but the symlinks, which are made here.
    const prefixes = {};
    const leftOut = new Map();
    const native = backends.native;
    for (const [i, { vector }] of withLinks.entries()) {
      const why =
        native.skipReason(vector, { windows: true, linksFromLinux: true }) ??
        (rangedVariants(vector).includes(native.ranged) ? undefined : 'the vector pins whole-file reads; the native disk streams') ??
        (await wineCannotShow(vector));
      if (why) {
        leftOut.set(why, (leftOut.get(why) ?? 0) + 1);
        continue;
      }
      const dir = `${windowsBase}\\${i}`;
      layOutDisk(prefixVector(vector, dir, '\\'), linuxPathOf);
      prefixes[vector.name] = dir;
    }
    const manifest = join(base, 'manifest.json');
    nodeFs.writeFileSync(manifest, JSON.stringify(prefixes));
    const { status, out } = underWine('vectors', [winNode, 'tests/cross/wine/vectors-client.mjs', `${windowsBase}\\manifest.json`], {
      ACP_FS_EXPECT_BACKEND: 'native',
    });
    const lines = out.split(/\r?\n/);
    assert.ok(status === 0 && lines.includes('DONE'), `node.exe exited ${status}:\n${out.slice(-4000)}`);
    assert.ok(lines.includes('BACKEND native'), 'the native storage ran, not the wasm fallback');
    const results = lines.filter((l) => l.startsWith('VECTOR ')).map((l) => JSON.parse(l.slice(7)));
    assert.deepEqual(results.map((r) => r.name).sort(), Object.keys(prefixes).sort(), 'every vector laid out was run');
    const ran = results.filter((r) => r.ran === 1);
    const skipped = results.filter((r) => r.ran === 0).map((r) => `${r.name}: ${r.skipped.join('; ')}`);
    const failures = results.flatMap((r) => r.failures.map((f) => `${r.file} ${r.name}: ${f}`));
    const summary = [
      `${ran.length} of ${withLinks.length} vectors with symlinks ran on the Windows disk`,
      ...[...leftOut].map(([why, n]) => `  left out ${n} × ${why}`),
      ...skipped.map((s) => `  skipped by the runner: ${s}`),
    ];
    for (const line of summary) t.diagnostic(line);
    console.log(`wine vectors: ${summary.join('\n')}`);
    assert.deepEqual(failures, [], failures.join('\n'));
    assert.deepEqual(skipped, [], 'every vector laid out runs');
    // Issue 25's point: every containment vector with a link runs here.
    const containment = withLinks.filter(({ file }) => file === 'containment.json').map(({ vector }) => vector.name);
    assert.ok(containment.length > 0);
    for (const name of containment) assert.ok(ran.some((r) => r.name === name), `${name} ran on the Windows disk`);
  },
);
