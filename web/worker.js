// The compute worker's first module, kept small (the rest, worker-main.js, holds the package
// and the operations: about 130 KB once built): a first visit's downloads start as soon as
// the worker runs, not once all of it has arrived and been compiled. The .wasm is fetched
// and compiled while it downloads, and a call's model file starts downloading when the call
// arrives; calls that arrive before worker-main.js is running are queued for it.
// Messages: {id, op, args} in, {id, progress} (any number) then {id, ok, result} or
// {id, ok: false, error} out (worker-main.js).
import { fileBytes, fileWasm } from './lib/offline.js';

// The .wasm and the models come through the offline cache (lib/offline.js): one
// download per visit, kept for offline use (the service worker does not precache the .wasm).
const WASM = new URL('./pkg/attnlab.wasm', import.meta.url).href;
// The shipped models' bytes, fetched early once per visit and taken by the first call that
// loads the model (worker-main.js: bytesOf).
const MODEL_OPS = new Set(['translate', 'classify', 'lmGenerate', 'mmoeShipped']);
const early = new Map();  // url -> Promise<Uint8Array>
const fetched = new Set();  // urls whose bytes were asked for (early or not)
function prefetch(op, url) {
  if (!MODEL_OPS.has(op) || typeof url !== 'string' || url.startsWith('file:') || fetched.has(url)) return;
  fetched.add(url);
  const p = fileBytes(url);
  p.catch(() => {});  // a failure is reported by the call that uses the bytes
  early.set(url, p);
}
const queue = [];
self.onmessage = (e) => {
  prefetch(e.data?.op, e.data?.args?.url);
  queue.push(e);
};
self.attnlabWorkerStart = { WASM, wasmModule: fileWasm(WASM), fileBytes, prefetch, early, fetched, queue };
import('./worker-main.js').catch((err) => {
  const error = `the compute worker did not load: ${err && err.message ? err.message : err}`;
  self.onmessage = ({ data }) => self.postMessage({ id: data?.id, ok: false, error });
  for (const { data } of queue.splice(0)) self.postMessage({ id: data?.id, ok: false, error });
});
