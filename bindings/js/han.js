// HAN: hierarchical attention network (word and sentence attention) for spam.
//   const han = await al.HAN.fromUrl('models/han-spam/model.safetensors');
//   const r = han.classify(emailText);
//   // { label: 'spam', probs: [p_ham, p_spam], truncated,
//   //   sentences: [{ text, weight, words: [{ text, token, weight, score }] }] }
//   han.delete();
// The text goes through the same C++ tokenizer as training (MIME, HTML,
// sentences, <num>/<url>/<email>, truncation to the model's limits).
// score = sqrt(sentence weight) * word weight, as in the paper's figures.
import { checkAlive, fetchBytes } from './util.js';

export function install(api, mod) {
  class HAN {
    constructor(_handle) {
      if (!_handle) throw new Error('attnlab: create a HAN with HAN.fromBytes(bytes) or HAN.fromUrl(url)');
      this._h = _handle;
      const c = JSON.parse(this._h.config());
      this.config = {
        vocab: c.vocab, emb: c.emb, wordHidden: c.word_hidden, sentHidden: c.sent_hidden,
        wordCtx: c.word_ctx, sentCtx: c.sent_ctx, classes: c.classes,
        maxSentences: c.max_sentences, maxWords: c.max_words, labels: c.labels,
      };
    }
    /** Loads a HAN model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      if (!(bytes instanceof Uint8Array || bytes instanceof ArrayBuffer))
        throw new Error('attnlab: HAN.fromBytes expects a Uint8Array or ArrayBuffer');
      const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      return new HAN(mod.HANModel.fromBytes(u8));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return HAN.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { checkAlive(this, 'HAN'); return this._h.paramCount(); }
    /** Classifies one message (raw RFC 822, plain text or HTML). */
    classify(text) {
      checkAlive(this, 'HAN');
      if (typeof text !== 'string') throw new Error(`attnlab: HAN.classify expects a string, got ${text === null ? 'null' : typeof text}`);
      const r = JSON.parse(this._h.classify(text));
      return {
        label: r.label, labelId: r.label_id, probs: r.probs, truncated: r.truncated,
        sentences: r.sentences,
      };
    }
    /** Frees the wasm memory; the object is unusable afterwards. */
    delete() { if (this._h) { this._h.delete(); this._h = null; } }
    get deleted() { return !this._h; }
  }
  api.HAN = HAN;
}
