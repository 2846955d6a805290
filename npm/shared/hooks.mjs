// The options that stay in JS (the storage and the host's hooks), how the host is asked about an io
// only it can answer, and how an observer hook is told.

// Options that are JS values the engine never sees (functions, objects with methods).
const HOST_ONLY = new Set(['storage', 'approveWrite', 'onChange', 'onAudit', 'onDocumentWrite']);

/** Engine options: everything but the host-only values; `undefined` means "not given". */
export function engineOptions(options) {
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    if (!HOST_ONLY.has(key) && value !== undefined) out[key] = value;
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
