// A Chromium page of the test server's origin with builds of @acp-fs/wasm to import, for the
// benchmarks that run in the browser (bench/wasm-ab.mjs, bench/wasm-profile.mjs).

import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch } from '../tests/browser/chromium.mjs';
import { ROOT, serve } from '../tests/browser/server.mjs';

/**
 * Copies each build (`{name: npm/wasm directory}`) under out/browser/<name>, which the test server
 * serves, opens a page of its origin and runs `use(page, origin)`; then closes everything. A
 * page imports a build from `${origin}/out/browser/<name>/index.mjs`.
 */
export async function withBuildsInPage(builds, use) {
  for (const [name, dir] of Object.entries(builds)) {
    const copy = join(ROOT, 'out', 'browser', name);
    rmSync(copy, { recursive: true, force: true });
    cpSync(resolve(dir), copy, { recursive: true });
  }
  const server = await serve();
  const browser = await launch();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // Any page of the server's origin will do (this one is its 404): the builds are imported into it.
    await page.goto(`${server.url}/bench/`);
    return await use(page, server.url, browser);
  } finally {
    await browser.close();
    await server.close();
  }
}
