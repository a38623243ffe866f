// Bring your own weights: PyTorch layers exported by scripts/export_torch.py, run on
// your tensors, and functional attention.
//   const mha = al.layers.fromBytes(bytes);   // kind 'MultiheadAttention', config {...}
//   const { out, weights } = mha.forward(query, key, value, { keyPaddingMask, attnMask });
//   mha.delete();
//   al.attention.scaledDot(q, k, v, { mask, causal });
// A tensor is { data: Float32Array, shape: number[] } (row-major). Layouts follow
// PyTorch: batch_first false (the PyTorch default) = (T,B,E), true = (B,T,E); a call's
// { batchFirst } overrides the file's config; a rank-2 input is one unbatched sequence.
// Masks are { data, shape }: a Uint8Array / boolean[] data is a bool mask, a
// Float32Array / number[] an additive one (0 keep, -Infinity block). Bool polarity as
// everywhere in the package (nn.MultiheadAttention's): true = NOT attended.
// A query whose keys are all masked gets zero weights and a zero context (PyTorch: NaN).
import { WasmObject, fetchBytes, toU8 } from './util.js';

function tensorArg(t, what, required) {
  if (t === undefined || t === null) {
    if (required) throw new Error(`attnlab: ${what} is required ({ data: Float32Array, shape: number[] })`);
    return undefined;
  }
  if (typeof t !== 'object' || t.data === undefined || t.shape === undefined) {
    throw new Error(`attnlab: ${what}: expected { data: Float32Array, shape: number[] }, got ${t === null ? 'null' : typeof t}`);
  }
  return { data: t.data, shape: Array.isArray(t.shape) ? Array.from(t.shape) : t.shape };
}

function maskArg(m, what) {
  if (m === undefined || m === null) return undefined;
  if (typeof m !== 'object' || m.data === undefined || m.shape === undefined) {
    throw new Error(`attnlab: ${what}: expected { data, shape } (a bool or additive mask), got ${typeof m}`);
  }
  const d = m.data;
  let bool;
  let data = d;
  if (d instanceof Uint8Array || d instanceof Int8Array) bool = true;
  else if (d instanceof Float32Array || d instanceof Float64Array) bool = false;
  else if (Array.isArray(d) && d.length > 0 && typeof d[0] === 'boolean') {
    bool = true;
    data = d.map((x) => (x ? 1 : 0));
  } else if (Array.isArray(d)) bool = false;
  else throw new Error(`attnlab: ${what}.data: expected a Uint8Array or boolean[] (bool mask) or a Float32Array or number[] (additive mask)`);
  if (typeof m.bool === 'boolean') bool = m.bool;
  return { data, shape: Array.isArray(m.shape) ? Array.from(m.shape) : m.shape, bool };
}

function opts(o, what) {
  if (o === undefined || o === null) return {};
  if (typeof o !== 'object') throw new Error(`attnlab: ${what}: expected an options object, got ${typeof o}`);
  return { ...o };
}

export function install(api, mod) {
  class Layer extends WasmObject {
    constructor(handle) {
      super(handle, 'layer');
      /** The PyTorch class: 'MultiheadAttention', 'GRU', 'LSTM', 'TransformerEncoderLayer', 'TransformerDecoderLayer'. */
      this.kind = handle.kind();
      /** The constructor arguments, PyTorch names (embed_dim, num_heads, batch_first, ...). */
      this.config = JSON.parse(handle.config());
    }
    get paramCount() { return this.handle.paramCount(); }
  }

  class MultiheadAttention extends Layer {
    /**
     * forward(query, key, value, opts) as nn.MultiheadAttention.forward; key and value
     * null/undefined (or the query itself) = self-attention.
     * opts: { keyPaddingMask (B,S) bool, attnMask (T,S)|(B*H,T,S) bool or additive, isCausal,
     *         needWeights = true, averageAttnWeights = true, batchFirst }
     * -> { out, weights } (weights null when needWeights is false)
     */
    forward(query, key, value, o) {
      const p = opts(o, 'MultiheadAttention.forward options');
      const self = (key == null && value == null) || (key === query && value === query);
      return this.handle.forwardMha({
        ...p,
        query: tensorArg(query, 'query', true),
        key: self ? undefined : tensorArg(key, 'key', true),
        value: self ? undefined : tensorArg(value, 'value', true),
        keyPaddingMask: maskArg(p.keyPaddingMask, 'keyPaddingMask'),
        attnMask: maskArg(p.attnMask, 'attnMask'),
      });
    }
  }

  class RNN extends Layer {
    /**
     * forward(input, { h0, c0 (LSTM), lengths, batchFirst }) as nn.GRU / nn.LSTM on a
     * padded batch with per-sequence lengths (pack_padded_sequence): outputs past a
     * length are 0. h0/c0: (num_layers*directions, B, H). -> { out, hN, cN (LSTM) }
     */
    forward(input, o) {
      const p = opts(o, `${this.kind}.forward options`);
      return this.handle.forwardRnn({
        ...p,
        input: tensorArg(input, 'input', true),
        h0: tensorArg(p.h0, 'h0', false),
        c0: tensorArg(p.c0, 'c0', false),
        lengths: p.lengths == null ? undefined : Array.from(p.lengths),
      });
    }
  }

  class TransformerEncoderLayer extends Layer {
    /** forward(src, { srcMask, srcKeyPaddingMask, isCausal, batchFirst }) -> tensor */
    forward(src, o) {
      const p = opts(o, 'TransformerEncoderLayer.forward options');
      return this.handle.forwardTransformer({
        x: tensorArg(src, 'src', true),
        selfMask: maskArg(p.srcMask, 'srcMask'),
        selfKeyPaddingMask: maskArg(p.srcKeyPaddingMask, 'srcKeyPaddingMask'),
        selfCausal: p.isCausal,
        batchFirst: p.batchFirst,
      });
    }
  }

  class TransformerDecoderLayer extends Layer {
    /**
     * forward(tgt, memory, { tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask,
     * tgtIsCausal, batchFirst }) -> tensor
     */
    forward(tgt, memory, o) {
      const p = opts(o, 'TransformerDecoderLayer.forward options');
      return this.handle.forwardTransformer({
        x: tensorArg(tgt, 'tgt', true),
        memory: tensorArg(memory, 'memory', true),
        selfMask: maskArg(p.tgtMask, 'tgtMask'),
        selfKeyPaddingMask: maskArg(p.tgtKeyPaddingMask, 'tgtKeyPaddingMask'),
        selfCausal: p.tgtIsCausal,
        memoryMask: maskArg(p.memoryMask, 'memoryMask'),
        memoryKeyPaddingMask: maskArg(p.memoryKeyPaddingMask, 'memoryKeyPaddingMask'),
        batchFirst: p.batchFirst,
      });
    }
  }

  const classes = {
    MultiheadAttention, GRU: RNN, LSTM: RNN, TransformerEncoderLayer, TransformerDecoderLayer,
  };

  api.layers = {
    /** Loads a layer file (written by scripts/export_torch.py) from a Uint8Array or ArrayBuffer. */
    fromBytes(bytes) {
      const h = mod.LayerModule.fromBytes(toU8(bytes, 'layers.fromBytes'));
      const C = classes[h.kind()];
      return new C(h);
    },
    /** Loads from a URL (fetch), or in Node from a file path too. */
    async fromUrl(src, init) { return api.layers.fromBytes(await fetchBytes(src, init)); },
    /** The kinds a layer file may hold. */
    kinds: () => Object.keys(classes),
  };

  const functional = (fn, q, k, v, o, what) => {
    const p = opts(o, `${what} options`);
    return fn({
      ...p, q: tensorArg(q, 'q', true), k: tensorArg(k, 'k', true), v: tensorArg(v, 'v', true),
      mask: maskArg(p.mask, 'mask'),
      wq: tensorArg(p.wq, 'wq', false), wk: tensorArg(p.wk, 'wk', false), va: tensorArg(p.va, 'va', false),
    });
  };
  api.attention = {
    /**
     * softmax(q k^T * scale + mask) v; q (B,Tq,D), k (B,S,D), v (B,S,Dv) or unbatched rank 2.
     * opts: { mask (Tq,S)|(B,Tq,S): bool true = NOT attended, or additive; causal; scale = 1/sqrt(D);
     *         needWeights = true } -> { out, weights (null when needWeights is false) }
     */
    scaledDot: (q, k, v, o) => functional(mod.attentionScaledDot, q, k, v, o, 'attention.scaledDot'),
    /**
     * Bahdanau: softmax(va . tanh(wq q + wk k)) v with wq (A,Dq), wk (A,Dk), va (A) given in opts
     * ({ wq, wk, va, mask (bool, true = NOT attended), causal }) -> { out, weights }
     */
    additive: (q, k, v, o) => functional(mod.attentionAdditive, q, k, v, o, 'attention.additive'),
  };
}
