// The demo server (scripts/serve.mjs): brotli or gzip as the client accepts,
// the same bytes once decoded, Vary and validators on every encoding, files
// that do not gain (PNG, model weights, tiny files) sent as they are; and the
// page in Chromium gets a compressed .wasm.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { serve, pickEncoding } from '../../scripts/serve.mjs';
import { SITE, startBrowser, watchErrors, pageReady, waitForData } from './helpers.mjs';

let server, base;
before(async () => {
  server = await serve(SITE, 0);
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server?.close());

function get(path, headers = {}, method = 'GET') {
  return new Promise((ok, fail) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('Accept-Encoding: br before gzip, q=0 refuses, * allows, nothing means identity', () => {
  assert.equal(pickEncoding('gzip, deflate, br'), 'br');
  assert.equal(pickEncoding('gzip, deflate'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip;q=0'), null);
  assert.equal(pickEncoding('*'), 'br');
  assert.equal(pickEncoding('identity'), null);
  assert.equal(pickEncoding(''), null);
  assert.equal(pickEncoding(undefined), null);
});

test('the .wasm, scripts and HTML go compressed and decode to the file; validators and Vary on each', async () => {
  for (const path of ['/pkg/attnlab.wasm', '/pkg/attnlab.js', '/index.html', '/models/index.json']) {
    const raw = readFileSync(join(SITE, path));
    const br = await get(path, { 'Accept-Encoding': 'gzip, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br', path);
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(Number(br.headers['content-length']), br.body.length);
    assert.ok(br.body.length < raw.length * 0.8, `${path}: ${br.body.length} of ${raw.length} bytes`);
    assert.ok(brotliDecompressSync(br.body).equals(raw), `${path}: brotli decodes to the file`);
    const gz = await get(path, { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(gz.body).equals(raw));
    const plain = await get(path);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.equals(raw));
    // one validator for the file; a revalidation of the compressed copy is a 304 without a body
    assert.equal(br.headers.etag, plain.headers.etag);
    assert.ok(br.headers['last-modified']);
    const again = await get(path, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    // HEAD states the compressed length and sends no body
    const head = await get(path, { 'Accept-Encoding': 'br' }, 'HEAD');
    assert.equal(Number(head.headers['content-length']), br.body.length);
    assert.equal(head.body.length, 0);
  }
  if (process.env.ATTNLAB_PRINT_SIZES) {
    const w = readFileSync(join(SITE, 'pkg/attnlab.wasm')).length;
    const b = (await get('/pkg/attnlab.wasm', { 'Accept-Encoding': 'br' })).body.length;
    const g = (await get('/pkg/attnlab.wasm', { 'Accept-Encoding': 'gzip' })).body.length;
    console.log(`attnlab.wasm: ${w} B, gzip ${g} B (${(g / w).toFixed(3)}), brotli ${b} B (${(b / w).toFixed(3)})`);
  }
});

test('model weights, PNG-like and tiny files go as they are', async () => {
  const model = await get('/models/dates/model.safetensors', { 'Accept-Encoding': 'br, gzip' });
  assert.equal(model.headers['content-encoding'], undefined);
  assert.ok(model.body.equals(readFileSync(join(SITE, 'models/dates/model.safetensors'))));
  const icon = await get('/favicon.svg', { 'Accept-Encoding': 'br' });
  const size = readFileSync(join(SITE, 'favicon.svg')).length;
  assert.equal(icon.headers['content-encoding'], size >= 512 ? 'br' : undefined);
  assert.equal((await get('/nope.js', { 'Accept-Encoding': 'br' })).status, 404);
});

test('in Chromium, the page loads a compressed .wasm and runs', async () => {
  const ctx = await startBrowser();
  try {
    // a first visit, watched from its start: the .wasm as the network sent it (the compute worker
    // starts early and saves it for offline use, so a reload may take it from that cache, which
    // keeps no transfer encoding)
    const context = await ctx.browser.newContext();
    const encodings = [];
    context.on('response', (r) => {
      if (r.url().endsWith('.wasm') && !r.fromServiceWorker()) encodings.push(r.allHeaders().then((h) => h['content-encoding']));
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${ctx.base}#playground`);
    await pageReady(page);
    await waitForData(page, '#pg-out', 'rows', '11');
    const seen = await Promise.all(encodings);
    assert.ok(seen.length >= 1 && seen.every((e) => e === 'br' || e === 'gzip'), `wasm encodings ${JSON.stringify(seen)}`);
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
  }
});
