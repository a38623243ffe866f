// Browser tier: an automated accessibility scan (axe-core from npm) of every view
// of the page, as it opens and after it has run (heatmaps, charts, head view,
// training results), in light and dark mode and on a phone: no serious or
// critical violation. axe is injected through the DevTools protocol
// (page.evaluate), so the page keeps its strict Content-Security-Policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { browserForTests, openView, waitForData, runForm } from './helpers.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const ctx = browserForTests();

// What runs in each view before it is scanned (small sizes: the scan wants every
// kind of result on screen, not good models), and what shows that it has finished.
const VIEWS = {
  home: null,
  translate: {
    async run(page) {
      await waitForData(page, '#tr-output', 'text', undefined, 30000);
      const tf = (await page.$$eval('#tr-model option', (os) => os.map((o) => ({ value: o.value, text: o.textContent }))))
        .find((o) => /Transformer/.test(o.text));
      await page.selectOption('#tr-model', tf.value);
      await page.fill('#tr-input', 'PHONEME');
      await page.selectOption('#tr-beam', '4');
    },
    shown: () => document.querySelector('#tr-output').dataset.input === 'PHONEME' && document.querySelector('#tr-output').dataset.beam === '4' &&
      document.querySelector('#tr-output').dataset.text &&
      document.querySelector('#tr-heads:not([hidden]) #hv-main .head-thumb'),
  },
  han: {
    async run(page) {
      await runForm(page, { '#han-text': 'Subject: lunch\n\nCan we move the budget meeting to Thursday at noon?\n\nClick here to claim your free prize now!' }, '#han-run');
    },
    shown: () => document.querySelector('#han-verdict').dataset.label,
  },
  mmoe: {
    async run(page) {
      await runForm(page, { '#mmoe-n': '1000', '#mmoe-epochs': '2' }, '#mmoe-race');
    },
    shown: () => document.querySelectorAll('#mmoe-runs .run[data-done="1"]').length === 2,
  },
  recsys: {
    async run(page) {
      await runForm(page, { '#din-n': '3000', '#din-epochs': '1' }, '#din-compare', '#din-out[data-done="3"]', { timeout: 90000 });
      await page.click('#autoint-train');
    },
    shown: () => document.querySelector('#autoint-out[data-auc]'),
  },
  lm: {
    async run(page) {
      await runForm(page, { '#lm-n': '20' }, '#lm-generate');
    },
    shown: () => (document.querySelector('#lm-output').dataset.text || '').length > 0 && document.querySelector('#lm-attention canvas'),
  },
  playground: { shown: () => document.querySelector('#pg-out').dataset.rows },
  engine: {
    async run(page) { await page.click('#engine-selftest'); },
    shown: () => document.querySelector('#selftest-result[data-failed]'),
  },
};

async function scan(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const r = await page.evaluate(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ').trim()}`),
    }));
  });
  return r;
}

for (const [scheme, viewport] of [['light', { width: 1280, height: 800 }], ['dark', { width: 1280, height: 800 }],
  ['light', { width: 390, height: 844 }]]) {
  const where = `${scheme}, ${viewport.width}x${viewport.height}`;
  test(`axe: no serious or critical violation in any view, before and after it runs (${where})`, async () => {
    const { page, errors } = await openView(ctx, '', { colorScheme: scheme, viewport });
    const found = [];
    let scanned = 0;
    for (const [view, how] of Object.entries(VIEWS)) {
      await page.evaluate((v) => { location.hash = v; }, view);
      await page.waitForFunction((v) => !document.querySelector(`#view-${v}`).hidden, view, { timeout: 20000 });
      const states = [['opened', null]];
      if (how) states.push(['after a run', how]);
      for (const [state, h] of states) {
        if (h?.run) await h.run(page);
        if (h?.shown) await page.waitForFunction(h.shown, null, { timeout: 90000 });
        const violations = await scan(page);
        scanned += 1;
        for (const v of violations) {
          if (process.env.ATTNLAB_A11Y_VERBOSE) console.log(`${view} ${state} (${where}): ${v.impact} ${v.id}: ${v.nodes.length} nodes`);
          if (v.impact === 'serious' || v.impact === 'critical')
            found.push(`${view} ${state} (${where}): ${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 6).join('\n    ')}`);
        }
      }
    }
    assert.equal(scanned, Object.keys(VIEWS).length + Object.values(VIEWS).filter(Boolean).length);
    assert.deepEqual(found, [], found.join('\n'));
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('axe: the scan has teeth (an image without alt text and an unlabelled input are reported)', async () => {
  const { page } = await openView(ctx, '#playground');
  await page.evaluate(() => {
    const v = document.querySelector('#view-playground');
    v.append(document.createElement('img'), Object.assign(document.createElement('input'), { type: 'text' }));
  });
  const ids = (await scan(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  assert.ok(ids.includes('image-alt'), ids.join(' '));
  assert.ok(ids.includes('label'), ids.join(' '));
  await page.close();
});
