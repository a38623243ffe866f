// Browser tier: how the page starts. The built app.js is one bundle of the page's modules (one
// request, not one per module and level), boot.js starts the compute worker before
// app.js has loaded and app.js takes that worker (one worker, not two), and a model asked for
// before the module is ready is downloaded once, not again when the module is ready; the built
// worker is one file (scripts/build.sh bundles the package modules it imports); on a first visit
// of any view, boot.js starts the download of the first translation's model before app.js has
// arrived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { ROOT, SITE, browserForTests, watchErrors, pageReady, waitForData, chooseOption } from './helpers.mjs';

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

test('the built app.js is one bundle of the modules it imports; index.html loads boot.js before it', () => {
  const html = readFileSync(join(SITE, 'index.html'), 'utf8');
  const graph = importGraph('app.js').filter((f) => f !== 'app.js');
  assert.ok(graph.length > 10, `the import walk found ${graph.length} modules`);
  const built = readFileSync(join(SITE, 'app.js'), 'utf8');
  assert.deepEqual([...built.matchAll(/^\s*import\b.*$/gm)].map((m) => m[0]), [], 'the built app.js imports nothing');
  // every module of the graph is in it (esbuild names each one's part "// <path>")
  for (const f of graph) assert.ok(built.includes(`web/${f}`) || built.includes(`site/${f}`), `${f} bundled`);
  assert.doesNotMatch(html, /modulepreload/, 'nothing left to preload');
  const boot = html.indexOf('src="boot.js"'), app = html.indexOf('src="app.js"');
  assert.ok(boot > 0 && boot < app, 'boot.js is loaded, before app.js');
  // and runs before it: both deferred modules, which run in document order (an async boot.js
  // ran after the one-file app.js at times, which then started a second worker)
  assert.match(html, /<script type="module" src="boot.js"><\/script>/);
  // the built boot.js imports nothing: it must run as soon as it arrives
  const bootBuilt = readFileSync(join(SITE, 'boot.js'), 'utf8');
  assert.deepEqual([...bootBuilt.matchAll(/^\s*import\b.*$/gm)].map((m) => m[0]), [], 'the built boot.js imports nothing');
  for (const f of importGraph('boot.js')) assert.ok(bootBuilt.includes(`site/${f}`) || f === 'boot.js', `${f} bundled into boot.js`);
});

const ctx = browserForTests();

test('a first visit: one compute worker (the early one), each model downloaded once', async () => {
  const context = await ctx.browser.newContext();  // empty cache, no service worker
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    const gets = new Map();
    context.on('request', (r) => {
      // the Offline view asks sizes with HEAD; a request the service worker passes on to the
      // network is the same download seen twice
      if (r.method() !== 'GET' || r.serviceWorker()) return;
      const path = new URL(r.url()).pathname;
      gets.set(path, (gets.get(path) || 0) + 1);
    });
    await page.goto(`${ctx.base}#translate`);
    await pageReady(page, 30000);
    await waitForData(page, '#tr-output', 'text', undefined, 30000);
    assert.equal(await page.evaluate(() => globalThis.attnlabBoot), null, 'app.js took the early worker');
    assert.equal(page.workers().length, 1, 'one compute worker');
    // the same model again, and a second model: each file once
    await page.fill('#tr-input', '7/4/1976');
    await waitForData(page, '#tr-output', 'text', '1976-07-04');
    await chooseOption(page, '#tr-model', /CMUdict/);
    await page.fill('#tr-input', 'PHONE');
    await waitForData(page, '#tr-heatmap', 'cols', '5');
    const models = [...gets].filter(([p]) => p.endsWith('.safetensors'));
    assert.ok(models.length >= 2, JSON.stringify(models));
    for (const [path, n] of models) assert.equal(n, 1, `${path} requested ${n} times`);
    assert.equal(gets.get('/pkg/attnlab.wasm'), 1, 'the .wasm requested once');
    // the built worker.js bundles the package's modules: no chain of imports on a first visit
    assert.deepEqual([...gets.keys()].filter((p) => /^\/pkg\/.*\.js$/.test(p)), [], 'package modules requested');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// A first visit with app.js held back 1.5 s: the model of the first translation must be asked
// for before app.js is served (by boot.js), once, and used.
async function firstModelBeforeApp(hash, wantModel, ready) {
  const context = await ctx.browser.newContext();  // empty cache, no service worker
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    const events = [];
    let appServed = false;
    await context.route('**/app.js', async (route) => {
      await new Promise((f) => setTimeout(f, 1500));
      events.push('app.js served');
      appServed = true;
      await route.continue();
    });
    const gets = [];
    context.on('request', (r) => {
      if (r.method() !== 'GET' || r.serviceWorker()) return;
      const path = new URL(r.url()).pathname;
      if (path.endsWith('.safetensors')) { gets.push(path); events.push(`${path} asked${appServed ? ' after app.js' : ''}`); }
    });
    await page.goto(`${ctx.base}${hash}`);
    await pageReady(page, 30000);
    await ready(page);
    assert.deepEqual(gets, [wantModel], JSON.stringify(events));
    assert.equal(events[0], `${wantModel} asked`, JSON.stringify(events));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

test('a first visit: boot.js downloads the model the URL names before app.js has arrived', () =>
  firstModelBeforeApp('#translate?model=g2p-cmudict&input=PHONE', '/models/g2p-cmudict/model.safetensors',
    (page) => waitForData(page, '#tr-heatmap', 'cols', '5', 30000)));

test('a first visit of another view: boot.js downloads the first translation\'s model (the list\'s first)', () =>
  firstModelBeforeApp('#engine', '/models/dates/model.safetensors',
    (page) => waitForData(page, '#tr-output', 'text', undefined, 30000)));
