// Browser tier: the head view of the Transformer G2P models in the Translate view:
// one thumbnail per head of a layer on one colour scale, click to enlarge, every
// attention kind and all layers, and a second model side by side on the same word.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, translated, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'head view: thumbnails per head, enlarge, attention kinds, all layers, two models side by side', '#translate', async (page) => {
  const options = await page.$$eval('#tr-model option', (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
  const tf = options.filter((o) => /Transformer/.test(o.text));
  assert.ok(tf.length >= 2, `expected two Transformer models in the list, got ${JSON.stringify(options)}`);
  // an RNN model has no head view
  await page.selectOption('#tr-model', options.find((o) => !/Transformer/.test(o.text)).value);
  await waitForData(page, '#tr-output', 'text');
  assert.equal(await page.isHidden('#tr-heads'), true);
  assert.doesNotMatch(await page.textContent('#tr-latency'), /head maps/);

  await page.selectOption('#tr-model', tf[0].value);
  await page.fill('#tr-input', 'PHONEME');
  await page.waitForSelector('#tr-heads:not([hidden]) #hv-main .head-thumb', { timeout: 20000 });
  await translated(page, 'PHONEME');
  // the decode's time and the head maps' pass apart (an RNN model's line has no maps part)
  assert.match(await page.textContent('#tr-latency'), /^\d+\.\d\d ms in wasm \(greedy, int8 weights\) \+ \d+\.\d\d ms for the head maps \(float32\)/);
  const heads = await page.$$eval('#hv-main .head-thumb', (b) => b.length);
  assert.ok(heads >= 2, `one thumbnail per head (got ${heads})`);
  // cross-attention of layer 1: each map is outputs x inputs; the similarity is a number in [0, 1]
  const sim = Number(await page.getAttribute('#hv-main p.stat[data-similarity]', 'data-similarity'));
  assert.ok(sim >= 0 && sim <= 1, `similarity ${sim}`);
  // click a head: its enlarged map with labels appears
  await page.click('#hv-main .head-thumb[data-head="1"]');
  await page.waitForSelector('#hv-main .head-big canvas');
  assert.match(await page.textContent('#hv-main'), /layer 1, head 2/);
  // every layer at once: layers x heads thumbnails
  const layers = await page.$$eval('#hv-layer option', (o) => o.length - 1);
  await page.selectOption('#hv-layer', 'all');
  await page.waitForFunction((n) => document.querySelectorAll('#hv-main .head-thumb').length === n, layers * heads);
  // encoder self-attention: square maps over the 7 input letters
  await page.selectOption('#hv-kind', 'encSelf');
  await page.selectOption('#hv-layer', '0');
  await page.click('#hv-main .head-thumb[data-head="0"]');
  await page.waitForSelector('#hv-main .head-big canvas');
  assert.match(await page.textContent('#hv-main'), /input \(query\)/);
  // a second model side by side on the same word
  await page.selectOption('#hv-kind', 'cross');
  await page.selectOption('#hv-compare', { index: 1 });
  await page.waitForSelector('#hv-side:not([hidden]) .head-thumb', { timeout: 20000 });
  const side = await page.$$eval('#hv-side .head-thumb', (b) => b.length);
  assert.ok(side >= 2);
  assert.equal(await page.$$eval('#hv-side p.stat[data-similarity]', (p) => p.length), 1);
  await artifact(page, 'translate-heads');
});
