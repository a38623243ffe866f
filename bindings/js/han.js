// HAN: hierarchical attention network (word and sentence attention) for spam.
//   const han = await al.HAN.fromUrl('models/han-spam/model.safetensors');
//   const r = han.classify(emailText);
//   // { label: 'spam', probs: [p_ham, p_spam], truncated, empty,
//   //   sentences: [{ text, weight, words: [{ text, token, weight, score }] }] }
//   han.delete();
// The text goes through the same C++ tokenizer as training (MIME, HTML,
// sentences, <num>/<url>/<email>, truncation to the model's limits).
// score = sqrt(sentence weight) * word weight, as in the paper's figures.
import { WasmObject, fetchBytes, toU8 } from './util.js';

export function install(api, mod) {
  class HAN extends WasmObject {
    constructor(_handle) {
      super(_handle, 'HAN');
      const c = JSON.parse(this._h.config());
      this.config = {
        vocab: c.vocab, emb: c.emb, wordHidden: c.word_hidden, sentHidden: c.sent_hidden,
        wordCtx: c.word_ctx, sentCtx: c.sent_ctx, classes: c.classes,
        maxSentences: c.max_sentences, maxWords: c.max_words, labels: c.labels,
      };
    }
    /** Loads a HAN model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      return new HAN(mod.HANModel.fromBytes(toU8(bytes, 'HAN.fromBytes')));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return HAN.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { return this.handle.paramCount(); }
    /**
     * Classifies one message (raw RFC 822, plain text or HTML). A message with no
     * words the model knows gets `empty: true` and the prior of an empty document.
     */
    classify(text) {
      const r = JSON.parse(this.handle.classify(text));
      return {
        label: r.label, labelId: r.label_id, probs: r.probs, truncated: r.truncated,
        empty: r.empty, sentences: r.sentences,
      };
    }
  }
  api.HAN = HAN;
}
