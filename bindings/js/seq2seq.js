// Seq2seq with attention (G2P on CMUdict, date normalization).
//   const g2p = await al.Seq2Seq.fromUrl('models/g2p-cmudict/model.safetensors');
//   const r = g2p.translate('attention', { beam: 4 });
//   // r.tokens ['AH','T','EH','N','SH','AH','N'], r.probs, r.attention (rows x cols), r.inputTokens
//   g2p.delete();
// Models trained on your own pairs (attnlab train seq2seq) tokenize the input as in training
// (characters or words, config.src_tokens) and map an unseen token to '<unk>'; their output
// is joined with '' (char tokens) or ' ' (word tokens).
// Input errors (empty input, input longer than the model's limit; for the shipped G2P and
// dates models also an unknown character, with its position) throw a JS Error; the object
// stays usable.
import { WasmObject, fetchBytes, plain, toU8 } from './util.js';

// fit options fixed by the first call (they shape the split, the batches and the optimizer)
const FIXED = ['validationSplit', 'batchSize', 'lr', 'warmup', 'clip', 'labelSmoothing', 'seed'];

export function install(api, mod) {
  class Seq2Seq extends WasmObject {
    constructor(_handle) {
      super(_handle, 'Seq2Seq');
      this._info = JSON.parse(this._h.info());
    }
    /** Loads a model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      return new Seq2Seq(mod.Seq2SeqModel.fromBytes(toU8(bytes, 'Seq2Seq.fromBytes')));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return Seq2Seq.fromBytes(await fetchBytes(src, init)); }
    /** { kind, score, config, srcVocab, tgtVocab } */
    info() {
      this.handle;
      return structuredClone(this._info);
    }
    /**
     * text -> { tokens, text, probs, attention: Float32Array (rows x cols, row-major; rows =
     * output tokens, cols = input characters), rows, cols, inputTokens, logprob, eosProb, ms }.
     * beam 1 = greedy; maxLen 0 = the model's limit; alpha = GNMT length normalization;
     * precision: 'int8' (default) or 'int16' quantized decoder matrices, or 'f32'.
     * attribution: 'grad' (gradient x input) or 'ig' (integrated gradients, `steps`, default 32)
     * adds `attribution`: { method, steps, rows, cols, values (rows x cols: output step t's log p
     * attributed to input token s), attention (the teacher-forced cross-attention; Transformer
     * models: the last decoder layer's, mean over heads), attentionSource (that, in words), f,
     * fBaseline, tau (per row, Kendall tau-b of attention vs |attribution|), tauMean, removal:
     * { k, prob, byAttention: { prob, removed }, byAttribution: { prob, removed } } }, for RNN and
     * Transformer models.
     */
    translate(text, opts = {}) {
      if (opts === null || typeof opts !== 'object' || opts.attribution === undefined) {
        return this.handle.translate(text, plain(opts));
      }
      const o = plain(opts);
      const e = JSON.parse(this.handle.explain(text, o));  // options checked before any work
      const r = this.handle.translate(text, o);
      const side = (x) => ({ prob: x.prob, removed: x.removed });
      r.attribution = {
        method: e.method, steps: e.steps, rows: e.rows, cols: e.cols, attentionSource: e.attention_source,
        values: Float32Array.from(e.attribution), attention: Float32Array.from(e.attention),
        f: e.f, fBaseline: e.f_baseline, tau: e.tau, tauMean: e.tau_mean,
        removal: { k: e.removal.k, prob: e.removal.prob, byAttention: side(e.removal.by_attention),
          byAttribution: side(e.removal.by_attribution) },
      };
      return r;
    }
    /** Attention rollout (Abnar & Zuidema 2020) of self-attention maps (layers, heads, n, n) -> (n, n). */
    rollout(maps, layers, heads, n) {
      return this.handle.rollout(maps, layers, heads, n);
    }
    /**
     * A new, untrained RNN seq2seq model (encoder-decoder with attention) to train on your
     * own pairs with fit(). config: { rnn: 'gru' | 'lstm', bidirectional, inputFeed, score,
     * emb, hidden, attnDim, combine, window, srcTokens: 'char' | 'word' | 'wordpunct', tgtTokens,
     * minCount, maxSrcLen, maxTgtLen } (all optional; the defaults are the CLI's
     * `attnlab train seq2seq` defaults). The vocabularies come from the first fit's pairs.
     */
    static create(config = {}) {
      if (config === null || typeof config !== 'object') throw new Error('attnlab: Seq2Seq.create: expected a config object');
      return new TrainableSeq2Seq(plain(config));
    }
  }

  class TrainerHandle extends WasmObject {}

  /** What Seq2Seq.create() returns: fit(), stop(), then translate() and save() as any model. */
  class TrainableSeq2Seq {
    constructor(config) {
      this._config = config;
      this._trainer = null;
      this._model = null;
      this._stop = false;
      this._deleted = false;
      /** one record per finished epoch: { epoch, step, loss, valExactMatch, valTokenErrorRate, valPairs, seconds } */
      this.history = [];
    }
    _live() {
      if (this._deleted) throw new Error('attnlab: this Seq2Seq was deleted; create or load a new one');
    }
    /**
     * Trains for `epochs` more epochs on `pairs` (an array of [source, target] strings or TSV
     * text), yielding to the event loop between chunks of `chunkSteps` steps, so stop() (or an
     * AbortSignal `signal`) ends it after the current chunk. Calling fit() again with the same
     * pairs resumes where it stopped (same model, optimizer state and batch order).
     * options: { epochs = 10, validationSplit = 0.1, batchSize = 32, lr = 0.002, warmup = 100,
     * clip = 1, labelSmoothing = 0, seed = 1, evalLimit = 500, chunkSteps = 10, onEpoch(record),
     * onStep({ step, epoch, stepsPerEpoch, loss }), signal }. The first call fixes
     * validationSplit, batchSize, lr, warmup, clip, labelSmoothing and seed.
     * Returns a promise of { history, stopped, epoch, step }; bad pairs or options throw at once.
     */
    fit(pairs, options = {}) {
      // checked and set up synchronously: bad pairs or options throw here, before any await
      this._live();
      const o = plain(options) || {};
      const epochs = o.epochs === undefined ? 10 : o.epochs;
      if (!Number.isInteger(epochs) || epochs < 0 || epochs > 100000) throw new Error(`attnlab: fit: epochs: expected a whole number in [0, 100000], got ${epochs}`);
      const chunk = o.chunkSteps === undefined ? 10 : o.chunkSteps;
      if (!Number.isInteger(chunk) || chunk < 1 || chunk > 1 << 20) throw new Error(`attnlab: fit: chunkSteps: expected a whole number in [1, ${1 << 20}], got ${chunk}`);
      const evalLimit = o.evalLimit === undefined ? 500 : o.evalLimit;
      if (!Number.isInteger(evalLimit) || evalLimit < 0) throw new Error(`attnlab: fit: evalLimit: expected a whole number >= 0, got ${evalLimit}`);
      for (const f of ['onEpoch', 'onStep']) if (o[f] !== undefined && typeof o[f] !== 'function') throw new Error(`attnlab: fit: ${f}: expected a function`);
      const fixed = {};
      for (const k of FIXED) if (o[k] !== undefined) fixed[k] = o[k];
      if (!this._trainer) {
        const h = mod.Seq2SeqTrainer.create(this._config, pairs, fixed);
        this._trainer = new TrainerHandle(h, 'Seq2Seq');
        this._model = new Seq2Seq(h.model());
        this._pairs = pairs;
        this._fixed = fixed;
        this._epoch = 0;
      } else {
        if (pairs !== this._pairs) throw new Error('attnlab: fit: these are not the pairs the first fit call used; to train on other pairs create a new model (Seq2Seq.create)');
        for (const k of Object.keys(fixed))
          if (fixed[k] !== this._fixed[k]) throw new Error(`attnlab: fit: ${k} is fixed by the first fit call (${this._fixed[k] === undefined ? 'default' : this._fixed[k]}); create a new model to change it`);
      }
      this._stop = false;
      return this._loop(epochs, chunk, evalLimit, o);
    }
    async _loop(epochs, chunk, evalLimit, o) {
      const t = this._trainer.handle;
      const target = this._epoch + epochs;
      const t0 = performance.now();
      let lossSum = 0, n = 0, stopped = false, step = t.stats().step;
      while (this._epoch < target) {
        if (this._stop || (o.signal && o.signal.aborted) || this._deleted) { stopped = true; break; }
        const r = t.run(chunk);
        lossSum += r.loss * r.steps;
        n += r.steps;
        step = r.step;
        if (o.onStep) o.onStep({ step: r.step, epoch: r.epoch, stepsPerEpoch: r.stepsPerEpoch, loss: r.loss });
        if (r.epochEnd) {
          this._epoch = r.epoch;
          const e = t.evaluate(evalLimit);
          const rec = { epoch: r.epoch, step: r.step, loss: n ? lossSum / n : 0, valExactMatch: e.exactMatch,
            valTokenErrorRate: e.tokenErrorRate, valPairs: e.pairs, seconds: (performance.now() - t0) / 1000 };
          this.history.push(rec);
          lossSum = 0;
          n = 0;
          if (o.onEpoch) await o.onEpoch(rec);
        }
        await new Promise((res) => setTimeout(res, 0));  // let stop() and other messages in
      }
      return { history: this.history.slice(), stopped, epoch: this._epoch, step };
    }
    /** Ends a running fit() after its current chunk of steps (resume with fit()). */
    stop() { this._stop = true; }
    /** { trainPairs, validPairs, tooLong, params, step } (after the first fit call) */
    stats() { this._live(); return this._trainer ? this._trainer.handle.stats() : null; }
    _trained() {
      this._live();
      if (!this._model) throw new Error('attnlab: this Seq2Seq has not been trained yet: call fit(pairs) first');
      return this._model;
    }
    /** As Seq2Seq.translate, with the weights trained so far. */
    translate(text, opts = {}) { return this._trained().translate(text, opts); }
    /** As Seq2Seq.info. */
    info() { return this._trained().info(); }
    /** The model file (dtype 'f32' or 'f16'): Seq2Seq.fromBytes loads it, and so does the CLI. */
    save(dtype = 'f32') { this._trained(); return this._trainer.handle.save(dtype); }
    /** Frees the wasm memory; a running fit() stops after its current chunk. */
    delete() {
      if (this._deleted) return;
      this._deleted = true;
      if (this._model) this._model.delete();
      if (this._trainer) this._trainer.delete();
    }
    get deleted() { return this._deleted; }
  }
  api.Seq2Seq = Seq2Seq;
  /**
   * Example pairs for Seq2Seq.fit: numbers written out in words and as digits.
   * { count = 5000, max = 999999, seed = 1, language: 'en' | 'zh', direction: 'words-digits' | 'digits-words' }
   */
  api.data = api.data || {};
  api.data.numberPairs = (opts = {}) => mod.numberPairs(plain(opts));
}
