// Browser tier: the static page, served on 127.0.0.1 under a strict CSP, runs
// the wasm SIMD kernels in a Web Worker in Debian's chromium; we read the
// results from the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserForTests, viewTest, pageReady, waitForData, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'page loads the wasm module in a worker and shows the SIMD arch', '#engine', async (page) => {
  const info = await page.textContent('#simd-info');
  await page.evaluate(() => { location.hash = 'home'; });
  await artifact(page, 'home');
  assert.match(info, /wasm-simd128/);
  assert.match(info, /4 lanes/);
  assert.match(info, /GEMM tile (chosen after the first large matrix products|\d+x\d+)/);
});

viewTest(ctx, 'the kernel benchmark fills its table and then shows the GEMM tile it chose', '#engine', async (page) => {
  await page.click('#engine-bench');
  await page.waitForFunction(() => document.querySelectorAll('#bench-table tbody tr').length === 5 &&
    /GEMM tile \d+x\d+/.test(document.querySelector('#simd-info').textContent), null, { timeout: 60000 });
  const cells = await page.$$eval('#bench-table tbody tr td:nth-child(4)', (tds) => tds.map((t) => Number(t.textContent)));
  assert.ok(cells.every((g) => g > 0), cells.join());
});

viewTest(ctx, 'every kernel check passes inside chromium', '#engine', async (page) => {
  await page.click('#engine-selftest');
  await page.waitForSelector('#selftest-result[data-failed]', { timeout: 60000 });
  const failed = await page.getAttribute('#selftest-result', 'data-failed');
  const total = Number(await page.getAttribute('#selftest-result', 'data-total'));
  assert.equal(failed, '0', await page.textContent('#selftest-result'));
  await artifact(page, 'engine');
  assert.ok(total > 300);
});

viewTest(ctx, 'playground: scores, mask and weights recompute; causal and padding masks apply; heads side by side', '#playground', async (page) => {
  await page.fill('#pg-text', 'a b c a');
  await waitForData(page, '#pg-out', 'rows', '4', 30000);
  let sums = JSON.parse(await page.getAttribute('#pg-out', 'data-row-sums'));
  assert.deepEqual(sums.map((s) => Math.round(s * 1e4) / 1e4), [1, 1, 1, 1]);
  assert.equal(await page.$$eval('#pg-out canvas', (c) => c.length), 3 + 4);  // 3 panels + 4 heads
  assert.match(await page.textContent('#pg-disagreement'), /subspace \d/);
  await artifact(page, 'playground');
  // the select lists the library's score table
  const scores = await page.$$eval('#pg-score option', (o) => o.map((x) => x.value));
  assert.ok(scores.length >= 6 && scores.includes('additive'), scores.join());
  for (const score of scores.filter((s) => s !== 'scaled_dot')) {
    await page.selectOption('#pg-score', score);
    await page.waitForFunction((s) => document.querySelector('#pg-out h4').textContent.includes(s), score);
  }
  await page.selectOption('#pg-mode', 'local-p');
  await page.waitForFunction(() => document.querySelector('#pg-out').textContent.includes('local-p centres'));
  await page.selectOption('#pg-mode', 'global');
  await page.selectOption('#pg-heads', '2');
  await waitForData(page, '#pg-out', 'heads', '2', 30000);
  await page.check('#pg-causal');
  await page.waitForFunction(() => document.querySelectorAll('#pg-out canvas').length === 5);
  sums = JSON.parse(await page.getAttribute('#pg-out', 'data-row-sums'));
  assert.ok(sums.every((s) => Math.abs(s - 1) < 1e-4));
});

viewTest(ctx, 'usable at 360 px: no view overflows the viewport horizontally', '#home', async (page) => {
  for (const v of ['home', 'translate', 'han', 'mmoe', 'playground', 'engine']) {
    await page.evaluate((h) => { location.hash = h; }, v);
    await page.waitForTimeout(300);
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 1, `#${v} overflows by ${over}px at 360 px`);
  }
}, { viewport: { width: 360, height: 740 } });

test('works offline once loaded (service worker cache)', async () => {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  await page.goto(ctx.base + '#playground');
  await pageReady(page);
  await page.waitForFunction(() => navigator.serviceWorker?.controller || null, null, { timeout: 10000 }).catch(() => {});
  await page.reload();  // now controlled by the service worker, which caches what it serves
  await pageReady(page);
  await context.setOffline(true);
  await page.goto(ctx.base + '?offline=1#playground');
  await pageReady(page);
  await waitForData(page, '#pg-out', 'rows', undefined, 30000);
  await context.close();
});
