// The merge module (pkg-merge/): the three-way merge of a stale write, which the fs/* module
// leaves out (docs/design.md#the-merge-module). Such a module asks for a merge with
// `{op: "merge"}`; the driver answers with the binding's `merge`, made here over the entry's way
// of instantiating the merge module, the first time one is needed.

/**
 * `merge(base, current, ours)`: a promise of the merged text, or of `null` where the edits
 * overlap (the engine's rule, run by the merge module). `instantiate()`: a promise of the merge
 * module's `merge`, called once; a load that failed is tried again by the next merge.
 */
export function lazyMerge(instantiate) {
  let loading;
  return async (base, current, ours) => {
    loading ??= instantiate().catch((e) => {
      loading = undefined;
      throw e;
    });
    return (await loading)(base, current, ours) ?? null;
  };
}
