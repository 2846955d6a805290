// `@acp-fs/node/monaco` and `@acp-fs/wasm/monaco`: Monaco's file models bound to acp-fs's
// document overlay. Nothing of Monaco is imported: the page passes its `monaco`.
import type * as Monaco from 'monaco-editor' with { 'resolution-mode': 'import' };
import type { AcpFs, DocumentWriteChoice, MaybePromise } from './acp-fs.js';
type TextModel = Monaco.editor.ITextModel;

export interface MonacoBindingOptions {
  /**
   * Reads a file's text from storage: used to reload a clean model the engine reports stale
   * (`onDocumentStale`). Without it, a stale model is left as it is and `onStale` is called.
   */
  read?: (path: string) => MaybePromise<string>;
  /** The path a model's URI names, or `null` for a model that is no file. Default: `file:` URIs, `uri.fsPath`. */
  pathOf?: (uri: Monaco.Uri) => string | null | undefined;
  /**
   * Whether a new model holds what storage holds (default: yes). A model created from unsaved
   * text answers `false` and is registered with `documents.open`.
   */
  clean?: (model: TextModel) => boolean;
  /**
   * Where an agent's write to a model goes. Default: `'buffer'` when the model has unsaved edits,
   * `'writeThrough'` when it is clean. Answer synchronously (see `CodeMirrorBindingOptions`).
   */
  onDocumentWrite?: (path: string, text: string, state: { clean: boolean; model: TextModel }) => MaybePromise<DocumentWriteChoice>;
  /** A model went from clean to dirty or back. */
  onDirtyChange?: (model: TextModel, dirty: boolean) => void;
  /** A clean model is stale and there is no `read` to reload it. */
  onStale?: (model: TextModel) => void;
}

export interface MonacoBinding {
  /** Whether the model has edits storage does not hold (what Monaco's alternative version id says). */
  isDirty(model: TextModel): boolean;
  /** The host saved the model's text to storage. */
  saved(model: TextModel): void;
  /** Reloads a clean model from storage (`text`, or `read(path)`) between two undo stops; `false` when it is dirty. */
  reload(model: TextModel, text?: string): Promise<boolean>;
  /** Stops following models and closes their documents. */
  dispose(): void;
}

/**
 * Binds every model of `monaco` with a `file:` URI, present and future, to `fs.documents`, each
 * until it is disposed (or `dispose()`):
 * - the user's changes update the document at once; clean/dirty follows the model's alternative
 *   version id, so undoing back to the saved text makes it clean again;
 * - an agent's write (a merge included) is the smallest edits between two undo stops: one undo
 *   step, the cursors staying where the text did not change;
 * - a clean model reported stale is reloaded as VS Code reloads one (minimal edits, undoable).
 * ```ts
 * const binding = bindMonaco(fs, monaco, { read: (p) => readFile(p, 'utf8') });
 * monaco.editor.create(parent, { model: monaco.editor.createModel(text, 'typescript', monaco.Uri.file(path)) });
 * ```
 */
export function bindMonaco(fs: AcpFs, monaco: MonacoNamespace, options?: MonacoBindingOptions): MonacoBinding;

/** What of `monaco` the binding uses: the full package or `editor.api` alone will do. */
export interface MonacoNamespace {
  editor: Pick<typeof Monaco.editor, 'getModels' | 'onDidCreateModel' | 'onWillDisposeModel'>;
}
