// Starts the compute worker as soon as the page's HTML is read, before app.js and its views
// have loaded: the worker's own work on a first visit (its modules, the .wasm download and
// compile) then runs beside the page's. app.js takes this worker (lib/client.js); an error the
// worker raises before then is kept for it.
// On a first visit (no service worker in control: lib/client.js downloads the first calls'
// models on the page's thread then), the model of the page's first call starts downloading
// here too, as soon as the model list (preloaded by index.html) has arrived, instead of once
// app.js has run and the translate view has made its call (in a traced cold visit of
// #translate that call came 250 ms after app.js had arrived). That first call is the translate
// view's first translation, whichever view is shown (lib/manifest.js: firstTranslateModel);
// the views' other calls download their models as before.
// The site build bundles this module with the three small ones it imports (scripts/build.sh):
// the built boot.js imports nothing and runs as soon as it arrives.
import { fileBytes } from './lib/offline.js';
import { parseHash } from './lib/urlstate.js';
import { firstTranslateModel } from './lib/manifest.js';

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const errors = [];
const keep = (e) => errors.push(e.message || 'worker failed');
worker.addEventListener('error', keep);

// the model list (app.js takes this promise instead of asking again) and the early downloads
const manifest = fetch('models/index.json').then((r) => (r.ok ? r.json() : []));
manifest.catch(() => {});  // app.js reports a failure
const models = new Map();  // url -> Promise<Uint8Array> (fileBytes: its offline copy kept)
if (!globalThis.navigator?.serviceWorker?.controller) {
  const { view, params } = parseHash();
  manifest.then((m) => {
    const url = firstTranslateModel(m, view, params);
    if (!url) return;
    const p = fileBytes(url);
    p.catch(() => {});  // the call that uses the bytes reports a failure
    models.set(url, p);
  }, () => {});
}

globalThis.attnlabBoot = {
  // the worker, the model list and the early downloads, once (a second caller gets null and
  // makes its own)
  take() {
    worker.removeEventListener('error', keep);
    globalThis.attnlabBoot = null;
    return { worker, errors, manifest, models };
  },
};
