// Browser tier: the static page, served on 127.0.0.1 under a strict CSP, runs
// the wasm SIMD kernels in a Web Worker in Debian's chromium; we read the
// results from the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage } from './helpers.mjs';

let ctx;
before(async () => { ctx = await startBrowser(); });
after(async () => { await ctx?.close(); });

test('page loads the wasm module in a worker and shows the SIMD arch', async () => {
  const { page, errors } = await openPage(ctx, '#engine');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  const info = await page.textContent('#simd-info');
  assert.match(info, /wasm-simd128/);
  assert.match(info, /4 lanes/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('every kernel check passes inside chromium', async () => {
  const { page, errors } = await openPage(ctx, '#engine');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.click('#engine-selftest');
  await page.waitForSelector('#selftest-result[data-failed]', { timeout: 60000 });
  const failed = await page.getAttribute('#selftest-result', 'data-failed');
  const total = Number(await page.getAttribute('#selftest-result', 'data-total'));
  assert.equal(failed, '0', await page.textContent('#selftest-result'));
  assert.ok(total > 300);
  assert.deepEqual(errors, []);
  await page.close();
});

test('playground softmax in wasm: bars sum to 1 and follow the logits order', async () => {
  const { page, errors } = await openPage(ctx, '#playground');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.fill('#pg-logits', '0, 2, 1');
  await page.click('#pg-run');
  await page.waitForFunction(() => document.querySelectorAll('#pg-out .bar').length === 3);
  const vals = await page.$$eval('#pg-out .bar .val', (els) => els.map((e) => Number(e.textContent)));
  assert.ok(Math.abs(vals.reduce((a, b) => a + b, 0) - 1) < 2e-3, `sum ${vals}`);
  assert.ok(vals[1] > vals[2] && vals[2] > vals[0], `order ${vals}`);
  // softmax([0,2,1]) = [0.090, 0.665, 0.245]
  assert.ok(Math.abs(vals[1] - 0.665) < 2e-3);
  assert.deepEqual(errors, []);
  await page.close();
});
