// The layer-level API in wasm: every layer file exported from PyTorch
// (tests/fixtures/layers, made by scripts/fixtures_layers.py) gives PyTorch's float64
// outputs within 1e-5 (max error over the tensor's max magnitude) through al.layers,
// and the functional attention likewise; damaged files and misshapen calls throw Errors
// that say what was expected; a loaded-and-deleted layer leaves the heap where it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadPkg } from './helpers.mjs';

const al = await loadPkg();
const DIR = join(ROOT, 'tests', 'fixtures', 'layers');
const CASES = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8'));
const bytesOf = (file) => readFileSync(join(DIR, file));
const REL_TOL = 1e-5;

const tensor = (t) => t && { data: Float32Array.from(t.data), shape: t.shape };
const mask = (m) => m && { data: m.bool ? Uint8Array.from(m.data) : Float32Array.from(m.data), shape: m.shape };

function relErr(got, want, what) {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  assert.ok(got.data instanceof Float32Array, `${what}: a Float32Array`);
  assert.equal(got.data.length, want.data.length, `${what}: length`);
  let err = 0;
  let mag = 0;
  for (let i = 0; i < want.data.length; ++i) {
    err = Math.max(err, Math.abs(got.data[i] - want.data[i]));
    mag = Math.max(mag, Math.abs(want.data[i]));
  }
  return err / Math.max(mag, 1e-30);
}

function runCase(layer, c) {
  const k = c.call;
  switch (c.kind) {
    case 'MultiheadAttention': {
      const q = tensor(k.query);
      const r = k.self
        ? layer.forward(q, null, null, {
          keyPaddingMask: mask(k.keyPaddingMask), attnMask: mask(k.attnMask), isCausal: k.isCausal,
          needWeights: k.needWeights, averageAttnWeights: k.averageAttnWeights,
        })
        : layer.forward(q, tensor(k.key), tensor(k.value), {
          keyPaddingMask: mask(k.keyPaddingMask), attnMask: mask(k.attnMask), isCausal: k.isCausal,
          needWeights: k.needWeights, averageAttnWeights: k.averageAttnWeights,
        });
      const errs = [relErr(r.out, c.expect.out, `${c.name} out`)];
      if (c.expect.weights) errs.push(relErr(r.weights, c.expect.weights, `${c.name} weights`));
      else assert.equal(r.weights, null);
      return Math.max(...errs);
    }
    case 'GRU':
    case 'LSTM': {
      const r = layer.forward(tensor(k.input), { h0: tensor(k.h0), c0: tensor(k.c0), lengths: k.lengths });
      const errs = [relErr(r.out, c.expect.out, `${c.name} out`), relErr(r.hN, c.expect.hN, `${c.name} hN`)];
      if (c.expect.cN) errs.push(relErr(r.cN, c.expect.cN, `${c.name} cN`));
      return Math.max(...errs);
    }
    case 'TransformerEncoderLayer':
      return relErr(layer.forward(tensor(k.src), { srcMask: mask(k.srcMask), srcKeyPaddingMask: mask(k.srcKeyPaddingMask) }),
        c.expect.out, c.name);
    case 'TransformerDecoderLayer':
      return relErr(layer.forward(tensor(k.tgt), tensor(k.memory), {
        tgtMask: mask(k.tgtMask), memoryMask: mask(k.memoryMask),
        tgtKeyPaddingMask: mask(k.tgtKeyPaddingMask), memoryKeyPaddingMask: mask(k.memoryKeyPaddingMask),
      }), c.expect.out, c.name);
    default:
      throw new Error(`unknown kind ${c.kind}`);
  }
}

test('the fixtures cover every layer kind', () => {
  assert.deepEqual([...new Set(CASES.layers.map((c) => c.kind))].sort(), al.layers.kinds().sort());
});

for (const c of CASES.layers) {
  test(`${c.kind} ${c.name}: within ${REL_TOL} of PyTorch (float64)`, (t) => {
    const layer = al.layers.fromBytes(bytesOf(c.file));
    try {
      assert.equal(layer.kind, c.kind);
      assert.equal(typeof layer.config, 'object');
      assert.ok(layer.paramCount > 0);
      const err = runCase(layer, c);
      assert.ok(err < REL_TOL, `${c.name}: relative error ${err}`);
      t.diagnostic(`${c.name}: max error / max |reference| = ${err.toExponential(2)}`);
    } finally {
      layer.delete();
    }
  });
}

for (const c of CASES.functional) {
  test(`attention.${c.fn} ${c.name}: within ${REL_TOL} of PyTorch (float64)`, () => {
    const k = c.call;
    const o = { mask: mask(k.mask), causal: k.causal };
    const r = c.fn === 'scaledDot'
      ? al.attention.scaledDot(tensor(k.q), tensor(k.k), tensor(k.v), o)
      : al.attention.additive(tensor(k.q), tensor(k.k), tensor(k.v), { ...o, wq: tensor(k.wq), wk: tensor(k.wk), va: tensor(k.va) });
    assert.ok(relErr(r.out, c.expect.out, c.name) < REL_TOL);
    assert.ok(relErr(r.weights, c.expect.weights, c.name) < REL_TOL);
  });
}

test('the config is the file\'s, with PyTorch names; batchFirst overrides the layout per call', () => {
  const mha = al.layers.fromBytes(bytesOf('mha_self_seqfirst.safetensors'));
  assert.deepEqual(mha.config, { embed_dim: 8, num_heads: 2, bias: true, batch_first: false });
  const T = 3, B = 2, E = 8;
  const x = new Float32Array(T * B * E).map((_, i) => Math.sin(i * 0.7));
  const seq = mha.forward({ data: x, shape: [T, B, E] });
  // the same numbers laid out (B,T,E)
  const bt = new Float32Array(x.length);
  for (let t = 0; t < T; ++t) for (let b = 0; b < B; ++b) bt.set(x.subarray((t * B + b) * E, (t * B + b + 1) * E), (b * T + t) * E);
  const bat = mha.forward({ data: bt, shape: [B, T, E] }, null, null, { batchFirst: true });
  assert.deepEqual(bat.out.shape, [B, T, E]);
  for (let t = 0; t < T; ++t)
    for (let b = 0; b < B; ++b)
      for (let e = 0; e < E; ++e)
        assert.ok(Math.abs(seq.out.data[(t * B + b) * E + e] - bat.out.data[(b * T + t) * E + e]) < 1e-6);
  // additive -Infinity masks and bool masks agree
  const allow = Uint8Array.from([0, 1, 1, 0, 0, 1, 0, 0, 0]);
  const add = Float32Array.from(allow, (v) => (v ? -Infinity : 0));
  const a = mha.forward({ data: x, shape: [T, B, E] }, null, null, { attnMask: { data: allow, shape: [T, T] } });
  const f = mha.forward({ data: x, shape: [T, B, E] }, null, null, { attnMask: { data: add, shape: [T, T] } });
  assert.deepEqual(Array.from(a.out.data), Array.from(f.out.data));
  assert.equal(a.weights.data[1], 0);  // query 0 may not attend key 1
  mha.delete();
});

test('bad layer files and misshapen calls throw Errors that say what was expected', () => {
  assert.throws(() => al.layers.fromBytes(new Uint8Array([1, 2, 3])), /layers\.fromBytes: .*8-byte header/);
  assert.throws(() => al.layers.fromBytes('mha.safetensors'), /layers\.fromBytes expects a Uint8Array or ArrayBuffer/);
  const model = readFileSync(join(ROOT, 'models', 'dates', 'model.safetensors'));
  assert.throws(() => al.layers.fromBytes(model), /'format' is '.*', expected 'attnlab-layer'/);
  const gru = al.layers.fromBytes(bytesOf('gru_2layer_bi.safetensors'));
  const x = { data: new Float32Array(5 * 3 * 4), shape: [5, 3, 4] };
  assert.throws(() => gru.forward({ data: new Float32Array(10), shape: [5, 3, 4] }), /input\.data|needs 60 values, got 10/);
  assert.throws(() => gru.forward({ data: new Float32Array(15), shape: [5, 3] }), /expected last dimension 4/);
  assert.throws(() => gru.forward(x, { h0: { data: new Float32Array(36), shape: [2, 3, 6] } }), /h0: expected shape \(4,3,6\)/);
  assert.throws(() => gru.forward(x, { lengths: [5, 6, 1] }), /lengths\[1\] = 6 is not in \[1, 5\]/);
  assert.throws(() => gru.forward(new Float32Array(60)), /input: expected \{ data: Float32Array, shape: number\[\] \}/);
  assert.throws(() => gru.forward({ data: new Float32Array(60).fill(NaN), shape: [5, 3, 4] }), /not finite/);
  gru.delete();
  assert.throws(() => gru.forward(x), /was deleted/);
  assert.throws(() => al.attention.scaledDot({ data: new Float32Array(8), shape: [2, 4] },
    { data: new Float32Array(6), shape: [2, 3] }, { data: new Float32Array(6), shape: [2, 3] }),
  /q and k must have the same last dimension/);
});

test('into: outputs written into the caller\'s arrays equal the allocated ones, the others still come back', () => {
  const r = (n, s) => Float32Array.from({ length: n }, (_, i) => Math.sin(s * (i + 1)));
  const q = { data: r(2 * 3 * 4, 1), shape: [2, 3, 4] }, k = { data: r(2 * 5 * 4, 2), shape: [2, 5, 4] };
  const v = { data: r(2 * 5 * 6, 3), shape: [2, 5, 6] };
  const ref = al.attention.scaledDot(q, k, v);
  const out = new Float32Array(36).fill(7);
  const got = al.attention.scaledDot(q, k, v, { into: { out } });
  assert.equal(got.out.data, out, 'the result is the caller\'s array');
  assert.deepEqual(got.out.shape, [2, 3, 6]);
  assert.deepEqual(Array.from(out), Array.from(ref.out.data));
  assert.deepEqual(Array.from(got.weights.data), Array.from(ref.weights.data), 'weights not given: allocated as before');
  assert.notEqual(got.weights.data.buffer, out.buffer);
  const w = new Float32Array(30);
  const both = al.attention.scaledDot(q, k, v, { into: { out: new Float32Array(36), weights: w } });
  assert.equal(both.weights.data, w);
  assert.deepEqual(Array.from(w), Array.from(ref.weights.data));
  // a wrong size throws after the call and leaves the caller's arrays untouched
  const small = new Float32Array(35).fill(3);
  assert.throws(() => al.attention.scaledDot(q, k, v, { into: { out: new Float32Array(36), weights: small } }), /into\.weights: expected a Float32Array of 30 floats/);
  assert.ok(small.every((x) => x === 3));
  // layers: the RNN's three outputs, the Transformer's one
  const lstm = al.layers.fromBytes(bytesOf('lstm_2layer_bi_batchfirst.safetensors'));
  const x = { data: r(3 * 5 * lstm.config.input_size, 4), shape: [3, 5, lstm.config.input_size] };
  const a = lstm.forward(x);
  const hN = new Float32Array(a.hN.data.length), cN = new Float32Array(a.cN.data.length);
  const b = lstm.forward(x, { into: { hN, cN } });
  assert.equal(b.hN.data, hN);
  assert.equal(b.cN.data, cN);
  for (const key of ['out', 'hN', 'cN']) assert.deepEqual(Array.from(b[key].data), Array.from(a[key].data), key);
  lstm.delete();
  const enc = al.layers.fromBytes(bytesOf('encoder_prenorm_gelu_batchfirst.safetensors'));
  const src = { data: r(2 * 6 * 12, 5), shape: [2, 6, 12] };
  const e0 = enc.forward(src);
  const into = new Float32Array(e0.data.length);
  const e1 = enc.forward(src, { into: { out: into } });
  assert.equal(e1.data, into);
  assert.deepEqual(Array.from(into), Array.from(e0.data));
  enc.delete();
});

test('loading, running and deleting layers leaves the heap where it was', () => {
  const bytes = bytesOf('encoder_prenorm_gelu_batchfirst.safetensors');
  const src = { data: new Float32Array(2 * 6 * 12).fill(0.25), shape: [2, 6, 12] };
  const warm = al.layers.fromBytes(bytes);
  warm.forward(src);
  warm.delete();
  const before = al.memory();
  for (let i = 0; i < 50; ++i) {
    const l = al.layers.fromBytes(bytes);
    l.forward(src);
    l.delete();
  }
  const after = al.memory();
  assert.equal(after.used, before.used);
  assert.equal(after.handles, before.handles);
});

test('one array given as q, k and v (staged once) gives what three copies give; its NaN is named as q', () => {
  const x = { data: Float32Array.from({ length: 2 * 5 * 8 }, (_, i) => Math.sin(0.7 * i)), shape: [2, 5, 8] };
  const copy = () => ({ data: x.data.slice(), shape: x.shape });
  for (const causal of [false, true]) {
    const once = al.attention.scaledDot(x, x, x, { causal });
    const three = al.attention.scaledDot(copy(), copy(), copy(), { causal });
    assert.deepEqual(Array.from(once.out.data), Array.from(three.out.data));
    assert.deepEqual(Array.from(once.weights.data), Array.from(three.weights.data));
  }
  // an array shared by q and v only, k separate
  const k = { data: Float32Array.from({ length: 2 * 5 * 8 }, (_, i) => Math.cos(0.3 * i)), shape: [2, 5, 8] };
  assert.deepEqual(Array.from(al.attention.scaledDot(x, k, x).out.data),
    Array.from(al.attention.scaledDot(copy(), k, copy()).out.data));
  const bad = { data: x.data.slice(), shape: x.shape };
  bad.data[7] = NaN;
  assert.throws(() => al.attention.scaledDot(bad, bad, bad), /q: value nan at index 7 is not finite/);
});

test('successful calls leave nothing behind in wasm: the heap in use is the same after 200 calls as after 1', () => {
  const mha = al.layers.fromBytes(bytesOf('mha_self_seqfirst.safetensors'));  // E 8, (T,B,E)
  const gru = al.layers.fromBytes(bytesOf('gru_2layer_bi.safetensors'));  // I 4
  const big = { data: new Float32Array(600 * 512).fill(0.01), shape: [600, 512] };  // 1.2 MB: over what is kept
  const calls = {
    'MultiheadAttention (self, weights)': () => mha.forward({ data: new Float32Array(5 * 3 * 8).fill(0.1), shape: [5, 3, 8] }),
    GRU: () => gru.forward({ data: new Float32Array(5 * 3 * 4).fill(0.1), shape: [5, 3, 4] }),
    'scaledDot, 1.2 MB in and out': () => al.attention.scaledDot(big, big, big, { needWeights: false }),
    'scaledDot into': () => al.attention.scaledDot(big, big, big, { needWeights: false, into: { out: new Float32Array(600 * 512) } }),
  };
  for (const [name, call] of Object.entries(calls)) {
    call();
    const before = al.memory();
    for (let i = 0; i < 200; ++i) call();
    const after = al.memory();
    assert.equal(after.used, before.used, `${name}: heap in use moved by ${after.used - before.used} bytes`);
    assert.equal(after.handles, before.handles, `${name}: handles`);
  }
  mha.delete();
  gru.delete();
});
