// A static file server for the demo and the browser tests: no server logic,
// only files, with the right MIME type for .wasm, ETag / Last-Modified
// validators (304 on revalidation), brotli or gzip as the client accepts (each
// file version compressed once, off the event loop, kept in memory; every file of
// the site is compressed in the background as the server starts, so the first
// visit does not wait for it, nor do other requests meanwhile) and a strict
// Content-Security-Policy (no eval), so the page proves it runs under one.
//   node scripts/serve.mjs <root> [port]      port 0 picks a free one
import { createServer } from 'node:http';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { brotliCompress, gzip, constants as Z } from 'node:zlib';
import { promisify } from 'node:util';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8', '.safetensors': 'application/octet-stream',
  '.ts': 'text/plain; charset=utf-8',
};
// compressed types. Not PNG and icons (compressed already), nor model weights: float
// weights shrink by 8-11% only (measured on the shipped models) and the page's offline
// view counts the bytes it saves against the size the server states.
const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt', '.md', '.ts']);
const MIN_BYTES = 512;  // smaller files go as they are

// The encoding to send: br before gzip, as the Accept-Encoding header allows (q=0 refuses one).
export function pickEncoding(header = '') {
  const q = new Map();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    q.set(name, qp ? Number(qp.slice(2)) : 1);
  }
  const ok = (e) => (q.has(e) ? q.get(e) > 0 : q.has('*') && q.get('*') > 0);
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null;
}

// file + version + encoding -> a promise of the compressed bytes; each version is compressed
// once, in zlib's thread pool (a 1.2 MB .wasm at brotli quality 9 takes about half a second:
// done synchronously it held every other request of the page behind it)
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const packed = new Map();
function compressed(file, etag, enc) {
  const key = `${enc} ${file}`;
  const hit = packed.get(key);
  if (hit && hit.etag === etag) return hit.body;
  const body = readFile(file).then((raw) => (enc === 'br'
    ? brotliAsync(raw, { params: { [Z.BROTLI_PARAM_QUALITY]: 9, [Z.BROTLI_PARAM_SIZE_HINT]: raw.length } })
    : gzipAsync(raw, { level: 9 })));
  packed.set(key, { etag, body });
  body.catch(() => { if (packed.get(key)?.body === body) packed.delete(key); });
  return body;
}
const etagOf = (st) => `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
const compressible = (file, st) => COMPRESS.has(extname(file)) && st.size >= MIN_BYTES;

// Every compressible file under root, brotli-compressed one after another in the background,
// the largest first.
async function warm(root) {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const f = join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.isFile()) files.push(f);
    }
  };
  try {
    walk(root);
    // the largest first: the .wasm is what a first visit waits for longest
    const todo = files.map((f) => [f, statSync(f)]).filter(([f, st]) => compressible(f, st))
      .sort((a, b) => b[1].size - a[1].size);
    for (const [f, st] of todo) await compressed(f, etagOf(st), 'br').catch(() => {});
  } catch { /* a file that went away: compressed when asked for */ }
}

// The strict policy the page must work under (no eval, no inline scripts).
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

export function serve(root, port = 0, host = '127.0.0.1') {
  const base = resolve(root);
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(base, path));
    if (!file.startsWith(base)) { res.writeHead(403).end('forbidden'); return; }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const st = statSync(file);
      // validators, so a revalidation (Cache-Control: no-cache) costs a 304 and no body
      const etag = etagOf(st);
      const packs = compressible(file, st);
      const enc = packs ? pickEncoding(req.headers['accept-encoding']) : null;
      const headers = {
        'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'Cache-Control': 'no-cache',
        ETag: etag,
        'Last-Modified': st.mtime.toUTCString(),
        ...(packs ? { Vary: 'Accept-Encoding' } : {}),
      };
      const inm = req.headers['if-none-match'], ims = req.headers['if-modified-since'];
      const fresh = inm ? inm.split(/\s*,\s*/).includes(etag)
        : Boolean(ims) && Math.floor(st.mtimeMs / 1000) <= Math.floor(Date.parse(ims) / 1000);
      if (fresh) { res.writeHead(304, headers).end(); return; }
      if (enc) {
        compressed(file, etag, enc).then((body) => {
          res.writeHead(200, { ...headers, 'Content-Encoding': enc, 'Content-Length': body.length });
          res.end(req.method === 'HEAD' ? undefined : body);
        }, () => {
          if (!res.headersSent) res.writeHead(404, { 'Content-Type': 'text/plain' });
          res.end(`not found: ${path}`);
        });
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Length': st.size });
      if (req.method === 'HEAD') { res.end(); return; }
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${path}`);
    }
  });
  warm(base);
  return new Promise((ok) => server.listen(port, host, () => ok(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] || 'build/site';
  const port = Number(process.argv[3] ?? 8080);
  const server = await serve(root, port);
  const { port: p } = server.address();
  console.log(`attnlab demo: http://127.0.0.1:${p}/   (serving ${root}; Ctrl-C to stop)`);
}
