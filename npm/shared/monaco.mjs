// `bindMonaco`: every Monaco model of a file (`file:` URI) as an open document of acp-fs's
// overlay, for as long as the model lives. The same glue as `bindCodeMirror`: the user's edits
// reach `fs.documents` at once, clean/dirty follows the model's alternative version id (what
// Monaco's own "dirty" means: undoing back to the saved text is clean again), an agent's write is
// one undo stop, a stale clean model is reloaded the way VS Code reloads one (minimal edits
// between two undo stops). No rule of the engine is here, and nothing of Monaco is imported: the
// page passes its `monaco`.
import { textEdits } from './text-edits.mjs';
import { defaultChoice } from './write-choice.mjs';

/**
 * Binds every `file:` model of `monaco` (present and future) to `fs.documents` (see `monaco.d.ts`).
 * @param {object} fs an `AcpFs`
 * @param {typeof import('monaco-editor')} monaco
 * @param {{read?: (path: string) => unknown, pathOf?: (uri: object) => string | null | undefined,
 *   clean?: (model: object) => boolean, onDocumentWrite?: Function,
 *   onDirtyChange?: (model: object, dirty: boolean) => void, onStale?: (model: object) => void}} [options]
 */
export function bindMonaco(fs, monaco, options = {}) {
  const { read, pathOf = defaultPath, clean = () => true, onDocumentWrite, onDirtyChange, onStale } = options;
  if (typeof monaco?.editor?.getModels !== 'function') throw new TypeError('bindMonaco needs the monaco namespace');
  const documents = fs.documents;
  /** model -> its binding state. */
  const bound = new Map();

  function track(model) {
    if (bound.has(model) || model.isDisposed?.()) return;
    const path = pathOf(model.uri);
    if (typeof path !== 'string') return;
    const isClean = clean(model) !== false;
    const doc = {
      model,
      path,
      // The alternative version id at which the model held what storage holds; null: never known.
      cleanAlt: isClean ? model.getAlternativeVersionId() : null,
      dirty: !isClean,
      applying: false,
    };
    if (isClean) documents.reloaded(path, model.getValue());
    else documents.open(path, model.getValue());
    doc.content = model.onDidChangeContent(() => {
      if (!doc.applying) userEdited(doc);
    });
    doc.detach = documents.attach(path, { write: (text) => write(doc, text), stale: () => stale(doc) });
    bound.set(model, doc);
  }

  function untrack(model) {
    const doc = bound.get(model);
    if (!doc) return;
    bound.delete(model);
    doc.content.dispose();
    doc.detach();
    documents.close(doc.path);
  }

  function setDirty(doc, dirty) {
    if (doc.dirty === dirty) return;
    doc.dirty = dirty;
    if (typeof onDirtyChange === 'function') onDirtyChange(doc.model, dirty);
  }

  /** Typing, undo, paste, a host's setValue: the engine has the text before the agent reads. */
  function userEdited(doc) {
    const matches = doc.cleanAlt !== null && doc.model.getAlternativeVersionId() === doc.cleanAlt;
    if (matches) documents.reloaded(doc.path, doc.model.getValue());
    else documents.update(doc.path, doc.model.getValue());
    setDirty(doc, !matches);
  }

  /** Makes the model hold `next` by the smallest edits, between two undo stops. */
  function apply(doc, next) {
    const model = doc.model;
    // Offsets in the "\n" form, turned into line/column positions, so a CRLF model's line breaks
    // are never cut in two; inserted text takes the model's own line ending.
    const current = model.getLinesContent().join('\n');
    const edits = textEdits(current, next.replace(/\r\n?/g, '\n'));
    if (edits.length === 0) return;
    const eol = model.getEOL();
    const at = positions(current);
    const operations = edits.map((e) => ({
      range: { ...at(e.from, 'start'), ...at(e.to, 'end') },
      text: eol === '\n' ? e.insert : e.insert.replace(/\n/g, eol),
    }));
    doc.applying = true;
    try {
      model.pushStackElement();
      model.pushEditOperations([], operations, () => null);
      model.pushStackElement();
    } finally {
      doc.applying = false;
    }
  }

  function write(doc, next) {
    const choice =
      typeof onDocumentWrite === 'function'
        ? onDocumentWrite(doc.path, next, { clean: !doc.dirty, model: doc.model })
        : defaultChoice(doc.dirty);
    const finish = (chosen) => {
      if (bound.get(doc.model) !== doc) return chosen;
      apply(doc, next);
      if (chosen === 'writeThrough') {
        doc.cleanAlt = doc.model.getAlternativeVersionId();
        setDirty(doc, false);
      } else {
        setDirty(doc, true);
      }
      return chosen;
    };
    return typeof choice?.then === 'function' ? choice.then(finish) : finish(choice);
  }

  async function reload(model, given) {
    const doc = bound.get(model);
    if (!doc || doc.dirty) return false;
    const before = model.getAlternativeVersionId();
    const next = given ?? (typeof read === 'function' ? await read(doc.path) : undefined);
    if (typeof next !== 'string') throw new TypeError('reload needs the text, or options.read to load it');
    // The user typed while storage was read: their unsaved buffer wins.
    if (bound.get(model) !== doc || doc.dirty || model.getAlternativeVersionId() !== before) return false;
    apply(doc, next);
    doc.cleanAlt = model.getAlternativeVersionId();
    documents.reloaded(doc.path, model.getValue());
    return true;
  }

  function stale(doc) {
    if (typeof read === 'function') {
      reload(doc.model).catch((e) => console.error(`acp-fs: reloading ${doc.path} failed`, e));
    } else if (typeof onStale === 'function') {
      onStale(doc.model);
    }
  }

  const created = monaco.editor.onDidCreateModel(track);
  const disposing = monaco.editor.onWillDisposeModel(untrack);
  for (const model of monaco.editor.getModels()) track(model);

  return {
    isDirty: (model) => bound.get(model)?.dirty ?? false,
    saved(model) {
      const doc = bound.get(model);
      if (!doc) return;
      doc.cleanAlt = model.getAlternativeVersionId();
      documents.saved(doc.path);
      setDirty(doc, false);
    },
    reload,
    dispose() {
      created.dispose();
      disposing.dispose();
      for (const model of [...bound.keys()]) untrack(model);
    },
  };
}

/** A `file:` URI's path as the agent names it (`c:\…` on Windows; the engine normalizes). */
function defaultPath(uri) {
  return uri?.scheme === 'file' ? uri.fsPath : null;
}

/**
 * Offset → Monaco position in `text` ("\n" line breaks), for ascending offsets: one pass over the
 * text for all of a write's edits.
 */
function positions(text) {
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  return (offset, which) => {
    while (scanned < offset) {
      const nl = text.indexOf('\n', scanned);
      if (nl === -1 || nl >= offset) break;
      line++;
      lineStart = nl + 1;
      scanned = nl + 1;
    }
    scanned = Math.max(scanned, lineStart);
    const column = offset - lineStart + 1;
    return which === 'start' ? { startLineNumber: line, startColumn: column } : { endLineNumber: line, endColumn: column };
  };
}
