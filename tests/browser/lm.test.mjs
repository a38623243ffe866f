// Browser tier: the language-model view streams a Transformer-XL continuation
// from the worker and shows, for a clicked character, every layer's and head's
// attention with the memory region marked.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, runForm, waitForData, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'language model: streamed generation, reproducible for a seed, attention per layer over memory and segment', '#lm', async (page) => {
  assert.ok((await page.$$eval('#lm-model option', (o) => o.length)) >= 1);
  await runForm(page, { '#lm-n': '40', '#lm-seed': '3' }, '#lm-generate', () => (document.querySelector('#lm-output').dataset.text || '').length > 0);
  const first = await page.getAttribute('#lm-output', 'data-text');
  assert.equal([...first].length, 40);
  assert.equal(await page.$$eval('#lm-output .lm-char', (s) => s.length), 40);
  // the last character's attention is shown: one map per layer (4), with memory keys
  assert.equal(await page.$$eval('#lm-attention canvas', (c) => c.length), 4);
  assert.match(await page.textContent('#lm-attention p'), /\d+ keys from the memory/);
  // click another character: its attention replaces the view
  await page.click('#lm-output .lm-char[data-i="5"]');
  await waitForData(page, '#lm-attention', 'char', '5', 30000);
  // the same seed gives the same text
  await runForm(page, {}, '#lm-generate', (t) => document.querySelector('#lm-output').dataset.text === t && !document.querySelector('#lm-generate').disabled,
    { arg: first });
  await artifact(page, 'lm-xl');
});
