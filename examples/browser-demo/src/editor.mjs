// Editor: one textarea; every open buffer is registered with acp-fs's document overlay.

import { $, plural } from './dom.mjs';
import { readBytes, vfs } from './disk.mjs';
import { rel } from './project.mjs';
import { countLines, encode, inspect } from './text-file.mjs';

export function createEditor({ acpFs, renderTree }) {
  /** path -> {saved, buffer, bom, eol, dirty}; buffers keep the file's own line endings. */
  const docs = new Map();
  let current = null;
  const documentModes = new Map(); // path -> 'buffer' | 'writeThrough', from onDocumentWrite to onChange

  const editor = $('editor');

  async function openFile(path) {
    if (current && current !== path) {
      const prev = docs.get(current);
      // A clean buffer is closed when the user leaves it; unsaved ones stay open, like tabs.
      if (prev && !prev.dirty) {
        acpFs.documents.close(current);
        docs.delete(current);
      }
    }
    current = path;
    if (!docs.has(path)) {
      const bytes = await readBytes(path);
      const info = bytes ? inspect(bytes) : null;
      if (!info || info.kind !== 'text') {
        editor.value = '';
        editor.disabled = true;
        $('editor-path').textContent = rel(path);
        $('editor-info').textContent = info ? `${info.kind === 'binary' ? 'binary' : 'not UTF-8'} · ${plural(info.size, 'byte')}` : 'missing';
        $('editor-note').textContent = info
          ? 'This file is not text: the editor does not show it, and acp-fs refuses it to agents (binary_file / not_utf8) instead of decoding it lossily.'
          : 'This file no longer exists.';
        $('dirty-indicator').hidden = true;
        $('save-file').disabled = true;
        $('discard-file').disabled = true;
        void renderTree();
        return;
      }
      docs.set(path, { saved: info.text, buffer: info.text, bom: info.bom, eol: info.eol, dirty: false });
      acpFs.documents.open(path, info.text);
    }
    showDocument(path);
    void renderTree();
  }

  function showDocument(path) {
    const doc = docs.get(path);
    editor.disabled = false;
    // A textarea always holds LF; the buffer keeps the file's CRLF (see onInput).
    const shown = doc.buffer.replace(/\r\n/g, '\n');
    if (editor.value !== shown) editor.value = shown;
    $('editor-path').textContent = rel(path);
    showInfo(doc);
    $('editor-note').textContent = doc.dirty
      ? 'Unsaved: this text lives in acp-fs’s document overlay (fs.documents.update). The agent reads it, not the file on disk.'
      : 'Saved. Type to create unsaved edits: acp-fs serves the agent your buffer, not the disk.';
    updateDirty(path);
  }

  function showInfo(doc) {
    const lines = countLines(doc.buffer);
    $('editor-info').textContent = [doc.eol === '\r\n' ? 'CRLF' : 'LF', doc.bom ? 'UTF-8 BOM' : 'UTF-8', plural(lines, 'line')].join(' · ');
  }

  function updateDirty(path) {
    const doc = docs.get(path);
    const dirty = Boolean(doc?.dirty);
    if (path === current) {
      $('dirty-indicator').hidden = !dirty;
      $('save-file').disabled = !dirty;
      $('discard-file').disabled = !dirty;
      $('editor-path').classList.toggle('is-dirty', dirty);
    }
    for (const node of document.querySelectorAll('#file-tree [data-testid="tree-file"]')) {
      if (node.dataset.path === path) node.classList.toggle('is-dirty', dirty);
    }
  }

  editor.addEventListener('input', () => {
    const doc = docs.get(current);
    if (!doc) return;
    doc.buffer = doc.eol === '\r\n' ? editor.value.replace(/\r?\n/g, '\r\n') : editor.value;
    doc.dirty = doc.buffer !== doc.saved;
    acpFs.documents.update(current, doc.buffer);
    updateDirty(current);
    showInfo(doc);
    $('editor-note').textContent = doc.dirty
      ? 'Unsaved: this text lives in acp-fs’s document overlay (fs.documents.update). The agent reads it, not the file on disk.'
      : 'Saved.';
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
    doc.buffer = doc.saved;
    doc.dirty = false;
    acpFs.documents.update(current, doc.buffer);
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
    const mode = docs.get(path)?.dirty ? 'buffer' : 'writeThrough';
    documentModes.set(path, mode);
    return mode;
  }

  function applyAgentWrite(change) {
    const mode = documentModes.get(change.path) ?? 'storage';
    documentModes.delete(change.path);
    const doc = docs.get(change.path);
    if (doc) {
      doc.buffer = acpFs.documents.get(change.path) ?? change.newText;
      if (mode !== 'buffer') doc.saved = doc.buffer;
      doc.dirty = doc.buffer !== doc.saved;
      if (current === change.path) showDocument(change.path);
    }
    return mode;
  }

  return {
    docs,
    get current() {
      return current;
    },
    textarea: editor,
    openFile,
    showDocument,
    documentWriteMode,
    applyAgentWrite,
  };
}
