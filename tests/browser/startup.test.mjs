// Browser tier: how the page starts. index.html preloads every module app.js imports (so the
// page's modules arrive at once, not level by level), boot.js starts the compute worker before
// app.js has loaded and app.js takes that worker (one worker, not two), and a model asked for
// before the module is ready is downloaded once, not again when the module is ready.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { ROOT, startBrowser } from './helpers.mjs';

const WEB = join(ROOT, 'web');

// the relative static imports reachable from a module, as paths under web/
function importGraph(entry) {
  const seen = new Set();
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?['"](\.[^'"]+)['"]/gm)) walk(join(dirname(file), m[1]));
  };
  walk(join(WEB, entry));
  return [...seen].map((f) => relative(WEB, f)).sort();
}

test('index.html preloads exactly the modules app.js imports, and loads boot.js before app.js', () => {
  const html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]).sort();
  const graph = importGraph('app.js').filter((f) => f !== 'app.js');
  assert.ok(graph.length > 10, `the import walk found ${graph.length} modules`);
  assert.deepEqual(preloaded, graph);
  const boot = html.indexOf('src="boot.js"'), app = html.indexOf('src="app.js"');
  assert.ok(boot > 0 && boot < app, 'boot.js is loaded, before app.js');
  // boot.js imports nothing: it must run as soon as it arrives
  assert.deepEqual(importGraph('boot.js'), ['boot.js']);
});

let ctx;
before(async () => { ctx = await startBrowser(); });
after(async () => { await ctx?.close(); });

test('a first visit: one compute worker (the early one), each model downloaded once', async () => {
  const context = await ctx.browser.newContext();  // empty cache, no service worker
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    const gets = new Map();
    context.on('request', (r) => {
      // the Offline view asks sizes with HEAD; a request the service worker passes on to the
      // network is the same download seen twice
      if (r.method() !== 'GET' || r.serviceWorker()) return;
      const path = new URL(r.url()).pathname;
      gets.set(path, (gets.get(path) || 0) + 1);
    });
    await page.goto(`${ctx.base}#translate`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('#tr-output')?.dataset.text, null, { timeout: 30000 });
    assert.equal(await page.evaluate(() => globalThis.attnlabBoot), null, 'app.js took the early worker');
    assert.equal(page.workers().length, 1, 'one compute worker');
    // the same model again, and a second model: each file once
    await page.fill('#tr-input', '7/4/1976');
    await page.waitForFunction(() => document.querySelector('#tr-output').dataset.text === '1976-07-04', null, { timeout: 20000 });
    const titles = await page.$$eval('#tr-model option', (o) => o.map((x) => x.textContent));
    const g2p = titles.findIndex((t) => /CMUdict/.test(t));
    assert.ok(g2p >= 0);
    await page.selectOption('#tr-model', String(g2p));
    await page.fill('#tr-input', 'PHONE');
    await page.waitForFunction(() => document.querySelector('#tr-heatmap').dataset.cols === '5', null, { timeout: 20000 });
    const models = [...gets].filter(([p]) => p.endsWith('.safetensors'));
    assert.ok(models.length >= 2, JSON.stringify(models));
    for (const [path, n] of models) assert.equal(n, 1, `${path} requested ${n} times`);
    assert.equal(gets.get('/pkg/attnlab.wasm'), 1, 'the .wasm requested once');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
