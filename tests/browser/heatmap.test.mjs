// Browser tier: the one heatmap component (web/lib/heatmap.js) as every view
// uses it: a legend and axis titles on every map, keyboard navigation that
// announces the value, exports that hold the values and labels, masked cells,
// and big maps that scroll on a phone instead of shrinking their labels.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, waitForData, runForm, download, canvasPixels, artifact } from './helpers.mjs';

const ctx = browserForTests();

// Every full heatmap in root: its axis titles, and a legend (its own, or its group's)
function mapsIn(page, root) {
  return page.$$eval(`${root} .heatmap`, (maps) => maps.map((m) => {
    const canvas = m.querySelector('canvas');
    let legend = m.querySelector(':scope > .hm-legend');
    for (let a = m.parentElement; !legend && a; a = a.parentElement) legend = a.querySelector('.hm-legend');
    return {
      rowTitle: canvas.dataset.rowTitle, colTitle: canvas.dataset.colTitle,
      legend: legend ? { min: legend.querySelector('.hm-legend-min').textContent, max: legend.querySelector('.hm-legend-max').textContent,
        label: legend.querySelector('.hm-legend-label').textContent, masked: Boolean(legend.querySelector('.hm-legend-masked')) } : null,
      focusable: canvas.tabIndex === 0, exports: m.querySelectorAll('.hm-export button').length,
      table: Boolean(m.querySelector('details.hm-table')),
    };
  }));
}

function assertMaps(maps, view, n) {
  assert.ok(maps.length >= n, `${view}: ${maps.length} heatmaps`);
  for (const m of maps) {
    assert.ok(m.rowTitle && m.colTitle, `${view}: a heatmap without axis titles ${JSON.stringify(m)}`);
    assert.ok(m.legend, `${view}: a heatmap without a legend`);
    assert.ok(m.legend.label.length > 1 && m.legend.min && m.legend.max, `${view}: ${JSON.stringify(m.legend)}`);
    assert.ok(m.focusable && m.exports === 4 && m.table, `${view}: ${JSON.stringify(m)}`);
  }
}

viewTest(ctx, 'every view: each heatmap has axis titles and a legend (own or its group\'s)', '#translate', async (page) => {
  await page.waitForSelector('#tr-heatmap canvas', { timeout: 20000 });
  assertMaps(await mapsIn(page, '#tr-heatmap'), 'translate', 1);
  assert.deepEqual((await mapsIn(page, '#tr-heatmap')).map((m) => [m.rowTitle, m.colTitle]), [['output token', 'input token']]);

  await page.evaluate(() => { location.hash = 'han'; });
  await page.waitForFunction(() => document.querySelectorAll('#han-sample option').length > 1, null, { timeout: 20000 });
  await page.selectOption('#han-sample', '1');
  await page.waitForSelector('#han-heatmap canvas', { timeout: 20000 });
  const han = await mapsIn(page, '#han-heatmap');
  assertMaps(han, 'han', 1);
  assert.equal(han[0].legend.masked, true, 'sentences of different lengths leave masked cells');
  // the focused cell's word is marked in the text and named in the announcement
  await page.focus('#han-heatmap canvas');
  await page.keyboard.press('ArrowRight');
  const word = await page.textContent('#han-doc .sent:first-of-type .w.hl');
  assert.ok(word.length > 0);
  assert.ok((await page.textContent('#han-heatmap .hm-live')).includes(`(“${word}”)`));

  await page.evaluate(() => { location.hash = 'playground'; });
  await page.check('#pg-causal');
  await page.waitForFunction(() => document.querySelectorAll('#pg-out canvas').length === 7 &&
    document.querySelector('#pg-out canvas').dataset.masked !== '0');
  const pg = await mapsIn(page, '#pg-out');
  assertMaps(pg, 'playground', 7);
  assert.ok(pg.filter((m) => m.legend.masked).length >= 6, 'causal masks shown in the legends');

  await page.evaluate(() => { location.hash = 'lm'; });
  await runForm(page, { '#lm-n': '12' }, '#lm-generate',
    () => document.querySelectorAll('#lm-attention canvas').length > 0 && !document.querySelector('#lm-generate').disabled);
  assertMaps(await mapsIn(page, '#lm-attention'), 'lm', 1);
  // the memory bar is in the SVG export too (a view's marks over the cells)
  const memory = Number(/(\d+) keys from the memory/.exec(await page.textContent('#lm-attention p'))[1]);
  assert.ok(memory > 0);
  assert.match((await download(page, '#lm-attention .hm-svg')).bytes.toString(), /<image [^>]*href="data:image\/png;base64,/);

  await page.evaluate(() => { location.hash = 'recsys'; });
  await runForm(page, { '#autoint-layers': '1', '#autoint-epochs': '1' }, '#autoint-train', '#autoint-out[data-auc]');
  assertMaps(await mapsIn(page, '#autoint-out'), 'autoint', 2);
  // the heads share one scale (one legend for the grid)
  assert.equal(await page.$$eval('#autoint-out .hm-legend', (l) => l.length), 1);
  assert.equal(new Set(await page.$$eval('#autoint-out canvas', (c) => c.map((x) => x.dataset.max))).size, 1);

  await page.evaluate(() => { location.hash = 'mmoe'; });
  await runForm(page, { '#mmoe-n': '1000', '#mmoe-epochs': '1' }, '#mmoe-train', '#mmoe-runs .run[data-done="1"]');
  assertMaps(await mapsIn(page, '#mmoe-runs .strip'), 'mmoe', 1);
  // the gate strip's colours span its own data (weights near 1/8), not 0..1
  const [lo, hi] = await page.$eval('#mmoe-runs .strip canvas', (c) => [Number(c.dataset.min), Number(c.dataset.max)]);
  assert.ok(lo > 0 && hi < 1 && hi > lo, `strip scale ${lo}..${hi}`);
  await artifact(page, 'heatmap-mmoe-strip');
});

viewTest(ctx, 'head view: thumbnails share one scale with one legend per group; own scale on request; causal maps masked', '#home', async (page) => {
  const r = await page.evaluate(async () => {
    const { renderHeads } = await import('./views/heads.js');
    // a synthetic result: 2 layers x 3 heads, 3 outputs x 4 inputs, head h peaks at weight (h + 1) / 4
    const maps = (rows, cols) => {
      const data = new Float32Array(2 * 3 * rows * cols);
      for (let i = 0; i < data.length; ++i) {
        const h = Math.floor(i / (rows * cols)) % 3;
        data[i] = i % (rows * cols) === 0 ? (h + 1) / 4 : 0.01;
      }
      return { layers: 2, heads: 3, rows, cols, data };
    };
    const res = { tokens: ['a', 'b', 'c'], inputTokens: ['w', 'x', 'y', 'z'], heads: { cross: maps(3, 4), decSelf: maps(3, 3) } };
    const box = document.createElement('div');
    document.querySelector('#view-home').append(box);
    const read = () => ({
      legends: box.querySelectorAll('.hm-legend').length,
      thumbs: Array.from(box.querySelectorAll('.head-thumb canvas'), (c) => Number(c.dataset.max)),
      big: Array.from(box.querySelectorAll('.head-big canvas'), (c) => [c.dataset.rowTitle, c.dataset.colTitle, c.dataset.masked]),
      bigLegend: box.querySelectorAll('.head-big .hm-legend').length,
      masked: Boolean(box.querySelector('.hm-legend-masked')),
    });
    renderHeads(box, res, { kind: 'cross', layer: 'all', selected: { layer: 0, head: 1 } });
    const shared = read();
    renderHeads(box, res, { kind: 'cross', layer: 0, selected: { layer: 0, head: 2 }, scale: 'own' });
    const own = read();
    renderHeads(box, res, { kind: 'decSelf', layer: 0, selected: { layer: 0, head: 0 } });
    const dec = read();
    box.remove();
    return { shared, own, dec };
  });
  assert.equal(r.shared.legends, 1);
  assert.equal(r.shared.thumbs.length, 6);
  assert.ok(r.shared.thumbs.every((m) => m === 1), `shared maxima ${r.shared.thumbs}`);
  assert.deepEqual(r.shared.big, [['output', 'input', '0']]);
  assert.equal(r.shared.bigLegend, 0);
  assert.deepEqual(r.own.thumbs, [0.25, 0.5, 0.75]);
  assert.equal(r.own.bigLegend, 1);
  assert.equal(r.dec.masked, true);
  assert.equal(r.dec.big[0][2], '3');  // 3 x 3 causal: the 3 cells above the diagonal
});

viewTest(ctx, 'keyboard: arrow keys move the cell cursor and the value is announced; exports hold the values and labels', '#translate', async (page) => {
  await page.fill('#tr-input', '7/4/1976');
  await waitForData(page, '#tr-output', 'text', '1976-07-04');
  const json = JSON.parse((await download(page, '#tr-heatmap .hm-json')).bytes.toString());
  assert.equal(json.rows, 10);
  assert.equal(json.cols, 8);
  assert.deepEqual(json.rowLabels, [...'1976-07-04']);
  assert.deepEqual(json.colLabels, [...'7/4/1976']);
  assert.equal(json.rowTitle, 'output token');
  assert.equal(json.colTitle, 'input token');
  for (const row of json.values) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-3, `row sums ${row}`);

  // Tab to the canvas, then move: down 2, right 3 -> output 3, input 4
  await page.focus('#tr-heatmap canvas');
  assert.match(await page.textContent('#tr-heatmap .hm-live'), /output token 1 “1”, input token 1 “7”: \d\.\d{3}/);
  for (const k of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(k);
  const said = await page.textContent('#tr-heatmap .hm-live');
  assert.equal(said, `output token 3 “7”, input token 4 “/”: ${json.values[2][3].toFixed(3)}`);
  assert.equal(await page.getAttribute('#tr-heatmap canvas', 'data-cursor'), '2,3');
  // the output token of the focused row is marked
  assert.deepEqual(await page.$$eval('#tr-output .tok.hl', (t) => t.map((x) => x.firstChild.textContent)), ['7']);
  await page.keyboard.press('End');
  await page.keyboard.press('PageDown');
  assert.equal(await page.getAttribute('#tr-heatmap canvas', 'data-cursor'), '9,7');
  assert.match(await page.textContent('#tr-heatmap .hm-live'), /^output token 10 “4”, input token 8 “6”: /);

  // the table alternative holds the same values
  await page.click('#tr-heatmap details.hm-table summary');
  await page.waitForSelector('#tr-heatmap table tbody tr');
  const cells = await page.$$eval('#tr-heatmap table tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent)));
  assert.equal(cells.length, 10);
  assert.deepEqual(cells[2], ['7', ...json.values[2].map((v) => v.toFixed(3))]);

  const csv = (await download(page, '#tr-heatmap .hm-csv')).bytes.toString().trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(csv[0], ['output token \\ input token', ...'7/4/1976'.split('').map((c) => c)]);
  assert.equal(csv.length, 11);
  csv.slice(1).forEach((line, r) => {
    assert.equal(line[0], json.rowLabels[r]);
    line.slice(1).forEach((v, c) => assert.ok(Math.abs(Number(v) - json.values[r][c]) < 1e-6));
  });
  const svg = await download(page, '#tr-heatmap .hm-svg');
  assert.match(svg.name, /\.svg$/);
  const text = svg.bytes.toString();
  assert.match(text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.ok((text.match(/<rect /g) || []).length >= 80, 'a rect per cell');
  assert.match(text, />output token</);
  assert.match(text, />input token →</);
  const png = await download(page, '#tr-heatmap .hm-png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // the view's PNG button exports the same map
  assert.match((await download(page, '#tr-png')).name, /\.png$/);
});

viewTest(ctx, 'masked cells: a causal mask is hatched, announced as masked, and left out of the exported values', '#playground', async (page) => {
  await page.fill('#pg-text', 'a b c d');
  await page.check('#pg-causal');
  await page.waitForFunction(() => document.querySelector('#pg-out').dataset.rows === '4' &&
    document.querySelector('#pg-out canvas')?.dataset.masked === '6');
  const weights = '#pg-out .pg-panel:nth-child(3)';
  const json = JSON.parse((await download(page, `${weights} .hm-json`)).bytes.toString());
  assert.equal(json.masked.length, 6);
  for (const [r, c] of json.masked) { assert.ok(c > r); assert.equal(json.values[r][c], null); }
  const csv = (await download(page, `${weights} .hm-csv`)).bytes.toString().trim().split('\n');
  assert.equal(csv[1], `a,${json.values[0][0]},,,`);
  // hatched pixels: grey, not the white of a zero weight
  const L = await page.$eval(`${weights} canvas`, (c) => c.heatmap.layout);
  const at = (r, col) => [L.padL + col * L.cellW + 3, L.padT + r * L.cellH + 9];
  const [masked, open] = await canvasPixels(page, `${weights} canvas`, [at(0, 3), at(3, 0)]);
  const px = { masked, open };
  assert.ok(px.masked[0] < 235 && Math.abs(px.masked[0] - px.masked[2]) < 40, `masked pixel ${px.masked}`);
  await page.focus(`${weights} canvas`);
  await page.keyboard.press('End');
  assert.match(await page.textContent(`${weights} .hm-live`), /: masked$/);
  assert.equal(await page.$eval(`${weights} .hm-legend`, (l) => l.textContent.includes('masked')), true);
});

viewTest(ctx, 'phone (390 x 844): big maps scroll sideways with labels of at least 10 px; the page itself does not overflow', '#playground', async (page) => {
  const words = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');
  await page.fill('#pg-text', words);
  await waitForData(page, '#pg-out', 'rows', '24', 30000);
  const check = () => page.$$eval('.view:not([hidden]) .heatmap canvas', (cs) => cs.map((c) => {
    const rect = c.getBoundingClientRect();
    const scroller = c.closest('.hm-scroll');
    return { shown: rect.width, css: Number(c.dataset.cssWidth), labelPx: Number(c.dataset.labelPx) * rect.width / Number(c.dataset.cssWidth),
      scrolls: scroller.scrollWidth > scroller.clientWidth, fits: scroller.getBoundingClientRect().right <= window.innerWidth + 1 };
  }));
  const maps = await check();
  assert.equal(maps.length, 7);
  for (const m of maps) {
    assert.ok(Math.abs(m.shown - m.css) < 1, `shrunk from ${m.css} to ${m.shown} px`);
    assert.ok(m.labelPx >= 10, `labels ${m.labelPx} px`);
    assert.ok(m.fits, 'the scroll box is wider than the screen');
  }
  assert.ok(maps.filter((m) => m.css > 390).every((m) => m.scrolls));
  assert.ok(maps.some((m) => m.scrolls));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth) <= 1);
  // the keyboard cursor scrolls the map to the cell
  const sel = '#pg-out .pg-panel:nth-child(3)';
  await page.focus(`${sel} canvas`);
  await page.keyboard.press('End');
  assert.ok(await page.$eval(`${sel} .hm-scroll`, (s) => s.scrollLeft) > 0);
  await artifact(page, 'heatmap-phone');
  // HAN: a long email's map scrolls too
  await page.evaluate(() => { location.hash = 'han'; });
  await page.waitForFunction(() => document.querySelectorAll('#han-sample option').length > 1, null, { timeout: 20000 });
  await page.selectOption('#han-sample', '1');
  await page.waitForSelector('#han-heatmap canvas', { timeout: 20000 });
  for (const m of await check()) {
    assert.ok(Math.abs(m.shown - m.css) < 1 && m.labelPx >= 10 && m.fits, JSON.stringify(m));
  }
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth) <= 1);
}, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
