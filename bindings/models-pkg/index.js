// attnlab-models: the trained models of attnlab, an index of them and a loader
// that checks each file's SHA-256 (WebCrypto) before the model is built.
//   import { load } from 'attnlab';
//   import { loadModel } from 'attnlab-models';
//   const al = await load();
//   const dates = await loadModel(al, 'dates');                       // next to this module
//   const g2p = await loadModel(al, 'g2p-cmudict', { baseUrl: '/static/attnlab-models/' });  // self-hosted
// Works in browsers, Web Workers and Node >= 18 (files are read from disk when the
// base is a file: URL or a path).
import { models } from './models.js';

export { models };

const KIND_CLASS = {
  seq2seq: 'Seq2Seq', 'transformer-seq2seq': 'Seq2Seq', han: 'HAN', mmoe: 'MMoE', 'char-lm': 'LanguageModel',
};

/** The index entry of model `name` ({ name, kind, title, file, size, sha256, card }); an Error names the known ones. */
export function find(name) {
  const m = models.find((e) => e.name === name);
  if (!m) throw new Error(`attnlab-models: no model named ${JSON.stringify(name)}; expected one of ${models.map((e) => e.name).join(', ')}`);
  return m;
}

function baseOf(opts) {
  let b = opts.baseUrl ?? new URL('./', import.meta.url);
  b = String(b);
  if (!b.endsWith('/')) b += '/';
  return b;
}

const isNode = typeof process === 'object' && !!process.versions?.node;

/** Where model `name`'s file is: opts.baseUrl (a URL or, in Node, a folder path) + its path in this package. */
export function modelUrl(name, opts = {}) {
  const m = find(name);
  const base = baseOf(opts);
  if (isNode && !/^[a-z][a-z0-9+.-]*:/i.test(base)) return base + m.file;  // a plain folder path
  return new URL(m.file, new URL(base, typeof location === 'object' ? location.href : undefined)).href;
}

async function subtle() {
  if (globalThis.crypto?.subtle) return globalThis.crypto.subtle;
  if (isNode) {
    // the specifier is built at run time so bundlers don't try to resolve node: modules
    const c = await import(/* @vite-ignore */ ['node', 'crypto'].join(':'));
    return c.webcrypto.subtle;
  }
  throw new Error('attnlab-models: crypto.subtle is not available (browsers give it only to secure contexts: https or localhost), so the SHA-256 cannot be checked');
}

/** Lower-case hex SHA-256 of bytes (WebCrypto). */
export async function sha256(bytes) {
  const d = new Uint8Array(await (await subtle()).digest('SHA-256', bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function readBytes(src, init) {
  if (isNode && !/^https?:/i.test(src)) {
    const fs = await import(/* @vite-ignore */ ['node', 'fs/promises'].join(':'));
    try {
      return new Uint8Array(await fs.readFile(src.startsWith('file:') ? new URL(src) : src));
    } catch (e) {
      throw new Error(`attnlab-models: cannot read ${src}: ${e.message}`);
    }
  }
  let r;
  try {
    r = await fetch(src, init);
  } catch (e) {
    throw new Error(`attnlab-models: could not fetch ${src}: ${e.message}`);
  }
  if (!r.ok) throw new Error(`attnlab-models: could not fetch ${src}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/**
 * The bytes of model `name`, after checking their size and SHA-256 against the index.
 * opts: { baseUrl, init } (init: fetch options). A mismatch throws an Error and
 * returns nothing.
 */
export async function fetchModel(name, opts = {}) {
  const m = find(name);
  const src = modelUrl(name, opts);
  const bytes = await readBytes(src, opts.init);
  if (bytes.length !== m.size)
    throw new Error(`attnlab-models: ${src} has ${bytes.length} bytes, the index expects ${m.size} for ${name}; not loaded`);
  const got = await sha256(bytes);
  if (got !== m.sha256)
    throw new Error(`attnlab-models: ${src} has SHA-256 ${got}, the index expects ${m.sha256} for ${name}; not loaded`);
  return bytes;
}

/**
 * Fetches model `name` (hash checked) and builds it with the attnlab API `al`
 * (from `await load()`): a Seq2Seq, HAN, MMoE or LanguageModel by the index's
 * kind. The object owns wasm memory: call delete() when done.
 */
export async function loadModel(al, name, opts = {}) {
  const m = find(name);
  const cls = al && al[KIND_CLASS[m.kind]];
  if (!cls || typeof cls.fromBytes !== 'function')
    throw new Error(`attnlab-models: loadModel(al, name) needs the API of attnlab's load() with ${KIND_CLASS[m.kind]} (kind ${m.kind})`);
  return cls.fromBytes(await fetchModel(name, opts));
}
