// Browser tier: the Translate and HAN views run the shipped models in the
// worker and show their attention.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, waitForText, chooseOption, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'translate: a date in several formats normalizes, with a heatmap of outputs x inputs', '#translate', async (page) => {
  await waitForData(page, '#tr-output', 'text');
  for (const [input, want] of [['23JAN2015', '2015-01-23'], ['7/4/1976', '1976-07-04'], ['2049.12.31', '2049-12-31']]) {
    await page.fill('#tr-input', input);
    await waitForData(page, '#tr-output', 'text', want, 10000);
  }
  assert.equal(await page.$$eval('#tr-output .tok', (t) => t.length), 10);
  assert.ok(await page.$('#tr-heatmap canvas'));
  // beam search gives the same date here
  await page.selectOption('#tr-beam', '4');
  await page.waitForFunction(() => document.querySelector('#tr-latency').textContent.includes('beam 4'));
  assert.equal(await page.getAttribute('#tr-output', 'data-text'), '2049-12-31');
  // an unknown character is a clear error in the page, and the next input works again
  await page.fill('#tr-input', '23JAN2015@');
  await waitForText(page, '#tr-error', /./, 30000);
  assert.match(await page.textContent('#tr-error'), /'@'/);
  await page.fill('#tr-input', '23JAN2015');
  await waitForData(page, '#tr-output', 'text', '2015-01-23', 30000);
  assert.equal(await page.textContent('#tr-error'), '');
  await artifact(page, 'translate-dates');
  // G2P: PHONE gives phonemes, and the heatmap is outputs x inputs
  await chooseOption(page, '#tr-model', /CMUdict/);
  await waitForData(page, '#tr-heatmap', 'cols', '9');  // ATTENTION, the first example
  await page.fill('#tr-input', 'PHONE');
  await waitForData(page, '#tr-heatmap', 'cols', '5');
  const phones = (await page.getAttribute('#tr-output', 'data-text')).split(' ');
  assert.ok(phones.length >= 3 && phones.every((p) => /^[A-Z]{1,2}$/.test(p)), `phonemes: ${phones}`);
  assert.equal(Number(await page.getAttribute('#tr-heatmap', 'data-rows')), phones.length);
  assert.equal(Number(await page.getAttribute('#tr-heatmap', 'data-cols')), 'PHONE'.length);
  // the float32 decoder gives the same phonemes for this word
  await page.selectOption('#tr-precision', 'f32');
  await waitForText(page, '#tr-latency', /float32|f32/);
  assert.deepEqual((await page.getAttribute('#tr-output', 'data-text')).split(' '), phones);
  await artifact(page, 'translate-g2p');
});

viewTest(ctx, 'HAN: a held-out spam sample is classified, sentences and words carry weights', '#han', async (page) => {
  await page.waitForFunction(() => document.querySelectorAll('#han-sample option').length > 1, null, { timeout: 20000 });
  const labels = await page.$$eval('#han-sample option', (o) => o.map((x) => x.textContent));
  const idx = labels.findIndex((l) => l.startsWith('spam'));
  assert.ok(idx > 0, 'no spam sample listed');
  await page.selectOption('#han-sample', String(idx - 1));
  await waitForData(page, '#han-verdict', 'label');
  assert.equal(await page.getAttribute('#han-verdict', 'data-label'), 'spam');
  const sentences = await page.$$eval('#han-doc .sent .sw', (s) => s.map((x) => Number(x.textContent)));
  assert.ok(sentences.length >= 1);
  assert.ok(Math.abs(sentences.reduce((a, b) => a + b, 0) - 1) < 0.02 * sentences.length);
  for (const mode of ['word', 'sentence', 'combined']) await page.selectOption('#han-mode', mode);
  assert.ok((await page.$$('#han-doc .w')).length > 3);
  await artifact(page, 'han');
  // an obvious spam email, pasted
  await page.fill('#han-text', 'Subject: FREE MONEY!!!\n\nYou have WON $1,000,000. Click http://win.example.com now to claim your prize. Act now, limited offer, no risk, 100% free!');
  await page.click('#han-run');
  await page.waitForFunction(() => /p = /.test(document.querySelector('#han-verdict').textContent) &&
    document.querySelector('#han-doc').textContent.includes('WON'), null, { timeout: 20000 });
  assert.equal(await page.getAttribute('#han-verdict', 'data-label'), 'spam');
});
