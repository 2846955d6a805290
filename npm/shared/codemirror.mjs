// `bindCodeMirror`: one CodeMirror 6 view as an open document of acp-fs's overlay. The glue a host
// otherwise writes by hand: every edit of the user reaches `fs.documents` before the agent can
// read, the clean/dirty state the engine's stale-buffer rules need (semantics.md §9 "Open
// documents"), an agent's write as one undoable transaction, a stale clean buffer reloaded.
// No rule of the engine is here: the engine decides what the agent reads and what a write (or a
// merge) makes of the document; this only moves text between the two.
//
// @codemirror/state, /view and /commands are the page's own (peer dependencies): a second copy
// of @codemirror/state would make the page's view refuse this module's extension.
import { Annotation, Compartment, StateEffect, Transaction } from '@codemirror/state';
import { ViewPlugin } from '@codemirror/view';
import { isolateHistory } from '@codemirror/commands';
import { textEdits } from './text-edits.mjs';
import { defaultChoice } from './write-choice.mjs';

/** Marks the transactions this binding dispatched: their text is already the engine's. */
const fromEngine = Annotation.define();

/**
 * Binds `view` to the document at `path` of `fs.documents` (see `codemirror.d.ts`).
 * @param {object} fs an `AcpFs`
 * @param {import('@codemirror/view').EditorView} view
 * @param {{path: string, clean?: boolean, read?: (path: string) => unknown,
 *   onDocumentWrite?: Function, onDirtyChange?: (dirty: boolean) => void, onStale?: () => void}} options
 */
export function bindCodeMirror(fs, view, options) {
  const { path, clean = true, read, onDocumentWrite, onDirtyChange, onStale } = options ?? {};
  if (typeof path !== 'string') throw new TypeError('bindCodeMirror needs options.path, the file\'s absolute path');
  if (typeof view?.dispatch !== 'function' || view.state === undefined) {
    throw new TypeError('bindCodeMirror needs a CodeMirror EditorView');
  }
  const documents = fs.documents;
  // The text at which the buffer held what storage holds (opened, saved or reloaded); null when
  // the buffer was never known to match.
  let cleanDoc = clean ? view.state.doc : null;
  let dirty = !clean;
  let ended = false;

  // The text the editor would save: its own line separator (the engine compares a clean buffer
  // with storage line endings aside).
  const text = () => view.state.sliceDoc();
  if (clean) documents.reloaded(path, text());
  else documents.open(path, text());

  const setDirty = (value) => {
    if (value === dirty) return;
    dirty = value;
    if (typeof onDirtyChange === 'function') onDirtyChange(dirty);
  };

  /** The user changed the text (typing, undo, paste): the engine has it before the agent reads. */
  const userEdited = () => {
    const matches = cleanDoc !== null && view.state.doc.eq(cleanDoc);
    if (matches) documents.reloaded(path, text());
    else documents.update(path, text());
    setDirty(!matches);
  };

  /**
   * Makes the editor hold `next` by the smallest edits, as one undo step of its own: joined with
   * neither the user's typing before it nor after it.
   */
  const apply = (next, userEvent) => {
    const state = view.state;
    // Positions count a line break as one character: diff the "\n" forms.
    const edits = textEdits(state.doc.toString(), state.toText(next).toString());
    if (edits.length === 0) return;
    view.dispatch({
      changes: edits,
      annotations: [fromEngine.of(true), Transaction.userEvent.of(userEvent), isolateHistory.of('full')],
    });
  };

  const write = (next) => {
    const choice = typeof onDocumentWrite === 'function' ? onDocumentWrite(path, next, { clean: !dirty }) : defaultChoice(dirty);
    const finish = (chosen) => {
      if (ended) return chosen;
      apply(next, 'acp.write');
      // The engine puts the text in the buffer: clean when written through to storage too.
      if (chosen === 'writeThrough') {
        cleanDoc = view.state.doc;
        setDirty(false);
      } else {
        setDirty(true);
      }
      return chosen;
    };
    return typeof choice?.then === 'function' ? choice.then(finish) : finish(choice);
  };

  /** Reloads a clean buffer from storage, as one undoable step (as VS Code reloads a clean file). */
  const reload = async (given) => {
    if (ended || dirty) return false;
    const before = view.state.doc;
    const next = given ?? (typeof read === 'function' ? await read(path) : undefined);
    if (typeof next !== 'string') throw new TypeError('reload needs the text, or options.read to load it');
    // The user typed while storage was read: their unsaved buffer wins.
    if (ended || dirty || !view.state.doc.eq(before)) return false;
    apply(next, 'acp.reload');
    cleanDoc = view.state.doc;
    documents.reloaded(path, text());
    return true;
  };

  const stale = () => {
    if (typeof read === 'function') {
      reload().catch((e) => console.error(`acp-fs: reloading ${path} failed`, e));
    } else if (typeof onStale === 'function') {
      onStale();
    }
  };

  const detach = documents.attach(path, { write, stale });
  const compartment = new Compartment();
  const end = () => {
    if (ended) return;
    ended = true;
    detach();
    documents.close(path);
  };
  // A plugin, so that the view's end (view.destroy(), or view.setState() with a state without
  // it) ends the binding too.
  const plugin = ViewPlugin.define(() => ({
    update(update) {
      if (ended || !update.docChanged) return;
      if (update.transactions.every((tr) => !tr.docChanged || tr.annotation(fromEngine))) return;
      userEdited();
    },
    destroy: end,
  }));
  view.dispatch({ effects: StateEffect.appendConfig.of(compartment.of(plugin)) });

  return {
    path,
    get dirty() {
      return dirty;
    },
    saved() {
      if (ended) return;
      cleanDoc = view.state.doc;
      documents.saved(path);
      setDirty(false);
    },
    reload,
    dispose() {
      if (ended) return;
      view.dispatch({ effects: compartment.reconfigure([]) });
      end();
    },
  };
}

