// The driver's tests for lone surrogates (npm/shared/surrogates.mjs) against the built-ins they
// stand for: the fallback for runtimes without `isWellFormed`, and `isWellFormed` itself, which
// asks short text for a surrogate first. Random texts of units either side of the surrogate
// range, paired and lone; no package or addon needed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWellFormed, wellFormedUnits } from '../../npm/shared/surrogates.mjs';

const UNITS = ['a', '\uD7FF', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uE000', '\uFFFD', 'é', '\uD83D\uDE00'];

/** Draws from an exact LCG modulo 2^31 (Math.imul: no rounding), its high bits only. */
function draws(seed) {
  return () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed >>> 12;
  };
}

/** A text for a failure message: runs of `x` collapsed, every other unit escaped. */
const shown = (text) => JSON.stringify(text.replace(/x{4,}/g, (run) => `<${run.length}×x>`));

test('the fallback for runtimes without isWellFormed agrees with the built-ins', () => {
  const next = draws(7);
  const kinds = new Set();
  for (let n = 0; n < 5000; n++) {
    let text = '';
    for (let len = next() % 8; len > 0; len--) text += UNITS[next() % UNITS.length];
    kinds.add(text.isWellFormed());
    assert.equal(wellFormedUnits(text, false), text.isWellFormed(), shown(text));
    assert.equal(wellFormedUnits(text, true), text.toWellFormed(), shown(text));
  }
  assert.deepEqual([...kinds].sort(), [false, true], 'both kinds of text were drawn');
});

test('isWellFormed, which asks short text for a surrogate first, agrees with the built-in', () => {
  const next = draws(11);
  const kinds = new Set();
  // Either side of the short bound (64 units): a run of `x` with a few units put in anywhere.
  for (const base of [0, 60, 70, 300]) {
    for (let n = 0; n < 2000; n++) {
      const units = [...'x'.repeat(base)];
      for (let k = next() % 4; k > 0; k--) units.splice(next() % (units.length + 1), 0, UNITS[next() % UNITS.length]);
      const text = units.join('');
      kinds.add(`${text.length > 64} ${text.isWellFormed()}`);
      assert.equal(isWellFormed(text), text.isWellFormed(), shown(text));
    }
  }
  assert.equal(kinds.size, 4, 'short and long texts, well formed and not, were drawn');
});
