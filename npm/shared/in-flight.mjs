/** Requests in flight by JSON-RPC id, so a peer's cancellation can reach them. */
export class InFlight {
  #calls = new Map();

  /** Cancels the request with this raw id if it is running. */
  cancel(rawId) {
    const entry = this.#calls.get(idKey(rawId));
    if (!entry) return;
    entry.cancelled = true;
    entry.controller.abort();
  }

  /**
   * Runs `fn(signal)` under `rawId`: the signal aborts when the host's `signal` does or the
   * peer cancels. Resolves to `{value, cancelled}` (cancelled: by the peer).
   */
  async run(rawId, signal, fn) {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    // A repeated id replaces the older entry: ids are the peer's to keep unique.
    const key = idKey(rawId);
    const entry = { controller, cancelled: false };
    this.#calls.set(key, entry);
    try {
      return { value: await fn(controller.signal), cancelled: entry.cancelled };
    } finally {
      signal?.removeEventListener('abort', abort);
      if (this.#calls.get(key) === entry) this.#calls.delete(key);
    }
  }
}

/** The same id however the peer spelled it (`"\u0041"` and `"A"`, `1.50` and `1.5`). */
function idKey(rawId) {
  try {
    return JSON.stringify(JSON.parse(rawId));
  } catch {
    return rawId;
  }
}
