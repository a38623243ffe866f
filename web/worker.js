// All compute runs here, off the main thread. Messages: {id, op, args} in,
// {id, ok, result} or {id, ok: false, error} out.
import { load } from './pkg/index.js';

const ready = load();

const ops = {
  info: (al) => al.simdInfo(),
  softmax: (al, { logits }) => al.softmax(new Float32Array(logits)),
  selftest: (al, { seed }) => al.kernels.selftest(seed),
  bench: (al, { name, shape, minMs }) => al.kernels.bench(name, shape, { minMs, withRef: true }),
  peak: (al, { minMs }) => al.kernels.peakGflops(minMs),
};

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    const al = await ready;
    if (!ops[op]) throw new Error(`unknown operation '${op}'`);
    self.postMessage({ id, ok: true, result: await ops[op](al, args || {}) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: e && e.message ? e.message : String(e) });
  }
};
