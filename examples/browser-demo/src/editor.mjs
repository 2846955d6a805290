// The editor pane: CodeMirror 6, one view per open file (each with its own undo history), each
// bound to acp-fs's document overlay with `bindCodeMirror` from @acp-fs/wasm/codemirror. The
// binding does the wiring: the agent reads what the user sees, an agent's write (merged with the
// user's edits when it has to be) arrives as one undoable edit, and a clean buffer whose file a
// terminal changed is reloaded. This pane only adds what an IDE shows around it: the path, the
// dirty marker, Save and Discard, and the file's own line endings and BOM when saving.

import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { $, el, plural } from './dom.mjs';
import { readBytes, vfs } from './disk.mjs';
import { bindCodeMirror } from './engine.mjs';
import { rel } from './project.mjs';
import { countLines, encode, inspect } from './text-file.mjs';

const UNSAVED_NOTE = 'Unsaved: this text lives in acp-fs’s document overlay (bindCodeMirror keeps fs.documents up to date). The agent reads it, not the file on disk.';
const SAVED_NOTE = 'Saved. Type to create unsaved edits: acp-fs serves the agent your buffer, not the disk. Ctrl+Z undoes your edits and the agent’s, one step each.';

/** The file's text as the editor opens it: what the binding reloads a stale clean buffer from. */
async function readText(path) {
  const bytes = await readBytes(path);
  const info = bytes ? inspect(bytes) : null;
  if (!info || info.kind !== 'text') throw new Error(`${path} is no longer a text file`);
  return info.text;
}

const language = (path) => (/\.(m?js|cjs|json|ts)$/.test(path) ? [javascript()] : []);

/**
 * @param {object} deps
 * @param {object} deps.acpFs  the AcpFs instance whose document overlay the views are bound to
 * @param {() => unknown} deps.renderTree  redraws the file tree (a file was opened, saved, left)
 * @returns the editor: `current` (the path on screen), `doc(path)` (an open buffer, read-only:
 *   `{saved, buffer, bom, eol, dirty}`), `text()` (the text on screen), `reloads` (paths reloaded
 *   after a change on disk), `isDirty`, `openFile`, `showDocument`, `setBuffer`, `setSaved`,
 *   `close`, `refresh`, `note`, `flash`, and `applyAgentWrite` (AcpFs's onChange: where the write
 *   went).
 */
export function createEditor({ acpFs, renderTree }) {
  const docs = new Map(); // path -> {view, binding, box, saved, bom, eol}
  const reloads = [];
  let current = null;
  // Where each agent write to an open file went (the binding's onDocumentWrite); the change record
  // that follows (onChange) does not say, and the change list shows it.
  const documentModes = new Map(); // path -> 'buffer' | 'writeThrough'

  const host = $('editor');
  const empty = $('editor-empty');
  const isDirty = (path) => docs.get(path)?.binding.dirty === true;
  const bufferOf = (doc) => doc.view.state.sliceDoc();

  function makeView(path, info) {
    const box = el('div', { class: 'cm-box', dataset: { path } });
    host.append(box);
    const doc = { box, saved: info.text, bom: info.bom, eol: info.eol };
    doc.view = new EditorView({
      parent: box,
      state: EditorState.create({
        doc: info.text,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          ...language(path),
          // What the binding did shows on screen: the agent's edit, a reload after a change on disk.
          EditorView.updateListener.of((update) => {
            for (const tr of update.transactions) {
              if (tr.isUserEvent('acp.reload')) reloaded(path);
              else if (tr.isUserEvent('acp.write') && path === current) {
                note('The agent’s edit is in your buffer as one step: Ctrl+Z takes it back, your own edits stay.');
                flash();
              }
            }
            if (update.docChanged && path === current) showInfo(doc);
          }),
        ],
      }),
    });
    doc.binding = bindCodeMirror(acpFs, doc.view, {
      path,
      read: readText,
      // A buffer with unsaved edits takes the agent's text and stays unsaved (nothing lost on
      // disk); a clean one is written through to the file too.
      onDocumentWrite: (p, _text, { clean }) => {
        const mode = clean ? 'writeThrough' : 'buffer';
        documentModes.set(p, mode);
        return mode;
      },
      onDirtyChange: () => updateDirty(path),
    });
    return doc;
  }

  /** A terminal (or any other program) changed the clean buffer's file: the binding reloaded it. */
  function reloaded(path) {
    const doc = docs.get(path);
    if (!doc) return;
    doc.saved = bufferOf(doc);
    reloads.push(path);
    if (path === current) {
      note(`${rel(path)} changed on disk while it was open and unmodified: the editor reloaded it (the agent had already read the new text). Ctrl+Z brings back what it showed.`);
      flash();
    }
    void renderTree();
  }

  async function openFile(path) {
    // A clean buffer is closed when the user leaves it; unsaved ones stay open, like tabs.
    if (current && current !== path && docs.has(current) && !isDirty(current)) close(current);
    current = path;
    if (!docs.has(path)) {
      const bytes = await readBytes(path);
      const info = bytes ? inspect(bytes) : null;
      if (!info || info.kind !== 'text') {
        for (const d of docs.values()) d.box.hidden = true;
        empty.hidden = false;
        empty.textContent = info ? `This file is not text (${info.kind === 'binary' ? 'binary' : 'not UTF-8'}).` : 'This file no longer exists.';
        $('editor-path').textContent = rel(path);
        $('editor-info').textContent = info ? `${info.kind === 'binary' ? 'binary' : 'not UTF-8'} · ${plural(info.size, 'byte')}` : 'missing';
        note(
          info
            ? 'This file is not text: the editor does not show it, and acp-fs refuses it to agents (binary_file / not_utf8) instead of decoding it lossily.'
            : 'This file no longer exists.',
        );
        $('dirty-indicator').hidden = true;
        $('save-file').disabled = true;
        $('discard-file').disabled = true;
        void renderTree();
        return;
      }
      docs.set(path, makeView(path, info));
    }
    showDocument(path);
    void renderTree();
  }

  function showDocument(path) {
    const doc = docs.get(path);
    empty.hidden = true;
    for (const [p, d] of docs) d.box.hidden = p !== path;
    doc.view.requestMeasure();
    $('editor-path').textContent = rel(path);
    showInfo(doc);
    note(isDirty(path) ? UNSAVED_NOTE : SAVED_NOTE);
    updateDirty(path);
  }

  function showInfo(doc) {
    $('editor-info').textContent = [doc.eol === '\r\n' ? 'CRLF' : 'LF', doc.bom ? 'UTF-8 BOM' : 'UTF-8', plural(countLines(bufferOf(doc)), 'line')].join(' · ');
  }

  function updateDirty(path) {
    const dirty = isDirty(path);
    if (path === current) {
      $('dirty-indicator').hidden = !dirty;
      $('save-file').disabled = !dirty;
      $('discard-file').disabled = !dirty;
      $('editor-path').classList.toggle('is-dirty', dirty);
      note(dirty ? UNSAVED_NOTE : SAVED_NOTE);
    }
    // Only the one tree entry's mark: a keystroke must not re-read the whole disk to redraw the tree.
    for (const node of document.querySelectorAll('#file-tree [data-testid="tree-file"]')) {
      if (node.dataset.path === path) node.classList.toggle('is-dirty', dirty);
    }
  }

  /** Replaces the buffer of the open file `path` as typing does (one edit, in the undo history). */
  function setBuffer(path, text) {
    const { view } = docs.get(path);
    const before = view.state.doc.toString();
    const after = view.state.toText(text).toString();
    let from = 0;
    while (from < before.length && from < after.length && before[from] === after[from]) from++;
    let a = before.length;
    let b = after.length;
    while (a > from && b > from && before[a - 1] === after[b - 1]) {
      a--;
      b--;
    }
    if (from === a && from === b) return;
    view.dispatch({ changes: { from, to: a, insert: after.slice(from, b) }, userEvent: 'input' });
  }

  /** The file `path` now holds `text` on disk (written outside the editor): a buffer open on it takes it, clean. */
  function setSaved(path, text) {
    const doc = docs.get(path);
    if (!doc) return;
    setBuffer(path, text);
    doc.saved = bufferOf(doc);
    doc.binding.saved();
  }

  function close(path) {
    const doc = docs.get(path);
    if (!doc) return;
    doc.binding.dispose();
    doc.view.destroy();
    doc.box.remove();
    docs.delete(path);
  }

  /** Redraws `path` if it is on screen, reopening it from disk if its buffer was closed. */
  async function refresh(path) {
    if (current !== path) return;
    if (docs.has(path)) showDocument(path);
    else await openFile(path);
  }

  function note(text) {
    $('editor-note').textContent = text;
  }

  /** Draws the eye to the editor: its text changed without the user typing. */
  function flash() {
    const box = docs.get(current)?.box;
    if (!box) return;
    box.classList.remove('flash');
    void box.offsetWidth; // a reflow, so that adding the class again restarts the animation
    box.classList.add('flash');
  }

  async function saveCurrent() {
    const doc = docs.get(current);
    if (!doc) return;
    // The view holds "\n" lines; the file keeps its own line endings and BOM.
    const text = bufferOf(doc);
    await vfs.writeFile(current, encode(doc.eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text, doc.bom));
    doc.saved = text;
    doc.binding.saved();
    showDocument(current);
    void renderTree();
  }

  $('save-file').addEventListener('click', () => void saveCurrent());
  $('discard-file').addEventListener('click', () => {
    const doc = docs.get(current);
    if (!doc) return;
    setSaved(current, doc.saved);
    showDocument(current);
  });
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 's') {
      e.preventDefault();
      void saveCurrent();
    }
  });

  /** After acp-fs performed `change`: returns where the write went; a write through leaves the buffer saved. */
  function applyAgentWrite(change) {
    const mode = documentModes.get(change.path) ?? 'storage';
    documentModes.delete(change.path);
    const doc = docs.get(change.path);
    if (doc && mode !== 'buffer') doc.saved = bufferOf(doc);
    if (doc && current === change.path) showInfo(doc);
    return mode;
  }

  return {
    get current() {
      return current;
    },
    doc: (path) => {
      const d = docs.get(path);
      return d && { saved: d.saved, buffer: bufferOf(d), bom: d.bom, eol: d.eol, dirty: d.binding.dirty };
    },
    text: () => (docs.has(current) ? bufferOf(docs.get(current)) : null),
    reloads,
    isDirty,
    openFile,
    showDocument,
    setBuffer,
    setSaved,
    close,
    refresh,
    note,
    flash,
    applyAgentWrite,
  };
}
