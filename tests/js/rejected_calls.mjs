// Calls every entry point of the package must reject (with the message each must give):
// the table of the error-path tests (tests/js/reliability.test.mjs, a few thousand
// repetitions each) and of the long run (scripts/reject_soak.mjs, a million each).
//   const { REJECTED, objects } = rejectedCalls(al, ROOT);  // [name, fn, pattern][]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function rejectedCalls(al, root) {
  const model = (name) => readFileSync(join(root, 'models', name, 'model.safetensors'));
  const dates = al.Seq2Seq.fromBytes(model('dates'));
  const han = al.HAN.fromBytes(model('han-spam'));
  const mmoe = new al.MMoE({ gate: 'attention' });
  const lm = al.LanguageModel.fromBytes(model('xl-sotu'));
  const tf = al.Seq2Seq.fromBytes(model('g2p-transformer'));
  const x100 = new Float32Array(100).fill(0.5);
  // a model being trained on pairs in memory (no steps run: epochs 0)
  const tiny = { emb: 4, hidden: 4, attnDim: 4, combine: 4 };
  const fitted = al.Seq2Seq.create(tiny);
  fitted.fit([['ab', 'ba'], ['cd', 'dc'], ['ef', 'fe']], { epochs: 0, validationSplit: 0 });
  const layerFile = (name) => readFileSync(join(root, 'tests', 'fixtures', 'layers', `${name}.safetensors`));
  const mhaLayer = al.layers.fromBytes(layerFile('mha_self_seqfirst'));  // E 8, H 2, (T,B,E)
  const gruLayer = al.layers.fromBytes(layerFile('gru_2layer_bi'));  // I 4, H 6, 2 layers x 2 directions
  const encLayer = al.layers.fromBytes(layerFile('encoder_postnorm_relu'));  // d_model 8
  const decLayer = al.layers.fromBytes(layerFile('decoder_postnorm_batchfirst'));  // d_model 8, (B,T,E)
  const t = (shape) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(0.5), shape });
  const REJECTED = [
    ['Seq2Seq.translate (character outside the alphabet)', () => dates.translate('JAN 23, 2015 \u00e9'), /unknown character 'é' \(U\+00E9\) at position 13/],
    ['Seq2Seq.translate (emoji)', () => dates.translate('JAN \u{1F600} 23'), /unknown character '\u{1F600}' \(U\+1F600\) at position 4/u],
    ['Seq2Seq.translate (1,000 characters: the model counts them)', () => dates.translate('1'.repeat(1000)), /input too long: 1000 characters, this model accepts at most/],
    ['Seq2Seq.translate (100,000 characters)', () => dates.translate('1'.repeat(100000)), /longer than|too long|at most/],
    ['Seq2Seq.translate (beam as a string)', () => dates.translate('JAN 23, 2015', { beam: '4' }), /beam: expected a whole number/],
    ['Seq2Seq.translate (alpha NaN)', () => dates.translate('JAN 23, 2015', { alpha: NaN }), /alpha: expected a number/],
    ['Seq2Seq.translate (not a string)', () => dates.translate(42), /expects a string/],
    ['Seq2Seq.translate, Transformer (a digit outside the alphabet)', () => tf.translate('ATT3NTION'), /unknown character '3' at position 3/],
    ['Seq2Seq.translate, Transformer (beam 65)', () => tf.translate('ATTENTION', { beam: 65 }), /beam: expected a whole number in \[1, 64\]/],
    ['Seq2Seq.create + fit (a TSV line without a tab)', () => al.Seq2Seq.create(tiny).fit('one\t1\ntwo 2\n'), /line 2/],
    ['Seq2Seq.create + fit (a pair of numbers)', () => al.Seq2Seq.create(tiny).fit([[1, 2]]), /source expects a string/],
    ['Seq2Seq.create + fit (lr NaN)', () => al.Seq2Seq.create(tiny).fit([['a', 'b']], { lr: NaN }), /lr: expected a number/],
    ['Seq2Seq.create + fit (score unknown)', () => al.Seq2Seq.create({ ...tiny, score: 'cosmic' }).fit([['a', 'b']]), /score/],
    ['Seq2Seq.create + fit (hidden 2^20)', () => al.Seq2Seq.create({ hidden: 2 ** 20 }).fit([['a', 'b']]), /hidden: expected a whole number/],
    ['Seq2Seq.create + fit (4096-wide: over the parameter limit)', () => al.Seq2Seq.create({ emb: 4096, hidden: 4096 }).fit([['a', 'b'], ['c', 'd']], { validationSplit: 0 }), /limit of training in memory/],
    ['TrainableSeq2Seq.save (dtype f64)', () => fitted.save('f64'), /dtype: expected 'f32' or 'f16'/],
    ['TrainableSeq2Seq.translate (empty)', () => fitted.translate(''), /empty input/],
    ['data.numberPairs (count 1.5)', () => al.data.numberPairs({ count: 1.5 }), /count: expected a whole number/],
    ['Seq2Seq.fromBytes (damaged)', () => al.Seq2Seq.fromBytes(new Uint8Array([1, 2, 3])), /8-byte header/],
    ['HAN.classify (not a string)', () => han.classify(null), /expects a string/],
    ['HAN.classify (attribution unknown)', () => han.classify('Hello there', { attribution: 'shap' }), /attribution: expected 'grad' or 'ig', got 'shap'/],
    ['HAN.classify (steps 0)', () => han.classify('Hello there', { attribution: 'ig', steps: 0 }), /steps: expected a whole number in \[1, 1024\]/],
    ['HAN.classify (steps 1.5)', () => han.classify('Hello there', { attribution: 'ig', steps: 1.5 }), /steps: expected a whole number/],
    ['HAN.classify (steps without attribution)', () => han.classify('Hello there', { steps: 8 }), /attribution: expected 'grad' or 'ig'/],
    ['HAN.classify (baseline unknown)', () => han.classify('Hello there', { attribution: 'ig', baseline: 'mean' }), /baseline: expected 'zero', 'unk' or 'pad', got 'mean'/],
    ['HAN.classify (baseline with grad)', () => han.classify('Hello there', { attribution: 'grad', baseline: 'unk' }), /baseline: only with attribution 'ig'/],
    ['HAN.classify (baseline of 3 words for 2)', () => han.classify('Hello there', { attribution: 'ig', baseline: new Float32Array(300) }), /expected a baseline of 100 values \(one embedding for every token\) or 200 \(2 tokens x 100\), got 300/],
    ['HAN.classify (baseline of 3 values)', () => han.classify('Hello there', { attribution: 'ig', baseline: new Float32Array(3) }), /expected a baseline of 100 values per token/],
    ['HAN.classify (baseline NaN)', () => han.classify('Hello there', { attribution: 'ig', baseline: new Float32Array(100).fill(NaN) }), /baseline: value nan at index 0 is not finite/i],
    ['HAN.classify (baseline a number)', () => han.classify('Hello there', { attribution: 'ig', baseline: 0 }), /baseline: expected 'zero', 'unk', 'pad' or a Float32Array, got number/],
    ['Seq2Seq.translate (attribution unknown)', () => dates.translate('JAN 23, 2015', { attribution: 'lime' }), /attribution: expected 'grad' or 'ig', got 'lime'/],
    ['Seq2Seq.translate (steps 5000)', () => dates.translate('JAN 23, 2015', { attribution: 'ig', steps: 5000 }), /steps: expected a whole number in \[1, 1024\]/],
    ['Seq2Seq.translate, Transformer (baseline of 3 values)', () => tf.translate('ATTENTION', { attribution: 'ig', baseline: new Float32Array(3) }), /expected a baseline of 128 values per token/],
    ['HAN.fromBytes (damaged)', () => al.HAN.fromBytes(new Uint8Array(64)), /header|JSON|bytes/],
    ['MMoE.fromBytes (damaged)', () => al.MMoE.fromBytes(new Uint8Array([9, 9, 9, 9, 9, 9, 9, 9, 9])), /header/],
    ['MMoE.predict (wrong size)', () => mmoe.predict(new Float32Array(150)), /multiple of inputDim/],
    ['MMoE.predict (NaN)', () => mmoe.predict(new Float32Array(100).fill(NaN)), /not finite/],
    ['MMoE.trainEpoch (targets)', () => mmoe.trainEpoch(x100, new Float32Array(3)), /y: expected 1 x 2/],
    ['MMoE.trainEpoch (batchSize 1.5)', () => mmoe.trainEpoch(x100, new Float32Array(2), { batchSize: 1.5 }), /batchSize: expected a whole number/],
    ['new MMoE (config)', () => new al.MMoE({ experts: 0 }), /experts must be in/],
    ['new MMoE (seed NaN)', () => new al.MMoE({ seed: NaN }), /seed: expected a whole number/],
    ['data.mmoeSynthetic (n 1.5)', () => al.data.mmoeSynthetic({ n: 1.5 }), /n: expected a whole number/],
    ['softmax (null)', () => al.softmax(null), /logits: expected/],
    ['softmax (NaN)', () => al.softmax([1, NaN]), /not finite/],
    ['softmax (strings)', () => al.softmax('abc'), /logits: expected/],
    ['playground.attend (score 5)', () => al.playground.attend({ T: 2, D: 2, x: [1, 2, 3, 4], score: 5 }), /score: expected a string/],
    ['playground.attend (causal "yes")', () => al.playground.attend({ T: 2, D: 2, x: [1, 2, 3, 4], causal: 'yes' }), /causal: expected true or false/],
    ['playground.attend (1e30)', () => al.playground.attend({ T: 2, D: 2, x: [1e30, 2, 3, 4] }), /at most/],
    ['playground.multihead (heads)', () => al.playground.multihead({ T: 2, E: 6, heads: 4, x: new Float32Array(12) }), /divisible/],
    ['recsys.din (pooling)', () => al.recsys.din({ pooling: 'max' }), /pooling: expected/],
    ['recsys.autoint (fields)', () => al.recsys.autoint({ fields: 1 }), /fields: expected a whole number/],
    ['LanguageModel.fromBytes (damaged)', () => al.LanguageModel.fromBytes(new Uint8Array(16)), /header|bytes/],
    ['LanguageModel.generate (n 1.5)', () => lm.generate('We', { n: 1.5 }), /n: expected a whole number/],
    ['LanguageModel.generate (n 10^7)', () => lm.generate('We', { n: 1e7 }), /n: expected a whole number in \[0, 100000\]/],
    ['LanguageModel.generate (temperature NaN)', () => lm.generate('We', { temperature: NaN }), /temperature: expected a number/],
    ['kernels.bench (negative size)', () => al.kernels.bench('softmax_rows', [-1, 8]), /shape: expected a whole number/],
    ['kernels.bench (unknown)', () => al.kernels.bench('no_such_kernel', [1]), /unknown kernel/],
    ['kernels.attention (op)', () => al.kernels.attention('conv', { minMs: 0 }), /op must be/],
    ['layers.fromBytes (damaged)', () => al.layers.fromBytes(new Uint8Array([1, 2, 3])), /8-byte header/],
    ['layers.fromBytes (a model file, not a layer file)', () => al.layers.fromBytes(model('dates')), /expected 'attnlab-layer'/],
    ['MultiheadAttention.forward (last dimension)', () => mhaLayer.forward(t([5, 3, 7])), /expected last dimension 8/],
    ['MultiheadAttention.forward (attnMask shape)', () => mhaLayer.forward(t([5, 3, 8]), null, null, { attnMask: { data: new Uint8Array(30), shape: [6, 5] } }), /attn_mask: expected shape \(5,5\)/],
    ['MultiheadAttention.forward (key without value)', () => mhaLayer.forward(t([5, 3, 8]), t([4, 3, 8])), /value is required/],
    ['GRU.forward (h0 shape)', () => gruLayer.forward(t([5, 3, 4]), { h0: t([2, 3, 6]) }), /h0: expected shape \(4,3,6\)/],
    ['GRU.forward (lengths 1.5)', () => gruLayer.forward(t([5, 3, 4]), { lengths: [1.5, 2, 3] }), /lengths: expected a whole number/],
    ['TransformerEncoderLayer.forward (data length)', () => encLayer.forward({ data: new Float32Array(7), shape: [5, 2, 8] }), /needs 80 values, got 7/],
    ['TransformerDecoderLayer.forward (memory batch)', () => decLayer.forward(t([2, 4, 8]), t([3, 6, 8])), /disagree on the batch/],
    ['attention.scaledDot (mask shape)', () => al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 4]), { mask: { data: new Uint8Array(4), shape: [2, 2] } }), /mask: expected shape \(3,5\)/],
    ['attention.scaledDot (q and k last dimension)', () => al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 6]), t([2, 5, 4])), /q and k must have the same last dimension/],
    ['attention.scaledDot (into.out of the wrong size: after the call)', () => al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 4]), { into: { out: new Float32Array(23) } }), /into\.out: expected a Float32Array of 24 floats \(shape \[2,3,4\]\), got 23/],
    ['attention.scaledDot (into.weights with needWeights false)', () => al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 4]), { needWeights: false, into: { weights: new Float32Array(30) } }), /into\.weights: this call has no weights output/],
    ['attention.scaledDot (into.out a plain array)', () => al.attention.scaledDot(t([2, 3, 4]), t([2, 5, 4]), t([2, 5, 4]), { into: { out: [0, 0] } }), /into\.out: expected a Float32Array, got object/],
    ['GRU.forward (into.cN: a GRU has none)', () => gruLayer.forward(t([3, 2, 4]), { into: { cN: new Float32Array(24) } }), /into\.cN: this call has no cN output/],
    ['TransformerEncoderLayer.forward (into.weights: not an output)', () => encLayer.forward(t([3, 2, 8]), { into: { weights: new Float32Array(9) } }), /into\.weights: not an output of this call \(its outputs: out\)/],
    ['attention.scaledDot (NaN in k)', () => al.attention.scaledDot(t([2, 3, 4]), { data: new Float32Array(40).fill(NaN), shape: [2, 5, 4] }, t([2, 5, 4])), /k: value nan at index 0 is not finite/],
    ['attention.additive (wq shape)', () => al.attention.additive(t([3, 4]), t([5, 4]), t([5, 2]), { wq: t([7, 3]), wk: t([7, 4]), va: t([7]) }), /wq: expected shape \(7,4\)/],
  ];
  return { REJECTED, objects: { fitted, dates, han, mmoe, lm, tf, x100, mhaLayer, gruLayer, encLayer, decLayer } };
}
