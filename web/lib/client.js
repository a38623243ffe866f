// A promise-based client of a compute Worker. Requests: {id, op, args};
// replies: {id, ok, result} | {id, ok: false, error} | {id, progress}.
// { boot: true }: the worker boot.js started early, when there is one (the page's main worker,
// worker.js). On a first visit (no service worker in control), until that worker first answers,
// a call that loads a shipped model has its file downloaded here, on the page's thread, and sent
// after the call: the starting worker's thread is busy (its modules downloading, the .wasm
// compiled as it streams in), and its own download of the model started up to 300 ms after the
// call was sent. On later visits the worker starts from the cache and is waiting for the call
// while the page's thread is the busy one: the worker downloads (in one same-run A/B on a loaded
// machine, the page's thread doing it there too made warm visits x0.81 as fast: no gain there).
// A download boot.js started before the call (the translate view's first model) is taken
// instead of a second one.
import { MODEL_FILE_OPS, fileBytes } from './offline.js';

export class WorkerClient {
  constructor(onError, { boot: early = false } = {}) {
    const boot = early ? globalThis.attnlabBoot?.take() : null;
    // the page's URL, not this module's: the site build bundles this module into app.js
    this.worker = boot?.worker ?? new Worker(new URL('worker.js', document.baseURI), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.waiting = [];  // idle() callers
    this.fetchesModels = early && !globalThis.navigator?.serviceWorker?.controller;  // (see the top)
    this.fetching = new Set();  // urls downloaded here
    this.early = boot?.models ?? new Map();  // url -> the download boot.js started, taken by the first call
    /** boot.js's request of models/index.json (a promise of the parsed list), or null */
    this.bootManifest = boot?.manifest ?? null;
    this.worker.onmessage = ({ data }) => {
      this.fetchesModels = false;
      const p = this.pending.get(data.id);
      if (!p) return;
      if ('progress' in data) { p.onProgress?.(data.progress); return; }
      this.pending.delete(data.id);
      data.ok ? p.resolve(data.result) : p.reject(new Error(data.error));
      if (!this.pending.size) for (const f of this.waiting.splice(0)) f();
    };
    this.worker.onerror = (e) => {
      onError?.(e.message || 'worker failed');
      for (const p of this.pending.values()) p.reject(new Error(e.message || 'worker failed'));
      this.pending.clear();
      for (const f of this.waiting.splice(0)) f();
    };
    if (boot?.errors.length) queueMicrotask(() => onError?.(boot.errors[0]));
  }
  call(op, args = {}, onProgress = null, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      const url = args?.url;
      if (!this.fetchesModels || !MODEL_FILE_OPS.has(op) || typeof url !== 'string' || url.startsWith('file:') ||
          this.fetching.has(url)) {
        this.worker.postMessage({ id, op, args }, transfer);
        return;
      }
      this.fetching.add(url);
      this.worker.postMessage({ id, op, args, pageFetches: true }, transfer);
      const early = this.early.get(url);
      this.early.delete(url);
      (early ?? fileBytes(url)).then(
        (bytes) => this.worker.postMessage({ fileBytes: { url, bytes } }, [bytes.buffer]),
        (e) => this.worker.postMessage({ fileBytes: { url, error: e.message || String(e) } }));
    });
  }
  /** Resolves once no call is pending (at once if none is). */
  idle() {
    return this.pending.size ? new Promise((f) => this.waiting.push(f)) : Promise.resolve();
  }
  terminate() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error('stopped'));
    this.pending.clear();
  }
}
