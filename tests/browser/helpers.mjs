// Browser tier helpers: serve build/site on 127.0.0.1 and drive Debian's
// chromium with playwright-core (never a downloaded browser).
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SITE = join(ROOT, 'build', 'site');

export async function startBrowser() {
  if (!existsSync(join(SITE, 'index.html'))) throw new Error('no site: run scripts/build.sh wasm site');
  const server = await serve(SITE, 0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const executablePath = process.env.ATTNLAB_CHROMIUM || '/usr/bin/chromium';
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,  // playwright gives chromium a fresh temporary profile itself
  });
  return {
    base, browser, server,  // server: the node:http server (tests may listen to its 'request' events)
    async close() { await browser.close(); server.close(); },
  };
}

// A page that records console errors and page errors (CSP violations included).
export async function openPage(ctx, path = '') {
  const page = await ctx.browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(ctx.base + path);
  return { page, errors };
}

// Saves a screenshot as a test artifact in build/test-artifacts/<name>.png.
export async function artifact(page, name) {
  const dir = join(ROOT, 'build', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
