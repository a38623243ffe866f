// Browser tier: attnlab-models in a page, as an embedder self-hosts it. A folder
// holds the two built packages under node_modules/ and a page that imports them;
// the demo server (strict CSP) serves it; chromium loads a model by name (the
// SHA-256 checked with WebCrypto in a Worker and in the page), translates, and
// refuses a copy of the file with one byte changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../scripts/serve.mjs';
import { ROOT, launchChromium, watchErrors } from './helpers.mjs';

const PKG = join(ROOT, 'build', 'pkg');
const MPKG = join(ROOT, 'build', 'pkg-models');
const skip = existsSync(join(MPKG, 'index.js')) && existsSync(join(PKG, 'index.js')) ? false : 'run scripts/build.sh wasm first';

let dir, server, browser, base;
before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'attnlab-models-web-'));
  cpSync(PKG, join(dir, 'node_modules', 'attnlab'), { recursive: true });
  const m = join(dir, 'node_modules', 'attnlab-models');
  for (const f of ['index.js', 'models.js', 'index.json', 'package.json']) cpSync(join(MPKG, f), join(m, f));
  cpSync(join(MPKG, 'models', 'dates'), join(m, 'models', 'dates'), { recursive: true });
  // a self-hosted copy with one byte changed
  mkdirSync(join(dir, 'bad', 'models', 'dates'), { recursive: true });
  const bytes = readFileSync(join(MPKG, 'models', 'dates', 'model.safetensors'));
  bytes[bytes.length - 1] ^= 1;
  writeFileSync(join(dir, 'bad', 'models', 'dates', 'model.safetensors'), bytes);
  const imports = `import { load } from './node_modules/attnlab/index.js';
import { loadModel } from './node_modules/attnlab-models/index.js';`;
  const body = `const al = await load();
async function run() {
  const out = {};
  const dates = await loadModel(al, 'dates');
  out.text = dates.translate('4 JUL 1976').text;
  dates.delete();
  try { await loadModel(al, 'dates', { baseUrl: '/bad/' }); out.bad = 'loaded'; } catch (e) { out.bad = e.message; }
  return out;
}`;
  writeFileSync(join(dir, 'main.js'), `${imports}\n${body}\nwindow.result = await run();\n` +
    "const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });\n" +
    'w.onmessage = ({ data }) => { window.workerResult = data; };\n');
  writeFileSync(join(dir, 'worker.js'), `${imports}\n${body}\nself.postMessage(await run());\n`);
  writeFileSync(join(dir, 'favicon.ico'), '');
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html lang="en"><title>models</title><script type="module" src="main.js"></script></html>');
  server = await serve(dir, 0);
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a page and a Worker load a model by name (hash checked), and a changed file is refused', { skip }, async () => {
  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(base);
  await page.waitForFunction(() => window.result && window.workerResult, null, { timeout: 30000 });
  for (const r of await page.evaluate(() => [window.result, window.workerResult])) {
    assert.equal(r.text, '1976-07-04');
    assert.match(r.bad, /^attnlab-models: http:\/\/127\.0\.0\.1:\d+\/bad\/models\/dates\/model\.safetensors has SHA-256 [0-9a-f]{64}, the index expects [0-9a-f]{64} for dates; not loaded$/);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
