// Browser tier: the Translate view's n-best list. Beam search lists every finished
// hypothesis with its score, best first, the first being the output; choosing one
// shows its attention; greedy decoding has no list.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, translated, chooseOption, download, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'n-best: beam 4 lists the finished hypotheses with scores, best first; a click shows one\'s attention', '#translate', async (page) => {
  await waitForData(page, '#tr-output', 'text');
  await chooseOption(page, '#tr-model', /^Spelling → pronunciation \(CMUdict, additive/);
  await page.fill('#tr-input', 'KNIGHT');
  await translated(page, 'KNIGHT', { beam: 1 });
  assert.equal(await page.isHidden('#tr-nbest'), true, 'greedy: no list');
  await page.selectOption('#tr-beam', '4');
  await translated(page, 'KNIGHT', { beam: 4 });
  await page.waitForSelector('#tr-nbest:not([hidden]) .nbest button', { timeout: 20000 });
  const list = await page.$$eval('#tr-nbest .nbest button', (bs) => bs.map((b) => ({
    text: b.dataset.text, score: Number(b.dataset.score), pressed: b.getAttribute('aria-pressed'), label: b.textContent,
  })));
  assert.ok(list.length >= 2 && list.length <= 4, `${list.length} hypotheses`);
  assert.equal(list[0].text, await page.getAttribute('#tr-output', 'data-text'), 'the first is the output');
  for (let k = 1; k < list.length; ++k) assert.ok(list[k - 1].score >= list[k].score, 'best first');
  assert.equal(new Set(list.map((h) => h.text)).size, list.length);
  assert.deepEqual(list.map((h) => h.pressed), list.map((_, k) => (k ? 'false' : 'true')));
  for (const h of list) assert.match(h.label, /score -?\d+\.\d{3} · log p -?\d+\.\d{3}/);
  assert.match(await page.textContent('#tr-latency'), new RegExp(`beam 4, ${list.length} finished hypotheses`));
  assert.equal(await page.getAttribute('#tr-heatmap', 'data-hypothesis'), '0');
  // choose the second: its attention, one row per its own tokens
  await page.click('#tr-nbest .nbest button[data-k="1"]');
  await waitForData(page, '#tr-heatmap', 'hypothesis', '1', 30000);
  const rows = Number(await page.getAttribute('#tr-heatmap', 'data-rows'));
  assert.equal(rows, list[1].text.split(' ').length);
  assert.equal(await page.getAttribute('#tr-nbest .nbest button[data-k="1"]', 'aria-pressed'), 'true');
  assert.equal(await page.getAttribute('#tr-nbest .nbest button[data-k="0"]', 'aria-pressed'), 'false');
  await artifact(page, 'nbest');
  // the JSON export carries the list, in the same order
  const json = JSON.parse((await download(page, '#tr-json')).bytes.toString());
  assert.deepEqual(json.output.nBest.map((h) => h.tokens.join(' ')), list.map((h) => h.text));
  assert.deepEqual(json.output.nBest.map((h) => h.score), list.map((h) => h.score));
  // back to greedy: the list goes
  await page.selectOption('#tr-beam', '1');
  await page.waitForFunction(() => document.querySelector('#tr-nbest').hidden, null, { timeout: 20000 });
});
