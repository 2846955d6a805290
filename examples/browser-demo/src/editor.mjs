// The editor pane: one textarea over any number of open buffers, each registered with acp-fs's
// document overlay, so that the agent reads what the user sees and not what is on disk. A buffer
// keeps the file's own line endings and BOM, so saving it writes the file back as it was made.

import { $, plural } from './dom.mjs';
import { readBytes, vfs } from './disk.mjs';
import { rel } from './project.mjs';
import { countLines, encode, inspect } from './text-file.mjs';

const UNSAVED_NOTE = 'Unsaved: this text lives in acp-fs’s document overlay (fs.documents.update). The agent reads it, not the file on disk.';

/**
 * @param {object} deps
 * @param {object} deps.documents  the AcpFs instance's document overlay (`acpFs.documents`)
 * @param {() => unknown} deps.renderTree  redraws the file tree (a file was opened, saved, left)
 * @returns the editor: `current` (the path on screen), `doc(path)` (an open buffer, read-only:
 *   `{saved, buffer, bom, eol, dirty}`), `isDirty`, `openFile`, `showDocument`, `setBuffer`,
 *   `setSaved`, `close`, `refresh`, `note`, `flash`, and the two hooks AcpFs calls for a write to an
 *   open file: `documentWriteMode` (its onDocumentWrite) and `applyAgentWrite` (from its onChange).
 */
export function createEditor({ documents, renderTree }) {
  const docs = new Map(); // path -> {saved, buffer, bom, eol, dirty}
  let current = null;
  // onDocumentWrite decides where an agent write goes; the change record that follows (onChange)
  // does not say, and the change list shows it, so the decision is kept until then.
  const documentModes = new Map(); // path -> 'buffer' | 'writeThrough'

  const editor = $('editor');
  const isDirty = (path) => docs.get(path)?.dirty === true;

  async function openFile(path) {
    // A clean buffer is closed when the user leaves it; unsaved ones stay open, like tabs.
    if (current && current !== path && docs.has(current) && !isDirty(current)) close(current);
    current = path;
    if (!docs.has(path)) {
      const bytes = await readBytes(path);
      const info = bytes ? inspect(bytes) : null;
      if (!info || info.kind !== 'text') {
        editor.value = '';
        editor.disabled = true;
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
      docs.set(path, { saved: info.text, buffer: info.text, bom: info.bom, eol: info.eol, dirty: false });
      documents.open(path, info.text);
    }
    showDocument(path);
    void renderTree();
  }

  function showDocument(path) {
    const doc = docs.get(path);
    editor.disabled = false;
    // A textarea always holds LF; the buffer keeps the file's CRLF (the input listener restores it).
    const shown = doc.buffer.replace(/\r\n/g, '\n');
    if (editor.value !== shown) editor.value = shown;
    $('editor-path').textContent = rel(path);
    showInfo(doc);
    note(doc.dirty ? UNSAVED_NOTE : 'Saved. Type to create unsaved edits: acp-fs serves the agent your buffer, not the disk.');
    updateDirty(path);
  }

  function showInfo(doc) {
    $('editor-info').textContent = [doc.eol === '\r\n' ? 'CRLF' : 'LF', doc.bom ? 'UTF-8 BOM' : 'UTF-8', plural(countLines(doc.buffer), 'line')].join(' · ');
  }

  function updateDirty(path) {
    const dirty = isDirty(path);
    if (path === current) {
      $('dirty-indicator').hidden = !dirty;
      $('save-file').disabled = !dirty;
      $('discard-file').disabled = !dirty;
      $('editor-path').classList.toggle('is-dirty', dirty);
    }
    // Only the one tree entry's mark: a keystroke must not re-read the whole disk to redraw the tree.
    for (const node of document.querySelectorAll('#file-tree [data-testid="tree-file"]')) {
      if (node.dataset.path === path) node.classList.toggle('is-dirty', dirty);
    }
  }

  /** Replaces the buffer of the open file `path`, as typing does: the agent now reads `text`. */
  function setBuffer(path, text) {
    const doc = docs.get(path);
    doc.buffer = text;
    doc.dirty = doc.buffer !== doc.saved;
    documents.update(path, doc.buffer);
  }

  /** The file `path` now holds `text` on disk (written outside the editor): a buffer open on it takes it, clean. */
  function setSaved(path, text) {
    const doc = docs.get(path);
    if (!doc) return;
    doc.saved = text;
    setBuffer(path, text);
  }

  function close(path) {
    if (!docs.has(path)) return;
    documents.close(path);
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
    editor.classList.remove('flash');
    void editor.offsetWidth; // a reflow, so that adding the class again restarts the animation
    editor.classList.add('flash');
  }

  editor.addEventListener('input', () => {
    const doc = docs.get(current);
    if (!doc) return;
    setBuffer(current, doc.eol === '\r\n' ? editor.value.replace(/\r?\n/g, '\r\n') : editor.value);
    updateDirty(current);
    showInfo(doc);
    note(doc.dirty ? UNSAVED_NOTE : 'Saved.');
  });

  async function saveCurrent() {
    const doc = docs.get(current);
    if (!doc) return;
    await vfs.writeFile(current, encode(doc.buffer, doc.bom));
    doc.saved = doc.buffer;
    doc.dirty = false;
    showDocument(current);
    void renderTree();
  }

  $('save-file').addEventListener('click', () => void saveCurrent());
  $('discard-file').addEventListener('click', () => {
    const doc = docs.get(current);
    if (!doc) return;
    setBuffer(current, doc.saved);
    showDocument(current);
  });
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 's') {
      e.preventDefault();
      void saveCurrent();
    }
  });

  // A write to a file open in the editor: a buffer with unsaved edits takes the agent's text
  // (still unsaved, nothing lost on disk); a clean buffer is written through to the file too.
  function documentWriteMode(path) {
    const mode = isDirty(path) ? 'buffer' : 'writeThrough';
    documentModes.set(path, mode);
    return mode;
  }

  /** After acp-fs performed `change`: brings its buffer up to date; returns where the write went. */
  function applyAgentWrite(change) {
    const mode = documentModes.get(change.path) ?? 'storage';
    documentModes.delete(change.path);
    const doc = docs.get(change.path);
    if (doc) {
      doc.buffer = documents.get(change.path) ?? change.newText;
      if (mode !== 'buffer') doc.saved = doc.buffer;
      doc.dirty = doc.buffer !== doc.saved;
      if (current === change.path) showDocument(change.path);
    }
    return mode;
  }

  return {
    get current() {
      return current;
    },
    doc: (path) => docs.get(path),
    isDirty,
    openFile,
    showDocument,
    setBuffer,
    setSaved,
    close,
    refresh,
    note,
    flash,
    documentWriteMode,
    applyAgentWrite,
  };
}
