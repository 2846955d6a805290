// The driver: the one step loop that runs an operation of the engine to its outcome, for the
// built-in disk and for JS storages alike, so no binding ever awaits a JS promise from Rust.
// The engine decides everything; the driver performs the io each step names (storage io, the
// host's hooks, a wait for a turn), hands back the answer, and watches for cancellation.

import { askHost } from './hooks.mjs';
import { errorAnswer, isThenable } from './storage.mjs';

/** What a wait resolves to when the request's signal aborted first. */
const ABORTED = Symbol('aborted');

/** The answer to an io that reports nothing but its end (a wait whose turn may have come). */
const DONE = Object.freeze({ answer: Object.freeze({ done: true }) });

/**
 * Runs `op` (a binding's `Operation`) to `{outcome, cause}`: `cause` is the host error of the
 * io whose failure ended it. The native disk runs a request's storage io on the libuv pool
 * (`runOnDisk`, `native`) and comes back only for the host; a JS storage's io is performed here
 * (`storageIo`, a `StorageIo`). Cancellation (`signal`) races every wait: the request settles
 * at once (on the native disk, once the disk io in progress ends, without blocking this
 * thread), and no io starts after it. An io that changes something (a write, directories, an
 * open buffer: the engine marks its step `changes`) is never abandoned halfway: once it has
 * started, the request ends with what it did, so a write that happened is reported with its
 * change record, not as cancelled. Files an abandoned io opens are closed once it settles.
 * Throws only on a binding's or the driver's own bug.
 */
export function drive(op, context) {
  // Without a signal to watch, a JS storage's request runs here while every io answers at once
  // (an in-memory storage: no promise at all), and goes on in `driveAsync` from the first io
  // that has to be waited for. With a signal, or on the native disk, it is `driveAsync` alone.
  if (context.signal || context.native) return driveAsync(op, context);
  let reply;
  for (;;) {
    const step = resume(op, reply);
    if (step.done) return { outcome: step.done, cause: (step.done.error && reply?.failure) || undefined };
    const pending = answer(step, context);
    if (isThenable(pending)) return driveAsync(op, context, pending, step.changes === true);
    reply = pending;
  }
}

/**
 * `drive` as a loop that awaits: from the start, or from `pending`, the answer to an io already
 * started (`committed`: one that changes something).
 */
async function driveAsync(op, context, pending, committed = false) {
  const { signal, native, storageIo } = context;
  const abort = watch(signal);
  // Set once an io that changes something has started: from then on the request runs to its
  // end, so that "cancelled" always means nothing was changed.
  const cancelling = () => abort.fired && !committed;
  const race = (pending) => (committed ? pending : abort.race(pending));
  try {
    let reply; // the last io's `{answer, bytes}`, and the host error it failed with (`failure`)
    if (pending !== undefined) {
      reply = await race(pending);
      if (reply === ABORTED && storageIo) pending.then(() => storageIo.closeAll());
    }
    // A cancelled request hands the engine no further answer and starts no further io.
    while (!cancelling()) {
      const step = native ? await onDisk(op, reply?.answer, race) : resume(op, reply);
      if (step.done) return { outcome: step.done, cause: (step.done.error && reply?.failure) || undefined };
      if (cancelling()) break;
      committed ||= step.changes === true;
      const pending = answer(step, context);
      reply = isThenable(pending) ? await race(pending) : pending;
      if (reply === ABORTED && storageIo) pending.then(() => storageIo.closeAll());
    }
    return { outcome: op.cancel() };
  } finally {
    abort.stop();
  }
}

/** The engine's next step, given the last io's answer (none for the first step). */
function resume(op, reply) {
  if (reply === undefined) return op.step();
  return reply.bytes === undefined ? op.step(reply.answer) : op.step(reply.answer, reply.bytes);
}

/**
 * The next step from the built-in disk. Its loop holds the request while it works, so `cancel()`
 * would block this thread until its io ends: an abort stops the loop at its next io instead,
 * and the step it ends with says how: cancelled, or, once it changed something, what it did.
 */
async function onDisk(op, answer, race) {
  const running = op.runOnDisk(answer);
  const step = await race(running);
  if (step !== ABORTED) return step;
  op.stop();
  return running;
}

/**
 * The answer to the io `step` names, or a promise of it when it has to be waited for (a
 * synchronous storage costs no microtask): the host's hooks answer approvals and documents, the
 * binding's `merge` a merge (a module built without it: @acp-fs/wasm's fs/* one), storage the
 * rest, and a wait ends with any operation of the engine. A failure is the error answer, with
 * the host's error as `failure`.
 */
function answer(step, { storageIo, hooks, turns, merge }) {
  const { io } = step;
  if (io.op === 'wait') return turns.next().then(() => DONE);
  let result;
  try {
    if (io.op === 'approve' || io.op === 'writeDocument') result = askHost(hooks, io);
    else if (io.op === 'merge') result = merged(merge, io);
    else if (storageIo === null) throw new TypeError(`the engine asked the host for ${io.op}, which only storage can answer`);
    else result = storageIo.perform(io, step.bytes);
  } catch (e) {
    return failed(e);
  }
  return isThenable(result) ? Promise.resolve(result).then(undefined, failed) : result;
}

/** The answer to a merge, from the binding's merge module. */
async function merged(merge, { base, current, ours }) {
  if (typeof merge !== 'function') throw new TypeError('the engine asked for a merge, and the binding has none');
  return { answer: { merged: await merge(base, current, ours) } };
}

/** An io's failure as its answer, with the host's error as `failure`. */
const failed = (e) => ({ answer: errorAnswer(e), failure: e });

/** The watcher of a request without a signal (most): one for all, nothing made per request. */
const UNWATCHED = Object.freeze({ fired: false, race: (pending) => pending, stop() {} });

/** A request's signal as the loop watches it: `fired` once it aborted; `race` a promise against it. */
function watch(signal) {
  if (!signal) return UNWATCHED;
  let fire;
  const aborted = new Promise((resolve) => {
    fire = () => {
      watcher.fired = true;
      resolve(ABORTED);
    };
  });
  const watcher = {
    fired: false,
    race(pending) {
      // A losing promise may still reject later; that must not surface as unhandled.
      pending.then(undefined, () => {});
      return watcher.fired ? ABORTED : Promise.race([pending, aborted]);
    },
    stop: () => signal.removeEventListener('abort', fire),
  };
  if (signal.aborted) fire();
  else signal.addEventListener('abort', fire, { once: true });
  return watcher;
}

/**
 * Writes waiting for their turn on a path (semantics.md §9): the engine keeps the queue; a turn
 * ends with the operation holding it, so every operation's end wakes the waiters, and each asks
 * the engine again.
 */
export class Turns {
  #waiting = [];

  /** Resolves when the next operation ends. */
  next() {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** An operation ended: wake every waiter. */
  ended() {
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const wake of waiting) wake();
  }
}
