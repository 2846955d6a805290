// window.acpFsDemo: what the end-to-end test reads instead of scraping the page (the disk, the
// change records, what the agent got back, the log). Its functions return plain data (copies), so
// that page.evaluate can carry the answer out of the page.

import { readBytes, vfs } from './disk.mjs';
import { ROOT } from './project.mjs';

/**
 * For the end-to-end test and for curious users in the console: the page's parts, read-only.
 * `changes` is the change list's array, `approvals` the approval dialog, `tour` the tour.
 */
export function debugHandle({ mode, log, sessionId, acpFs, editor, tour, changes, agent, approvals, pageErrors }) {
  return {
    ready: true,
    mode,
    root: ROOT,
    sessionId,
    acpFs,
    vfs,
    get tourState() {
      return tour.state;
    },
    async readText(path) {
      const bytes = await readBytes(path);
      return bytes === null ? null : new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    },
    async readBytes(path) {
      const bytes = await readBytes(path);
      return bytes === null ? null : Array.from(bytes);
    },
    documentText: (path) => acpFs.documents.get(path),
    /** The text of the file on screen, as the editor holds it. */
    editorText: () => editor.text(),
    /** Open files the editor reloaded because their file changed on disk while they were clean. */
    reloads: () => editor.reloads.slice(),
    changes: () =>
      changes.map(({ id, sessionId: s, path, created, oldText, newText, mode, undone, merged }) => ({
        id,
        sessionId: s,
        path,
        created,
        oldText,
        newText,
        mode,
        undone,
        merged: merged === true,
      })),
    agentResults: () => JSON.parse(JSON.stringify(agent.results)),
    log: () => log.entries.map((e) => ({ ...e })),
    pendingApprovals: () => approvals.pending(),
    pageErrors: () => pageErrors.slice(),
  };
}
