// The line diff as rows of the page: the approval prompt, the change list and the transcript all
// show a write this way.

import { diffLines, diffStats, hunks } from './diff.mjs';
import { el, plural } from './dom.mjs';

/**
 * Draws the diff of `oldText` (null for a new file) to `newText` into `container`, as hunks with
 * three lines of context. Returns the counts `{added, removed}`.
 */
export function renderDiff(container, oldText, newText) {
  const ops = diffLines(oldText, newText);
  const rows = hunks(ops, 3).map((op) =>
    op.type === '…'
      ? el('div', { class: 'diff-row skip' }, el('span', { class: 'gutter' }, ''), el('span', { class: 'gutter' }, ''), el('span', { class: 'code' }, `⋯ ${plural(op.skipped, 'unchanged line')}`))
      : el(
          'div',
          { class: `diff-row ${op.type === '+' ? 'add' : op.type === '-' ? 'del' : 'ctx'}` },
          el('span', { class: 'gutter' }, op.a ?? ''),
          el('span', { class: 'gutter' }, op.b ?? ''),
          el('span', { class: 'code' }, `${op.type} ${op.text}`),
        ),
  );
  container.replaceChildren(...rows);
  return diffStats(ops);
}
