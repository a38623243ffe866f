// Browser tier: the DIN · AutoInt view trains both click-through models in the
// worker and draws their attention.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, artifact } from './helpers.mjs';

let ctx;
before(async () => { ctx = await startBrowser(); });
after(async () => { await ctx?.close(); });

test('DIN: compare the three poolings, histories shaded by weight; AutoInt: a heatmap per head', async () => {
  const { page, errors } = await openPage(ctx, '#recsys');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.fill('#din-n', '6000');
  await page.fill('#din-epochs', '4');
  await page.click('#din-compare');
  await page.waitForSelector('#din-out[data-done="3"]', { timeout: 60000 });
  const din = await page.$eval('#din-out', (el) => ({
    rows: Array.from(el.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((td) => td.textContent)),
    polylines: el.querySelectorAll('polyline').length,
    histories: el.querySelectorAll('.din-row').length,
    same: el.querySelectorAll('.tok.same').length,
    pooling: el.dataset.pooling,
  }));
  assert.equal(din.rows.length, 3);
  assert.equal(din.polylines, 3);
  assert.equal(din.pooling, 'attention');
  assert.equal(din.histories, 8);
  assert.ok(din.same > 0);
  const auc = Object.fromEntries(din.rows.map((r) => [r[0], Number(r[1])]));
  assert.ok(auc['DIN (unnormalized weights)'] > 0.85, JSON.stringify(auc));
  assert.ok(auc['DIN (unnormalized weights)'] > auc['Base (sum pooling)'], JSON.stringify(auc));

  await page.click('#autoint-train');
  await page.waitForSelector('#autoint-out[data-auc]', { timeout: 60000 });
  const ai = await page.$eval('#autoint-out', (el) => ({
    auc: Number(el.dataset.auc), canvases: el.querySelectorAll('canvas').length,
  }));
  assert.equal(ai.canvases, 4);  // 2 layers x 2 heads
  assert.ok(ai.auc > 0.8, `AutoInt AUC ${ai.auc}`);
  await artifact(page, 'recsys');
  // a bad value is clamped by the form, and the page stays usable
  await page.fill('#autoint-layers', '0');
  await page.click('#autoint-train');
  await page.waitForFunction(() => document.querySelector('#autoint-out canvas') === null &&
    document.querySelector('#autoint-out[data-auc]') !== null && !document.querySelector('#autoint-train').disabled,
  null, { timeout: 60000 });
  assert.equal(await page.$eval('#autoint-error', (el) => el.textContent), '');
  assert.deepEqual(errors, []);
  await page.close();
});
