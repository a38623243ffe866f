// Browser tier: the Translate view with the English -> Chinese model: its first example is the
// articles' sentence, translated with a heatmap of Chinese characters (rows) x English words
// (columns), the note that the sentence is in the training data, and test-split examples.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, artifact, ROOT } from './helpers.mjs';

// the greedy translation the model card's table gives for a sentence
const card = readFileSync(join(ROOT, 'models', 'en-zh-tatoeba', 'CARD.md'), 'utf8');
const greedy = (en) => card.split('\n').map((l) => l.split('|').map((c) => c.trim())).find((c) => c[2] === en)?.[5];

let ctx;
before(async () => { ctx = await startBrowser(); });
after(async () => { await ctx?.close(); });

test('translate: "I am Chinese." with its attention, as the model card gives it', async () => {
  const { page, errors } = await openPage(ctx, '#translate');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.waitForFunction(() => document.querySelector('#tr-output').dataset.text, null, { timeout: 20000 });
  const titles = await page.$$eval('#tr-model option', (o) => o.map((x) => x.textContent));
  const i = titles.findIndex((t) => /English → Chinese/.test(t));
  assert.ok(i >= 0, `no English → Chinese model in ${titles}`);
  await page.selectOption('#tr-model', String(i));
  // the first example replaces the previous model's example
  await page.waitForFunction(() => document.querySelector('#tr-heatmap').dataset.cols === '4', null, { timeout: 30000 });
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
  await page.waitForFunction(() => document.querySelector('#tr-heatmap').dataset.cols === '5', null, { timeout: 20000 });
  const snowed = await page.getAttribute('#tr-output', 'data-text');
  assert.equal(snowed, greedy('It snowed last night.'));
  assert.match(snowed, /^[^ ]*[\u4e00-\u9fff][^ ]*$/);
  assert.deepEqual(errors, []);
});
