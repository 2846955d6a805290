// `@acp-fs/node/codemirror` and `@acp-fs/wasm/codemirror`: a CodeMirror 6 view bound to acp-fs's
// document overlay. Needs the page's own @codemirror/state, @codemirror/view and
// @codemirror/commands (peer dependencies: one copy of each on the page).
import type { EditorView } from '@codemirror/view' with { 'resolution-mode': 'import' };
import type { AcpFs, DocumentWriteChoice, MaybePromise } from './acp-fs.js';

export interface CodeMirrorBindingOptions {
  /** The file's absolute path, as the agent names it (the engine normalizes it). */
  path: string;
  /**
   * Whether the view holds what storage holds now (it was just loaded from the file). Default
   * `true`: the document is registered with `documents.reloaded`, and a terminal or a checkout
   * that changes the file makes it stale. `false` (restored unsaved text): `documents.open`.
   */
  clean?: boolean;
  /**
   * Reads the file's text from storage, as the editor does when it opens it: used to reload the
   * view when the engine reports the clean buffer stale (`onDocumentStale`). Without it, a stale
   * buffer is left as it is and `onStale` is called.
   */
  read?: (path: string) => MaybePromise<string>;
  /**
   * Where an agent's write to this document goes (`onDocumentWrite` of `AcpFs`, for this
   * document). Default: `'buffer'` when the view has unsaved edits, `'writeThrough'` when it is
   * clean. Answer synchronously: the text is applied when the choice is known, and the user may
   * type while a promise waits.
   */
  onDocumentWrite?: (path: string, text: string, state: { clean: boolean }) => MaybePromise<DocumentWriteChoice>;
  /** The view went from clean to dirty or back (typing, undo to the saved text, a save, a write). */
  onDirtyChange?: (dirty: boolean) => void;
  /** The clean buffer is stale and there is no `read` to reload it: the host's turn. */
  onStale?: () => void;
}

export interface CodeMirrorBinding {
  readonly path: string;
  /** Whether the view has edits storage does not hold. */
  readonly dirty: boolean;
  /** The host saved the view's text to storage: the document is clean from here. */
  saved(): void;
  /**
   * Reloads a clean view from storage (`text`, or `read(path)`): the smallest edits, one undo
   * step. `false` when the view is dirty or the user typed while the file was read.
   */
  reload(text?: string): Promise<boolean>;
  /** Removes the binding's extension and closes the document (reads go to storage again). */
  dispose(): void;
}

/**
 * Binds `view` to the document at `options.path` of `fs.documents`, until `dispose()`, the view's
 * `destroy()` or a `setState()` that replaces its state:
 * - every change of the user (typing, paste, undo) updates the document before the agent can read;
 *   the document is clean (mirrors storage) while the view holds the text last saved or loaded;
 * - an agent's write to the document (merged with the user's edits when the engine merged it)
 *   is ONE transaction of the smallest edits: one undo step, kept apart from the user's typing,
 *   the selection mapped through it so it stays where the text did not change;
 * - a clean buffer the engine reports stale (the file changed on disk) is reloaded from
 *   `read(path)` the same way, and is clean again; undo brings back what the view showed.
 *
 * The binding's transactions carry the user event `acp.write` (an agent's write) or `acp.reload`
 * (a stale buffer reloaded), so the page can show them (`tr.isUserEvent('acp.reload')`).
 * ```ts
 * const view = new EditorView({ doc: await readFile(path, 'utf8'), extensions: [basicSetup], parent });
 * const binding = bindCodeMirror(fs, view, { path, read: (p) => readFile(p, 'utf8') });
 * // after the host saved the file: binding.saved(); when the tab closes: binding.dispose()
 * ```
 */
export function bindCodeMirror(fs: AcpFs, view: EditorView, options: CodeMirrorBindingOptions): CodeMirrorBinding;
