// Shared by the browser and Node entries: wraps the Embind module in the
// public API. Results are plain JS objects and Float32Arrays copied out of
// the wasm heap, so they survive memory growth.
//
// Each model family adds its classes from its own file (seq2seq.js, han.js,
// mmoe.js, recsys.js): `export function install(api, mod)`; add one import + one line
// in wrap() below.
import { install as installMMoE } from './mmoe.js';
import { install as installHAN } from './han.js';
import { install as installLayers } from './layers.js';
import { install as installLM } from './lm.js';
import { install as installPlayground } from './playground.js';
import { install as installRecsys } from './recsys.js';
import { install as installSeq2Seq } from './seq2seq.js';
import { checkedModule, plain } from './util.js';

/**
 * Runs the emscripten module factory. With opts.wasmModule (a WebAssembly.Module, or a promise
 * of one, e.g. from WebAssembly.compileStreaming) the factory instantiates that module instead of
 * fetching and compiling the .wasm itself; a failure there rejects the returned promise.
 */
export function instantiate(factory, moduleArgs, wasmModule) {
  if (!wasmModule) return factory(moduleArgs);
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  moduleArgs.instantiateWasm = (imports, receive) => {
    Promise.resolve(wasmModule).then((m) => {
      if (!(m instanceof WebAssembly.Module)) throw new TypeError('wasmModule: expected a WebAssembly.Module');
      return WebAssembly.instantiate(m, imports).then((instance) => receive(instance, m));
    }).catch(fail);
    return {};  // the exports arrive through receive()
  };
  return Promise.race([factory(moduleArgs), failed]);
}

export function wrap(rawModule) {
  // every Embind entry point checks the module's error slot and throws an Error
  const mod = checkedModule(rawModule);
  const api = {
    /** The raw Embind module (advanced use; objects made from it need .delete()). */
    module: mod,
    /** SIMD instruction set, lanes and GEMM tile of this build. */
    simdInfo: () => mod.simdInfo(),
    /**
     * Bytes in use on the wasm heap (malloc'd and not freed), the heap's size, the
     * stack pointer and the number of live JS handles: all flat across calls,
     * rejected ones included.
     */
    memory: () => ({
      used: mod.heapUsed(), heap: mod.HEAPU8.length, stack: mod.stackPointer(),
      handles: typeof mod.count_emval_handles === 'function' ? mod.count_emval_handles() : 0,
    }),
    /**
     * The score functions of the library, from its one score table:
     * [{ name, aliases, formula, sameDims, usesAttnDim, usesMaxKeys, usesKeys }].
     */
    scoreKinds: () => mod.scoreKinds(),
    /** Softmax of one row of finite logits (NaN or infinities throw an Error). */
    softmax: (logits) => mod.softmax(logits),
    kernels: {
      /** Runs every kernel against its scalar twin inside wasm; returns the parsed report. */
      selftest: (seed = 1) => JSON.parse(mod.kernelSelftest(seed)),
      /** Names and tiles of the kernel list. */
      list: () => mod.kernelList(),
      /** Times kernel `name` at shape [a, b, c] (meaning per kernel) for >= minMs. */
      bench: (name, shape, opts = {}) =>
        mod.benchKernel(name, Array.isArray(shape) ? Array.from(shape) : shape, plain(opts)),
      /** GFLOPS of a register-blocked SIMD micro-kernel: the ceiling to compare against. */
      peakGflops: (minMs = 200) => mod.simdPeakGflops(minMs),
      /** ms per forward of 'sdpa' (T x D) or 'mha' (T x E, H heads), timed inside wasm. */
      attention: (op, opts = {}) => mod.benchAttention(op, plain(opts)),
    },
  };
  installMMoE(api, mod);
  installHAN(api, mod);
  installLayers(api, mod);
  installLM(api, mod);
  installPlayground(api, mod);
  installRecsys(api, mod);
  installSeq2Seq(api, mod);
  return api;
}
