// A promise-based client of a compute Worker. Requests: {id, op, args};
// replies: {id, ok, result} | {id, ok: false, error} | {id, progress}.
// { boot: true }: the worker boot.js started early, when there is one (the page's main worker).
export class WorkerClient {
  constructor(onError, { boot: early = false } = {}) {
    const boot = early ? globalThis.attnlabBoot?.take() : null;
    this.worker = boot?.worker ?? new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.waiting = [];  // idle() callers
    this.worker.onmessage = ({ data }) => {
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
      this.worker.postMessage({ id, op, args }, transfer);
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
