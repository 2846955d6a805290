// What an editor binding answers for an agent's write to its document when the host does not say.

/**
 * A buffer with unsaved edits takes the agent's text and stays unsaved (storage keeps the file as
 * the user last saved it); a clean one is written through, so it stays a copy of the file.
 * @param {boolean} dirty
 * @returns {'buffer' | 'writeThrough'}
 */
export function defaultChoice(dirty) {
  return dirty ? 'buffer' : 'writeThrough';
}
