// Bring your own weights: PyTorch layers exported by scripts/export_torch.py, run on
// your tensors, and functional attention.
//   const mha = al.layers.fromBytes(bytes);   // kind 'MultiheadAttention', config {...}
//   const { out, weights } = mha.forward(query, key, value, { keyPaddingMask, attnMask });
//   mha.delete();
//   al.attention.scaledDot(q, k, v, { mask, causal });
// A tensor is { data: Float32Array, shape: number[] } (row-major); the outputs of one call
// are views of one fresh Float32Array (copied out of wasm, so they survive later calls), or,
// with opts.into = { out: Float32Array, ... }, written into the caller's own arrays (no
// allocation: for calls made many times, e.g. per frame). Layouts follow
// PyTorch: batch_first false (the PyTorch default) = (T,B,E), true = (B,T,E); a call's
// { batchFirst } overrides the file's config; a rank-2 input is one unbatched sequence.
// Masks are { data, shape }: a Uint8Array / boolean[] data is a bool mask, a
// Float32Array / number[] an additive one (0 keep, -Infinity block). Bool polarity as
// everywhere in the package (nn.MultiheadAttention's): true = NOT attended.
// A query whose keys are all masked gets zero weights and a zero context (PyTorch: NaN).
import { WasmObject, fetchBytes, toU8 } from './util.js';

// the argument slots of bindings/embind_layers.cpp (same order)
const SLOT = Object.fromEntries(['query', 'key', 'value', 'keyPaddingMask', 'attnMask', 'input', 'h0', 'c0',
  'x', 'memory', 'selfMask', 'selfKeyPaddingMask', 'memoryMask', 'memoryKeyPaddingMask',
  'q', 'k', 'v', 'mask', 'wq', 'wk', 'va'].map((n, i) => [n, i]));

function isArrayLike(d) {
  return ArrayBuffer.isView(d) || Array.isArray(d);
}

function tensorArg(t, what, required) {
  if (t === undefined || t === null) {
    if (required) throw new Error(`attnlab: ${what} is required ({ data: Float32Array, shape: number[] })`);
    return undefined;
  }
  if (typeof t !== 'object' || !isArrayLike(t.data) || !isArrayLike(t.shape)) {
    throw new Error(`attnlab: ${what}: expected { data: Float32Array, shape: number[] }, got ${t === null ? 'null' : typeof t}`);
  }
  return { data: t.data, shape: t.shape, kind: 0 };
}

function maskArg(m, what) {
  if (m === undefined || m === null) return undefined;
  if (typeof m !== 'object' || !isArrayLike(m.data) || !isArrayLike(m.shape)) {
    throw new Error(`attnlab: ${what}: expected { data, shape } (a bool or additive mask), got ${typeof m}`);
  }
  const d = m.data;
  let bool;
  if (d instanceof Uint8Array || d instanceof Int8Array) bool = true;
  else if (d instanceof Float32Array || d instanceof Float64Array) bool = false;
  else if (Array.isArray(d)) bool = d.length > 0 && typeof d[0] === 'boolean';
  else throw new Error(`attnlab: ${what}.data: expected a Uint8Array or boolean[] (bool mask) or a Float32Array or number[] (additive mask)`);
  if (typeof m.bool === 'boolean') bool = m.bool;
  return { data: d, shape: m.shape, kind: bool ? 1 : 2 };
}

// The staging buffer's layout (bindings/embind_layers.cpp, THE TRANSFER): the data start at
// the first 64-byte boundary after the description, and every tensor on a 64-byte boundary
// (16 floats).
const dataStart = (metaLen) => 2 * (Math.ceil(metaLen / 8) * 8);  // in floats
const align = (off) => Math.ceil(off / 16) * 16;

/**
 * Writes the call's description (flags, then a record per tensor and mask) and the data of
 * the given tensors and masks ({ slotName: arg }) into the wasm staging buffer in one pass
 * (see bindings/embind_layers.cpp) and returns the description's length in doubles, the
 * forward's argument; call the forward right after, with no other wasm call in between.
 */
function stage(mod, flags, args) {
  const list = [];
  let total = 0;
  let metaLen = 1 + flags.length;
  for (const name in args) {
    const a = args[name];
    if (!a) continue;
    const rank = a.shape.length;
    if (rank > 64) throw new Error(`attnlab: ${name}.shape: expected 1 to 4 dimensions, got ${rank}`);
    metaLen += 5 + rank;
    // an array given for several arguments (self-attention: q, k and v) is staged once
    let same = -1;
    for (let j = 1; j < list.length; j += 4) if (list[j].data === a.data) same = list[j + 1];
    if (same >= 0) {
      list.push(SLOT[name], a, same, false);
      continue;
    }
    const off = align(total);  // each tensor 64-byte aligned, as the C++ side expects
    list.push(SLOT[name], a, off, true);
    total = off + a.data.length;
  }
  const addr = mod.layerInputBuffer(metaLen, total);
  // the heap's views after the call (it may have grown the heap, which replaces them)
  const meta = mod.HEAPF64;
  const f32 = mod.HEAPF32;
  const base = (addr >>> 2) + dataStart(metaLen);
  let i = addr >>> 3;
  meta[i++] = flags.length;
  for (const f of flags) meta[i++] = f;
  for (let j = 0; j < list.length; j += 4) {
    const a = list[j + 1];
    const off = list[j + 2];
    if (list[j + 3]) f32.set(a.data, base + off);
    meta[i++] = list[j];
    meta[i++] = a.kind;
    meta[i++] = off;
    meta[i++] = a.data.length;
    meta[i++] = a.shape.length;
    for (const d of a.shape) meta[i++] = Number(d);
  }
  return metaLen;
}

/**
 * The caller's destination arrays ({ outputName: Float32Array }) of opts.into, checked
 * before the call; names: the call's outputs in order.
 */
function intoArg(into, names, what) {
  if (into === undefined || into === null) return null;
  if (typeof into !== 'object' || ArrayBuffer.isView(into) || Array.isArray(into)) {
    throw new Error(`attnlab: ${what}.into: expected an object of output arrays ({ ${names.join(', ')} }), got ${typeof into}`);
  }
  const dst = names.map(() => null);
  for (const key of Object.keys(into)) {
    const i = names.indexOf(key);
    if (i < 0) throw new Error(`attnlab: ${what}.into.${key}: not an output of this call (its outputs: ${names.join(', ')})`);
    if (!(into[key] instanceof Float32Array)) {
      throw new Error(`attnlab: ${what}.into.${key}: expected a Float32Array, got ${into[key] === null ? 'null' : typeof into[key]}`);
    }
    dst[i] = into[key];
  }
  return { dst, names, what };
}

/**
 * The result's description at byte address `addr` in wasm (see bindings/embind_layers.cpp)
 * -> the outputs (null where absent): the caller's arrays of intoArg() where given (sizes
 * checked), the others views of one fresh Float32Array; the results are released in wasm
 * once copied.
 */
function unstage(mod, addr, into = null) {
  try {
    const meta = mod.HEAPF64;
    let i = addr >>> 3;
    const end = i + meta[i];
    ++i;
    const outs = [];  // [shape, float index in the heap, size] per output, null where absent
    while (i < end) {
      const rank = meta[i++];
      if (rank === 0) {
        outs.push(null);
        continue;
      }
      const shape = new Array(rank);
      let n = 1;
      for (let d = 0; d < rank; ++d) n *= shape[d] = meta[i++];
      outs.push([shape, meta[i++] >>> 2, n]);
    }
    const dst = into ? into.dst : [];
    for (let k = 0; k < outs.length; ++k) {
      const o = outs[k];
      if (!dst[k]) continue;
      if (!o) throw new Error(`attnlab: ${into.what}.into.${into.names[k]}: this call has no ${into.names[k]} output (e.g. needWeights false)`);
      if (dst[k].length !== o[2]) {
        throw new Error(`attnlab: ${into.what}.into.${into.names[k]}: expected a Float32Array of ${o[2]} floats (shape [${o[0]}]), got ${dst[k].length}`);
      }
    }
    // the outputs not given: one fresh array, then set(), always a plain memory copy (slice()
    // on a view of the wasm memory, and at times the copying constructor once optimized,
    // take V8's element-wise path: 80 us instead of 3 for 32 KB, in phases of thousands of calls)
    let rest = 0;
    for (let k = 0; k < outs.length; ++k) if (outs[k] && !dst[k]) rest = align(rest) + outs[k][2];
    const data = rest ? new Float32Array(rest) : null;
    const heap = mod.HEAPF32;
    let at = 0;
    const res = new Array(outs.length);
    for (let k = 0; k < outs.length; ++k) {
      const o = outs[k];
      if (!o) {
        res[k] = null;
        continue;
      }
      const src = heap.subarray(o[1], o[1] + o[2]);
      if (dst[k]) {
        dst[k].set(src);
        res[k] = { data: dst[k], shape: o[0] };
        continue;
      }
      at = align(at);
      const d = data.subarray(at, at + o[2]);
      at += o[2];
      d.set(src);
      res[k] = { data: d, shape: o[0] };
    }
    return res;
  } finally {
    mod.layerRelease();
  }
}

// flags, checked here (they cross as numbers)
function bool(p, key, def) {
  const v = p[key];
  if (v === undefined) return def ? 1 : 0;
  if (v !== true && v !== false) throw new Error(`attnlab: ${key}: expected true or false, got ${v === null ? 'null' : typeof v}`);
  return v ? 1 : 0;
}
function batchFirst(p) {
  return p.batchFirst === undefined ? -1 : bool(p, 'batchFirst', false);
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
     *         needWeights = true, averageAttnWeights = true, batchFirst,
     *         into: { out, weights } (the caller's Float32Arrays to write into) }
     * -> { out, weights } (weights null when needWeights is false)
     */
    forward(query, key, value, o) {
      const h = this.handle;  // a deleted layer throws before anything is staged
      const p = opts(o, 'MultiheadAttention.forward options');
      const self = (key == null && value == null) || (key === query && value === query);
      const flags = [bool(p, 'isCausal', false), bool(p, 'needWeights', true), bool(p, 'averageAttnWeights', true), batchFirst(p)];
      const into = intoArg(p.into, ['out', 'weights'], 'MultiheadAttention.forward');
      const meta = stage(mod, flags, {
        query: tensorArg(query, 'query', true),
        key: self ? undefined : tensorArg(key, 'key', true),
        value: self ? undefined : tensorArg(value, 'value', true),
        keyPaddingMask: maskArg(p.keyPaddingMask, 'keyPaddingMask'),
        attnMask: maskArg(p.attnMask, 'attnMask'),
      });
      const [out, weights] = unstage(mod, h.forwardMha(meta), into);
      return { out, weights };
    }
  }

  class RNN extends Layer {
    /**
     * forward(input, { h0, c0 (LSTM), lengths, batchFirst, into: { out, hN, cN } }) as nn.GRU / nn.LSTM on a
     * padded batch with per-sequence lengths (pack_padded_sequence): outputs past a
     * length are 0. h0/c0: (num_layers*directions, B, H). -> { out, hN, cN (LSTM) }
     */
    forward(input, o) {
      const h = this.handle;  // a deleted layer throws before anything is staged
      const p = opts(o, `${this.kind}.forward options`);
      const lengths = p.lengths == null ? undefined : Array.from(p.lengths);
      const into = intoArg(p.into, ['out', 'hN', 'cN'], `${this.kind}.forward`);
      const meta = stage(mod, [batchFirst(p)], {
        input: tensorArg(input, 'input', true), h0: tensorArg(p.h0, 'h0', false), c0: tensorArg(p.c0, 'c0', false),
      });
      const [out, hN, cN] = unstage(mod, h.forwardRnn(meta, lengths), into);
      return cN ? { out, hN, cN } : { out, hN };
    }
  }

  class TransformerEncoderLayer extends Layer {
    /** forward(src, { srcMask, srcKeyPaddingMask, isCausal, batchFirst, into: { out } }) -> tensor */
    forward(src, o) {
      const h = this.handle;  // a deleted layer throws before anything is staged
      const p = opts(o, 'TransformerEncoderLayer.forward options');
      const into = intoArg(p.into, ['out'], 'TransformerEncoderLayer.forward');
      const meta = stage(mod, [bool(p, 'isCausal', false), batchFirst(p)], {
        x: tensorArg(src, 'src', true),
        selfMask: maskArg(p.srcMask, 'srcMask'),
        selfKeyPaddingMask: maskArg(p.srcKeyPaddingMask, 'srcKeyPaddingMask'),
      });
      return unstage(mod, h.forwardTransformer(meta), into)[0];
    }
  }

  class TransformerDecoderLayer extends Layer {
    /**
     * forward(tgt, memory, { tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask,
     * tgtIsCausal, batchFirst, into: { out } }) -> tensor
     */
    forward(tgt, memory, o) {
      const h = this.handle;  // a deleted layer throws before anything is staged
      const p = opts(o, 'TransformerDecoderLayer.forward options');
      const into = intoArg(p.into, ['out'], 'TransformerDecoderLayer.forward');
      const meta = stage(mod, [bool(p, 'tgtIsCausal', false), batchFirst(p)], {
        x: tensorArg(tgt, 'tgt', true),
        memory: tensorArg(memory, 'memory', true),
        selfMask: maskArg(p.tgtMask, 'tgtMask'),
        selfKeyPaddingMask: maskArg(p.tgtKeyPaddingMask, 'tgtKeyPaddingMask'),
        memoryMask: maskArg(p.memoryMask, 'memoryMask'),
        memoryKeyPaddingMask: maskArg(p.memoryKeyPaddingMask, 'memoryKeyPaddingMask'),
      });
      return unstage(mod, h.forwardTransformer(meta), into)[0];
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
    const scale = p.scale === undefined ? 0 : p.scale;
    if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 0) {
      throw new Error(`attnlab: scale: expected a finite number >= 0 (0 = 1/sqrt(D)), got ${scale}`);
    }
    const into = intoArg(p.into, ['out', 'weights'], what);
    const meta = stage(mod, [bool(p, 'causal', false), bool(p, 'needWeights', true), scale], {
      q: tensorArg(q, 'q', true), k: tensorArg(k, 'k', true), v: tensorArg(v, 'v', true),
      mask: maskArg(p.mask, 'mask'),
      wq: tensorArg(p.wq, 'wq', false), wk: tensorArg(p.wk, 'wk', false), va: tensorArg(p.va, 'va', false),
    });
    const [out, weights] = unstage(mod, fn(meta), into);
    return { out, weights };
  };
  api.attention = {
    /**
     * softmax(q k^T * scale + mask) v; q (B,Tq,D), k (B,S,D), v (B,S,Dv) or unbatched rank 2.
     * opts: { mask (Tq,S)|(B,Tq,S): bool true = NOT attended, or additive; causal; scale = 1/sqrt(D);
     *         needWeights = true, into: { out, weights } (the caller's Float32Arrays to write into) }
     * -> { out, weights (null when needWeights is false) }
     */
    scaledDot: (q, k, v, o) => functional(mod.attentionScaledDot, q, k, v, o, 'attention.scaledDot'),
    /**
     * Bahdanau: softmax(va . tanh(wq q + wk k)) v with wq (A,Dq), wk (A,Dk), va (A) given in opts
     * ({ wq, wk, va, mask (bool, true = NOT attended), causal }) -> { out, weights }
     */
    additive: (q, k, v, o) => functional(mod.attentionAdditive, q, k, v, o, 'attention.additive'),
  };
}
