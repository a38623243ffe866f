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
     */
    translate(text, opts = {}) {
      return this.handle.translate(text, plain(opts));
    }
  }
  api.Seq2Seq = Seq2Seq;
}
