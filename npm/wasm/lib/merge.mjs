// The merge module (pkg-merge/): the three-way merge of a stale write, which the fs/* module
// leaves out (docs/design.md#the-merge-module). Such a module asks for a merge with
// `{op: "merge"}`; the driver answers with the binding's `merge`, made here over the entry's way
// of instantiating the merge module, the first time one is needed.

/**
 * `merge(base, current, ours)`: a promise of the merged text, or of `null` where the edits
 * overlap (the engine's rule, run by the merge module). `instantiate()`: a promise of the merge
 * module's `merge`, called once; a load that failed is tried again by the next merge. A trap in
 * the module (out of memory: it is built to abort at once) may leave its memory half-changed,
 * and its glue keeps that one instance, so, as the guard does with the engine's module, it is
 * not entered again: later merges fail saying why.
 */
export function lazyMerge(instantiate) {
  let loading;
  let trapped;
  return async (base, current, ours) => {
    if (trapped !== undefined) throw new Error(`the merge module trapped (${trapped.message}) and is not entered again`);
    loading ??= instantiate().catch((e) => {
      loading = undefined;
      throw e;
    });
    const merge = await loading;
    try {
      return merge(base, current, ours) ?? null;
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) trapped = e;
      throw e;
    }
  };
}
