// Offline support: the first visit caches the page shell; the compute worker
// saves the .wasm and every model it loads in the same cache (lib/offline.js,
// whose CACHE names it), and the page can save all models at once. Later visits
// are served from the cache (then refreshed from the network in the background),
// so the page works offline once loaded.
const CACHE = 'attnlab-v1';
// shell-files.js is written by the site build (scripts/build.sh site): every file
// of the site but the model weights and the unbundled modules (lib/, views/: the
// built app.js holds them). The .wasm is left to the worker, which
// fetches it on the first visit anyway: precaching it too would download it twice.
importScripts('shell-files.js');
const SHELL = self.ATTNLAB_SHELL.filter((u) => !u.endsWith('.wasm'));

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => Promise.allSettled(SHELL.map((u) => c.add(u)))).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin || e.request.headers.has('range')) return;
  e.respondWith(caches.open(CACHE).then(async (cache) => {
    // a page load with another query string is still the same page
    const hit = await cache.match(e.request, { ignoreSearch: e.request.mode === 'navigate' });
    const net = fetch(e.request).then((r) => {
      // an unchanged file (same validator) is not written again: a visit would rewrite every file
      const tag = r.headers.get('etag');
      const same = hit && tag && hit.headers.get('etag') === tag;
      if (r.ok && r.status === 200 && !same) cache.put(e.request, r.clone());
      return r;
    });
    if (hit) {
      net.catch(() => {});  // refresh in the background; offline is fine
      return hit;
    }
    return net;
  }));
});
