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
     * attributed to input token s), attention (the teacher-forced cross-attention), f, fBaseline,
     * tau (per row, Kendall tau-b of attention vs |attribution|), tauMean, removal: { k, prob,
     * byAttention: { prob, removed }, byAttribution: { prob, removed } } } (RNN models only).
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
        method: e.method, steps: e.steps, rows: e.rows, cols: e.cols,
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
  }
  api.Seq2Seq = Seq2Seq;
}
