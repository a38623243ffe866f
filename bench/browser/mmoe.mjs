// Benchmark (not a test): training one MMoE on 10,000 samples x 20 epochs in a
// Web Worker in headless Chromium, through the page. Goal: < 10 s.
//   node bench/browser/mmoe.mjs      (after scripts/build.sh wasm site)
import { startBrowser, openPage } from '../../tests/browser/helpers.mjs';

const ctx = await startBrowser();
try {
  const { page } = await openPage(ctx, '#mmoe');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  for (const gate of ['softmax', 'attention']) {
    await page.fill('#mmoe-n', '10000');
    await page.fill('#mmoe-epochs', '20');
    await page.selectOption('#mmoe-gate', gate);
    await page.click('#mmoe-train');
    await page.waitForSelector('#mmoe-runs .run[data-done="1"]', { timeout: 120000 });
    const s = await page.getAttribute('#mmoe-runs .run', 'data-seconds');
    console.log(`Chromium, ${gate} gates: 10,000 samples x 20 epochs trained in ${Number(s).toFixed(2)} s (goal < 10 s)`);
  }
} finally {
  await ctx.close();
}
