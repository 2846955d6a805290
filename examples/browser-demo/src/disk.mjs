// The virtual disk: an in-memory @zenfs/core file system holding the sample project. `vfs` is its
// node:fs/promises-shaped face, the same object acp-fs is given as storage, so the editor and the
// agent see one disk.

import { configure, fs as zenfs, InMemory } from '@zenfs/core';
import { seedProject } from './project.mjs';

export const vfs = zenfs.promises;

/** Mounts the empty disk at `/` and writes the sample project into it. */
export async function mountDisk() {
  await configure({ mounts: { '/': InMemory } });
  await seedProject(vfs);
}

/** The file's bytes, or `null` when it does not exist (a file the agent or Undo deleted). */
export async function readBytes(path) {
  try {
    const b = await vfs.readFile(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (e) {
    if (e?.code === 'ENOENT') return null;
    throw e;
  }
}
