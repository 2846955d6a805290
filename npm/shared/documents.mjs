// `fs.documents`: the host's open documents (unsaved editor buffers), kept by the engine.

import { AcpFsError } from './error.mjs';
import { requireString } from './params.mjs';

export class Documents {
  #engine;
  /** Editors attached to documents (`attach`), by the path they were attached under. */
  #editors = new Map();
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
  /**
   * Routes the host's questions about the document at `path` to an editor (`{write(text),
   * stale()}`) instead of the `onDocumentWrite` / `onDocumentStale` options; returns the function
   * that detaches it. One editor per path: a second attach replaces the first.
   */
  attach(path, editor) {
    requireString(path, 'path');
    if (typeof editor?.write !== 'function' || typeof editor?.stale !== 'function') {
      throw new TypeError('documents.attach needs an editor with write(text) and stale()');
    }
    this.#editors.set(path, editor);
    return () => {
      if (this.#editors.get(path) === editor) this.#editors.delete(path);
    };
  }
  /**
   * The editor attached to the document the engine names `name` (its normalized path), if any.
   * The engine normalizes paths, so an editor attached under another spelling of the same path
   * is found by the document's version: one document holds one version, never shared.
   */
  editorFor(name) {
    if (this.#editors.size === 0) return undefined;
    const direct = this.#editors.get(name);
    if (direct) return direct;
    const version = this.#engine.documentVersion(name);
    if (version === undefined || version === null) return undefined;
    for (const [path, editor] of this.#editors) {
      if (this.#engine.documentVersion(path) === version) return editor;
    }
    return undefined;
  }
}
