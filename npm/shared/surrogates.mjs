// Lone surrogates: UTF-16 code units no JSON text or Rust string can carry. The driver finds
// them in values (params.mjs), names fields with them repaired, and escapes them in message text.

/** Any surrogate code unit, paired or lone: text without one is well formed. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Up to this many units, `SURROGATE` is asked first (see `isWellFormed`). */
const SHORT_TEXT = 64;

/**
 * `String.prototype.isWellFormed` (ES2024), or the same test over the code units where it is
 * missing. Short text, which almost never holds a surrogate, is first asked whether it holds one
 * at all. Measured in Chromium 148, each call alone: `isWellFormed` costs 20-25 ns on short text;
 * the expression about 12 ns on text of characters up to U+00FF whatever its length, and about
 * 12 ns plus 0.6 ns a unit on other text (256 units: 174 ns against the built-in's 35). So on
 * such other text the expression loses from about 20 units, by up to about 25 ns at this bound;
 * the bound takes that for the common case, ids and paths of characters up to U+00FF, often
 * longer than 20 units. `flatParams` makes six calls for `{sessionId, path, line, limit}`
 * (docs/benchmarks.md, fifteenth pass).
 */
export const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (text) => (text.length <= SHORT_TEXT && !SURROGATE.test(text)) || text.isWellFormed()
    : (text) => wellFormedUnits(text, false);

/** `String.prototype.toWellFormed`: lone surrogates shown as U+FFFD (for naming a field only). */
export const toWellFormed =
  typeof String.prototype.toWellFormed === 'function'
    ? (text) => text.toWellFormed()
    : (text) => wellFormedUnits(text, true);

/** The two fallbacks above: whether `text` is well formed, or (`repair`) it with U+FFFD for each
 * lone surrogate. Exported for its test; not part of the packages' API. */
export function wellFormedUnits(text, repair) {
  if (repair) return replaceLoneSurrogates(text, () => '\uFFFD');
  let lone = false;
  replaceLoneSurrogates(text, () => {
    lone = true;
  });
  return !lone;
}

/**
 * `text` with each lone surrogate (a UTF-16 code unit no JSON text or Rust string can carry)
 * replaced by `replace(unit, index)`; `undefined` keeps it.
 */
function replaceLoneSurrogates(text, replace) {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1;
      continue;
    }
    const by = replace(unit, i);
    if (by === undefined) continue;
    out += text.slice(from, i) + by;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * `text` with each lone surrogate written as a `\uXXXX` escape, for message text handed to the
 * engine. Both bindings convert a JS string to Rust lossily (a lone surrogate becomes U+FFFD), so
 * without this a write could create `w\uFFFD.txt` or put U+FFFD into content. Inside a JSON
 * string literal the escape is the same value, so the engine sees the lone surrogate and applies
 * its own rule (semantics.md §8.1); outside one the text is not JSON either way. After an odd run
 * of backslashes the surrogate is itself the escaped character, which JSON does not allow:
 * escaping it would turn `\` + it into a valid `\\`, so it is left for the parse error.
 */
export function escapeLoneSurrogates(text) {
  if (isWellFormed(text)) return text;
  return replaceLoneSurrogates(text, (unit, i) => {
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes += 1;
    return slashes % 2 === 1 ? undefined : `\\u${unit.toString(16)}`;
  });
}
