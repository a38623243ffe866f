// Browser tier: share and personalize. The URL holds the view, model, input and
// options and round-trips (reload, and pasted into a fresh page); a skip link and
// focus on the chosen view's heading; dark mode follows the system; your own
// .safetensors loads from a file picker (Translate and HAN, through the worker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserForTests, viewTest, openView, pageReady, waitForData, waitForText, runForm, chooseOption, download, canvasPixels, artifact, ROOT } from './helpers.mjs';

const ctx = browserForTests();

const trState = (page) => page.evaluate(() => ({
  model: document.querySelector('#tr-model').selectedOptions[0].textContent, input: document.querySelector('#tr-input').value,
  beam: document.querySelector('#tr-beam').value, precision: document.querySelector('#tr-precision').value,
  output: document.querySelector('#tr-output').dataset.text,
}));

viewTest(ctx, 'URL: Translate\'s model, input and options round-trip on reload and when pasted into a new page', '#translate', async (page) => {
  await waitForData(page, '#tr-output', 'text');
  await chooseOption(page, '#tr-model', /^Spelling → pronunciation \(CMUdict/);
  await page.fill('#tr-input', 'KNIGHTS');
  await page.selectOption('#tr-beam', '4');
  await page.selectOption('#tr-precision', 'f32');
  await page.waitForFunction(() => /beam 4.*f32/.test(document.querySelector('#tr-latency').textContent) &&
    document.querySelector('#tr-heatmap').dataset.cols === '7', null, { timeout: 20000 });
  const before = await trState(page);
  const url = page.url();
  const params = new URLSearchParams(new URL(url).hash.split('?')[1]);
  assert.equal(new URL(url).hash.split('?')[0], '#translate');
  assert.deepEqual(Object.fromEntries(params), { model: 'g2p-cmudict', input: 'KNIGHTS', beam: '4', precision: 'f32' });
  // reload
  await page.reload();
  await pageReady(page);
  await waitForData(page, '#tr-heatmap', 'cols', '7');
  assert.deepEqual(await trState(page), before);
  assert.equal(await page.isHidden('#view-translate'), false);
  // pasted into a fresh page
  const other = await ctx.browser.newPage();
  await other.goto(url);
  await pageReady(other);
  await waitForData(other, '#tr-heatmap', 'cols', '7');
  assert.deepEqual(await trState(other), before);
  // pasted into the address bar of an open page (a hash change only)
  await other.evaluate(() => { location.hash = 'translate?model=dates&input=4%20JUL%201976'; });
  await waitForData(other, '#tr-output', 'text', '1976-07-04');
  assert.equal((await trState(other)).beam, '1', 'an option left out of the URL is back at its default');
  await other.close();
});

viewTest(ctx, 'URL: the Playground\'s words and options round-trip; HAN\'s shading and message too', '#playground', async (page) => {
  await page.fill('#pg-text', 'one two three four five');
  await page.selectOption('#pg-mode', 'local-p');
  await page.fill('#pg-window', '3');
  await page.selectOption('#pg-heads', '2');
  await waitForData(page, '#pg-out', 'rows', '5', 30000);
  await waitForData(page, '#pg-out', 'heads', '2', 30000);
  const url = page.url();
  assert.match(url, /#playground\?/);
  const fresh = await ctx.browser.newPage();
  await fresh.goto(url);
  await pageReady(fresh);
  await waitForData(fresh, '#pg-out', 'rows', '5');
  const st = await fresh.evaluate(() => ['#pg-text', '#pg-mode', '#pg-window', '#pg-heads'].map((s) => document.querySelector(s).value));
  assert.deepEqual(st, ['one two three four five', 'local-p', '3', '2']);
  assert.equal(await fresh.getAttribute('#pg-out', 'data-heads'), '2');
  // HAN: a typed message and the shading
  await fresh.goto(`${ctx.base}#han`);
  await pageReady(fresh);
  await fresh.fill('#han-text', 'Subject: hello\n\nWin a free cruise today, click now!');
  await fresh.selectOption('#han-mode', 'sentence');
  await fresh.click('#han-run');
  await waitForData(fresh, '#han-verdict', 'label');
  const hanUrl = fresh.url();
  await fresh.close();
  const third = await ctx.browser.newPage();
  await third.goto(hanUrl);
  await pageReady(third);
  await waitForData(third, '#han-verdict', 'label');
  assert.equal(await third.inputValue('#han-text'), 'Subject: hello\n\nWin a free cruise today, click now!');
  assert.equal(await third.inputValue('#han-mode'), 'sentence');
  assert.match(await third.textContent('#han-doc'), /cruise/);
  await third.close();
});

viewTest(ctx, 'keyboard: a skip link to the view; choosing a view moves the focus to its heading', '', async (page) => {
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'skip-link');
  assert.ok(await page.$eval('#skip-link', (a) => a.getBoundingClientRect().top >= 0), 'the focused skip link is on screen');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.view')?.id + ' ' + document.activeElement.tagName), 'view-home H2');
  assert.equal(page.url().endsWith('#main-content'), false, 'the skip link does not change the route');
  // a nav link: the focus lands on the new view's heading
  await page.focus('nav a[href="#han"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement.tagName === 'H2');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.view').id), 'view-han');
  // the next Tab goes on into the view, not back to the navigation
  await page.keyboard.press('Tab');
  assert.ok(await page.evaluate(() => Boolean(document.activeElement.closest('#view-han'))));
  // the skip link on another view goes to that view's heading
  await page.evaluate(() => { location.hash = 'playground'; });
  await page.waitForFunction(() => document.activeElement.closest('.view')?.id === 'view-playground');
  await page.focus('#skip-link');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.view')?.id), 'view-playground');
});

test('dark mode follows the system: dark page, readable text, heatmaps still drawn on their light scale', async () => {
  const lum = ([r, g, b]) => {
    const f = (v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const colours = (page) => page.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number).slice(0, 3);
    const cs = (s) => getComputedStyle(document.querySelector(s));
    return { bg: rgb(cs('body').backgroundColor), fg: rgb(cs('body').color), muted: rgb(cs('#tr-about').color),
      card: rgb(cs('header').backgroundColor), nav: rgb(cs('nav a:not([aria-current])').color),
      button: [rgb(cs('#tr-json').color), rgb(cs('#tr-json').backgroundColor)] };
  });
  const shots = {};
  for (const scheme of ['light', 'dark']) {
    const { page, errors } = await openView(ctx, '#translate?model=dates&input=4%20JUL%201976', { colorScheme: scheme });
    await waitForData(page, '#tr-output', 'text', '1976-07-04');
    const c = await colours(page);
    shots[scheme] = c;
    if (scheme === 'dark') assert.ok(lum(c.bg) < 0.05, `dark background ${c.bg}`);
    else assert.ok(lum(c.bg) > 0.8, `light background ${c.bg}`);
    for (const [name, fg, bg] of [['text', c.fg, c.bg], ['muted text', c.muted, c.bg], ['nav link', c.nav, c.card], ['button', ...c.button]]) {
      assert.ok(ratio(fg, bg) >= 4.5, `${scheme}: ${name} ${fg} on ${bg} has contrast ${ratio(fg, bg).toFixed(2)}`);
    }
    // the heatmap keeps its light canvas: a weight-0 cell is near white, the top-left corner white
    const [px] = await canvasPixels(page, '#tr-heatmap canvas', [[2, 2]]);
    assert.deepEqual(px.slice(0, 3), [255, 255, 255]);
    // the token text on its shade stays readable
    const tok = await page.$eval('#tr-output .tok', (t) => [getComputedStyle(t).color, getComputedStyle(t).backgroundColor]
      .map((s) => (s.match(/[\d.]+/g) || []).map(Number).slice(0, 3)));
    assert.ok(ratio(tok[0], tok[1]) >= 4.5, `${scheme}: token contrast ${ratio(tok[0], tok[1]).toFixed(2)}`);
    await artifact(page, `translate-${scheme}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
  assert.notDeepEqual(shots.light.bg, shots.dark.bg);
});

viewTest(ctx, 'file picker: your own Seq2Seq and HAN .safetensors load in the worker and run', '#translate', async (page) => {
  await waitForData(page, '#tr-output', 'text');
  const n = await page.$$eval('#tr-model option', (o) => o.length);
  await page.setInputFiles('#tr-file', join(ROOT, 'models', 'dates-additive', 'model.safetensors'));
  await waitForText(page, '#tr-file-status', /loaded/);
  const options = await page.$$eval('#tr-model option', (o) => o.map((x) => x.textContent));
  assert.equal(options.length, n + 1);
  assert.match(await page.$eval('#tr-model', (s) => s.selectedOptions[0].textContent), /^your file: model\.safetensors \(RNN/);
  await page.fill('#tr-input', '4 JUL 1976');
  await waitForData(page, '#tr-output', 'text', '1976-07-04');
  assert.equal(await page.getAttribute('#tr-output', 'data-date-valid'), '1', 'the file\'s task (dates) is read from the file');
  assert.doesNotMatch(page.url(), /model=/, 'a local file cannot be shared in the URL');
  // a second file replaces the first in the list
  await page.setInputFiles('#tr-file', join(ROOT, 'models', 'g2p-cmudict', 'model.safetensors'));
  await page.waitForFunction(() => /loaded/.test(document.querySelector('#tr-file-status').textContent) &&
    document.querySelector('#tr-model').selectedOptions[0].textContent.startsWith('your file'), null, { timeout: 20000 });
  assert.equal(await page.$$eval('#tr-model option', (o) => o.length), n + 1);
  await page.fill('#tr-input', 'PHONE');
  await waitForData(page, '#tr-heatmap', 'cols', '5');
  assert.match(await page.getAttribute('#tr-output', 'data-text'), /^[A-Z]{1,2}( [A-Z]{1,2})+$/);
  // a file of another kind is a clear error, and nothing stale stays on screen
  await page.setInputFiles('#tr-file', join(ROOT, 'models', 'han-spam', 'model.safetensors'));
  await waitForText(page, '#tr-error', /could not load/);
  assert.equal(await page.isDisabled('#tr-json'), true);

  // HAN
  await page.evaluate(() => { location.hash = 'han'; });
  await page.setInputFiles('#han-file', join(ROOT, 'models', 'han-spam', 'model.safetensors'));
  await waitForData(page, '#han-file-status', 'loaded', 'model.safetensors');
  await waitForData(page, '#han-verdict', 'label');
  assert.match(await page.textContent('#han-file-status'), /ham \/ spam/);
  await page.fill('#han-text', 'Subject: FREE MONEY!!!\n\nYou have WON $1,000,000. Click http://win.example.com now to claim your prize.');
  await page.click('#han-run');
  await waitForText(page, '#han-doc', /WON/);
  assert.equal(await page.getAttribute('#han-verdict', 'data-label'), 'spam');
  const json = JSON.parse((await download(page, '#han-json')).bytes.toString());
  assert.equal(json.modelUrl, 'file: model.safetensors');
  assert.match(json.input, /FREE MONEY/);
  // a seq2seq file is not a HAN model: a clear error
  await page.setInputFiles('#han-file', join(ROOT, 'models', 'dates', 'model.safetensors'));
  await waitForText(page, '#han-error', /could not load/);
  assert.equal(await page.isDisabled('#han-json'), true);
  await artifact(page, 'han-file');
});

viewTest(ctx, 'file picker: your own character language model loads in the worker and generates', '#lm', async (page) => {
  await page.setInputFiles('#lm-file', join(ROOT, 'models', 'xl-sotu', 'model.safetensors'));
  await waitForData(page, '#lm-file-status', 'loaded', 'model.safetensors');
  assert.match(await page.$eval('#lm-model', (s) => s.selectedOptions[0].textContent), /^your file: model\.safetensors \(xl, \d+ layers × \d+ heads\)/);
  await runForm(page, { '#lm-n': '12' }, '#lm-generate', () => document.querySelector('#lm-output').dataset.text !== undefined);
  assert.equal([...await page.getAttribute('#lm-output', 'data-text')].length, 12);
  // the same seed gives the same text as the shipped copy of the same file
  const mine = await page.getAttribute('#lm-output', 'data-text');
  await page.selectOption('#lm-model', '0');
  await runForm(page, {}, '#lm-generate', () => document.querySelector('#lm-output').dataset.text !== undefined &&
    !document.querySelector('#lm-generate').disabled);
  assert.equal(await page.getAttribute('#lm-output', 'data-text'), mine);
  // a file of another kind is a clear error
  await page.setInputFiles('#lm-file', join(ROOT, 'models', 'dates', 'model.safetensors'));
  await waitForText(page, '#lm-error', /could not load/);
});
