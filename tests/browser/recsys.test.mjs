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

test('AutoInt and DIN: a run shows its time while it trains and Stop ends it; the next run works', async () => {
  const { page, errors } = await openPage(ctx, '#recsys');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.fill('#autoint-epochs', '50');
  await page.click('#autoint-train');
  await page.waitForSelector('#autoint-stop:not([hidden])');
  assert.equal(await page.isHidden('#autoint-progress'), false);
  // the time so far moves while the model trains
  await page.waitForFunction(() => /training AutoInt, 50 epochs… [0-9.]+ s/.test(document.querySelector('#autoint-status').textContent));
  const t1 = Number((await page.textContent('#autoint-status')).match(/([0-9.]+) s$/)[1]);
  await page.waitForFunction((t) => Number(document.querySelector('#autoint-status').textContent.match(/([0-9.]+) s$/)?.[1]) > t + 0.4, t1);
  await page.click('#autoint-stop');
  await page.waitForFunction(() => /stopped after/.test(document.querySelector('#autoint-status').textContent));
  assert.equal(await page.isHidden('#autoint-stop'), true);
  assert.equal(await page.isEnabled('#autoint-train'), true);
  assert.equal(await page.$('#autoint-out[data-auc]'), null, 'a stopped run shows no result');
  assert.equal(await page.textContent('#autoint-error'), '');
  // a short run afterwards finishes
  await page.fill('#autoint-epochs', '1');
  await page.click('#autoint-train');
  await page.waitForSelector('#autoint-out[data-auc]', { timeout: 60000 });
  // DIN: stop in the middle of a comparison
  await page.fill('#din-n', '100000');
  await page.fill('#din-epochs', '50');
  await page.click('#din-compare');
  await page.waitForSelector('#din-stop:not([hidden])');
  assert.equal(await page.isEnabled('#din-stop'), true);
  await page.waitForFunction(() => /training DIN \(unnormalized weights\) \(1 of 3\)… [0-9.]+ s/.test(document.querySelector('#din-out .stat').textContent));
  await page.click('#din-stop');
  await page.waitForFunction(() => /stopped after/.test(document.querySelector('#din-out .stat').textContent));
  assert.equal(await page.isEnabled('#din-compare'), true);
  assert.equal(await page.$('#din-out[data-done]'), null);
  assert.deepEqual(errors, []);
  await page.close();
});
