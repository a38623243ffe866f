// Browser tier: the DIN · AutoInt view trains both click-through models in the
// worker and draws their attention.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, runForm, waitForText, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'DIN: compare the three poolings, histories shaded by weight; AutoInt: a heatmap per head', '#recsys', async (page) => {
  await runForm(page, { '#din-n': '6000', '#din-epochs': '4' }, '#din-compare', '#din-out[data-done="3"]');
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

  await runForm(page, {}, '#autoint-train', '#autoint-out[data-auc]');
  const ai = await page.$eval('#autoint-out', (el) => ({
    auc: Number(el.dataset.auc), canvases: el.querySelectorAll('canvas').length,
  }));
  assert.equal(ai.canvases, 4);  // 2 layers x 2 heads
  assert.ok(ai.auc > 0.8, `AutoInt AUC ${ai.auc}`);
  await artifact(page, 'recsys');
  // a bad value is clamped by the form, and the page stays usable
  await runForm(page, { '#autoint-layers': '0' }, '#autoint-train', () => document.querySelector('#autoint-out canvas') === null &&
    document.querySelector('#autoint-out[data-auc]') !== null && !document.querySelector('#autoint-train').disabled);
  assert.equal(await page.$eval('#autoint-error', (el) => el.textContent), '');
});

viewTest(ctx, 'AutoInt and DIN: a run shows its time while it trains and Stop ends it; the next run works', '#recsys', async (page) => {
  await runForm(page, { '#autoint-epochs': '50' }, '#autoint-train', '#autoint-stop:not([hidden])', { timeout: 30000 });
  assert.equal(await page.isHidden('#autoint-progress'), false);
  // the time so far moves while the model trains
  await waitForText(page, '#autoint-status', /training AutoInt, 50 epochs… [0-9.]+ s/, 30000);
  const t1 = Number((await page.textContent('#autoint-status')).match(/([0-9.]+) s$/)[1]);
  await page.waitForFunction((t) => Number(document.querySelector('#autoint-status').textContent.match(/([0-9.]+) s$/)?.[1]) > t + 0.4, t1);
  await page.click('#autoint-stop');
  await waitForText(page, '#autoint-status', /stopped after/, 30000);
  assert.equal(await page.isHidden('#autoint-stop'), true);
  assert.equal(await page.isEnabled('#autoint-train'), true);
  assert.equal(await page.$('#autoint-out[data-auc]'), null, 'a stopped run shows no result');
  assert.equal(await page.textContent('#autoint-error'), '');
  // a short run afterwards finishes
  await runForm(page, { '#autoint-epochs': '1' }, '#autoint-train', '#autoint-out[data-auc]');
  // DIN: stop in the middle of a comparison
  await runForm(page, { '#din-n': '100000', '#din-epochs': '50' }, '#din-compare', '#din-stop:not([hidden])', { timeout: 30000 });
  assert.equal(await page.isEnabled('#din-stop'), true);
  await waitForText(page, '#din-out .stat', /training DIN \(unnormalized weights\) \(1 of 3\)… [0-9.]+ s/, 30000);
  await page.click('#din-stop');
  await waitForText(page, '#din-out .stat', /stopped after/, 30000);
  assert.equal(await page.isEnabled('#din-compare'), true);
  assert.equal(await page.$('#din-out[data-done]'), null);
});
