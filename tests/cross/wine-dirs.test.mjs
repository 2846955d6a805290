// Listings, moves and new directories on the Windows disk, under Wine (core/src/disk/windows_dirs.rs):
// - the Rust tests of core/tests/dirs_windows.rs, cross-compiled for x86_64-pc-windows-gnu and run
//   by Wine, over a tree that this (Linux) side lays out with symlinks in the Wine prefix's C:
//   drive: Windows code under Wine 8 cannot make a link (CreateSymbolicLink succeeds and makes
//   nothing), so links are Unix symlinks, which Wine shows to Windows code as reparse points in
//   listings and follows on open. The storage is called directly, after the engine's check, as a
//   link swapped in meanwhile would meet it;
// - the MCP tools that need them (list_directory, list_directory_with_sizes, directory_tree,
//   create_directory, move_file) through @acp-fs/node's native disk in `node.exe`
//   (tests/cross/wine/dirs-client.mjs): offered there, answering as on every other storage.
// Junctions and reparse tags Wine cannot show are tested on faked answers (core/src/disk/win_walk.rs).
//
// ./dev test sets up Wine and node.exe (need_cross) and builds the addon (build_cross); without
// them (ACP_FS_CROSS unset) these are skipped with the reason.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { snapshot } from '../node/race-kit.mjs';
import { missing, root, underWine, wine, wineDrive as drive, winePrefix, winNode } from './kit.mjs';
import { wineRace } from './wine/race-run.mjs';

const addon = join(root, 'npm', 'node', 'acp-fs.win32-x64-gnu.node');

/** `base/root/{a.txt, b.txt, sub/, link → outside, file-link, near-link → b.txt, dangling}`, `base/outside/{secret.txt, inner/}`. */
function layOut(t) {
  const base = nodeFs.mkdtempSync(join(drive, 'acpfs-dirs-'));
  t.after(() => nodeFs.rmSync(base, { recursive: true, force: true }));
  const inside = join(base, 'root');
  const outside = join(base, 'outside');
  nodeFs.mkdirSync(join(inside, 'sub'), { recursive: true });
  nodeFs.mkdirSync(join(outside, 'inner'), { recursive: true });
  nodeFs.writeFileSync(join(inside, 'a.txt'), 'inside a');
  nodeFs.writeFileSync(join(inside, 'b.txt'), 'inside b');
  nodeFs.writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE');
  nodeFs.symlinkSync(outside, join(inside, 'link'));
  nodeFs.symlinkSync(join(outside, 'secret.txt'), join(inside, 'file-link'));
  nodeFs.symlinkSync(join(inside, 'b.txt'), join(inside, 'near-link'));
  nodeFs.symlinkSync(join(inside, 'nowhere'), join(inside, 'dangling'));
  return { base, windows: `C:\\${basename(base)}`, inside, outside };
}

test(
  'Windows disk under Wine: core/tests/dirs_windows.rs, links laid out from Linux lead nowhere outside',
  { skip: missing([wine, join(drive, 'windows')]), timeout: 30 * 60_000 },
  (t) => {
    // The test binary, built as ./dev builds the addon (MinGW as the linker, from .cargo/config).
    const built = execFileSync(
      'cargo',
      ['test', '--locked', '-p', 'acp-fs', '--features', 'disk', '--target', 'x86_64-pc-windows-gnu', '--test', 'dirs_windows', '--no-run', '--message-format=json'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 },
    );
    const exe = built
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'dirs_windows' && m.executable)?.executable;
    assert.ok(exe, 'cargo built the dirs_windows test binary');
    const tree = layOut(t);
    const before = snapshot(tree.outside);
    const { status, out } = underWine('dirs_windows', [exe, '--test-threads=1'], { ACP_FS_WINE_LINKS: tree.windows });
    for (const l of out.split(/\r?\n/).filter((l) => l.startsWith('test '))) t.diagnostic(l);
    assert.equal(status, 0, out.slice(-4000));
    const summary = out.match(/test result: ok\. (\d+) passed; (\d+) failed; (\d+) ignored/);
    assert.ok(summary, out.slice(-2000));
    assert.deepEqual(summary.slice(1, 4).map(Number), [8, 0, 0], 'every Windows dirs test ran');
    assert.doesNotMatch(out, /ACP_FS_WINE_LINKS unset/, 'the link test saw the tree');
    assert.deepEqual(snapshot(tree.outside), before, 'nothing outside changed, moved or made');
    assert.ok(!nodeFs.existsSync(join(tree.inside, 'nowhere')), 'nothing made through the dangling link');
    // The link to a file moved as itself, or not at all: never the file it leads to.
    const moved = join(tree.inside, 'sub', 'moved-link');
    const kept = join(tree.inside, 'file-link');
    const where = [moved, kept].filter((p) => nodeFs.lstatSync(p, { throwIfNoEntry: false }));
    assert.equal(where.length, 1, `the link is in one place: ${where}`);
    assert.ok(nodeFs.lstatSync(where[0]).isSymbolicLink(), `${where[0]} is still the link`);
    t.diagnostic(`the link to a file under Wine: ${where[0] === moved ? 'moved as itself' : 'refused, left in place'}`);
    // So did the link to a file beside it (Wine opens the file and lists the link as it).
    const near = [join(tree.inside, 'sub', 'near-moved'), join(tree.inside, 'near-link')].filter((p) => nodeFs.lstatSync(p, { throwIfNoEntry: false }));
    assert.equal(near.length, 1, `the link is in one place: ${near}`);
    assert.ok(nodeFs.lstatSync(near[0]).isSymbolicLink(), `${near[0]} is still the link`);
    assert.equal(nodeFs.readFileSync(join(tree.inside, 'b.txt'), 'utf8'), 'inside b', 'the file it leads to stayed');
  },
);

test(
  'Windows disk under Wine: node.exe offers and serves list_directory, directory_tree, create_directory and move_file',
  { skip: missing([wine, winNode, addon]), timeout: 10 * 60_000 },
  (t) => {
    const tree = layOut(t);
    const before = snapshot(tree.outside);
    const served = `${tree.windows}\\root`;
    const { status, out } = underWine('dirs-client', [winNode, 'tests/cross/wine/dirs-client.mjs', served], {
      ACP_FS_EXPECT_BACKEND: 'native',
    });
    const line = out.split(/\r?\n/).find((l) => l.startsWith('DIRS '));
    assert.ok(status === 0 && line, `node.exe exited ${status}:\n${out.slice(-3000)}`);
    const seen = JSON.parse(line.slice(5));
    assert.equal(seen.backend, 'native');
    for (const tool of ['list_directory', 'list_directory_with_sizes', 'directory_tree', 'create_directory', 'move_file']) {
      assert.ok(seen.tools.includes(tool), `${tool} is offered over the Windows disk: ${seen.tools}`);
    }
    const [list, sizes, treeText, sub, mkNew, mkDeep, move, onto, ontoDir, moveDir, subAfter, listLink, plant, mkLink] = seen.calls;
    const ok = (c) => {
      assert.ok(!c.error && !c.isError, `${c.name} ${JSON.stringify(c.args)}: ${JSON.stringify(c.error ?? c.text)}`);
      return c.text;
    };
    const refused = (c, pattern) => {
      assert.ok(c.error || c.isError, `${c.name} ${JSON.stringify(c.args)} was refused`);
      assert.match(JSON.stringify(c.error ?? c.text), pattern, `${c.name} ${JSON.stringify(c.args)}`);
    };
    // A link to a directory is listed as a link (Wine lists a Unix symlink to a directory as a
    // reparse point), never as what it leads to; the files and directories as themselves.
    const lines = ok(list).split('\n');
    for (const l of ['[FILE] a.txt', '[FILE] b.txt', '[DIR] sub', '[LINK] link']) assert.ok(lines.includes(l), `${l} in\n${list.text}`);
    assert.match(ok(sizes), /^\[FILE\] a\.txt +8 B$/m);
    assert.match(ok(sizes), /^Total: \d+ files, 1 directories/m);
    const nodes = JSON.parse(ok(treeText));
    assert.deepEqual(nodes.find((n) => n.name === 'link'), { name: 'link', type: 'symlink' }, 'a link is never descended');
    assert.deepEqual(nodes.find((n) => n.name === 'sub'), { name: 'sub', type: 'directory', children: [] });
    assert.equal(ok(sub), '');
    ok(mkNew);
    ok(mkDeep);
    assert.ok(nodeFs.statSync(join(tree.inside, 'made', 'deeper')).isDirectory());
    ok(move);
    assert.equal(nodeFs.readFileSync(join(tree.inside, 'sub', 'a.txt'), 'utf8'), 'inside a');
    assert.ok(!nodeFs.existsSync(join(tree.inside, 'a.txt')));
    // Never onto something: a file, a directory.
    refused(onto, /exist/i);
    refused(ontoDir, /exist/i);
    assert.equal(nodeFs.readFileSync(join(tree.inside, 'b.txt'), 'utf8'), 'inside b', 'the source stays');
    assert.equal(nodeFs.readFileSync(join(tree.inside, 'sub', 'a.txt'), 'utf8'), 'inside a', 'the destination stays');
    ok(moveDir);
    assert.deepEqual(ok(subAfter).split('\n').sort(), ['[DIR] new', '[FILE] a.txt']);
    // Through the link: refused (the engine's check sees the link; the storage's own refusal is
    // the Rust test above).
    refused(listLink, /outside|escape|root/i);
    refused(plant, /outside|escape|root/i);
    refused(mkLink, /outside|escape|root/i);
    assert.deepEqual(snapshot(tree.outside), before, 'nothing outside changed, moved or made');
  },
);

// The race of tests/node/race.test.mjs for listings, trees, searches, new directories and moves:
// a Linux helper swaps root\sub for a symlink to `outside` (in the Wine prefix's C: drive) while
// node.exe lists it, walks the root, searches `sub`, makes directories in it and moves files out
// of it and into it. Nothing outside may be listed, moved, changed or created. Opt-in
// (ACP_FS_WINE_RACE=1) as the read and write race of platforms.test.mjs is: Wine carries out a
// handle-relative open, and a rename of an open file, by path, which no Windows code can prevent;
// about one run in six of 4,000 requests moves one outside file into the root (docs/security.md).
// ACP_FS_RACE_REQUESTS scales it (default 2,000).
test(
  'Windows disk under Wine: a directory swapped for a symlink during listings, trees, searches, new directories and moves leads nowhere outside',
  {
    skip: process.env.ACP_FS_WINE_RACE === '1'
      ? missing([wine, winNode, addon])
      : 'opt-in: ACP_FS_WINE_RACE=1 (Wine itself can still be redirected; see docs/security.md)',
    timeout: 20 * 60_000,
  },
  async (t) => {
    const { seen, changed, created, rounds } = await wineRace(t, {
      wine,
      winNode,
      winePrefix,
      drive,
      cwd: root,
      client: 'tests/cross/wine/dirs-race-client.mjs',
      tag: 'DIRSRACE',
      requests: Number(process.env.ACP_FS_RACE_REQUESTS ?? 2000),
      insideFiles: { 'b.txt': 'inside b\n', 'c.txt': 'inside c\n' },
    });
    const report = { ...seen, samples: undefined, leaks: seen.leaks.length, swapRounds: rounds, outsideChanged: changed, outsideCreated: created };
    t.diagnostic(`wine dirs race: ${JSON.stringify(report)}`);
    console.log(`wine dirs race: ${JSON.stringify(report)}`);
    if (Object.keys(seen.samples).length) console.log(`samples: ${JSON.stringify(seen.samples)}`);
    assert.equal(seen.backend, 'native');
    assert.ok(rounds > 0, 'the swapper never ran');
    assert.ok(seen.ok > 0, `no request succeeded: ${JSON.stringify(seen.errorKinds)}`);
    assert.deepEqual(seen.leaks, [], 'a listing showed outside names');
    assert.deepEqual(changed, [], 'outside files were changed or moved');
    assert.deepEqual(created, [], 'outside files or directories were created');
  },
);
