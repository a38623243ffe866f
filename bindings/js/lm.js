// LanguageModel: a character language model (Transformer-XL with segment
// memory, or its memory-less baseline) trained by `attnlab train lm`.
//   const lm = await al.LanguageModel.fromUrl('models/xl-sotu/model.safetensors');
//   const { text } = lm.generate('Fellow-Citizens', { n: 300, temperature: 0.8, topK: 20, seed: 1,
//                                                    onToken: (ch, i) => out.append(ch) });
//   lm.delete();
// The same prompt, options and seed give the same text. Transformer-XL reads
// each new character as a segment of one and carries its memory (memLen rows,
// default segLen + memLen of training) from segment to segment.
import { WasmObject, checkAlive, fetchBytes, toU8 } from './util.js';

export function install(api, mod) {
  class LanguageModel extends WasmObject {
    constructor(_handle) {
      super(_handle, 'LanguageModel');
      const c = JSON.parse(this._h.config());
      this.config = {
        arch: c.arch, vocab: c.vocab, dModel: c.d_model, nHead: c.n_head, dHead: c.d_head,
        dInner: c.d_inner, nLayer: c.n_layer, segLen: c.seg_len, memLen: c.mem_len,
      };
    }
    /** Loads a model file (Uint8Array or ArrayBuffer of a .safetensors written by attnlab train lm). */
    static fromBytes(bytes) {
      return new LanguageModel(mod.CharLMModel.fromBytes(toU8(bytes, 'LanguageModel.fromBytes')));
    }
    /** Loads from a URL (fetch), or in Node from a file path too. */
    static async fromUrl(src, init) { return LanguageModel.fromBytes(await fetchBytes(src, init)); }
    get paramCount() { checkAlive(this, 'LanguageModel'); return this._h.paramCount(); }
    /**
     * Continues `prompt` (empty = the start of an address) by n characters.
     * onToken(ch, i) is called for each new character; return false to stop early.
     * attention: true adds, per generated character, the attention of the query
     * that chose it (the character before): weights (layers, heads, keys) over the
     * keys query+1-keys .. query of the model's input (prompt, or "\n" for an empty
     * prompt, then the generated text); keys [0, memory) came from the XL memory.
     */
    generate(prompt = '', { n = 200, temperature = 1, topK = 0, seed = 0, memLen = 0, attention = false, onToken } = {}) {
      checkAlive(this, 'LanguageModel');
      if (typeof prompt !== 'string') throw new Error(`attnlab: LanguageModel.generate expects a string prompt, got ${prompt === null ? 'null' : typeof prompt}`);
      if (onToken !== undefined && typeof onToken !== 'function') throw new Error('attnlab: onToken must be a function');
      let failure = null;
      const cb = onToken && ((ch, i) => {
        try {
          return onToken(ch, i) !== false;
        } catch (e) {
          failure = e;  // stop, then rethrow outside the wasm frames
          return false;
        }
      });
      const r = this._h.generate(prompt, { n, temperature, topK, seed, memLen, attention }, cb);
      if (failure) throw failure;
      const out = { text: r.text, chars: [...r.text].length, promptChars: r.promptChars };
      if (attention) {
        const { nLayer, nHead } = this.config;
        out.attention = r.attention.map((a) => ({ ...a, layers: nLayer, heads: nHead }));
      }
      return out;
    }
  }
  api.LanguageModel = LanguageModel;
}
