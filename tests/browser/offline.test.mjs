// Browser tier: offline use. A first visit (no reload) saves what it used, so
// after going offline a reload still runs Translate and HAN; the .wasm is
// downloaded once on a cold visit; "make all models available offline" saves
// every listed model with sizes and progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserForTests, watchErrors, pageReady, waitForData, waitForText, chooseOption, artifact } from './helpers.mjs';

const ctx = browserForTests();

async function newPage() {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page) };
}

async function translateWorks(page, input, want) {
  await page.evaluate(() => { location.hash = 'translate'; });
  await waitForData(page, '#tr-output', 'text');
  await page.fill('#tr-input', input);
  await waitForData(page, '#tr-output', 'text', want);
  assert.equal(await page.textContent('#tr-error'), '');
}

async function hanWorks(page) {
  await page.evaluate(() => { location.hash = 'han'; });
  await page.waitForFunction(() => document.querySelectorAll('#han-sample option').length > 1, null, { timeout: 20000 });
  const labels = await page.$$eval('#han-sample option', (o) => o.map((x) => x.textContent));
  const idx = labels.findIndex((l) => l.startsWith('spam'));
  await page.selectOption('#han-sample', String(idx - 1));
  await waitForData(page, '#han-verdict', 'label');
  assert.equal(await page.getAttribute('#han-verdict', 'data-label'), 'spam');
  assert.equal(await page.textContent('#han-error'), '');
}

test('first visit online, then offline: a reload still runs Translate and HAN; the .wasm came once', async () => {
  const seen = [];
  const log = (req) => seen.push(req.url);
  ctx.server.on('request', log);
  const { context, page, errors } = await newPage();
  try {
    await page.goto(`${ctx.base}#translate`);
    await pageReady(page);
    await translateWorks(page, '23JAN2015', '2015-01-23');
    await hanWorks(page);
    // the service worker has installed the page shell (what a user's first minute gives it)
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    const wasm = seen.filter((u) => u.split('?')[0].endsWith('/attnlab.wasm'));
    assert.equal(wasm.length, 1, `the .wasm was requested ${wasm.length} times on a cold visit`);
    assert.equal(await page.isHidden('#net-state'), true);

    await context.setOffline(true);
    await page.reload();
    await pageReady(page);
    assert.equal(await page.isVisible('#net-state'), true, 'no offline indicator');
    assert.match(await page.textContent('#net-state'), /offline/);
    await translateWorks(page, '4 JUL 1976', '1976-07-04');
    await hanWorks(page);
    // a model this visit never opened says why it cannot load
    await page.evaluate(() => { location.hash = 'translate'; });
    await chooseOption(page, '#tr-model', /CMUdict/);
    await waitForText(page, '#tr-error', /./);
    assert.match(await page.textContent('#tr-error'), /not saved for offline use/);
    await artifact(page, 'offline-first-visit');
    // the failed model fetch itself is the only console error allowed
    assert.deepEqual(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(e)), []);
  } finally {
    ctx.server.off('request', log);
    await context.close();
  }
});

test('make all models available offline: sizes, progress, then models never opened work offline', async () => {
  const { context, page, errors } = await newPage();
  try {
    await page.goto(`${ctx.base}#home`);
    await pageReady(page);
    await page.waitForFunction(() => !document.querySelector('#offline-all').disabled, null, { timeout: 20000 });
    const total = Number(await page.getAttribute('#offline-summary', 'data-total'));
    const manifest = await page.evaluate(() => fetch('models/index.json').then((r) => r.json()));
    assert.equal(total, new Set(manifest.map((m) => m.url)).size);
    const sizes = await page.$$eval('#offline-models tbody tr td:nth-child(2)', (t) => t.map((x) => x.textContent));
    assert.equal(sizes.length, total);
    assert.ok(sizes.every((s) => /^\d+(\.\d)? (MB|kB)$/.test(s)), sizes.join());
    assert.match(await page.textContent('#offline-all'), /\((\d+(\.\d)?) MB\)/);
    await page.click('#offline-all');
    await page.waitForFunction(() => document.querySelector('#offline-summary').dataset.saved ===
      document.querySelector('#offline-summary').dataset.total, null, { timeout: 60000 });
    assert.equal(await page.isVisible('#offline-progress'), true);
    assert.equal(await page.$eval('#offline-progress', (p) => p.value === p.max && p.max > 1e6), true);
    assert.match(await page.textContent('#offline-progress-text'), new RegExp(`saved ${total} models`));
    assert.equal(await page.$$eval('#offline-models tbody tr[data-saved="1"]', (r) => r.length), total);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

    await context.setOffline(true);
    await page.reload();
    await pageReady(page);
    // G2P (never opened online) and the shipped MMoE models
    await page.evaluate(() => { location.hash = 'translate'; });
    await chooseOption(page, '#tr-model', /CMUdict/);
    await page.fill('#tr-input', 'PHONE');
    await page.waitForFunction(() => document.querySelector('#tr-heatmap canvas')?.dataset.cols === '5', null, { timeout: 20000 });
    assert.equal(await page.textContent('#tr-error'), '');
    await page.evaluate(() => { location.hash = 'mmoe'; });
    await page.click('#mmoe-shipped');
    await page.waitForFunction(() => document.querySelectorAll('#mmoe-shipped-out .run[data-done="1"]').length === 2,
      null, { timeout: 30000 });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
