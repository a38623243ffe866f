// Offline copies of the site's files in the Cache Storage of this origin, shared
// by the page, the compute worker and the service worker (sw.js names the same
// cache). The worker loads the .wasm and the models through fileBytes, so what
// one visit used is there offline on the next, whether or not the service worker
// controlled the page yet (on a first visit it does not).
export const CACHE = 'attnlab-v1';

/** The worker's operations whose args.url names a model file of the site (or 'file:...'). */
export const MODEL_FILE_OPS = new Set(['translate', 'classify', 'lmGenerate', 'mmoeShipped']);

const openCache = () => (typeof caches === 'undefined' ? Promise.resolve(null) : caches.open(CACHE).catch(() => null));
const absolute = (url) => new URL(url, self.location.href).href;

/**
 * A file of the site as a Response: from the network when it answers, else from the cache;
 * a clear error when neither has it. The request goes out at once (the cache is opened beside
 * it, not before it) and a network response is copied into the cache in the background: the
 * caller reads the body while it downloads and does not wait for the write.
 */
export async function fileResponse(url) {
  const href = absolute(url);
  const opening = openCache();
  let r = null, failure = null;
  try {
    r = await fetch(href);
  } catch (e) {
    failure = e;
  }
  const cache = await opening;
  if (r && r.ok) {
    if (cache) {
      const copy = r.clone();
      // a response that came from this cache (through the service worker) is not written again
      cache.match(href).then((hit) => {
        const tag = copy.headers.get('etag');
        return !hit || !tag || hit.headers.get('etag') !== tag ? cache.put(href, copy) : undefined;
      }).catch(() => {});
    }
    return r;
  }
  const hit = cache && await cache.match(href);
  if (hit) return hit;
  if (r) throw new Error(`could not fetch ${url}: HTTP ${r.status}`);
  throw new Error(`could not fetch ${url}: ${failure?.message || 'network error'} (offline, and this file was not saved for offline use)`);
}

/** The bytes of a file of the site (fileResponse); its offline copy is stored in the background. */
export async function fileBytes(url) {
  return new Uint8Array(await (await fileResponse(url)).arrayBuffer());
}

/**
 * The compiled .wasm at url, compiled while it downloads (WebAssembly.compileStreaming; the
 * browser may also reuse its cached machine code on a later visit), from the network or the
 * offline cache as fileResponse. From a server that does not send application/wasm (which
 * compileStreaming requires), the bytes are compiled once downloaded.
 */
export async function fileWasm(url) {
  const response = await fileResponse(url);
  if (/^application\/wasm\b/.test(response.headers.get('content-type') || '')) return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Whether url is in the offline cache, and its size in bytes when it is. */
export async function cachedSize(url) {
  const cache = await openCache();
  const hit = cache && await cache.match(absolute(url));
  if (!hit) return null;
  const n = Number(hit.headers.get('content-length'));
  return Number.isFinite(n) && n > 0 ? n : (await hit.blob()).size;
}

/** The size of url on the server (HEAD), or null when unknown. */
export async function remoteSize(url) {
  try {
    const r = await fetch(absolute(url), { method: 'HEAD', cache: 'no-store' });
    const n = Number(r.headers.get('content-length'));
    return r.ok && Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/**
 * Downloads url into the offline cache, reporting onBytes(received) as it
 * streams. Returns the number of bytes saved.
 */
export async function saveForOffline(url, onBytes = () => {}) {
  const cache = await openCache();
  if (!cache) throw new Error('this browser gives the page no Cache Storage (private mode?)');
  const r = await fetch(absolute(url), { cache: 'no-cache' });
  if (!r.ok) throw new Error(`could not fetch ${url}: HTTP ${r.status}`);
  const parts = [];
  let got = 0;
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    onBytes(got);
  }
  const headers = new Headers(r.headers);
  headers.set('content-length', String(got));
  await cache.put(absolute(url), new Response(new Blob(parts), { status: 200, headers }));
  return got;
}
