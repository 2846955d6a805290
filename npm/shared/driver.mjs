// The driver: the one step loop that runs an operation of the engine to its outcome, for the
// built-in disk and for JS storages alike, so no binding ever awaits a JS promise from Rust.

import { errorAnswer, isThenable } from './storage.mjs';

const DONE = Object.freeze({ done: true });

const ABORTED = Symbol('aborted');

/**
 * The one step loop, for the built-in disk and for JS storages alike: the native disk runs a
 * request's storage io on the libuv pool (`runOnDisk`) and comes back only for the host; a JS
 * storage's io is performed here. Cancellation races every wait: the request settles at once
 * (on the native disk, once the disk io in progress ends, without blocking this thread), and
 * no io starts after it. An io that changes something (a write, directories, an open
 * buffer: the engine marks its step `changes`) is never abandoned halfway: once it has
 * started, the request ends with what it did, so a write that happened is reported with its
 * change record, not as cancelled. Files an abandoned io opens are closed once it settles.
 */
export async function drive(op, { signal, native, session, perform, turn }) {
  let cancelled = false;
  let onAbort;
  let aborted;
  if (signal) {
    aborted = new Promise((resolve) => {
      onAbort = () => {
        cancelled = true;
        resolve(ABORTED);
      };
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  // Set once an io that changes something has started: from then on the request runs to
  // its end, so that "cancelled" always means nothing was changed.
  let committed = false;
  const race = (p) => {
    if (!signal || committed) return p;
    // A losing promise may still reject later; that must not surface as unhandled.
    p.then(undefined, () => {});
    return cancelled ? ABORTED : Promise.race([p, aborted]);
  };
  const cancel = () => ({ outcome: op.cancel(), cause: undefined });
  // The native disk loop holds the request while it works, so `cancel()` would block this
  // thread until its io ends. An abort stops the loop at its next io instead and takes the
  // step the loop ends with: cancelled, or, once it changed something, what it did.
  const onDisk = async (answer) => {
    const running = op.runOnDisk(answer);
    const step = await race(running);
    if (step !== ABORTED) return step;
    op.stop();
    return running;
  };
  try {
    if (cancelled) return cancel();
    let lastError;
    let step = native ? await onDisk() : op.step();
    for (;;) {
      if (step === ABORTED) return cancel();
      if (step.done) return { outcome: step.done, cause: step.done.error && lastError ? lastError : undefined };
      if (cancelled && !committed) return cancel();
      lastError = undefined;
      const { io } = step;
      let answer = DONE;
      let bytes;
      if (io.op === 'wait') {
        if ((await race(turn())) === ABORTED) return cancel();
      } else {
        const failed = (e) => {
          lastError = e;
          return { answer: errorAnswer(e) };
        };
        let result;
        committed ||= step.changes === true;
        try {
          result = perform(io, step.bytes, session);
        } catch (e) {
          result = failed(e);
        }
        if (isThenable(result)) {
          const settled = Promise.resolve(result).then(undefined, failed);
          result = await race(settled);
          if (result === ABORTED) {
            if (session) settled.then(() => session.closeAll());
            return cancel();
          }
        } else if (cancelled && !committed) {
          // An abort raised during a synchronous storage call ends the request before the
          // next io; a change the call made is still reported (stepped below).
          return cancel();
        }
        ({ answer, bytes } = result);
      }
      step = native ? await onDisk(answer) : bytes === undefined ? op.step(answer) : op.step(answer, bytes);
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
