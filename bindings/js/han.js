// HAN: hierarchical attention network (word and sentence attention) over the
// model's named classes (spam vs ham, or the labels of `attnlab train han --train`).
//   const han = await al.HAN.fromUrl('models/han-spam/model.safetensors');
//   const r = han.classify(emailText);
//   // { label: 'spam', labels: ['ham', 'spam'], probs: [p_ham, p_spam], truncated, empty,
//   //   sentences: [{ text, weight, words: [{ text, token, weight, score }] }] }
//   han.delete();
// The text goes through the same C++ tokenizer as training (format 'email': MIME,
// HTML, sentences, <num>/<url>/<email>; format 'text': sentences and words of plain
// text; truncation to the model's limits).
// score = sqrt(sentence weight) * word weight, as in the paper's figures.
// han.classify(text, { attribution: 'ig', steps: 32, baseline: 'unk' }) adds attribution beside
// attention (explain/attribution.hpp): per word `attribution` and `attention`, and `explain`
// (Kendall tau, the top-k removal check). baseline (IG only): 'zero' (default) | 'unk' | 'pad'
// | Float32Array of config.emb values or of words x config.emb (one embedding per word).
import { WasmObject, camelKeys, fetchBytes, plain, toU8 } from './util.js';

export function install(api, mod) {
  class HAN extends WasmObject {
    constructor(_handle) {
      super(_handle, 'HAN');
      const { vocab, emb, wordHidden, sentHidden, wordCtx, sentCtx, classes, maxSentences, maxWords, labels,
        format = 'email' } = camelKeys(JSON.parse(this._h.config()));
      this.config = {
        vocab, emb, wordHidden, sentHidden, wordCtx, sentCtx, classes, maxSentences, maxWords, labels, format,
      };
    }
    /** Loads a HAN model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab). */
    static fromBytes(bytes) {
      return new HAN(mod.HANModel.fromBytes(toU8(bytes, 'HAN.fromBytes')));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return HAN.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { return this.handle.paramCount(); }
    /** The class names, in the order of `probs`. */
    get labels() { return this.config.labels.slice(); }
    /**
     * Classifies one message (raw RFC 822, plain text or HTML). A message with no
     * words the model knows gets `empty: true` and the prior of an empty document.
     */
    classify(text, opts) {
      if (opts !== undefined && opts !== null) return this._explained(text, opts);
      const r = JSON.parse(this.handle.classify(text));
      return {
        label: r.label, labelId: r.label_id, labels: this.config.labels.slice(), probs: r.probs,
        truncated: r.truncated,
        empty: r.empty, sentences: r.sentences,
      };
    }
    // classify(text, { attribution: 'grad' | 'ig', steps, baseline, topk }): each word also gets
    // `attribution` (to log p(label)) and `attention` (word weight x sentence weight), and the
    // result `explain`: { method, steps, tau, f, fBaseline, removal: { k, prob,
    // byAttention: { prob, removed: [[s, t]] }, byAttribution: { prob, removed } } }.
    _explained(text, opts) {
      const r = JSON.parse(this.handle.classifyExplained(text, plain(opts)));
      const e = r.explain;
      const side = (x) => ({ prob: x.prob, removed: x.removed });
      return {
        label: r.label, labelId: r.label_id, labels: this.config.labels.slice(), probs: r.probs,
        truncated: r.truncated, empty: r.empty, sentences: r.sentences,
        explain: {
          method: e.method, steps: e.steps, target: e.target, tau: e.tau, f: e.f, fBaseline: e.f_baseline,
          removal: { k: e.removal.k, prob: e.removal.prob, byAttention: side(e.removal.by_attention),
            byAttribution: side(e.removal.by_attribution) },
        },
      };
    }
  }
  api.HAN = HAN;
}
