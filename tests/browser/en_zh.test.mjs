// Browser tier: the Translate view with the English -> Chinese model: its first example is the
// articles' sentence, translated with a heatmap of Chinese characters (rows) x English words
// (columns), the note that the sentence is in the training data, and test-split examples.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserForTests, viewTest, waitForData, chooseOption, artifact, ROOT } from './helpers.mjs';

// the greedy translation the model card's table gives for a sentence
const card = readFileSync(join(ROOT, 'models', 'en-zh-tatoeba', 'CARD.md'), 'utf8');
const greedy = (en) => card.split('\n').map((l) => l.split('|').map((c) => c.trim())).find((c) => c[2] === en)?.[5];

const ctx = browserForTests();

viewTest(ctx, 'translate: "I am Chinese." with its attention, as the model card gives it', '#translate', async (page) => {
  await waitForData(page, '#tr-output', 'text');
  await chooseOption(page, '#tr-model', /English → Chinese/);
  // the first example replaces the previous model's example
  await waitForData(page, '#tr-heatmap', 'cols', '4', 30000);
  assert.equal(await page.inputValue('#tr-input'), 'I am Chinese.');
  const text = await page.getAttribute('#tr-output', 'data-text');
  assert.equal(text, greedy('I am Chinese.'));
  assert.equal(await page.getAttribute('#tr-heatmap', 'data-rows'), String([...text].length));
  assert.deepEqual(await page.$$eval('#tr-output .tok', (t) => t.map((x) => x.firstChild.textContent)), [...text]);
  assert.ok(await page.$('#tr-heatmap canvas'));
  assert.match(await page.textContent('#tr-about'), /is in the training data/);
  const chips = await page.$$eval('#tr-examples .chip', (b) => b.map((x) => x.textContent));
  assert.equal(chips[0], 'I am Chinese.');
  assert.ok(chips.length >= 4);
  await artifact(page, 'translate-en-zh');
  // a test-split example: five English tokens as columns, Chinese characters out
  await page.click('#tr-examples .chip >> text="It snowed last night."');
  await waitForData(page, '#tr-heatmap', 'cols', '5');
  const snowed = await page.getAttribute('#tr-output', 'data-text');
  assert.equal(snowed, greedy('It snowed last night.'));
  assert.match(snowed, /^[^ ]*[\u4e00-\u9fff][^ ]*$/);
});
