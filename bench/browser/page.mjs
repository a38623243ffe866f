// Benchmark (not a test): bytes downloaded on a first visit that opens every
// view and loads every shipped model (goal <= 10 MB), then time to
// interactive on a second visit with everything cached (goal < 1 s).
//   node bench/browser/page.mjs      (after scripts/build.sh wasm site)
import { startBrowser, pageReady, waitForData } from '../../tests/browser/helpers.mjs';

const ctx = await startBrowser();
try {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  let bytes = 0;
  const files = new Map();
  page.on('response', async (r) => {
    try {
      const b = (await r.body()).length;
      bytes += b;
      files.set(new URL(r.url()).pathname, b);
    } catch { /* redirects, aborted */ }
  });
  await page.goto(ctx.base + '#translate');
  await pageReady(page, 30000);
  await waitForData(page, '#tr-output', 'text', undefined, 30000);
  for (const v of ['1', '2']) {
    await page.selectOption('#tr-model', v);
    await page.waitForTimeout(300);
    await page.waitForFunction(() => document.querySelector('#tr-output').dataset.text !== undefined);
  }
  await page.goto(ctx.base + '#han');
  await page.click('#han-run');
  await waitForData(page, '#han-verdict', 'label', undefined, 30000);
  await page.goto(ctx.base + '#mmoe');
  await page.click('#mmoe-shipped');
  await page.waitForFunction(() => document.querySelectorAll('#mmoe-shipped-out .run[data-done="1"]').length === 2);
  await page.waitForTimeout(500);
  const top = [...files.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6)
    .map(([f, b]) => `${f} ${(b / 1e6).toFixed(2)} MB`).join(', ');
  console.log(`first visit, every view and model: ${(bytes / 1e6).toFixed(2)} MB downloaded (goal <= 10 MB); largest: ${top}`);
  const times = [];
  for (let i = 0; i < 5; ++i) {
    const t0 = Date.now();
    await page.goto(ctx.base + '?visit=' + i + '#home');  // a new document, not a hash change
    await pageReady(page, 30000);
    times.push(Date.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`second visit (cached): interactive in median ${times[2]} ms, best ${times[0]} ms (goal < 1000 ms)`);
} finally {
  await ctx.close();
}
