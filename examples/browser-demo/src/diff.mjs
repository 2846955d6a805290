// A small line diff for the approval prompt and the change list. Common prefix and suffix are cut
// first, so an edit in a 20,000-line file only diffs the lines around it; the middle uses an LCS
// table, bounded so that a huge rewrite degrades to "all removed, all added" instead of hanging.

const MAX_CELLS = 2_000_000;

/** Lines without their terminators; a CR of a CRLF pair is dropped for display. */
export function splitLines(text) {
  if (text === null || text === undefined) return [];
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Ops `{type: ' ' | '-' | '+', text, a, b}`: `a` / `b` are 1-based line numbers in the old / new
 * text (the side the line exists on).
 */
export function diffLines(oldText, newText) {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops = [];
  for (let i = 0; i < pre; i++) ops.push({ type: ' ', text: a[i], a: i + 1, b: i + 1 });
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  for (const op of middle(am, bm)) {
    ops.push({ ...op, a: op.a === undefined ? undefined : op.a + pre, b: op.b === undefined ? undefined : op.b + pre });
  }
  for (let k = 0; k < suf; k++) {
    const i = a.length - suf + k;
    const j = b.length - suf + k;
    ops.push({ type: ' ', text: a[i], a: i + 1, b: j + 1 });
  }
  return ops;
}

function middle(a, b) {
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...a.map((text, i) => ({ type: '-', text, a: i + 1 })),
      ...b.map((text, j) => ({ type: '+', text, b: j + 1 })),
    ];
  }
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: LCS length of a[i..] and b[j..], one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ type: ' ', text: a[i], a: i + 1, b: j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      ops.push({ type: '-', text: a[i], a: i + 1 });
      i++;
    } else {
      ops.push({ type: '+', text: b[j], b: j + 1 });
      j++;
    }
  }
  for (; i < n; i++) ops.push({ type: '-', text: a[i], a: i + 1 });
  for (; j < m; j++) ops.push({ type: '+', text: b[j], b: j + 1 });
  return ops;
}

/**
 * Hunks with `context` unchanged lines around each change; runs of unchanged lines between
 * hunks become one `{type: '…', skipped}` marker.
 */
export function hunks(ops, context = 3) {
  const keep = new Uint8Array(ops.length);
  ops.forEach((op, k) => {
    if (op.type === ' ') return;
    for (let d = Math.max(0, k - context); d <= Math.min(ops.length - 1, k + context); d++) keep[d] = 1;
  });
  const out = [];
  let skipped = 0;
  ops.forEach((op, k) => {
    if (keep[k]) {
      if (skipped) out.push({ type: '…', skipped });
      skipped = 0;
      out.push(op);
    } else skipped++;
  });
  if (skipped) out.push({ type: '…', skipped });
  return out;
}

export function diffStats(ops) {
  let added = 0;
  let removed = 0;
  for (const op of ops) {
    if (op.type === '+') added++;
    else if (op.type === '-') removed++;
  }
  return { added, removed };
}
