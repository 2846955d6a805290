// Debian's Chromium driven by playwright-core, the one way every browser test and benchmark
// launches it: never a downloaded browser, a fresh profile each time, and the flags that keep
// it from reaching for the network (this machine's network is closed; without them Chromium
// retries refused connections in the background).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium with a fresh profile (`options` go to playwright, e.g. a viewport); `{context, close()}`. */
export async function launch(options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'acpfs-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
