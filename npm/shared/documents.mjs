// `fs.documents`: the host's open documents (unsaved editor buffers), kept by the engine.

import { AcpFsError } from './error.mjs';
import { requireString } from './params.mjs';

export class Documents {
  #engine;
  constructor(engine) {
    this.#engine = engine;
  }
  /** Registers an open document's unsaved text: reads prefer it, writes to it ask the host. */
  open(path, text) {
    requireString(path, 'path');
    requireString(text, 'text');
    const err = this.#engine.openDocument(path, text);
    if (err) throw new AcpFsError(err);
  }
  /** Replaces an open document's text (the user typed). */
  update(path, text) {
    this.open(path, text);
  }
  /**
   * The buffer was (re)loaded from storage with `text`, so it matches the file: a change on disk
   * since the agent read the file is judged on the disk (semantics.md §9).
   */
  reloaded(path, text) {
    requireString(path, 'path');
    requireString(text, 'text');
    const err = this.#engine.documentReloaded(path, text);
    if (err) throw new AcpFsError(err);
  }
  /** The buffer was saved: storage holds its text. `false` when it is not open. */
  saved(path) {
    requireString(path, 'path');
    return this.#engine.documentSaved(path);
  }
  /** The open document's version (a new one on every open, update, reload and write), or `null`. */
  version(path) {
    requireString(path, 'path');
    return this.#engine.documentVersion(path) ?? null;
  }
  close(path) {
    requireString(path, 'path');
    this.#engine.closeDocument(path);
  }
  /** The open document's current text, or `null` when it is not open. */
  get(path) {
    requireString(path, 'path');
    return this.#engine.document(path) ?? null;
  }
}
