// Running and checking the behaviour vectors (tests/vectors/README.md), shared by the Node
// harness (tests/node/harness.mjs) and the in-browser runner (tests/browser/vector-runner.mjs):
// no Node APIs and no Buffer, so pages and workers import it as it is. Storages are the callers'
// business; this module decides what a vector expects and whether a run met it.

const enc = new TextEncoder();
const dec = new TextDecoder();

export const DEFAULT_SESSIONS = { s1: { cwd: '/project' } };

// Storages see the engine's normalized paths: POSIX `/a/b`, drive `C:\\a\\b`, UNC `\\\\srv\\share\\a`.
export const WINDOWS_OR_UNC = /^(?:[A-Za-z]:|\\\\|\\)/;
export const isRoot = (p) => p === '/' || /^[A-Za-z]:\\?$/.test(p) || /^\\\\[^\\]+\\[^\\]+\\?$/.test(p);

export function parentOf(p) {
  if (isRoot(p)) return p;
  const sep = WINDOWS_OR_UNC.test(p) ? '\\' : '/';
  const i = p.lastIndexOf(sep);
  const parent = i <= 0 ? sep : p.slice(0, i);
  return /^[A-Za-z]:$/.test(parent) ? `${parent}\\` : parent;
}

/** The directories above `p`, nearest first, up to its root. */
export function ancestors(p) {
  const out = [];
  for (let d = parentOf(p); !out.includes(d); d = parentOf(d)) {
    out.push(d);
    if (isRoot(d)) break;
  }
  return out;
}

export const isFileContent = (c) => typeof c === 'string' || (c && typeof c === 'object' && 'hex' in c);
/** A `{"hardlink": "<existing file>"}` entry: another name of a file of the vector. */
export const isHardlink = (c) => c !== null && typeof c === 'object' && typeof c.hardlink === 'string';

/**
 * The vector's `files` as `[path, content]` pairs, in an order they can be made in: key order,
 * except that a hard link comes after the file it names (a link to a link after that link), so a
 * runner that makes them one by one never links to a name not made yet. A link whose target is
 * never made stays last, for the runner to fail on.
 */
export function fileEntries(vector) {
  const entries = Object.entries(vector.files ?? {});
  const out = entries.filter(([, c]) => !isHardlink(c));
  let links = entries.filter(([, c]) => isHardlink(c));
  const made = new Set(out.map(([p]) => p));
  while (links.length) {
    const ready = links.filter(([, c]) => made.has(c.hardlink));
    if (!ready.length) break;
    for (const [p] of ready) made.add(p);
    out.push(...ready);
    links = links.filter((e) => !ready.includes(e));
  }
  return out.concat(links);
}
/** Whether the vector's files include a symlink / a non-regular file / a hard link. */
export const hasSymlinks = (vector) => fileEntries(vector).some(([, c]) => c && typeof c === 'object' && 'symlink' in c);
export const hasSpecial = (vector) => fileEntries(vector).some(([, c]) => c && typeof c === 'object' && c.special);
export const hasHardlinks = (vector) => fileEntries(vector).some(([, c]) => isHardlink(c));

/** A vector's file content (a string = its UTF-8 bytes, or `{hex}`) as bytes. */
export function bytesOf(content) {
  if (typeof content === 'string') return enc.encode(content);
  if (content && typeof content.hex === 'string') {
    const hex = content.hex.replace(/\s+/g, '');
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return out;
  }
  throw new TypeError(`not file content: ${JSON.stringify(content)}`);
}

/** The params of a `raw` vector's message, if it has readable ones. */
export function rawParams(vector) {
  if (typeof vector.raw !== 'string') return undefined;
  try {
    return JSON.parse(vector.raw)?.params;
  } catch {
    return undefined;
  }
}

/** Whether the vector is about drive or UNC paths (POSIX file systems cannot hold them). */
export function usesWindowsPaths(vector) {
  const params = vector.request?.params ?? rawParams(vector);
  const path = params !== null && typeof params === 'object' ? params.path : undefined;
  const sessions = vector.sessions ?? DEFAULT_SESSIONS;
  return [
    path,
    ...Object.keys(vector.files ?? {}),
    ...Object.keys(vector.documents ?? {}),
    ...Object.values(sessions).flatMap((s) => [s.cwd, ...(s.additionalDirectories ?? [])]),
    ...(vector.options?.roots ?? []),
    ...(vector.options?.extraRoots ?? []),
  ].some((p) => typeof p === 'string' && WINDOWS_OR_UNC.test(p));
}

/** The read modes a vector runs under: both unless it pins one (`storage.ranged`). */
export function rangedVariants(vector) {
  const r = vector.storage?.ranged;
  return r === true ? [true] : r === false ? [false] : [true, false];
}

/** What the vector asks of the storage (`storage` in the vector), for one read mode. */
export function storageTraits(vector, ranged) {
  const t = vector.storage ?? {};
  return { ranged, write: t.write !== false, realpath: t.realpath !== false, symlinks: t.symlinks !== false, list: t.list !== false };
}

/** A storage's methods cut to the vector's traits (left out, never faked). */
export function withTraits(storage, { ranged, write, realpath, symlinks, list = true }) {
  const out = { ...storage };
  if (!list) {
    delete out.readdir;
    delete out.listDirectory;
  }
  if (!ranged) {
    delete out.readRange;
    delete out.open;
  }
  if (!write) {
    delete out.writeFile;
    delete out.mkdir;
  }
  if (!symlinks) {
    delete out.lstat;
    delete out.realpath;
  }
  if (!realpath) {
    delete out.realpath;
    out.capabilities = { ...(out.capabilities ?? {}), symlinks: 'unresolvable' };
  }
  return out;
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/** Every key of `want` deep-equals the same key of `got`, recursively for objects. */
export function subset(want, got) {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    return got !== null && typeof got === 'object' && Object.entries(want).every(([k, w]) => k in got && subset(w, got[k]));
  }
  return deepEqual(want, got);
}

const show = (x) => JSON.stringify(x);
const same = (a, b) => subset(a, b) && subset(b, a);
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function checkError(want, got, failures, label = 'error') {
  if (!got) return failures.push(`${label}: want code ${want.code}, got no error`);
  if (got.code !== want.code) failures.push(`${label}: code: want ${want.code} got ${got.code} (${show(got)})`);
  if ('message' in want && got.message !== want.message) {
    failures.push(`${label}: message: want ${show(want.message)} got ${show(got.message)}`);
  }
  if ('data' in want && !subset(want.data, got.data ?? null)) {
    failures.push(`${label}: data: want ⊇ ${show(want.data)} got ${show(got.data)}`);
  }
}

/** What the run did against what the vector expects: a list of failures (empty = met). */
async function check(vector, got, prepared, fs) {
  const e = vector.expect ?? {};
  const failures = [];
  if ('raw' in e && !same(e.raw, got.raw)) failures.push(`raw reply: want ${show(e.raw)} got ${show(got.raw)}`);
  if (e.rawError) {
    checkError(e.rawError, got.raw?.error, failures, 'raw error');
    if ('id' in e.rawError && got.raw?.id !== e.rawError.id) failures.push(`raw id: want ${show(e.rawError.id)} got ${show(got.raw?.id)}`);
  }
  if (!('raw' in vector) && !vector.steps) {
    if ('result' in e) {
      if (got.error) failures.push(`want result ${show(e.result)}, got error ${show(got.error)}`);
      else if (!same(e.result, got.result)) failures.push(`result: want ${show(e.result)} got ${show(got.result)}`);
    }
    if (e.error) {
      if ('result' in got) failures.push(`want error ${show(e.error)}, got result ${show(got.result)}`);
      else checkError(e.error, got.error, failures);
    }
    if (e.toolError) checkToolError(e.toolError, got, failures);
    // A tool call refused for its arguments runs no operation, so it has no audit event.
    if (!vector.tool && got.audit !== 1) failures.push(`want one audit event, got ${got.audit}`);
  }
  if ('change' in e && !same(e.change, got.change)) failures.push(`change: want ${show(e.change)} got ${show(got.change)}`);
  if (got.changes > 1) failures.push(`one request gave ${got.changes} change records`);
  for (const [path, want] of Object.entries(e.files ?? {})) {
    const bytes = await prepared.read(path);
    if (bytes === null || !sameBytes(bytes, bytesOf(want))) {
      failures.push(`file ${path}: want ${show(dec.decode(bytesOf(want)))} got ${bytes === null ? 'none' : show(dec.decode(bytes))}`);
    }
  }
  for (const path of e.absent ?? []) if (await prepared.exists(path)) failures.push(`${path} must not exist`);
  for (const [path, want] of Object.entries(e.documents ?? {})) {
    const doc = fs.documents.get(path);
    if (doc !== want) failures.push(`document ${path}: want ${show(want)} got ${show(doc)}`);
  }
  return failures;
}

/** One request of a `steps` vector: `{result}` or `{error}` (the JSON-RPC error object). */
/**
 * One MCP `tools/call` (`tool`: `{name, arguments, session}`, README.md "MCP tools") on the server
 * of `tool.session` (default: the first session): `{result}` (the tool result, an `isError` one
 * included) or `{error}` (a protocol error).
 */
async function callTool(fs, tool, sessions) {
  const mcp = fs.mcpHandler(tool.session ?? Object.keys(sessions)[0]);
  const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: tool.arguments ?? {} } };
  const reply = await mcp.handle(message);
  return reply?.error ? { error: reply.error } : { result: reply?.result };
}

/** `expect.toolError`: an `isError` tool result whose text holds every fragment (kind, argument). */
function checkToolError(fragments, got, failures) {
  const text = got.result?.content?.[0]?.text;
  if (got.result?.isError !== true) failures.push(`want an isError tool result, got ${show(got)}`);
  for (const f of fragments) if (typeof text !== 'string' || !text.includes(f)) failures.push(`tool error ${show(text)} lacks ${show(f)}`);
}

async function call(fs, { method, params }) {
  const run = method === 'fs/read_text_file' ? fs.readTextFile : fs.writeTextFile;
  try {
    return { result: await run(params ?? null) };
  } catch (e) {
    if (e?.name !== 'AcpFsError') throw e;
    return { error: e.toJsonRpc() };
  }
}

function checkStep(label, want = {}, got, change, failures, stale = null) {
  const f = [];
  if (want.toolError) checkToolError(want.toolError, got, f);
  else if (got.result?.isError === true && !('result' in want)) f.push(`want success, got ${show(got.result)}`);
  if ('result' in want) {
    if (got.error) f.push(`want result ${show(want.result)}, got error ${show(got.error)}`);
    else if (!same(want.result, got.result)) f.push(`result: want ${show(want.result)} got ${show(got.result)}`);
  }
  if (want.error) {
    if ('result' in got) f.push(`want error ${show(want.error)}, got result ${show(got.result)}`);
    else checkError(want.error, got.error, f);
  }
  if (!('result' in want) && !want.error && got.error) f.push(`want success, got error ${show(got.error)}`);
  if ('change' in want && !same(want.change, change)) f.push(`change: want ${show(want.change)} got ${show(change)}`);
  if ('staleDocument' in want && want.staleDocument !== stale) f.push(`staleDocument: want ${show(want.staleDocument)} got ${show(stale)}`);
  failures.push(...f.map((x) => `${label}: ${x}`));
}

/**
 * The `steps` of a vector (tests/vectors/README.md): requests in order, `edit`s that change files
 * (`prepared.write(path, bytes | null)`) or documents between them, `documentSaved`,
 * `closeSession`/`openSession`, and `together`: writes started at once (the engine queues them).
 */
async function runSteps(fs, steps, prepared, changes, hold, stale, sessions) {
  const failures = [];
  for (const [i, step] of steps.entries()) {
    const label = `step ${i}`;
    if (step.tool) {
      const before = changes.length;
      const got = await callTool(fs, step.tool, sessions);
      checkStep(label, step.expect, got, changes.length > before ? changes[changes.length - 1] : null, failures);
    } else if (step.request) {
      const before = changes.length;
      const staleBefore = stale.length;
      const got = await call(fs, step.request);
      const reported = stale.length > staleBefore ? stale[stale.length - 1] : null;
      checkStep(label, step.expect, got, changes.length > before ? changes[changes.length - 1] : null, failures, reported);
    } else if (step.edit) {
      for (const [path, c] of Object.entries(step.edit.files ?? {})) await prepared.write(path, c === null ? null : bytesOf(c));
      for (const [path, text] of Object.entries(step.edit.documents ?? {})) {
        if (text === null) fs.documents.close(path);
        else fs.documents.update(path, text);
      }
    } else if (step.documentSaved) {
      if (!fs.documents.saved(step.documentSaved)) failures.push(`${label}: ${step.documentSaved} is not open`);
    } else if (step.documentReloaded) {
      fs.documents.reloaded(step.documentReloaded.path, step.documentReloaded.text);
    } else if (step.closeSession) {
      fs.closeSession(step.closeSession);
    } else if (step.openSession) {
      const { id, ...session } = step.openSession;
      fs.openSession(id, session);
    } else if (step.together) {
      // The first write is started and waits for its approval while holding its turn; the others
      // are started then, in order, and given time to run as far as they can; then the approvals go.
      const before = changes.length;
      hold.start();
      const pending = [call(fs, step.together[0].request)];
      for (let t = 0; hold.count() < 1 && t < 500; t++) await new Promise((r) => setTimeout(r, 2));
      for (const r of step.together.slice(1)) {
        pending.push(call(fs, r.request));
        await new Promise((r) => setTimeout(r, 20));
      }
      // Approvals go one at a time, each write settling before the next, so the order of change
      // records and audit events is the vector's on every package.
      const waiting = hold.release();
      const got = [];
      for (const [k, p] of pending.entries()) {
        waiting[k]?.();
        got.push(await p);
      }
      const mine = changes.slice(before);
      step.together.forEach((r, j) => {
        const { sessionId, path } = r.request.params;
        const change = mine.find((c) => c.sessionId === sessionId && c.path === path) ?? null;
        checkStep(`${label}.${j}`, r.expect, got[j], change, failures);
      });
    } else {
      failures.push(`${label}: unknown step ${show(step)}`);
    }
  }
  return failures;
}

/**
 * Runs one vector on one backend with `AcpFs` (the class a package exports). A backend is
 * `{name, ranged, prepare(vector)}`; `prepare` (sync or async) gives `{storage, read(path),
 * exists(path), cleanup()}`, or `{skip: reason}`, and may rewrite the vector it runs as
 * `vector` (the disk backends prefix every path with a temp dir, reported as `prefix`).
 * Resolves to `{skip}` or `{backend, vector, got, prefix, failures}`.
 */
export async function runVector(AcpFs, original, backend) {
  const variants = rangedVariants(original);
  if (!variants.includes(backend.ranged)) {
    return { skip: `the vector runs only with ${variants[0] ? 'ranged' : 'whole-file'} reads` };
  }
  const prepared = await backend.prepare(original);
  if (prepared.skip) return { skip: prepared.skip };
  const vector = prepared.vector ?? original;
  const ran = { backend: backend.name, vector, prefix: prepared.prefix };
  try {
    const hooks = vector.hooks ?? {};
    const changes = [];
    const stale = [];
    let audits = 0;
    // `together` steps hold approvals (a person deciding) so the order is the vector's.
    let held = null;
    const hold = {
      start: () => {
        held = [];
      },
      count: () => held?.length ?? 0,
      /** Stops holding; the approvals asked so far, in the order they were asked. */
      release: () => {
        const waiting = held ?? [];
        held = null;
        return waiting;
      },
    };
    const fs = new AcpFs({
      ...(vector.options ?? {}),
      storage: prepared.storage,
      approveWrite: async () => {
        if (held) await new Promise((resolve) => held.push(resolve));
        return hooks.approve ?? true;
      },
      onDocumentWrite: () => hooks.documentWrite ?? 'buffer',
      onChange: (c) => changes.push(c),
      onDocumentStale: (path) => stale.push(path),
      onAudit: () => {
        audits += 1;
      },
    });
    for (const [id, s] of Object.entries(vector.sessions ?? DEFAULT_SESSIONS)) {
      fs.openSession(id, { ...s, additionalDirectories: s.additionalDirectories ?? [] });
    }
    for (const [path, text] of Object.entries(vector.documents ?? {})) fs.documents.open(path, text);
    const got = {};
    // A tool the storage cannot serve (the engine leaves it out of tools/list) skips the vector.
    for (const step of vector.steps ?? []) {
      if (!step.tool) continue;
      const mcp = fs.mcpHandler(step.tool.session ?? Object.keys(vector.sessions ?? DEFAULT_SESSIONS)[0]);
      if (!mcp.tools().some((t) => t.name === step.tool.name)) return { skip: `${step.tool.name} is not offered over this storage` };
    }
    if (Array.isArray(vector.steps)) {
      if (typeof prepared.write !== 'function') return { skip: 'this backend cannot change files between steps' };
      const failures = await runSteps(fs, vector.steps, prepared, changes, hold, stale, vector.sessions ?? DEFAULT_SESSIONS);
      return { ...ran, got, failures: [...failures, ...(await check(vector, got, prepared, fs))] };
    }
    if (typeof vector.raw === 'string') {
      const reply = await fs.handle(vector.raw);
      got.raw = reply === null ? null : JSON.parse(reply);
    } else if (vector.tool) {
      // One MCP tools/call (README.md, "MCP tools"): the tool result, or a protocol error.
      const sessions = vector.sessions ?? DEFAULT_SESSIONS;
      const mcp = fs.mcpHandler(vector.tool.session ?? Object.keys(sessions)[0]);
      const offered = mcp.tools().some((t) => t.name === vector.tool.name);
      if (!offered && !vector.expect?.error) {
        return { skip: `${vector.tool.name} is not offered over this storage` };
      }
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: vector.tool.name, arguments: vector.tool.arguments ?? {} } };
      const reply = await mcp.handle(message);
      if (reply?.error) got.error = reply.error;
      else got.result = reply?.result;
    } else {
      const { method, params } = vector.request;
      const call = method === 'fs/read_text_file' ? fs.readTextFile : method === 'fs/write_text_file' ? fs.writeTextFile : null;
      if (!call) return { ...ran, got, failures: [`unknown method ${method}`] };
      try {
        got.result = await call(params ?? null);
      } catch (e) {
        if (e?.name !== 'AcpFsError') throw e;
        got.error = e.toJsonRpc();
      }
      got.audit = audits;
    }
    got.change = changes.length ? changes[changes.length - 1] : null;
    got.changes = changes.length;
    return { ...ran, got, failures: await check(vector, got, prepared, fs) };
  } catch (e) {
    return { ...ran, got: {}, failures: [`threw ${e?.stack ?? e}`] };
  } finally {
    await prepared.cleanup();
  }
}

/** Whether a vector calls MCP tools (its own `tool`, or a step's). */
export const usesTools = (vector) => Boolean(vector.tool || vector.steps?.some((step) => step.tool));

/**
 * The class a vector runs on: `AcpFs` itself, or from `{fs, full}` (@acp-fs/wasm's fs/* module
 * and its full one) the full one for a vector that calls MCP tools, the fs/* one for the rest.
 */
export const classFor = (AcpFs, vector) => (typeof AcpFs === 'function' ? AcpFs : usesTools(vector) ? AcpFs.full : AcpFs.fs);

/**
 * One vector on every backend, in order: the runs that ran (each `runVector`'s answer), the skips
 * as `"<backend>: <reason>"`, and every failure as `"[<backend>] <failure>"`. The one loop of the
 * Node suites and the browser runner.
 */
export async function runOnEvery(AcpFs, vector, backends) {
  const ran = [];
  const skipped = [];
  for (const backend of backends) {
    const run = await runVector(classFor(AcpFs, vector), vector, backend);
    if (run.skip) skipped.push(`${backend.name}: ${run.skip}`);
    else ran.push(run);
  }
  return { ran, skipped, failures: ran.flatMap((run) => run.failures.map((f) => `[${run.backend}] ${f}`)) };
}
