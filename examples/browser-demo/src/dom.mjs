// Tiny DOM helpers: the demo is plain DOM on purpose, so that what it shows is acp-fs, not a
// framework.

export const $ = (id) => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing element #${id}`);
  return node;
};

/** `el('li', {class: 'x', dataset: {path}}, 'text', child)`; `on*` attributes become listeners. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Keeps a scrolled list pinned to its bottom while the user has not scrolled up. */
export function appendPinned(list, node) {
  const pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(node);
  if (pinned) list.scrollTop = list.scrollHeight;
}

/** Runs `mutate` (which may grow the list's content) and keeps the list pinned to its bottom. */
export function keepPinned(list, mutate) {
  const pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  mutate();
  if (pinned) list.scrollTop = list.scrollHeight;
}

/**
 * Text as nodes with its line terminators made visible (CR as a small badge, LF as ↵): the
 * windows acp-fs serves are exact substrings, terminators included, and the demo shows that.
 */
export function withTerminators(text) {
  const out = [];
  const re = /\r\n|\n|\r|\uFEFF/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[0] === '\uFEFF') out.push(el('span', { class: 'ctl' }, 'BOM'));
    else {
      if (m[0].startsWith('\r')) out.push(el('span', { class: 'ctl' }, 'CR'));
      if (m[0].endsWith('\n')) out.push(el('span', { class: 'eol' }, '↵'), '\n');
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export const plural = (n, word) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
