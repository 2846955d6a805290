// Node only: a read's text as UTF-16 code units (a `Uint16Array` view of wasm memory) turned into
// a string. Node makes a string of UTF-16 about ten times as fast as of UTF-8 with non-ASCII
// characters, so both Node entries (@acp-fs/wasm's and @acp-fs/node's wasm fallback) hand this
// to the guard, and the binding then puts non-ASCII text of a step in its outbox as UTF-16.

/** The string of the UTF-16 code units `units` (little-endian, as wasm memory is). */
export const wideText = (units) => Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
