// Browser tier: honest results. An error clears the timing and the exports; the
// exports hold the input and the output; the input survives a model switch; a
// date that is not a calendar date is flagged; HAN says when a message is empty
// or cut, marks one-word sentences, and its shading keeps 4.5:1 text contrast
// (computed from the rendered colours, light and dark); the Playground's controls
// refuse invalid combinations; line charts have axis titles, ticks and an outside legend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserForTests, viewTest, openView, waitForData, waitForText, runForm, optionTexts, download, artifact } from './helpers.mjs';

const ctx = browserForTests();

const output = (page, want) => waitForData(page, '#tr-output', 'text', want);

viewTest(ctx, 'translate: exports hold input and output; an error clears the timing and disables the exports', '#translate', async (page) => {
  await page.fill('#tr-input', '4 JUL 1976');
  await output(page, '1976-07-04');
  assert.equal(await page.isEnabled('#tr-json'), true);
  const json = JSON.parse((await download(page, '#tr-json')).bytes.toString());
  assert.equal(json.input.text, '4 JUL 1976', 'the input is not overwritten by the output');
  assert.equal(json.output.text, '1976-07-04');
  assert.equal(json.output.tokens.join(''), '1976-07-04');
  assert.equal(json.output.attention.rows, 10);
  assert.equal(json.output.attention.cols, '4 JUL 1976'.length);
  assert.equal(json.output.attention.values.length, 10 * 10);
  assert.ok(Number.isFinite(json.output.logprob));
  // the heatmap's own export names what it is a map of
  const map = JSON.parse((await download(page, '#tr-heatmap .hm-json')).bytes.toString());
  assert.equal(map.meta.input, '4 JUL 1976');
  assert.equal(map.meta.output, '1976-07-04');
  assert.match((await download(page, '#tr-heatmap .hm-svg')).bytes.toString(), />input: 4 JUL 1976</);

  // an input the model cannot read: the previous result, its time and its exports are gone
  assert.notEqual(await page.textContent('#tr-latency'), '');
  await page.fill('#tr-input', '4 JUL 1976@');
  await waitForText(page, '#tr-error', /./);
  assert.equal(await page.textContent('#tr-latency'), '');
  assert.equal(await page.isDisabled('#tr-json'), true);
  assert.equal(await page.isDisabled('#tr-png'), true);
  assert.equal(await page.$$eval('#tr-output .tok', (t) => t.length), 0);
  assert.equal(await page.$('#tr-heatmap canvas'), null);
  // and the next good input brings them back, with its own input
  await page.fill('#tr-input', '2015.1.23');
  await output(page, '2015-01-23');
  assert.equal(await page.isEnabled('#tr-json'), true);
  assert.equal(JSON.parse((await download(page, '#tr-json')).bytes.toString()).input.text, '2015.1.23');
});

viewTest(ctx, 'translate: the typed input is kept when the model changes; a date example gives way to the new model\'s', '#translate', async (page) => {
  await output(page, '2015-01-23');  // the dates model's first example
  const titles = await optionTexts(page, '#tr-model');
  const g2p = titles.findIndex((t) => /^Spelling → pronunciation \(CMUdict/.test(t));
  const stress = titles.findIndex((t) => /with stress/.test(t));
  assert.ok(g2p >= 0 && stress >= 0, JSON.stringify(titles));
  // the untouched date example is replaced by an example the G2P model can read
  await page.selectOption('#tr-model', String(g2p));
  await waitForData(page, '#tr-heatmap', 'cols', '9');
  assert.equal(await page.inputValue('#tr-input'), 'ATTENTION');
  await page.fill('#tr-input', 'KNIGHTS');
  await waitForData(page, '#tr-heatmap', 'cols', '7');
  const plain = await page.getAttribute('#tr-output', 'data-text');
  await page.selectOption('#tr-model', String(stress));
  await page.waitForFunction((p) => {
    const t = document.querySelector('#tr-output').dataset.text;
    return t && t !== p;
  }, plain, { timeout: 20000 });
  assert.equal(await page.inputValue('#tr-input'), 'KNIGHTS');
  assert.match(await page.getAttribute('#tr-output', 'data-text'), /[012]/, 'stress digits from the new model on the same word');
  assert.equal(await page.getAttribute('#tr-heatmap', 'data-cols'), '7');
});

viewTest(ctx, 'translate: a date that is not in the calendar is flagged', '#translate', async (page) => {
  await page.fill('#tr-input', '31 FEB 2020');
  await output(page, '2020-02-31');
  assert.equal(await page.getAttribute('#tr-output', 'data-date-valid'), '0');
  assert.match(await page.textContent('#tr-warning'), /2020-02-31 is not a calendar date: February 2020 has 29 days/);
  const json = JSON.parse((await download(page, '#tr-json')).bytes.toString());
  assert.match(json.warning, /February 2020 has 29 days/);
  await artifact(page, 'translate-invalid-date');
  // a leap day is a date; so is the last of April
  await page.fill('#tr-input', '29 FEB 2020');
  await output(page, '2020-02-29');
  assert.equal(await page.getAttribute('#tr-output', 'data-date-valid'), '1');
  assert.equal(await page.textContent('#tr-warning'), '');
  await page.fill('#tr-input', '29 FEB 2021');
  await output(page, '2021-02-29');
  assert.match(await page.textContent('#tr-warning'), /February 2021 has 28 days/);
});

// every shaded element of the HAN text: its text colour and the background it is drawn on
// (its own, or the nearest shaded ancestor's), as WCAG contrast ratios
const contrasts = (page) => page.$$eval('#han-doc .w, #han-doc .sw, #han-doc .sent', (els) => {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bgOf = (e) => {
    for (let a = e; a; a = a.parentElement) {
      const c = rgb(getComputedStyle(a).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return els.filter((e) => e.firstChild && e.textContent.trim()).map((e) => {
    const fg = lum(rgb(getComputedStyle(e).color).slice(0, 3)), bg = lum(bgOf(e));
    return { text: e.className.includes('sent') ? '(sentence)' : e.textContent, ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05) };
  });
});

for (const scheme of ['light', 'dark']) {
  test(`HAN (${scheme}): every shading keeps text contrast >= 4.5, computed from the rendered colours; one-word sentences are explained`, async () => {
    const { page, errors } = await openView(ctx, '#han', { colorScheme: scheme });
    await page.fill('#han-text', 'Subject: lunch\n\nThanks.\n\nCan we move the budget meeting to Thursday at noon? ' +
      'I will bring the printed slides and the numbers from last quarter.\n\nClick here to claim your free prize now!\n\nDana');
    await page.click('#han-run');
    await waitForData(page, '#han-verdict', 'label');
    for (const mode of ['combined', 'word', 'sentence']) {
      await page.selectOption('#han-mode', mode);
      await waitForData(page, '#han-doc', 'mode', mode, 30000);
      const rs = await contrasts(page);
      assert.ok(rs.length > 10, `${mode}: ${rs.length} elements`);
      const worst = rs.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      assert.ok(worst.ratio >= 4.5, `${scheme} ${mode}: “${worst.text}” has contrast ${worst.ratio.toFixed(2)}`);
      // the darkest shade is used (a lone word has weight 1): white or black text on it
      if (mode === 'word') {
        const lone = await page.$$eval('#han-doc .w.lone', (w) => w.map((x) => x.textContent));
        assert.ok(lone.includes('Thanks') && lone.includes('Dana'), `lone words ${lone}`);
        assert.match(await page.textContent('#han-lone'), /single word .* word weight 1/);
      }
    }
    await artifact(page, `han-contrast-${scheme}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

viewTest(ctx, 'HAN: an empty message gets no verdict, a long one says it was cut; an error clears the result and the export', '#han', async (page) => {
  await page.fill('#han-text', '   ');
  await page.click('#han-run');
  await waitForData(page, '#han-verdict', 'label');
  assert.equal(await page.getAttribute('#han-verdict', 'data-label'), 'empty');
  assert.match(await page.textContent('#han-verdict'), /no verdict/);
  assert.doesNotMatch(await page.textContent('#han-verdict'), /^(spam|ham)/);
  assert.equal(await page.getAttribute('#han-notes', 'data-empty'), 'true');
  // a message longer than the model reads
  const long = `Subject: minutes\n\n${Array.from({ length: 90 }, (_, i) => `Item ${i} of the meeting was discussed and agreed.`).join(' ')}`;
  await page.fill('#han-text', long);
  await page.click('#han-run');
  await waitForData(page, '#han-notes', 'truncated', 'true');
  const kept = await page.$$eval('#han-doc .sent', (s) => s.length);
  const note = await page.textContent('#han-notes');
  assert.match(note, new RegExp(`Truncated: the model reads at most ${kept} sentences of \\d+ words`));
  assert.match(note, new RegExp(`${kept} sentences were kept`));
  const json = JSON.parse((await download(page, '#han-json')).bytes.toString());
  assert.equal(json.input, long);
  assert.equal(json.output.truncated, true);
  assert.equal(json.output.sentences.length, kept);
  // a short message is not flagged
  await page.fill('#han-text', 'Subject: hi\n\nSee you at noon.');
  await page.click('#han-run');
  await waitForData(page, '#han-notes', 'truncated', 'false');
  assert.equal(await page.textContent('#han-notes'), '');
});

viewTest(ctx, 'playground: the window is at least 1 and only for local modes, causal only for global, the word limit is stated', '#playground', async (page) => {
  await waitForData(page, '#pg-out', 'rows', '11', 30000);
  assert.equal(await page.isDisabled('#pg-window'), true);
  assert.equal(await page.isEnabled('#pg-causal'), true);
  assert.match(await page.textContent('label:has(#pg-text)'), /up to 24/);
  await page.check('#pg-causal');
  await page.selectOption('#pg-mode', 'local-m');
  await page.waitForFunction(() => document.querySelector('#pg-causal').disabled);
  assert.equal(await page.isEnabled('#pg-window'), true);
  assert.match(await page.textContent('#pg-causal-note'), /global only/);
  await page.fill('#pg-window', '0');
  await page.waitForFunction(() => document.querySelector('#pg-window').value === '1');
  await waitForText(page, '#pg-out', /local-m window centres/, 30000);
  assert.equal(await page.textContent('#pg-error'), '', 'local-m with a leftover causal tick is no error');
  await page.selectOption('#pg-mode', 'local-p');
  await waitForText(page, '#pg-out', /local-p centres p_t/, 30000);
  // more words than the maps take: cut, and said
  await page.fill('#pg-text', Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '));
  await waitForData(page, '#pg-out', 'rows', '24', 30000);
  assert.match(await page.textContent('#pg-cut'), /30 words typed: only the first 24 are used/);
});

viewTest(ctx, 'line charts: axis titles, a tick per epoch, the legend outside the plot', '#mmoe', async (page) => {
  await runForm(page, { '#mmoe-n': '1000', '#mmoe-epochs': '4' }, '#mmoe-train',
    () => /done/.test(document.querySelector('#mmoe-runs .stat')?.textContent ?? ''));
  const c = await page.$eval('#mmoe-runs .chart', (chart) => {
    const svg = chart.querySelector('svg.line-chart');
    const box = svg.getBoundingClientRect();
    const legend = chart.querySelector('.chart-legend');
    const lb = legend.getBoundingClientRect();
    return {
      x: svg.querySelector('.x-title').textContent, y: svg.querySelector('.y-title').textContent,
      xTicks: [...svg.querySelectorAll('.x-tick')].map((t) => t.textContent),
      yTicks: [...svg.querySelectorAll('.y-tick')].map((t) => Number(t.textContent)),
      legend: [...legend.querySelectorAll('li')].map((l) => l.textContent),
      legendBelow: lb.top >= box.bottom - 1, inSvg: svg.querySelectorAll('text').length,
    };
  });
  assert.equal(c.x, 'epoch');
  assert.equal(c.y, 'MSE');
  assert.deepEqual(c.xTicks, ['1', '2', '3', '4']);
  assert.ok(c.yTicks.length >= 2 && c.yTicks.every((v, i) => i === 0 || v > c.yTicks[i - 1]), `y ticks ${c.yTicks}`);
  assert.deepEqual(c.legend, ['task 1 train', 'task 2 train', 'task 1 val', 'task 2 val']);
  assert.ok(c.legendBelow, 'the legend is under the plot');
});
