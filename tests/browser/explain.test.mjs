// Browser tier: the "attention | attribution | both" switch of the HAN and Translate views.
// Attribution draws its own heatmap next to (both) or instead of (attribution) the attention map,
// with Kendall tau, the removal check and the sourced caption; a Transformer model gets the
// same attribution beside its last decoder layer's cross-attention, and the rollout of its encoder
// self-attention below.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, waitForText, chooseOption, optionTexts, artifact } from './helpers.mjs';

const ctx = browserForTests();

const shown = (prefix) => document.querySelector(`#${prefix}-explain-maps`).dataset.shown;

viewTest(ctx, 'HAN: the switch shows attention, attribution or both, with tau, removal and the caption', '#han', async (page) => {
  await page.fill('#han-text', 'Subject: FREE MONEY\n\nYou have WON a prize. Click here now to claim it. Act now, limited offer!');
  await page.click('#han-run');
  // the view's first classification loads the .wasm and the 4.4 MB HAN model: up to 20 s and
  // more on a loaded 2-core machine (a CI run timed out at 20 s here once; 6-11 s is usual)
  await waitForText(page, '#han-verdict', /p = /, 60000);
  assert.match(await page.textContent('#han-explain-caption'), /Jain & Wallace.*Wiegreffe & Pinter/s);
  // attention (the default): no attribution computed, a hint instead
  assert.equal(await page.$$eval('#han-explain-maps canvas', (c) => c.length), 0);
  await page.selectOption('#han-explain-mode', 'both');
  await page.waitForFunction(shown, 'han', { timeout: 30000 });
  assert.equal(await page.evaluate(shown, 'han'), 'attention attribution');
  assert.equal(await page.$$eval('#han-explain-maps canvas', (c) => c.length), 2);
  const tau = await page.textContent('#han-explain-stats [data-stat="tau"]');
  const m = /Kendall tau-b .* over (\d+) words: (-?\d\.\d\d)/.exec(tau);
  assert.ok(m, tau);
  assert.ok(Math.abs(Number(m[2])) <= 1);
  assert.match(await page.textContent('#han-explain-stats [data-stat="removal"]'),
    /without the top \d+ words by attention \(.+\) \d\.\d{3}; by attribution \(.+\) \d\.\d{3}/);
  await artifact(page, 'han-explain-both');
  await page.selectOption('#han-explain-mode', 'attribution');
  await waitForData(page, '#han-explain-maps', 'shown', 'attribution', 30000);
  assert.equal(await page.$$eval('#han-explain-maps canvas', (c) => c.length), 1);
  await page.selectOption('#han-explain-mode', 'attention');
  await page.waitForFunction(() => document.querySelector('#han-explain-maps').children.length === 0, null, { timeout: 20000 });
  assert.ok(await page.$('#han-heatmap canvas'));  // the view's own attention map stays
});

viewTest(ctx, 'Translate: attribution of a G2P word beside its attention; a Transformer model gets attribution too, and its rollout', '#translate', async (page) => {
  await chooseOption(page, '#tr-model', (t) => /G2P|CMUdict|spelling/i.test(t) && !/Transformer/i.test(t));
  const titles = await optionTexts(page, '#tr-model');
  await page.selectOption('#tr-explain-mode', 'both');
  await page.fill('#tr-input', 'PHONE');
  await page.waitForFunction(shown, 'tr', { timeout: 30000 });
  assert.equal(await page.evaluate(shown, 'tr'), 'attention attribution');
  assert.equal(await page.$$eval('#tr-explain-maps canvas', (c) => c.length), 2);
  assert.match(await page.textContent('#tr-explain-stats [data-stat="tau"]'), /Kendall tau-b per output token: .*mean/);
  assert.match(await page.textContent('#tr-explain-stats [data-stat="removal"]'), /by attention \(.+\) .*by attribution/);
  await artifact(page, 'translate-explain-both');
  // the G2P Transformer: PHONE is a word it spells out (the English -> Chinese one would write a
  // long output for an unknown word, and integrated gradients cost a pass per output token)
  const tf = titles.findIndex((t) => /Transformer/i.test(t) && /CMUdict|spelling/i.test(t));
  if (tf >= 0) {
    await page.selectOption('#tr-model', String(tf));
    await page.waitForFunction(() => document.querySelector('#tr-explain-maps').dataset.shown === 'attention attribution rollout',
      null, { timeout: 60000 });
    assert.equal(await page.$$eval('#tr-explain-maps canvas', (c) => c.length), 3);
    assert.match(await page.textContent('#tr-explain-stats [data-stat="tau"]'), /Kendall tau-b per output token: .*mean/);
    assert.match(await page.textContent('#tr-explain-stats [data-stat="removal"]'), /by attention \(.+\) .*by attribution/);
    assert.match(await page.textContent('#tr-explain-stats [data-stat="rollout"]'), /attention rollout \(Abnar & Zuidema 2020\)/);
    assert.match(await page.textContent('#tr-explain-maps [data-map="attention"] h4'), /last decoder layer/);
    assert.equal(await page.textContent('#tr-explain-error'), '');
    await artifact(page, 'translate-explain-transformer');
    // attribution alone: the switch's map and the rollout
    await page.selectOption('#tr-explain-mode', 'attribution');
    await page.waitForFunction(() => document.querySelector('#tr-explain-maps').dataset.shown === 'attribution rollout',
      null, { timeout: 60000 });
  }
});
