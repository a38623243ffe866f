// Offline support: the first visit caches the page, the package and every model
// it fetches; later visits are served from the cache (then refreshed from the
// network in the background), so the page works offline once loaded.
const CACHE = 'attnlab-v1';
// shell-files.js is written by the site build (scripts/build.sh site): every file
// of the site but the model weights
importScripts('shell-files.js');
const SHELL = self.ATTNLAB_SHELL;

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => Promise.allSettled(SHELL.map((u) => c.add(u)))).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin) return;
  e.respondWith(caches.open(CACHE).then(async (cache) => {
    // a page load with another query string is still the same page
    const hit = await cache.match(e.request, { ignoreSearch: e.request.mode === 'navigate' });
    const net = fetch(e.request).then((r) => {
      if (r.ok) cache.put(e.request, r.clone());
      return r;
    });
    if (hit) {
      net.catch(() => {});  // refresh in the background; offline is fine
      return hit;
    }
    return net;
  }));
});
