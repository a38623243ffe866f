// Type declarations for the attnlab package (written by hand: emscripten
// 3.1.6 has no --emit-tsd).

export interface LoadOptions {
  /** Where to fetch (browser) or read (Node) attnlab.wasm; defaults to the file next to the module. */
  wasmPath?: string | URL;
  /** The .wasm bytes, if you already have them (skips fetching). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export interface SimdInfo {
  arch: string;
  lanes: number;
  gemmTile: string;
}

export interface KernelCheck {
  name: string;
  shape: [number, number, number];
  in_place: boolean;
  max_abs_err: number;
  worst_ratio: number;
  passed: boolean;
}

export interface KernelSelftest {
  arch: string;
  lanes: number;
  cases: KernelCheck[];
  failed: number;
}

export interface KernelBench {
  /** nanoseconds per call of the SIMD kernel */
  ns: number;
  gflops: number;
  /** scalar twin, when timed (0 otherwise) */
  refNs: number;
  refGflops: number;
}

export interface Attnlab {
  /** The raw Embind module (advanced use). */
  readonly module: unknown;
  simdInfo(): SimdInfo;
  /** Softmax of one row of logits (max subtracted, so +-1e4 stays finite). */
  softmax(logits: Float32Array | ArrayLike<number>): Float32Array;
  kernels: {
    selftest(seed?: number): KernelSelftest;
    list(): { name: string; tile: number }[];
    bench(name: string, shape: number[], opts?: { minMs?: number; withRef?: boolean }): KernelBench;
    peakGflops(minMs?: number): number;
  };
}

/** Loads the wasm module once; later calls return the same promise. */
export function load(opts?: LoadOptions): Promise<Attnlab>;
export default load;
