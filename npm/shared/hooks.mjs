// The options that stay in JS (the storage and the host's hooks), how the host is asked about an io
// only it can answer, and how an observer hook is told.

import { NOT_JSON } from './params.mjs';

// Options that are JS values the engine never sees (functions, objects with methods): the one
// list of them. The engine refuses every other key it does not know. Exported for the test that
// holds docs/options.md to the keys; not part of the packages' API.
export const HOST_ONLY = new Set(['storage', 'approveWrite', 'onChange', 'onAudit', 'onDocumentWrite', 'onDocumentStale']);

/**
 * Engine options: everything but the host-only values; `undefined` means "not given". A function
 * or symbol, which JSON would leave out without a word, crosses as a value no option takes, so a
 * misspelt hook (`onAudits`) is refused by name like any unknown key.
 */
export function engineOptions(options) {
  return engineSettings(options, HOST_ONLY);
}

/**
 * The keys of `object` the engine judges (engine options, a session's options), as
 * `engineOptions` hands them over; `hostOnly` keys stay in JS.
 */
export function engineSettings(object, hostOnly = new Set()) {
  const out = {};
  for (const [key, value] of Object.entries(object)) {
    if (hostOnly.has(key) || value === undefined) continue;
    out[key] = typeof value === 'function' || typeof value === 'symbol' ? NOT_JSON : value;
  }
  return out;
}

/** Observers must not change an answer that is already decided; their failures are reported. */
export function notify(hook, arg, what) {
  if (typeof hook !== 'function') return;
  try {
    const r = hook(arg);
    if (r && typeof r.then === 'function') r.then(undefined, (e) => console.error(`acp-fs: ${what} failed`, e));
  } catch (e) {
    console.error(`acp-fs: ${what} failed`, e);
  }
}

/** The answer to an io only the host gives: an approval (`approveWrite`, default yes), or what
 * to do with a write to an open document (`onDocumentWrite`, default `buffer`). */
export async function askHost(hooks, io) {
  if (io.op === 'approve') {
    const approve = hooks.approveWrite;
    return { answer: { approved: typeof approve === 'function' ? (await approve(io.change)) === true : true } };
  }
  const choose = hooks.onDocumentWrite;
  const choice = typeof choose === 'function' ? await choose(io.path, io.text) : 'buffer';
  return { answer: { document: choice === undefined || choice === null ? 'buffer' : choice } };
}
