// Starts the compute worker as soon as the page's HTML is read, before app.js and its views
// have loaded: the worker's own work on a first visit (its modules, the .wasm download and
// compile) then runs beside the page's. app.js takes this worker (lib/client.js); an error the
// worker raises before then is kept for it.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const errors = [];
const keep = (e) => errors.push(e.message || 'worker failed');
worker.addEventListener('error', keep);
globalThis.attnlabBoot = {
  // the worker, once (a second caller gets null and makes its own)
  take() {
    worker.removeEventListener('error', keep);
    globalThis.attnlabBoot = null;
    return { worker, errors };
  },
};
