// Permission tests as an unprivileged user, also when the suite runs as root (as CI does).
//
// Root may write any file, so a permission test run as root would only prove that. When this
// process is root, `asUnprivileged` re-runs the one test as `nobody` (this test file under
// `node --test`, filtered to that test, with the uid and gid dropped) and fails unless that run
// passed it; otherwise it runs the test here, as before.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from './harness.mjs';

/** Set in the re-run: the test body runs there, whoever this process is. */
const CHILD = 'ACP_FS_TEST_UNPRIVILEGED';

/** Whether this process is the re-run as `nobody`. */
export const isUnprivilegedChild = () => process.env[CHILD] === '1';

/** `nobody`'s uid and gid from the password file. */
function nobody() {
  const line = nodeFs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
  assert.ok(line, 'a user `nobody` in /etc/passwd, to run the permission tests as when root runs them');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Runs `body`, the body of the test called `name` in the test file `fileUrl`
 * (`import.meta.url`), as a user without privileges: here when this process is not root (or
 * the platform has no uids), else in a re-run of that test as `nobody`.
 * @param {string} fileUrl
 * @param {string} name the test's name, unique in its file
 * @param {() => unknown} body
 * @param {import('node:test').TestContext} t the test's context, for a diagnostic line
 */
export async function asUnprivileged(fileUrl, name, body, t) {
  if (isUnprivilegedChild()) {
    assert.notEqual(process.getuid(), 0, `${CHILD} is set but this process is root`);
    return body();
  }
  if (process.getuid?.() !== 0) return body();
  rerun(fileUrl, name, t, {});
}

/** Set in the re-run of `asUnprivilegedPrepared`: the directory the parent prepared. */
const PREPARED = 'ACP_FS_TEST_PREPARED';

/**
 * As `asUnprivileged`, for a test whose fixture needs what only root may do (a file another
 * user owns, a mount): `prepare(dir)` lays it out in a fresh directory, as root when this
 * process is root, and `body(dir)` runs on it as `nobody` (here, when this process is not
 * root). What `prepare` returns is called once the body has run (an unmount, say).
 * @param {string} fileUrl
 * @param {string} name
 * @param {(dir: string) => unknown} prepare
 * @param {(dir: string) => unknown} body
 * @param {import('node:test').TestContext} t
 */
export async function asUnprivilegedPrepared(fileUrl, name, prepare, body, t) {
  if (isUnprivilegedChild()) return asUnprivileged(fileUrl, name, () => body(process.env[PREPARED]), t);
  const dir = makeTempDir('acpfs-prepared-');
  const cleanup = await prepare(dir);
  try {
    if (process.getuid?.() !== 0) return await body(dir);
    const { uid, gid } = nobody();
    nodeFs.chownSync(dir, uid, gid);
    rerun(fileUrl, name, t, { [PREPARED]: dir });
  } finally {
    if (typeof cleanup === 'function') await cleanup();
    nodeFs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the test `name` of `fileUrl` again as `nobody`, and fails unless it passed there. */
function rerun(fileUrl, name, t, extraEnv) {
  const { uid, gid } = nobody();
  // The re-run's own directory, for its temporary files: owned by nobody, as tempdirs are 0700.
  const home = makeTempDir('acpfs-nobody-');
  try {
    nodeFs.chownSync(home, uid, gid);
    const file = fileURLToPath(fileUrl);
    // Without NODE_TEST_CONTEXT: inherited, it makes the re-run report to this runner's parent
    // in its private format, or refuse to run files at all.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(
      process.execPath,
      ['--test', '--test-reporter=tap', `--test-name-pattern=^${escapeRegExp(name)}$`, file],
      { cwd: home, uid, gid, env: { ...env, ...extraEnv, [CHILD]: '1', TMPDIR: home }, encoding: 'utf8' },
    );
    const out = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error) : ''}`;
    const hint = `\n(nobody must be able to reach and read ${file} and the packages it imports: every directory above them needs o+x; or run the tests as a user other than root)`;
    // A pattern that matched nothing also exits 0: exactly this test must be seen passing.
    const passed = run.status === 0 && /^# pass 1$/m.test(out) && /^# fail 0$/m.test(out)
      && new RegExp(`^\\s*ok \\d+ - ${escapeRegExp(name)}$`, 'm').test(out);
    assert.ok(passed, `${name} as nobody (uid ${uid}) failed:\n${out}${hint}`);
    t?.diagnostic(`ran as nobody (uid ${uid}, gid ${gid}), since this process is root`);
  } finally {
    nodeFs.rmSync(home, { recursive: true, force: true });
  }
}
