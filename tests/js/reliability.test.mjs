// The error path leaks nothing: every entry point, called many times with
// input it must reject, throws an Error each time and leaves the stack
// pointer, the heap in use and the number of live JS handles exactly where
// they were; the module still computes correctly afterwards. Sizes whose
// products pass 2^32 (wasm's size_t wraps there) are rejected, model files
// whose config asks for more than the file holds are rejected before
// allocating, and objects dropped without delete() are freed on GC.
//
// ATTNLAB_REJECT_REPEATS sets the repetitions per entry point (default
// 2,000 here; `ATTNLAB_REJECT_REPEATS=1000000 node --test tests/js/reliability.test.mjs`
// is the long run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ROOT, loadPkg } from './helpers.mjs';

const al = await loadPkg();
const REPEATS = Number(process.env.ATTNLAB_REJECT_REPEATS || 2000);
const model = (name) => readFileSync(join(ROOT, 'models', name, 'model.safetensors'));

const dates = al.Seq2Seq.fromBytes(model('dates'));
const han = al.HAN.fromBytes(model('han-spam'));
const mmoe = new al.MMoE({ gate: 'attention' });
const lm = al.LanguageModel.fromBytes(model('xl-sotu'));

// Rejected `fn` REPEATS times: same Error each time, and nothing moves.
function assertFlat(name, fn, pattern) {
  assert.throws(fn, pattern, `${name}: first call`);  // warm-up (error slot, lazy statics)
  const before = al.memory();
  for (let i = 0; i < REPEATS; ++i) {
    let threw = false;
    try {
      fn();
    } catch (e) {
      threw = e instanceof Error && pattern.test(e.message);
      if (!threw) throw e;
    }
    assert.ok(threw, `${name}: call ${i} did not throw`);
  }
  const after = al.memory();
  assert.equal(after.stack, before.stack, `${name}: stack pointer moved`);
  assert.equal(after.used, before.used, `${name}: heap in use moved by ${after.used - before.used} bytes`);
  assert.equal(after.handles, before.handles, `${name}: ${after.handles - before.handles} JS handles leaked`);
}

// A copy of a safetensors file with its __metadata__.config edited.
function withConfig(bytes, edit) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const cfg = JSON.parse(header.__metadata__.config);
  edit(cfg);
  header.__metadata__.config = JSON.stringify(cfg);
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(bytes.subarray(8 + n), 8 + h.length);
  return out;
}

const x100 = new Float32Array(100).fill(0.5);
const REJECTED = [
  ['Seq2Seq.translate (character outside the alphabet)', () => dates.translate('JAN 23, 2015 \u00e9'), /unknown character 'é' \(U\+00E9\) at position 13/],
  ['Seq2Seq.translate (emoji)', () => dates.translate('JAN \u{1F600} 23'), /unknown character '\u{1F600}' \(U\+1F600\) at position 4/u],
  ['Seq2Seq.translate (100,000 characters)', () => dates.translate('1'.repeat(100000)), /longer than|too long|at most/],
  ['Seq2Seq.translate (beam as a string)', () => dates.translate('JAN 23, 2015', { beam: '4' }), /beam: expected a whole number/],
  ['Seq2Seq.translate (alpha NaN)', () => dates.translate('JAN 23, 2015', { alpha: NaN }), /alpha: expected a number/],
  ['Seq2Seq.translate (not a string)', () => dates.translate(42), /expects a string/],
  ['Seq2Seq.fromBytes (damaged)', () => al.Seq2Seq.fromBytes(new Uint8Array([1, 2, 3])), /8-byte header/],
  ['HAN.classify (not a string)', () => han.classify(null), /expects a string/],
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
];

for (const [name, fn, pattern] of REJECTED) {
  test(`rejected ${REPEATS}x leaves stack, heap and handles flat: ${name}`, () => assertFlat(name, fn, pattern));
}

test('the module still computes correctly after every rejection', () => {
  const s = al.softmax([1, 2, 3]);
  assert.ok(Math.abs(s[2] - 0.6652409) < 1e-6);
  assert.equal(dates.translate('JAN 23, 2015').text, '2015-01-23');
  assert.equal(mmoe.predict(x100).pred.length, 2);
});

test('size products of 2^32 and more are rejected, not wrapped', () => {
  const before = al.memory().used;
  assert.throws(() => al.data.mmoeSynthetic({ n: 65536, dim: 65536 }), /n x dim: 65536 x 65536 is more than the limit/);
  assert.throws(() => new al.MMoE({ inputDim: 65536, experts: 256, expertUnits: 256 }), /more than the limit/);
  assert.throws(() => al.kernels.bench('gemm_nn', [65536, 65536, 1]), /more than the limit/);
  assert.throws(() => al.kernels.bench('gemm_nn', [2 ** 32 + 1, 1, 1]), /shape: expected a whole number/);
  assert.equal(al.memory().used, before);
  assert.equal(al.softmax([0, 0]).length, 2);
});

test('a model file whose config asks for more than it stores is rejected before allocating', () => {
  const bytes = model('dates');
  const huge = withConfig(bytes, (c) => { c.emb = 4096; c.enc_hidden = 4096; c.combine = 8192; c.attn_dim = 4096; });
  const wrap32 = withConfig(bytes, (c) => { c.src_vocab = 38; c.emb = 2 ** 32 / 38 + 1; });
  // 2^32 + 64 must not arrive as 64 (the dates model's real emb) in 32-bit wasm
  const over32 = withConfig(bytes, (c) => { c.emb = 2 ** 32 + 64; });
  assert.throws(() => al.Seq2Seq.fromBytes(over32), /'emb' must be in \[0, \d+\], got 4294967360/);
  const before = al.memory();
  for (let i = 0; i < 20; ++i) {
    assert.throws(() => al.Seq2Seq.fromBytes(huge), /more parameter values than the file stores|more than the limit/);
    assert.throws(() => al.Seq2Seq.fromBytes(wrap32), /emb|more than the limit|whole number/);
  }
  const after = al.memory();
  assert.equal(after.used, before.used);
  assert.equal(after.heap, before.heap, 'the heap grew while rejecting the file');
  assert.equal(after.handles, before.handles);
  assert.equal(dates.translate('JAN 23, 2015').text, '2015-01-23');
});

test('objects dropped without delete() are freed when garbage-collected', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const bytes = model('dates');
  const base = al.memory().used;
  for (let i = 0; i < 30; ++i) al.Seq2Seq.fromBytes(bytes);  // never deleted
  const held = al.memory().used - base;
  assert.ok(held > 30 * 100000, `30 models should hold memory, held ${held}`);
  for (let i = 0; i < 20 && al.memory().used - base > held / 10; ++i) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(al.memory().used - base < held / 10, `after GC ${al.memory().used - base} of ${held} bytes still held`);
});
