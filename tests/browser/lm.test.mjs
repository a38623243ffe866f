// Browser tier: the language-model view streams a Transformer-XL continuation
// from the worker and shows, for a clicked character, every layer's and head's
// attention with the memory region marked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, artifact } from './helpers.mjs';

let ctx;
before(async () => { ctx = await startBrowser(); });
after(async () => { await ctx?.close(); });

test('language model: streamed generation, reproducible for a seed, attention per layer over memory and segment', async () => {
  const { page, errors } = await openPage(ctx, '#lm');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.ok((await page.$$eval('#lm-model option', (o) => o.length)) >= 1);
  await page.fill('#lm-n', '40');
  await page.fill('#lm-seed', '3');
  await page.click('#lm-generate');
  await page.waitForFunction(() => (document.querySelector('#lm-output').dataset.text || '').length > 0, null, { timeout: 60000 });
  const first = await page.getAttribute('#lm-output', 'data-text');
  assert.equal([...first].length, 40);
  assert.equal(await page.$$eval('#lm-output .lm-char', (s) => s.length), 40);
  // the last character's attention is shown: one map per layer (4), with memory keys
  assert.equal(await page.$$eval('#lm-attention canvas', (c) => c.length), 4);
  assert.match(await page.textContent('#lm-attention p'), /\d+ keys from the memory/);
  // click another character: its attention replaces the view
  await page.click('#lm-output .lm-char[data-i="5"]');
  await page.waitForFunction(() => document.querySelector('#lm-attention').dataset.char === '5');
  // the same seed gives the same text
  await page.click('#lm-generate');
  await page.waitForFunction((t) => document.querySelector('#lm-output').dataset.text === t && !document.querySelector('#lm-generate').disabled,
    first, { timeout: 60000 });
  await artifact(page, 'lm-xl');
  assert.deepEqual(errors, []);
});
