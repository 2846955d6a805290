// The edits that turn an editor's text into the text the engine put in the document, as small as
// a diff finds them: an editor applies them as one transaction, so what the user did not touch
// keeps its place, its selection and its markers, and undo brings the old text back in one step.
//
// The diff is jsdiff (`diff`), the field's well-kept Myers implementation, rather than one written
// here; its `maxEditLength` bounds the work, so a rewrite of a large file costs one replacement
// instead of a quadratic search.
import { diffChars, diffLines } from 'diff';

/** Line edits searched before a rewrite counts as one replacement. */
const MAX_LINE_EDITS = 2000;
/** A replaced run of lines is refined into character edits when both sides are at most this long. */
const REFINE_CHARS = 4000;
/** Character edits searched within one replaced run. */
const MAX_CHAR_EDITS = 500;

/**
 * The edits (`{from, to, insert}`, offsets into `before`, ascending, not overlapping) that make
 * `before` into `after`; none when they are equal.
 * @param {string} before
 * @param {string} after
 * @returns {{from: number, to: number, insert: string}[]}
 */
export function textEdits(before, after) {
  if (before === after) return [];
  // The common ends first: most writes change a few places in a long file.
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endA = before.length;
  let endB = after.length;
  while (endA > start && endB > start && before.charCodeAt(endA - 1) === after.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  const a = before.slice(start, endA);
  const b = after.slice(start, endB);
  const edits = [];
  const lines = a && b ? diffLines(a, b, { maxEditLength: MAX_LINE_EDITS }) : undefined;
  if (lines === undefined) {
    edits.push({ from: start, to: endA, insert: b });
    return edits;
  }
  let at = start;
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed || added) replace(edits, at, removed, added);
    at += removed.length;
    removed = '';
    added = '';
  };
  for (const part of lines) {
    if (part.removed) removed += part.value;
    else if (part.added) added += part.value;
    else {
      flush();
      at += part.value.length;
    }
  }
  flush();
  return edits;
}

/** One replaced run of lines at `at`: as character edits when small enough to refine. */
function replace(edits, at, removed, added) {
  const chars =
    removed && added && removed.length <= REFINE_CHARS && added.length <= REFINE_CHARS
      ? diffChars(removed, added, { maxEditLength: MAX_CHAR_EDITS })
      : undefined;
  if (chars === undefined) {
    edits.push({ from: at, to: at + removed.length, insert: added });
    return;
  }
  let pos = at;
  let pending = null;
  for (const part of chars) {
    if (part.added) {
      pending ??= { from: pos, to: pos, insert: '' };
      pending.insert += part.value;
    } else if (part.removed) {
      pending ??= { from: pos, to: pos, insert: '' };
      pos += part.value.length;
      pending.to = pos;
    } else {
      if (pending) edits.push(pending);
      pending = null;
      pos += part.value.length;
    }
  }
  if (pending) edits.push(pending);
}
