// Browser tier: the Translate view's "train your own" panel. The example pairs (numbers in
// words -> digits) train in the worker with a live status and a curve per epoch; Stop ends
// the run and Train continues it; the trained model then translates in the view with its
// attention heatmap.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, waitForText, translated, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'train your own: example data, live progress, stop and continue, then translate with it', '#translate', async (page) => {
  await page.click('#tt-panel summary');
  await page.click('#tt-example');
  await page.waitForFunction(() => document.querySelector('#tt-data').value.split('\n').length === 5000, null, { timeout: 20000 });
  assert.equal(await page.inputValue('#tt-src'), 'word');
  // a small model, one epoch, stopped while it runs
  await page.selectOption('#tt-size', 'small');
  await page.fill('#tt-epochs', '1');
  await page.click('#tt-train');
  await waitForText(page, '#tt-status', /step \d+ · loss/, 60000);
  assert.equal(await page.isDisabled('#tt-train'), true);
  await page.click('#tt-stop');
  await waitForData(page, '#tt-panel', 'state', 'stopped', 60000);
  assert.match(await page.textContent('#tt-status'), /stopped after 0 epoch\(s\)/);
  // continue: two epochs from where it stopped, a point per epoch on both charts
  await page.fill('#tt-epochs', '2');
  await page.click('#tt-train');
  await page.waitForFunction(() => document.querySelector('#tt-panel').dataset.state === 'done' &&
    document.querySelector('#tt-panel').dataset.epochs === '2', null, { timeout: 600000 });
  const status = await page.textContent('#tt-status');
  assert.match(status, /done after 2 epoch\(s\)/);
  const acc = Number(/held-out exact match ([\d.]+)%/.exec(status)[1]);
  assert.ok(acc > 50, `held-out exact match after 2 small epochs: ${acc}%`);
  assert.equal(await page.$$eval('#tt-loss svg.line-chart, #tt-acc svg.line-chart', (s) => s.length), 2);
  // into the Translate view: its output and attention for a number in words
  await page.click('#tt-use');
  await page.waitForFunction(() => /trained-in-this-tab/.test(document.querySelector('#tr-model').selectedOptions[0]?.textContent || ''), null, { timeout: 20000 });
  await page.fill('#tr-input', 'forty two');
  await translated(page, 'forty two');
  assert.equal(await page.getAttribute('#tr-heatmap', 'data-cols'), '2');
  const out = await page.getAttribute('#tr-output', 'data-text');
  assert.match(out, /^\d+$/, `a number in digits, got '${out}'`);
  await artifact(page, 'translate-train-your-own');
});

viewTest(ctx, 'train your own: a malformed line is reported with its number', '#translate', async (page) => {
  await page.click('#tt-panel summary');
  await page.fill('#tt-data', 'one\t1\ntwo 2\n');
  await page.click('#tt-train');
  await waitForData(page, '#tt-panel', 'state', 'error');
  assert.match(await page.textContent('#tt-error'), /line 2/);
  assert.equal(await page.isDisabled('#tt-train'), false);
});
