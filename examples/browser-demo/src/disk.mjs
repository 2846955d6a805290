// The virtual disk: an in-memory @zenfs/core file system holding the sample project.

import { configure, fs as zenfs, InMemory } from '@zenfs/core';
import { seedProject } from './project.mjs';

export const vfs = zenfs.promises;

export async function mountDisk() {
  await configure({ mounts: { '/': InMemory } });
  await seedProject(vfs);
}

export async function readBytes(path) {
  try {
    const b = await vfs.readFile(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } catch (e) {
    if (e?.code === 'ENOENT') return null;
    throw e;
  }
}
