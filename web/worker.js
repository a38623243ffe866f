// The compute worker's first module, kept small (the rest, worker-main.js, holds the package
// and the operations: about 130 KB once built): a first visit's downloads start as soon as
// the worker runs, not once all of it has arrived and been compiled. The .wasm is fetched
// and compiled while it downloads, and a call's model file starts downloading when the call
// arrives; calls that arrive before worker-main.js is running are queued for it.
// Messages: {id, op, args} in, {id, progress} (any number) then {id, ok, result} or
// {id, ok: false, error} out (worker-main.js). The page may download a call's model file
// itself while this worker starts (lib/client.js): the call then says { pageFetches: true }
// and a later message { fileBytes: { url, bytes } or { url, error } } brings the file.
import { MODEL_FILE_OPS, fileBytes, fileWasm } from './lib/offline.js';

// The .wasm and the models come through the offline cache (lib/offline.js): one
// download per visit, kept for offline use (the service worker does not precache the .wasm).
const WASM = new URL('./pkg/attnlab.wasm', import.meta.url).href;
// The shipped models' bytes, fetched early once per visit and taken by the first call that
// loads the model (worker-main.js: bytesOf).
const early = new Map();  // url -> Promise<Uint8Array>
const fetched = new Set();  // urls whose bytes were asked for (early or not)
function prefetch(op, url) {
  if (!MODEL_FILE_OPS.has(op) || typeof url !== 'string' || url.startsWith('file:') || fetched.has(url)) return;
  fetched.add(url);
  const p = fileBytes(url);
  p.catch(() => {});  // a failure is reported by the call that uses the bytes
  early.set(url, p);
}
const fromPage = new Map();  // url -> { resolve, reject } of the early promise the page fills
// What a message starts before its call runs: the model file's download (here, or the page's,
// awaited) -> true when the message is not a call but a file the page downloaded. Called for
// every message, here and by worker-main.js (again for the queued ones: it is idempotent).
function receive(data) {
  const file = data?.fileBytes;
  if (file) {
    const p = fromPage.get(file.url);
    fromPage.delete(file.url);
    if (p) file.error ? p.reject(new Error(file.error)) : p.resolve(file.bytes);
    return true;
  }
  const url = data?.args?.url;
  if (data?.pageFetches && typeof url === 'string' && !fetched.has(url)) {
    fetched.add(url);
    const p = new Promise((resolve, reject) => fromPage.set(url, { resolve, reject }));
    p.catch(() => {});
    early.set(url, p);
  } else prefetch(data?.op, url);
  return false;
}
const queue = [];
self.onmessage = (e) => {
  if (!receive(e.data)) queue.push(e);
};
self.attnlabWorkerStart = { WASM, wasmModule: fileWasm(WASM), fileBytes, receive, early, fetched, queue };
import('./worker-main.js').catch((err) => {
  const error = `the compute worker did not load: ${err && err.message ? err.message : err}`;
  self.onmessage = ({ data }) => self.postMessage({ id: data?.id, ok: false, error });
  for (const { data } of queue.splice(0)) self.postMessage({ id: data?.id, ok: false, error });
});
