// Type declarations for the attnlab package (written by hand: emscripten
// 3.1.6 has no --emit-tsd).

export interface LoadOptions {
  /** Where to fetch (browser) or read (Node) attnlab.wasm; defaults to the file next to the module. */
  wasmPath?: string | URL;
  /** The .wasm bytes, if you already have them (skips fetching). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * An already compiled module (or a promise of one, e.g. WebAssembly.compileStreaming(fetch(url))):
   * only instantiated, nothing fetched or compiled. Takes precedence over wasmBinary.
   */
  wasmModule?: WebAssembly.Module | Promise<WebAssembly.Module>;
}

export interface SimdInfo {
  arch: string;
  lanes: number;
  /** GEMM register tile in use, e.g. "4x8"; "auto" until enough large matrix products chose it. */
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

/** What every object that owns wasm memory has: call delete() when done (a deleted object throws on use). */
export interface WasmObject {
  readonly deleted: boolean;
  /** frees the wasm memory; the object is unusable afterwards (calling it twice is harmless) */
  delete(): void;
}

/** A model or layer: a WasmObject with its configuration and its number of parameters. */
export interface ModelHandle<Config> extends WasmObject {
  readonly config: Config;
  readonly paramCount: number;
}

/**
 * Multi-task mixture of experts. Owns wasm memory: call delete() when done
 * (a deleted object throws on use).
 */
export interface MMoE extends ModelHandle<MMoEConfig> {}
export declare class MMoE {
  constructor(opts?: MMoEOptions);
  static fromBytes(bytes: Uint8Array | ArrayBuffer): MMoE;
  static fromUrl(url: string | URL, init?: RequestInit): Promise<MMoE>;
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
}

export interface MMoESyntheticOptions {
  n?: number; dim?: number; p?: number; sines?: number; noise?: number; seed?: number; taskSeed?: number;
}

export type PlaygroundScore = 'dot' | 'scaled_dot' | 'general' | 'additive' | 'cosine' | 'location';
export interface ScoreKindInfo {
  name: PlaygroundScore;
  /** other accepted names, e.g. 'concat' for 'additive' */
  aliases: string[];
  formula: string;
  /** query and key sizes must be equal */
  sameDims: boolean;
  usesAttnDim: boolean;
  usesMaxKeys: boolean;
  /** false: the score depends only on the query (location) */
  usesKeys: boolean;
}

export interface PlaygroundAttendOptions {
  /** T vectors of size D, row-major (self-attention: queries = keys = values) */
  x: Float32Array | ArrayLike<number>;
  T: number;
  D: number;
  score?: PlaygroundScore;
  mode?: 'global' | 'local-m' | 'local-p';
  /** Luong window half-width D (local modes) */
  window?: number;
  /** keys [0, validKeys) are attended (padding mask by length) */
  validKeys?: number;
  /** key j allowed for query i only if j <= i (global mode) */
  causal?: boolean;
  /** initialises the score's parameters (general, additive, location, local-p) */
  seed?: number;
}

export interface PlaygroundAttendResult {
  /** raw scores before mask and softmax, (T, T) */
  scores: Float32Array;
  /** 1 where a key is allowed, (T, T) */
  mask: Float32Array;
  /** softmax weights, (T, T); rows of fully masked queries are 0 */
  weights: Float32Array;
  /** attention output, (T, D) */
  out: Float32Array;
  /** local-p only: the predicted centres p_t, (T) */
  positions?: Float32Array;
}

export interface PlaygroundMultiheadResult {
  /** (heads, T, T) */
  heads: Float32Array;
  /** (T, T), the average over heads */
  weights: Float32Array;
  /** (T, E) */
  out: Float32Array;
  disagreement: { subspace: number; position: number; output: number };
}

export interface RecsysFitOptions {
  /** passes over the training samples (default DIN 6, AutoInt 5) */
  epochs?: number;
  batchSize?: number;
  /** Adam learning rate, default 3e-3 */
  lr?: number;
  /** seeds the data, the initialisation and the batch order */
  seed?: number;
  /** training / test samples (DIN 12000 / 3000, AutoInt 8000 / 3000) */
  train?: number;
  test?: number;
}

export interface RecsysEpoch {
  epoch: number;
  /** mean training loss (binary cross-entropy) of the epoch */
  loss: number;
  /** test ROC-AUC after the epoch */
  auc: number;
}

export interface DinOptions extends RecsysFitOptions {
  /** 'attention': DIN's unnormalized activation weights (the paper); 'softmax': normalized;
   *  'sum': the paper's Base model (sum pooling, no attention) */
  pooling?: 'attention' | 'softmax' | 'sum';
  /** test histories returned with their weights (default 8) */
  examples?: number;
}

export interface DinResult {
  history: RecsysEpoch[];
  params: number;
  /** histories are padded to T behaviours */
  T: number;
  examples?: {
    n: number;
    /** (n) valid behaviours per history */
    len: Int32Array;
    /** (n, T) category of each behaviour */
    cats: Int32Array;
    /** (n) the candidate's category, behaviours of that category, clicked (0/1) */
    candCat: Int32Array; nSame: Int32Array; label: Int32Array;
    /** (n) predicted click probability */
    prob: Float32Array;
    /** (n, T) activation weight per behaviour (0 on padding; DIN's may be negative) */
    weights: Float32Array;
  };
}

export interface AutoIntOptions extends RecsysFitOptions {
  /** interacting layers (0 = no interaction: logistic regression on the embeddings) */
  layers?: number; heads?: number; headDim?: number; embedDim?: number; residual?: boolean;
  /** synthetic data: fields, values per field, the planted interacting pair */
  fields?: number; vocab?: number; fieldA?: number; fieldB?: number;
}

export interface AutoIntResult {
  history: RecsysEpoch[];
  params: number;
  fields: number; layers: number; heads: number; fieldA: number; fieldB: number;
  /** (layers, heads, fields, fields): row = the attending field, mean over 1000 test samples */
  attention: Float32Array;
}

export interface Attnlab {
  /** The raw Embind module (advanced use). */
  readonly module: unknown;
  simdInfo(): SimdInfo;
  /** Bytes in use on the wasm heap and the heap's size. */
  /**
   * Heap bytes in use, heap size, stack pointer and live JS handles of the module:
   * all unchanged by a rejected call (every Error path frees what it took).
   */
  memory(): { used: number; heap: number; stack: number; handles: number };
  /** The score functions, from the library's one score table (a test checks this list against PlaygroundScore). */
  scoreKinds(): ScoreKindInfo[];
  MMoE: typeof MMoE;
  playground: {
    attend(o: PlaygroundAttendOptions): PlaygroundAttendResult;
    multihead(o: { x: Float32Array | ArrayLike<number>; T: number; E: number; heads?: number;
      causal?: boolean; validKeys?: number; seed?: number }): PlaygroundMultiheadResult;
  };
  /** Click-through models with attention, trained in one call on synthetic data. */
  recsys: {
    din(opts?: DinOptions): DinResult;
    autoint(opts?: AutoIntOptions): AutoIntResult;
  };
  data: {
    /** The MMoE paper's synthetic two-task data: x (n*dim), y (n*2). */
    mmoeSynthetic(opts?: MMoESyntheticOptions): { x: Float32Array; y: Float32Array };
    /**
     * Example pairs for Seq2Seq.fit: distinct numbers in [0, max] written out in words and as
     * digits ("forty two" <-> "42"; 'zh': Chinese numerals, 四十二), seeded.
     */
    numberPairs(opts?: { count?: number; max?: number; seed?: number; language?: 'en' | 'zh'; direction?: 'words-digits' | 'digits-words' }): [string, string][];
  };
  /** Softmax of one row of logits (max subtracted, so +-1e4 stays finite). */
  softmax(logits: Float32Array | ArrayLike<number>): Float32Array;
  kernels: {
    selftest(seed?: number): KernelSelftest;
    list(): { name: string; tile: number }[];
    bench(name: string, shape: number[], opts?: { minMs?: number; withRef?: boolean }): KernelBench;
    peakGflops(minMs?: number): number;
    /** ms per forward, timed inside wasm: 'sdpa' (T x D) or 'mha' (T x D, heads). */
    attention(op: 'sdpa' | 'mha', opts?: { T?: number; D?: number; heads?: number; minMs?: number }): number;
  };
}

/** Loads the wasm module once; later calls return the same promise. */
export function load(opts?: LoadOptions): Promise<Attnlab>;
export default load;

// ---------------------------------------------------------------- HAN
export interface HANConfig {
  vocab: number; emb: number; wordHidden: number; sentHidden: number;
  wordCtx: number; sentCtx: number; classes: number;
  /** tokenizer truncation: sentences kept, words per sentence */
  maxSentences: number; maxWords: number;
  /** class names (2 or more), e.g. ['ham', 'spam'] or a model's own labels */
  labels: string[];
  /** how input is read: 'email' (RFC 822 / MIME / HTML) or 'text' (plain text) */
  format: 'email' | 'text';
}

export interface HANWord {
  /** the word as written in the sentence */
  text: string;
  /** what the model saw: lowercased, <num>, <url>, <email> or <unk> */
  token: string;
  /** word attention within its sentence (sums to 1 per sentence) */
  weight: number;
  /** sqrt(sentence weight) * word weight */
  score: number;
  /** classify(text, { attribution }) only: the word's attribution to log p(label) */
  attribution?: number;
  /** classify(text, { attribution }) only: word weight x sentence weight */
  attention?: number;
}

/** Options of classify(text, opts) and translate(text, opts) that add attribution. */
export interface AttributionOptions {
  /** 'grad': gradient x input; 'ig': integrated gradients from `baseline` (default the zero embedding) */
  attribution: 'grad' | 'ig';
  /** integrated gradients' interpolation steps, whole number in [1, 1024] (default 32) */
  steps?: number;
  /**
   * 'ig' only: what every input token's embedding is compared with (default 'zero').
   * 'zero': the zero embedding; 'unk' / 'pad': the embedding of the <unk> / <pad> token put at
   * every input token; or the values (finite numbers): `config.emb` of them (one embedding put at
   * every token) or tokens x `config.emb` (one embedding per input token, in reading order: for
   * HAN word by word through the sentences as `sentences[s].words[t]` lists them). Any other
   * size, a non-finite value, an empty array, another string, or a baseline with 'grad' throws
   * an Error (the model stays usable).
   */
  baseline?: 'zero' | 'unk' | 'pad' | Float32Array | number[];
  /** tokens removed in the removal check; 0 = 10% of the input tokens, at least 1 (default 0) */
  topk?: number;
}

/** The counterfactual check: the explained probability after removing the top-k tokens. */
export interface RemovalResult {
  /** tokens removed */
  k: number;
  /** the probability before removal */
  prob: number;
  /** the top-k tokens by attention removed; `removed` lists them ([sentence, word] for HAN, input index for seq2seq) */
  byAttention: { prob: number | null; removed: Array<[number, number]> | number[] };
  /** the top-k tokens by attribution (most supporting first) removed */
  byAttribution: { prob: number | null; removed: Array<[number, number]> | number[] };
}

export interface HANExplain {
  method: 'grad' | 'ig';
  steps: number;
  /** the explained class (the predicted one) */
  target: number;
  /** Kendall tau-b between attention and |attribution| over the words; null when undefined (one word, or constant) */
  tau: number | null;
  /** log p(target) at the input */
  f: number;
  /** 'ig': log p(target) at the baseline; the attributions sum to f - fBaseline */
  fBaseline: number | null;
  removal: RemovalResult;
}

export interface HANSentence {
  text: string;
  /** sentence attention (sums to 1 over the message) */
  weight: number;
  words: HANWord[];
}

export interface HANClassification {
  label: string;
  labelId: number;
  /** the class names, in the order of probs (a copy of config.labels) */
  labels: string[];
  /** one probability per class, in config.labels order */
  probs: number[];
  /** the input was longer than the model's limits and was cut */
  truncated: boolean;
  /** The message had no words: probs are the model's answer to an empty document, not a verdict. */
  empty: boolean;
  /** empty when the text has no words */
  sentences: HANSentence[];
  /** classify(text, { attribution }) only */
  explain?: HANExplain;
}

/**
 * Hierarchical attention network (word and sentence attention) over 2 or more
 * named classes: the spam model (ham, spam) or a model trained on your labelled
 * documents (`attnlab train han --train`). Owns wasm memory: call delete() when
 * done (a deleted object throws).
 */
export interface HAN extends ModelHandle<HANConfig> {}
export declare class HAN {
  private constructor();
  static fromBytes(bytes: Uint8Array | ArrayBuffer): HAN;
  static fromUrl(url: string | URL, init?: RequestInit): Promise<HAN>;
  /** the class names, in the order of probs */
  readonly labels: string[];
  /** A raw message (RFC 822, plain text or HTML) or plain text (format 'text'), tokenized as in training. */
  classify(text: string): HANClassification;
  /** With attribution beside attention: words get `attribution` and `attention`, the result `explain`. */
  classify(text: string, opts: AttributionOptions): HANClassification & { explain: HANExplain };
}

export interface Attnlab {
  HAN: typeof HAN;
}

// ---------------------------------------------------------------- Seq2Seq
export interface Seq2SeqInfo {
  kind: 'seq2seq';
  /** additive | general | dot | scaled_dot | local_p */
  score: string;
  config: {
    task: string; rnn: 'gru' | 'lstm'; bidirectional: boolean; input_feed: boolean; score: string;
    emb: number; enc_hidden: number; attn_dim: number; local_window: number; combine: number;
    max_src_len: number; max_tgt_len: number; uppercase: boolean; output_sep: string;
    src_vocab: number; tgt_vocab: number;
    /**
     * Models trained on your own pairs (`attnlab train seq2seq`): how text becomes tokens on
     * each side, 'char' (Unicode code points) or 'word' (whitespace-separated). Absent in
     * the shipped G2P and dates models (one character per token).
     */
    src_tokens?: 'char' | 'word'; tgt_tokens?: 'char' | 'word';
  };
  /** token strings; ids 0..3 are <pad> <unk> <s> </s> */
  srcVocab: string[];
  tgtVocab: string[];
}

export interface TranslateOptions {
  /** beam width, 1 = greedy (default 1) */
  beam?: number;
  /** longest output in tokens; 0 = the model's limit (default 0) */
  maxLen?: number;
  /** GNMT length normalization exponent for beam search (default 0.6; 0 = none) */
  alpha?: number;
  /**
   * decoder arithmetic (default 'int8'): 'int8' / 'int16' quantize the decoder's matrices
   * (one scale per row) and each step's inputs to int16: 3-4x faster than 'f32' for the
   * G2P model; probabilities move by about 1e-3 (int8) or 1e-4 (int16). 'f32' is float32
   * throughout, the same arithmetic as training.
   */
  precision?: 'int8' | 'int16' | 'f32';
  /**
   * Transformer models: return every layer's and head's attention (default true); they come
   * from a float32 pass after the decode, which costs more than the decode (Translation.headsMs)
   */
  heads?: boolean;
  /** beam search: also return every finished hypothesis, best first, in `nBest` (default false) */
  nBest?: boolean;
  /** add `attribution` to the result (RNN and Transformer models) */
  attribution?: 'grad' | 'ig';
  /** integrated gradients' steps, whole number in [1, 1024] (default 32) */
  steps?: number;
  /** inputs removed in the removal check; 0 = 10% of the inputs, at least 1 (default 0) */
  topk?: number;
}

/**
 * One output of the decoder: a finished hypothesis of the beam (TranslateOptions.nBest), and
 * the part of a Translation that describes its output.
 */
export interface Hypothesis {
  /** output tokens (phonemes, characters or words), without </s> */
  tokens: string[];
  /** tokens joined with config.output_sep (' ' for phonemes and word tokens, '' for dates and char tokens) */
  text: string;
  /** probability of each output token when it was chosen */
  probs: Float32Array;
  /** attention weights, rows x cols row-major: rows = these output tokens, cols = input tokens */
  attention: Float32Array;
  rows: number;
  cols: number;
  /** sum of log-probabilities including </s> */
  logprob: number;
  /** the beam's ranking score: logprob / ((5 + length) / 6)^alpha (length counts </s>), logprob when alpha = 0 */
  score: number;
  /** probability of </s> at the end (0 if the output was cut at maxLen) */
  eosProb: number;
}

export interface Seq2SeqAttribution {
  method: 'grad' | 'ig';
  steps: number;
  rows: number;
  cols: number;
  /** rows x cols: output token t's log-probability (teacher-forced) attributed to input token s */
  values: Float32Array;
  /** rows x cols: the teacher-forced cross-attention (float32 decoder); Transformer models: the last
   * decoder layer's cross-attention averaged over its heads */
  attention: Float32Array;
  /** which attention `attention` is, in words (RNN: the decoder's attention weights; Transformer:
   * the last decoder layer's cross-attention, mean over heads) */
  attentionSource: string;
  /** per row: log p(output token) at the input */
  f: number[];
  /** per row ('ig'): log p at the baseline; each row of values sums to f - fBaseline */
  fBaseline: Array<number | null>;
  /** per row: Kendall tau-b between attention and |attribution| (null when undefined) */
  tau: Array<number | null>;
  tauMean: number | null;
  /** prob: p(output + </s> | input), teacher-forced; inputs ranked by attention or attribution summed over rows */
  removal: RemovalResult;
}

/** The output (its Hypothesis fields: tokens, text, probs, attention, score, ...) and what came with it. */
export interface Translation extends Hypothesis {
  /**
   * the input tokens as the model saw them (the columns of attention): upper-cased characters
   * (G2P, dates), or the code points / words of config.src_tokens, with '<unk>' for a token
   * outside the vocabulary
   */
  inputTokens: string[];
  /** time spent decoding in wasm, milliseconds (the head maps' pass, `headsMs`, not included) */
  ms: number;
  /**
   * with `heads` (Transformer models; the default): the time the per-head maps took in wasm,
   * milliseconds, a float32 pass teacher-forced on the output after decoding; about 2-3x the
   * decode's own time for the G2P model: pass `heads: false` when only the output is needed
   */
  headsMs?: number;
  /** with TranslateOptions.nBest: every finished hypothesis, best first, each output once (nBest[0] is this output) */
  nBest?: Hypothesis[];
  /**
   * Transformer models only: cross-attention (output tokens x input characters), encoder
   * self-attention (inputs x inputs) and decoder self-attention (outputs x outputs) of every
   * layer and head; `attention` is then the last layer's cross-attention averaged over heads.
   */
  heads?: { cross: HeadMaps; encSelf: HeadMaps; decSelf: HeadMaps };
  /** translate(text, { attribution }) only */
  attribution?: Seq2SeqAttribution;
}

/**
 * Seq2seq with attention (G2P on CMUdict, date normalization, or a model trained on your own
 * pairs with `attnlab train seq2seq`; RNN or Transformer). Owns wasm memory: call delete()
 * when done (a deleted object throws). translate() throws an Error for an empty input or an
 * input longer than config.max_src_len tokens; the object stays usable. A character outside
 * the source vocabulary is an Error for the shipped G2P and dates models (the message names
 * it and its 0-based position); models with config.src_tokens (your own pairs, whose
 * vocabulary is open) tokenize the input as in training and map an unknown token to '<unk>'
 * instead of throwing.
 */
/** Attention of every layer and head of a Transformer model: data is (layers, heads, rows, cols). */
export interface HeadMaps {
  layers: number;
  heads: number;
  rows: number;
  cols: number;
  data: Float32Array;
}

export interface Seq2Seq extends WasmObject {}
export declare class Seq2Seq {
  private constructor();
  static fromBytes(bytes: Uint8Array | ArrayBuffer): Seq2Seq;
  static fromUrl(url: string | URL, init?: RequestInit): Promise<Seq2Seq>;
  info(): Seq2SeqInfo;
  translate(text: string, opts?: TranslateOptions): Translation;
  /** Attention rollout (Abnar & Zuidema 2020) of self-attention maps (layers, heads, n, n) -> (n, n) row-major. */
  rollout(maps: Float32Array | number[], layers: number, heads: number, n: number): Float32Array;
  /** A new, untrained RNN seq2seq model to train on your own pairs (see TrainableSeq2Seq). */
  static create(config?: Seq2SeqCreateConfig): TrainableSeq2Seq;
}

/** The architecture and tokenization of Seq2Seq.create (defaults: `attnlab train seq2seq`'s). */
export interface Seq2SeqCreateConfig {
  /** recurrent cell (default 'gru') */
  rnn?: 'gru' | 'lstm';
  /** bidirectional encoder (default true) */
  bidirectional?: boolean;
  /** feed the attentional vector into the next decoder step (default true) */
  inputFeed?: boolean;
  /** attention score (default 'additive'; al.scoreKinds() lists them) */
  score?: string;
  /** embedding width (default 64) */
  emb?: number;
  /** encoder hidden size per direction (default 128) */
  hidden?: number;
  /** additive / local-p attention size (default: decoder hidden / 2) */
  attnDim?: number;
  /** attentional vector size (default 256) */
  combine?: number;
  /** local_p window half-width (default 3) */
  window?: number;
  /** how each side becomes tokens: Unicode code points or whitespace-separated words (default 'char') */
  srcTokens?: 'char' | 'word' | 'wordpunct';
  tgtTokens?: 'char' | 'word' | 'wordpunct';
  /** tokens seen fewer times in the training pairs become '<unk>' (default 1) */
  minCount?: number;
  /** longest source / target in tokens (0 = the longest training pair + 25%; longer pairs are left out) */
  maxSrcLen?: number;
  maxTgtLen?: number;
}

export interface Seq2SeqFitEpoch {
  /** epochs completed, counted over every fit call */
  epoch: number;
  /** optimizer steps so far */
  step: number;
  /** mean training loss (token cross-entropy) over this epoch's steps in this call */
  loss: number;
  /** greedy exact match and token error rate on the held-out pairs (at most evalLimit of them) */
  valExactMatch: number;
  valTokenErrorRate: number;
  valPairs: number;
  /** seconds since this fit call started */
  seconds: number;
}

export interface Seq2SeqFitOptions {
  /** epochs to train in this call (default 10) */
  epochs?: number;
  /** share of the sources held out for validation, seeded split by source text, [0, 0.5] (default 0.1) */
  validationSplit?: number;
  /** pairs per batch (default 32) */
  batchSize?: number;
  /** Adam learning rate after the warm-up (default 0.002) */
  lr?: number;
  /** linear warm-up steps (default 100) */
  warmup?: number;
  /** global gradient-norm clipping, 0 = off (default 1) */
  clip?: number;
  labelSmoothing?: number;
  /** initialisation, split and batch order (default 1) */
  seed?: number;
  /** held-out pairs decoded after each epoch (default 500; 0 = all) */
  evalLimit?: number;
  /** steps between yields to the event loop (default 10) */
  chunkSteps?: number;
  onEpoch?: (e: Seq2SeqFitEpoch) => void | Promise<void>;
  onStep?: (s: { step: number; epoch: number; stepsPerEpoch: number; loss: number }) => void;
  /** aborting it stops fit() after the current chunk, like stop() */
  signal?: AbortSignal;
}

/**
 * What Seq2Seq.create returns. fit() trains in chunks and yields between them, so stop() or
 * an AbortSignal ends it; fit() again with the same pairs resumes exactly where it stopped.
 * translate(), info() and save() work once fit() has been called. The first fit call fixes
 * validationSplit, batchSize, lr, warmup, clip, labelSmoothing and seed (an Error if a later
 * call gives another value).
 */
export interface TrainableSeq2Seq extends WasmObject {}
export declare class TrainableSeq2Seq {
  private constructor();
  /** pairs: [source, target][] or TSV text (one "source<TAB>target" per line) */
  fit(pairs: [string, string][] | string, options?: Seq2SeqFitOptions): Promise<{ history: Seq2SeqFitEpoch[]; stopped: boolean; epoch: number; step: number }>;
  stop(): void;
  readonly history: Seq2SeqFitEpoch[];
  stats(): { trainPairs: number; validPairs: number; tooLong: number; params: number; step: number } | null;
  translate(text: string, opts?: TranslateOptions): Translation;
  info(): Seq2SeqInfo;
  /** the model file: Seq2Seq.fromBytes and the CLI load it */
  save(dtype?: 'f32' | 'f16'): Uint8Array;
}

export interface Attnlab {
  Seq2Seq: typeof Seq2Seq;
}

// ---------------------------------------------------------------- character language model
export interface LanguageModelConfig {
  /** 'xl': relative attention with segment memory; 'baseline': absolute positions, no memory */
  arch: 'xl' | 'baseline';
  /** characters incl. the unknown symbol (U+FFFD) and the address boundary ("\n") */
  vocab: number;
  dModel: number; nHead: number; dHead: number; dInner: number; nLayer: number;
  /** training segment and memory lengths */
  segLen: number; memLen: number;
}

export interface GenerateOptions {
  /** characters to generate (default 200) */
  n?: number;
  /** sampling temperature, 0 = greedy (default 1) */
  temperature?: number;
  /** sample among the k likeliest characters, 0 = all (default 0) */
  topK?: number;
  /** same seed, prompt and options: the same text (default 0) */
  seed?: number;
  /** xl: memory rows kept while generating, 0 = segLen + memLen of training (default 0) */
  memLen?: number;
  /** record, per generated character, the attention that chose it (default false) */
  attention?: boolean;
  /** called with each new character and its 0-based index; return false to stop early */
  onToken?: (ch: string, index: number) => boolean | void;
}

/**
 * The attention of the query that chose one generated character. Positions count
 * characters of the model's input: the prompt (or "\n" for an empty prompt), then
 * the generated text. Key j is the character at query + 1 - keys + j.
 */
export interface GenerationAttention {
  /** position of the query (the character before the generated one) */
  query: number;
  keys: number;
  /** keys [0, memory) came from the Transformer-XL memory, the rest from the current segment */
  memory: number;
  layers: number;
  heads: number;
  /** (layers, heads, keys), each (layer, head) row sums to 1 */
  weights: Float32Array;
}

export interface Generated {
  text: string;
  /** number of characters (code points) in text */
  chars: number;
  /** characters of the model's input before the generated text */
  promptChars: number;
  /** one entry per generated character when opts.attention */
  attention?: GenerationAttention[];
}

/**
 * Character language model trained by `attnlab train lm` (Transformer-XL or its
 * baseline). Owns wasm memory: call delete() when done (a deleted object throws).
 */
export interface LanguageModel extends ModelHandle<LanguageModelConfig> {}
export declare class LanguageModel {
  private constructor();
  static fromBytes(bytes: Uint8Array | ArrayBuffer): LanguageModel;
  static fromUrl(url: string | URL, init?: RequestInit): Promise<LanguageModel>;
  /** continues prompt ('' = the start of an address) */
  generate(prompt?: string, opts?: GenerateOptions): Generated;
}

export interface Attnlab {
  LanguageModel: typeof LanguageModel;
}

// ---------------------------------------------------------------- layers (bring your own weights)
/** A row-major tensor with an explicit shape. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}
/** What a call accepts as a tensor: data as a Float32Array or numbers (copied), shape as numbers. */
export interface TensorInput {
  data: Float32Array | ArrayLike<number>;
  shape: ArrayLike<number>;
}
/**
 * A mask: Uint8Array / boolean[] data = bool mask, Float32Array / number[] = additive
 * (0 keeps, -Infinity blocks); `bool` overrides the guess from the data's type.
 */
export interface MaskInput {
  data: Uint8Array | Int8Array | boolean[] | Float32Array | Float64Array | number[];
  shape: ArrayLike<number>;
  bool?: boolean;
}
/**
 * Destination arrays for a call's outputs (PyTorch's `out=`): each given output is written
 * into the caller's Float32Array, which must have exactly the output's size, and returned as
 * its `data`; nothing is allocated for it. Outputs not given come back in a fresh array.
 * A wrong size, a name the call does not output, or an output the call does not compute
 * (e.g. weights with needWeights false) throws an Error; the arrays are then not written.
 */
export type Into<Names extends string> = Partial<Record<Names, Float32Array>>;
export type LayerKind = 'MultiheadAttention' | 'GRU' | 'LSTM' | 'TransformerEncoderLayer' | 'TransformerDecoderLayer';

/**
 * Common to every layer loaded from a layer file; owns wasm memory (call delete()). config: its
 * constructor arguments, PyTorch names (embed_dim, num_heads, batch_first, ...).
 */
export interface Layer extends ModelHandle<Record<string, number | boolean | string>> {}
export declare class Layer {
  protected constructor();
  /** the PyTorch class of the exported module */
  readonly kind: LayerKind;
}

/** Options of forward(); PyTorch's arguments, camelCase. batchFirst overrides the file's config. */
export interface MultiheadAttentionOptions {
  /** (B,S) or (S) unbatched, bool: true = that key is ignored (padding) */
  keyPaddingMask?: MaskInput;
  /** (T,S) or (B*num_heads,T,S): bool (true = NOT attended) or additive */
  attnMask?: MaskInput;
  /** query i attends keys j <= i (no attnMask needed alongside) */
  isCausal?: boolean;
  /** default true */
  needWeights?: boolean;
  /** default true: weights (B,T,S) averaged over heads; false: (B,H,T,S) */
  averageAttnWeights?: boolean;
  batchFirst?: boolean;
  into?: Into<'out' | 'weights'>;
}
export declare class MultiheadAttention extends Layer {
  readonly kind: 'MultiheadAttention';
  /**
   * query (T,B,E) (B,T,E with batchFirst) or (T,E); key/value null = self-attention.
   * A query whose keys are all masked gets a zero context (PyTorch: NaN).
   */
  forward(query: TensorInput, key?: TensorInput | null, value?: TensorInput | null,
    opts?: MultiheadAttentionOptions): { out: Tensor; weights: Tensor | null };
}

export interface RNNOptions {
  /** (num_layers*directions, B, H) or (num_layers*directions, H) unbatched; zeros if absent */
  h0?: TensorInput;
  /** LSTM only, like h0 */
  c0?: TensorInput;
  /** per sequence, in [1,T] (as pack_padded_sequence); outputs past a length are 0 */
  lengths?: ArrayLike<number>;
  batchFirst?: boolean;
  /** cN: LSTM only */
  into?: Into<'out' | 'hN' | 'cN'>;
}
export declare class RNN extends Layer {
  readonly kind: 'GRU' | 'LSTM';
  /** input (T,B,I) (B,T,I with batchFirst) or (T,I) -> out (.., directions*H), hN, cN (LSTM) */
  forward(input: TensorInput, opts?: RNNOptions): { out: Tensor; hN: Tensor; cN?: Tensor };
}
export declare class GRU extends RNN {
  readonly kind: 'GRU';
}
export declare class LSTM extends RNN {
  readonly kind: 'LSTM';
}

export declare class TransformerEncoderLayer extends Layer {
  readonly kind: 'TransformerEncoderLayer';
  /** src (T,B,E) / (B,T,E) / (T,E); srcMask (T,T) or (B*H,T,T); srcKeyPaddingMask (B,T) */
  forward(src: TensorInput, opts?: { srcMask?: MaskInput; srcKeyPaddingMask?: MaskInput;
    isCausal?: boolean; batchFirst?: boolean; into?: Into<'out'> }): Tensor;
}
export declare class TransformerDecoderLayer extends Layer {
  readonly kind: 'TransformerDecoderLayer';
  /** tgt (T,B,E), memory (S,B,E) (batch first: (B,..,E)); masks as nn.TransformerDecoderLayer */
  forward(tgt: TensorInput, memory: TensorInput, opts?: { tgtMask?: MaskInput; memoryMask?: MaskInput;
    tgtKeyPaddingMask?: MaskInput; memoryKeyPaddingMask?: MaskInput; tgtIsCausal?: boolean;
    batchFirst?: boolean; into?: Into<'out'> }): Tensor;
}
export type AnyLayer = MultiheadAttention | GRU | LSTM | TransformerEncoderLayer | TransformerDecoderLayer;

export interface FunctionalAttentionOptions {
  /** (Tq,S) or (B,Tq,S): bool true = NOT attended (the package's one polarity), or additive */
  mask?: MaskInput;
  /** query i attends keys j <= i */
  causal?: boolean;
}

export interface Attnlab {
  layers: {
    /** A layer file written by scripts/export_torch.py. */
    fromBytes(bytes: Uint8Array | ArrayBuffer): AnyLayer;
    fromUrl(url: string | URL, init?: RequestInit): Promise<AnyLayer>;
    kinds(): LayerKind[];
  };
  attention: {
    /** softmax(q k^T * scale + mask) v; q (B,Tq,D) k (B,S,D) v (B,S,Dv) or rank 2 */
    scaledDot(q: TensorInput, k: TensorInput, v: TensorInput,
      opts?: FunctionalAttentionOptions & { scale?: number; needWeights?: boolean; into?: Into<'out' | 'weights'> }):
      { out: Tensor; weights: Tensor | null };
    /** Bahdanau: softmax(va . tanh(wq q + wk k)) v; wq (A,Dq), wk (A,Dk), va (A); bool masks only */
    additive(q: TensorInput, k: TensorInput, v: TensorInput,
      opts: FunctionalAttentionOptions & { wq: TensorInput; wk: TensorInput; va: TensorInput;
        into?: Into<'out' | 'weights'> }):
      { out: Tensor; weights: Tensor };
  };
}
