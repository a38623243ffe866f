// Shared by the browser and Node entries: wraps the Embind module in the
// public API. Results are plain JS objects and Float32Arrays copied out of
// the wasm heap, so they survive memory growth.
//
// Each model family adds its classes from its own file (seq2seq.js, han.js,
// mmoe.js, recsys.js): `export function install(api, mod)`; add one import + one line
// in wrap() below.
import { install as installMMoE } from './mmoe.js';
import { install as installHAN } from './han.js';
import { install as installLM } from './lm.js';
import { install as installPlayground } from './playground.js';
import { install as installRecsys } from './recsys.js';
import { install as installSeq2Seq } from './seq2seq.js';

export function wrap(mod) {
  const api = {
    /** The raw Embind module (advanced use; objects made from it need .delete()). */
    module: mod,
    /** SIMD instruction set, lanes and GEMM tile of this build. */
    simdInfo: () => mod.simdInfo(),
    /** Bytes in use on the wasm heap (malloc'd and not freed) and the heap's size. */
    memory: () => ({ used: mod.heapUsed(), heap: mod.HEAPU8.length }),
    /** Softmax of one row of logits. */
    softmax: (logits) => mod.softmax(logits),
    kernels: {
      /** Runs every kernel against its scalar twin inside wasm; returns the parsed report. */
      selftest: (seed = 1) => JSON.parse(mod.kernelSelftest(seed >>> 0)),
      /** Names and tiles of the kernel list. */
      list: () => mod.kernelList(),
      /** Times kernel `name` at shape [a, b, c] (meaning per kernel) for >= minMs. */
      bench: (name, shape, { minMs = 200, withRef = false } = {}) => {
        const [a = 0, b = 0, c = 0] = shape;
        return mod.benchKernel(name, a, b, c, minMs, withRef);
      },
      /** GFLOPS of a register-blocked SIMD micro-kernel: the ceiling to compare against. */
      peakGflops: (minMs = 200) => mod.simdPeakGflops(minMs),
      /** ms per forward of 'sdpa' (T x D) or 'mha' (T x E, H heads), timed inside wasm. */
      attention: (op, { T = 128, D = 64, heads = 4, minMs = 300 } = {}) => mod.benchAttention(op, T, D, heads, minMs),
    },
  };
  installMMoE(api, mod);
  installHAN(api, mod);
  installLM(api, mod);
  installPlayground(api, mod);
  installRecsys(api, mod);
  installSeq2Seq(api, mod);
  return api;
}
