// Browser tier helpers: serve build/site on 127.0.0.1 and drive Debian's
// chromium with playwright-core (never a downloaded browser).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SITE = join(ROOT, 'build', 'site');

// Debian's chromium (or $ATTNLAB_CHROMIUM), headless, quiet on the network.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.ATTNLAB_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,  // playwright gives chromium a fresh temporary profile itself
  });
}

// build/site served on a free port, and a browser: { base, browser, server, close }.
export async function startBrowser() {
  if (!existsSync(join(SITE, 'index.html'))) throw new Error('no site: run scripts/build.sh wasm site');
  const server = await serve(SITE, 0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launchChromium();
  return {
    base, browser, server,  // server: the node:http server (tests may listen to its 'request' events)
    async close() { await browser.close(); server.close(); },
  };
}

// One browser for a test file: started before its tests, closed after them. The object
// returned is filled in (base, browser, server, close) when the tests run.
export function browserForTests() {
  const ctx = {};
  before(async () => { Object.assign(ctx, await startBrowser()); });
  after(async () => { await ctx.close?.(); });
  return ctx;
}

// The console errors and page errors (CSP violations included) of a page, as they come.
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

// A page that records its errors (watchErrors); options go to browser.newPage
// (colorScheme, viewport, ...).
export async function openPage(ctx, path = '', options = {}) {
  const page = await ctx.browser.newPage(options);
  const errors = watchErrors(page);
  await page.goto(ctx.base + path);
  return { page, errors };
}

// Waits until the page says it is ready to use.
export const pageReady = (page, timeout = 20000) => page.waitForSelector('body[data-ready="1"]', { timeout });

// openPage on a view ('#mmoe'), once the page is ready: { page, errors }.
export async function openView(ctx, path = '', options = {}) {
  const opened = await openPage(ctx, path, options);
  await pageReady(opened.page);
  return opened;
}

// A test of one view: opens it (openView, with pageOptions for browser.newPage), runs
// body(page, errors), then asserts that the page logged no error and closes it.
export function viewTest(ctx, name, path, body, pageOptions = {}) {
  test(name, async () => {
    const { page, errors } = await openView(ctx, path, pageOptions);
    await body(page, errors);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// Waits until the element's data-<key> is `want`, or has any non-empty value when want is undefined.
export function waitForData(page, selector, key, want, timeout = 20000) {
  return page.waitForFunction(([s, k, w]) => {
    const v = document.querySelector(s)?.dataset[k];
    return w === undefined ? Boolean(v) : v === w;
  }, [selector, key, want], { timeout });
}

// Waits until the Translate view shows the result of this input (and beam, if given): an
// earlier request's result, still on screen after the input changed, does not count.
export function translated(page, input, { beam, timeout = 20000 } = {}) {
  return page.waitForFunction(([i, b]) => {
    const d = document.querySelector('#tr-output')?.dataset ?? {};
    return Boolean(d.text) && d.input === i && (b === null || d.beam === b);
  }, [input, beam === undefined ? null : String(beam)], { timeout });
}

// Waits until the element's text matches the regular expression.
export function waitForText(page, selector, re, timeout = 20000) {
  return page.waitForFunction(([s, source, flags]) => new RegExp(source, flags).test(document.querySelector(s)?.textContent ?? ''),
    [selector, re.source, re.flags], { timeout });
}

// Fills a form ({ selector: value }), clicks its button and waits for the run to end: `done` is a
// selector, or a function run in the page (with `arg`); a training or a generation, say.
export async function runForm(page, fields, button, done, { arg = null, timeout = 60000 } = {}) {
  for (const [selector, value] of Object.entries(fields)) await page.fill(selector, value);
  await page.click(button);
  if (typeof done === 'string') await page.waitForSelector(done, { timeout });
  else if (done) await page.waitForFunction(done, arg, { timeout });
}

// The texts of a select's options.
export const optionTexts = (page, select) => page.$$eval(`${select} option`, (o) => o.map((x) => x.textContent));

// Selects the first option whose text matches (a RegExp or a predicate on the text) and
// returns its index; fails, listing the options, when none does.
export async function chooseOption(page, select, match) {
  const texts = await optionTexts(page, select);
  const i = texts.findIndex(typeof match === 'function' ? match : (t) => match.test(t));
  assert.ok(i >= 0, `no option of ${select} matches ${match}: ${texts.join(' | ')}`);
  await page.selectOption(select, String(i));
  return i;
}

// Clicks what starts a download and returns the file: { name, bytes }.
export async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
}

// The RGBA values of a canvas at points given in CSS pixels ([[x, y], ...]).
export function canvasPixels(page, selector, points) {
  return page.$eval(selector, (canvas, pts) => {
    const d = window.devicePixelRatio || 1, g = canvas.getContext('2d');
    return pts.map(([x, y]) => Array.from(g.getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data));
  }, points);
}

// Saves a screenshot as a test artifact in build/test-artifacts/<name>.png.
export async function artifact(page, name) {
  const dir = join(ROOT, 'build', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
