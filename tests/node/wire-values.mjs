// Checks of the binding interface's answers (docs/binding-interface.md): errors cross as values, and
// answers are plain JS objects.

import assert from 'node:assert/strict';

/** A wire error (`{kind, code, message, data}`), as a value: never an `Error` carrying JSON. */
export function assertWire(value) {
  assert.ok(!(value instanceof Error), 'a wire error value, not an Error');
  assert.deepEqual(Object.keys(value).sort(), ['code', 'data', 'kind', 'message']);
  return value;
}

/** What `fn` threw: a wire error value (a trap in a call whose answer cannot carry an error). */
export const thrownWire = (fn) => {
  try {
    fn();
  } catch (e) {
    return assertWire(e);
  }
  assert.fail('did not throw');
};

export const plain = (x) => Object.getPrototypeOf(x) === Object.prototype;
