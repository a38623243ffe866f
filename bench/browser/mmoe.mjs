// Benchmark (not a test): training one MMoE on 10,000 samples x 20 epochs in a
// Web Worker in headless Chromium, through the page. Goal: < 10 s.
//   node bench/browser/mmoe.mjs      (after scripts/build.sh wasm site)
import { startBrowser, openView, runForm } from '../../tests/browser/helpers.mjs';

const ctx = await startBrowser();
try {
  const { page } = await openView(ctx, '#mmoe');
  for (const gate of ['softmax', 'attention']) {
    await page.selectOption('#mmoe-gate', gate);
    await runForm(page, { '#mmoe-n': '10000', '#mmoe-epochs': '20' }, '#mmoe-train', '#mmoe-runs .run[data-done="1"]', { timeout: 120000 });
    const s = await page.getAttribute('#mmoe-runs .run', 'data-seconds');
    console.log(`Chromium, ${gate} gates: 10,000 samples x 20 epochs trained in ${Number(s).toFixed(2)} s (goal < 10 s)`);
  }
} finally {
  await ctx.close();
}
