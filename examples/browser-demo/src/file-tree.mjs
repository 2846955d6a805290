// The file tree: the whole virtual disk, not only the session root, so that the user sees what the
// agent is refused (a file outside the root, a symlink leading out of it) next to what it may read.

import { $, el, plural } from './dom.mjs';
import { readBytes, vfs } from './disk.mjs';
import { ROOT } from './project.mjs';
import { inspect } from './text-file.mjs';

/**
 * @param {ReturnType<import('./editor.mjs').createEditor>} editor  opens a file on click; marks the
 *   current and the unsaved files
 * @returns `render()`: re-reads the disk and redraws the tree (resolves when drawn)
 */
export function createFileTree(editor) {
  const { openFile } = editor;
  let treeGeneration = 0;

  async function renderTree() {
    const generation = ++treeGeneration;
    const items = await listDir('/', 0);
    if (generation !== treeGeneration) return; // a newer render started while this one read files
    $('file-tree').replaceChildren(...items);
  }

  async function listDir(dir, depth) {
    const entries = await vfs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
    const out = [];
    for (const entry of entries) {
      const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
      const inside = path === ROOT || path.startsWith(`${ROOT}/`);
      const pad = { style: `--depth:${depth}` };
      if (entry.isSymbolicLink()) {
        const target = await vfs.readlink(path);
        out.push(
          el(
            'li',
            { class: 'tree-link', ...pad, dataset: { testid: 'tree-link', path } },
            el('span', { class: 'name' }, entry.name),
            el('span', { class: 'badge warn' }, `symlink → ${target}`),
          ),
        );
      } else if (entry.isDirectory()) {
        out.push(
          el(
            'li',
            { class: `tree-dir${inside ? '' : ' outside'}`, ...pad, dataset: { testid: 'tree-dir', path } },
            el('span', { class: 'name' }, `${entry.name}/`),
            path === ROOT ? el('span', { class: 'badge ok' }, 'session root') : null,
            !inside && !ROOT.startsWith(`${path}/`) ? el('span', { class: 'badge muted' }, 'outside root') : null,
          ),
          ...(await listDir(path, depth + 1)),
        );
      } else {
        const bytes = await readBytes(path);
        const info = inspect(bytes ?? new Uint8Array());
        const badges = [];
        if (info.kind === 'binary') badges.push(el('span', { class: 'badge warn' }, 'binary'));
        if (info.kind === 'text' && info.eol === '\r\n') badges.push(el('span', { class: 'badge' }, 'CRLF'));
        if (info.kind === 'text' && info.bom) badges.push(el('span', { class: 'badge' }, 'BOM'));
        if (info.kind === 'text' && info.lines >= 1000) badges.push(el('span', { class: 'badge' }, plural(info.lines, 'line')));
        out.push(
          el(
            'li',
            {
              class: `tree-file${path === editor.current ? ' is-current' : ''}${editor.isDirty(path) ? ' is-dirty' : ''}${inside ? '' : ' outside'}`,
              ...pad,
              dataset: { testid: 'tree-file', path },
              tabindex: 0,
              title: path,
              onclick: () => void openFile(path),
              onkeydown: (e) => {
                if (e.key === 'Enter') void openFile(path);
              },
            },
            el('span', { class: 'name' }, entry.name),
            el('span', { class: 'dot', 'aria-label': 'unsaved' }, '●'),
            ...badges,
          ),
        );
      }
    }
    return out;
  }

  return { render: renderTree };
}
