// A fuzzer on the wasm side (32-bit size_t: wrap-arounds native fuzzing
// cannot see): random and mutated bytes, strings, numbers and option objects
// into the package's entry points. Every call either returns or throws an
// Error whose message starts with 'attnlab:'; never a RuntimeError, a hang
// or a heap beyond the cap; the module computes correctly afterwards.
//
// ATTNLAB_FUZZ_ITERS sets the iterations per entry point (default 300),
// ATTNLAB_FUZZ_SEED the seed (default 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadPkg } from './helpers.mjs';

const al = await loadPkg();
const ITERS = Number(process.env.ATTNLAB_FUZZ_ITERS || 300);
const HEAP_CAP = 1 << 30;  // 1 GiB: no input may push the wasm heap beyond it
let state = BigInt(process.env.ATTNLAB_FUZZ_SEED || 1);
function rand() {  // xorshift64*, reproducible
  state ^= state >> 12n; state ^= (state << 25n) & 0xffffffffffffffffn; state ^= state >> 27n;
  return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const NUMBERS = [0, 1, -1, 0.5, 1.5, 2 ** 31, 2 ** 32, 2 ** 32 + 64, 2 ** 53, -(2 ** 31), 65536, 1e30, -1e30,
  NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 4, 64, 100];
function value(depth = 0) {
  const r = rand();
  if (r < 0.35) return pick(NUMBERS);
  if (r < 0.5) return pick(['', 'abc', '4', 'attention', 'int8', 'f32', 'softmax', '\u00e9', '\u{1F600}', 'x'.repeat(1000)]);
  if (r < 0.6) return pick([null, undefined, true, false, Symbol('s'), 10n]);
  if (r < 0.75) return Float32Array.from({ length: Math.floor(rand() * 300) }, () => pick(NUMBERS));
  if (r < 0.85 && depth < 2) return options(depth + 1);
  return pick([[], [1, 2, 3], [65536, 65536, 1], [-1, 2], ['a'], {}]);
}
const KEYS = ['beam', 'maxLen', 'alpha', 'precision', 'n', 'dim', 'p', 'sines', 'noise', 'seed', 'taskSeed',
  'inputDim', 'experts', 'expertUnits', 'tasks', 'towerUnits', 'attDim', 'gate', 'batchSize', 'lr', 'T', 'D', 'E',
  'heads', 'x', 'score', 'mode', 'window', 'causal', 'validKeys', 'pooling', 'epochs', 'train', 'test', 'fields',
  'vocab', 'layers', 'headDim', 'embedDim', 'minMs', 'withRef', 'f16'];
function options(depth = 0) {
  const o = {};
  const n = Math.floor(rand() * 5);
  for (let i = 0; i < n; ++i) o[pick(KEYS)] = value(depth);
  return o;
}
function mutate(bytes) {
  const b = new Uint8Array(bytes);
  const r = rand();
  if (r < 0.2) return b.subarray(0, Math.floor(rand() * b.length));
  const n = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < n; ++i) {
    // mostly in the header (the first 8 + header bytes), where sizes live
    const at = rand() < 0.8 ? Math.floor(rand() * Math.min(b.length, 4096)) : Math.floor(rand() * b.length);
    b[at] = rand() < 0.5 ? b[at] ^ (1 << Math.floor(rand() * 8)) : Math.floor(rand() * 256);
  }
  return b;
}

// Runs fn; it must return or throw an attnlab Error. Returns the result or null.
function survive(name, fn) {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof Error, `${name}: threw a non-Error ${String(e)}`);
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name}: wasm trapped: ${e.message}`);
    assert.match(e.message, /^attnlab:/, `${name}: unexpected error ${e.stack}`);
    return null;
  } finally {
    assert.ok(al.memory().heap <= HEAP_CAP, `${name}: heap grew to ${al.memory().heap}`);
  }
}

const files = {
  Seq2Seq: readFileSync(join(ROOT, 'models', 'dates', 'model.safetensors')),
  HAN: readFileSync(join(ROOT, 'models', 'han-spam', 'model.safetensors')).subarray(0, 1 << 20),
  MMoE: readFileSync(join(ROOT, 'models', 'mmoe-synthetic', 'attention.safetensors')),
};

test('mutated model files: load or a clear Error', () => {
  for (const [cls, bytes] of Object.entries(files)) {
    for (let i = 0; i < ITERS; ++i) {
      const m = survive(`${cls}.fromBytes`, () => al[cls].fromBytes(mutate(bytes)));
      if (m) m.delete();
    }
  }
});

test('random arguments and options into every entry point', () => {
  const dates = al.Seq2Seq.fromBytes(files.Seq2Seq);
  const mmoe = new al.MMoE({ inputDim: 4, experts: 2, expertUnits: 3 });
  const calls = {
    translate: () => dates.translate(value(), value()),
    softmax: () => al.softmax(value()),
    'MMoE.new': () => { const m = new al.MMoE(options()); m.delete(); },
    'MMoE.predict': () => mmoe.predict(value()),
    'MMoE.trainEpoch': () => mmoe.trainEpoch(value(), value(), options()),
    'MMoE.save': () => mmoe.save(value()),
    mmoeSynthetic: () => al.data.mmoeSynthetic({ ...options(), n: pick([1, 10, 65536, 2 ** 32, 1.5, -3, NaN]) }),
    attend: () => al.playground.attend({ T: pick([1, 2, 3, 256, 65536]), D: pick([1, 2, 4, 2 ** 32]), x: value(), ...options() }),
    multihead: () => al.playground.multihead({ T: pick([1, 2, 65536]), E: pick([2, 4, 6, 2 ** 31]), x: value(), ...options() }),
    bench: () => al.kernels.bench(pick(['gemm_nn', 'softmax_rows', 'dot', 'nope', 3]), value(), { minMs: 0, ...options(), withRef: false }),
    benchAttention: () => al.kernels.attention(pick(['sdpa', 'mha', 'x']), { T: pick([1, 4, 5000, -1]), D: pick([1, 4, 4096, 1e9]), minMs: 0 }),
    din: () => al.recsys.din({ ...options(), epochs: 1, train: pick([1, 10, 1e9, -1]), test: pick([1, 10, 2.5]) }),
    autoint: () => al.recsys.autoint({ ...options(), epochs: 1, train: pick([1, 10, 1e12]), test: pick([1, 10]) }),
  };
  for (const [name, fn] of Object.entries(calls)) {
    for (let i = 0; i < ITERS; ++i) survive(name, fn);
  }
  // still correct afterwards
  assert.equal(dates.translate('JAN 23, 2015').text, '2015-01-23');
  const s = al.softmax([1, 2, 3]);
  assert.ok(Math.abs(s[0] - 0.0900306) < 1e-6);
  dates.delete();
  mmoe.delete();
});
