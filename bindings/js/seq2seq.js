// Seq2seq with attention (G2P on CMUdict, date normalization).
//   const g2p = await al.Seq2Seq.fromUrl('models/g2p-cmudict/model.safetensors');
//   const r = g2p.translate('attention', { beam: 4 });
//   // r.tokens ['AH','T','EH','N','SH','AH','N'], r.probs, r.attention (rows x cols), r.inputTokens
//   g2p.delete();
// Input errors (unknown character with its position, empty input, input longer than the
// model's limit) throw a JS Error; the object stays usable.
import { checkAlive, fetchBytes } from './util.js';

export function install(api, mod) {
  class Seq2Seq {
    constructor(_handle) {
      if (!_handle) throw new Error('attnlab: use Seq2Seq.fromBytes(u8) or Seq2Seq.fromUrl(url)');
      this._h = _handle;
      this._info = JSON.parse(this._h.info());
    }
    /** Loads a model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      if (!(bytes instanceof Uint8Array || bytes instanceof ArrayBuffer))
        throw new Error('attnlab: Seq2Seq.fromBytes expects a Uint8Array or ArrayBuffer');
      const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      return new Seq2Seq(mod.Seq2SeqModel.fromBytes(u8));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return Seq2Seq.fromBytes(await fetchBytes(src, init)); }
    /** { kind, score, config, srcVocab, tgtVocab } */
    info() {
      checkAlive(this, 'Seq2Seq');
      return structuredClone(this._info);
    }
    /**
     * text -> { tokens, text, probs, attention: Float32Array (rows x cols, row-major; rows =
     * output tokens, cols = input characters), rows, cols, inputTokens, logprob, eosProb, ms }.
     * beam 1 = greedy; maxLen 0 = the model's limit; alpha = GNMT length normalization;
     * precision: 'int8' (default) or 'int16' quantized decoder matrices, or 'f32'.
     */
    translate(text, { beam = 1, maxLen = 0, alpha = 0.6, precision = 'int8' } = {}) {
      checkAlive(this, 'Seq2Seq');
      if (typeof text !== 'string') throw new Error('attnlab: translate expects a string, got ' + typeof text);
      if (typeof precision !== 'string') throw new Error("attnlab: precision must be 'int8', 'int16' or 'f32'");
      return this._h.translate(text, beam, maxLen, alpha, precision);
    }
    /** Frees the wasm memory; the object is unusable afterwards. */
    delete() { if (this._h) { this._h.delete(); this._h = null; } }
    get deleted() { return !this._h; }
  }
  api.Seq2Seq = Seq2Seq;
}
