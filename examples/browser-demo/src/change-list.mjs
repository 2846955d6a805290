// The change list: the change record acp-fs reports for every write it performed, with Undo, which
// puts back the text the record says was there (or deletes a created file).

import { renderDiff } from './diff-view.mjs';
import { readBytes, vfs } from './disk.mjs';
import { $, el } from './dom.mjs';
import { rel } from './project.mjs';
import { encode, inspect } from './text-file.mjs';

/**
 * @param {object} deps
 * @param {ReturnType<import('./editor.mjs').createEditor>} deps.editor  takes the undone text when
 *   the file is open
 * @param {() => unknown} deps.renderTree  redraws the file tree after an Undo
 * @returns `add(change, mode)` (a record from AcpFs's onChange and where the write went), `changes`
 *   (the records, oldest first) and `render()`
 */
export function createChangeList({ editor, renderTree }) {
  const changes = [];

  function add(change, mode) {
    const record = { ...change, id: changes.length + 1, mode, undone: false };
    changes.push(record);
    renderChanges();
  }

  function latestLiveChange(path) {
    for (let i = changes.length - 1; i >= 0; i--) if (changes[i].path === path && !changes[i].undone) return changes[i];
    return null;
  }

  async function undo(record) {
    if (record.mode === 'buffer') {
      // The agent's text only ever reached the buffer: put the user's previous buffer back.
      editor.setBuffer(record.path, record.oldText);
    } else if (record.created) {
      await vfs.unlink(record.path);
      editor.close(record.path);
    } else {
      // oldText is the text as it was stored (line endings included); the BOM is not text, so the
      // file's own BOM, which acp-fs preserved on write, is put back around it.
      const bytes = await readBytes(record.path);
      const bom = bytes ? inspect(bytes).bom === true : false;
      await vfs.writeFile(record.path, encode(record.oldText, bom));
      editor.setSaved(record.path, record.oldText);
    }
    record.undone = true;
    await editor.refresh(record.path);
    renderChanges();
    void renderTree();
  }

  function renderChanges() {
    $('change-empty').hidden = changes.length > 0;
    const items = changes
      .slice()
      .reverse()
      .map((record) => {
        const canUndo = !record.undone && latestLiveChange(record.path) === record;
        const diff = el('div', { class: 'diff small' });
        const stats = renderDiff(diff, record.oldText, record.newText);
        const where = record.mode === 'buffer' ? ' · into the unsaved buffer' : record.mode === 'writeThrough' ? ' · buffer and file' : '';
        return el(
          'li',
          {
            class: `change${record.undone ? ' is-undone' : ''}`,
            dataset: { testid: 'change', path: record.path, created: String(record.created), state: record.undone ? 'undone' : 'applied', mode: record.mode },
          },
          el(
            'div',
            { class: 'change-head' },
            el('span', { class: 'name', title: record.path }, rel(record.path)),
            el('span', { class: 'badge' }, record.created ? 'created' : 'modified'),
            // The file changed since the agent read it and acp-fs merged both edits (semantics.md §9).
            record.merged ? el('span', { class: 'badge', 'data-testid': 'merged' }, 'merged') : null,
            el('span', { class: 'stats' }, `+${stats.added} −${stats.removed}`),
            el('span', { class: 'spacer' }),
            record.undone
              ? el('span', { class: 'badge muted' }, 'undone')
              : el(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    dataset: { testid: 'undo-change' },
                    disabled: !canUndo,
                    title: canUndo ? (record.created ? 'Delete the created file' : 'Write the previous text back') : 'Undo the later change to this file first',
                    onclick: () => void undo(record),
                  },
                  'Undo',
                ),
          ),
          // The newest change shows its diff; older ones fold away.
          el('details', { open: record === changes[changes.length - 1] }, el('summary', {}, `diff${where}`), diff),
        );
      });
    $('change-list').replaceChildren(...items);
  }

  return { changes, add, render: renderChanges };
}
