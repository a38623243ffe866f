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

export type GateKind = 'shared-bottom' | 'omoe' | 'softmax' | 'attention' | 'attention-x';

export interface MMoEOptions {
  inputDim?: number;    // default 100
  experts?: number;     // default 8
  expertUnits?: number; // default 16
  tasks?: number;       // default 2
  towerUnits?: number;  // default 8
  attDim?: number;      // query/key size of attention gates, default 16
  gate?: GateKind;      // default 'softmax'
  seed?: number;        // initialisation seed, default 0
}

export interface MMoEConfig {
  inputDim: number; experts: number; expertUnits: number; tasks: number;
  towerUnits: number; attDim: number; gate: GateKind;
}

export interface MMoEPrediction {
  /** (n, tasks), row-major */
  pred: Float32Array;
  /** (tasks, n, experts): each task's gate weights per sample (empty for shared-bottom) */
  gates: Float32Array;
  n: number;
}

export interface FitOptions {
  epochs?: number; batchSize?: number; lr?: number; seed?: number;
  validation?: { x: Float32Array | ArrayLike<number>; y: Float32Array | ArrayLike<number> };
  /** Called after each epoch; return false to stop. */
  onEpoch?: (e: { epoch: number; loss: number[]; val?: number[] }) => unknown;
}

/**
 * Multi-task mixture of experts. Owns wasm memory: call delete() when done
 * (a deleted object throws on use).
 */
export declare class MMoE {
  constructor(opts?: MMoEOptions);
  static fromBytes(bytes: Uint8Array | ArrayBuffer): MMoE;
  static fromUrl(url: string | URL, init?: RequestInit): Promise<MMoE>;
  readonly config: MMoEConfig;
  readonly paramCount: number;
  readonly deleted: boolean;
  /** x: n * inputDim floats, row-major */
  predict(x: Float32Array | ArrayLike<number>): MMoEPrediction;
  /** One epoch of Adam (state persists between calls); returns train MSE per task. */
  trainEpoch(x: Float32Array | ArrayLike<number>, y: Float32Array | ArrayLike<number>,
             opts?: { batchSize?: number; lr?: number; seed?: number }): Float32Array;
  fit(x: Float32Array | ArrayLike<number>, y: Float32Array | ArrayLike<number>, opts?: FitOptions):
    Promise<{ epoch: number; loss: number[]; val?: number[] }[]>;
  /** MSE per task */
  evaluate(x: Float32Array | ArrayLike<number>, y: Float32Array | ArrayLike<number>): number[];
  resetOptimizer(): void;
  /** The model as a .safetensors file (f16 halves it). */
  save(opts?: { f16?: boolean }): Uint8Array;
  delete(): void;
}

export interface MMoESyntheticOptions {
  n?: number; dim?: number; p?: number; sines?: number; noise?: number; seed?: number; taskSeed?: number;
}

export interface Attnlab {
  /** The raw Embind module (advanced use). */
  readonly module: unknown;
  simdInfo(): SimdInfo;
  /** Bytes in use on the wasm heap and the heap's size. */
  memory(): { used: number; heap: number };
  MMoE: typeof MMoE;
  data: {
    /** The MMoE paper's synthetic two-task data: x (n*dim), y (n*2). */
    mmoeSynthetic(opts?: MMoESyntheticOptions): { x: Float32Array; y: Float32Array };
  };
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
