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
import { rejectedCalls } from './rejected_calls.mjs';

const al = await loadPkg();
const REPEATS = Number(process.env.ATTNLAB_REJECT_REPEATS || 2000);
const model = (name) => readFileSync(join(ROOT, 'models', name, 'model.safetensors'));

const { REJECTED, objects: { dates, mmoe, x100 } } = rejectedCalls(al, ROOT);


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

test('a Transformer file whose config asks for more than it stores is rejected before allocating', () => {
  const bytes = model('g2p-transformer');
  // about 1.6 G parameter values from a 2.8 MB file
  const huge = withConfig(bytes, (c) => { c.d_model = 4096; c.dim_feedforward = 65536; c.nhead = 4; });
  // the first call may grow the heap for the file's own bytes (2.8 MB here), never for the
  // model (built without the check, the first call grew the heap by 613 MB)
  const first = al.memory();
  assert.throws(() => al.Seq2Seq.fromBytes(huge), /more parameter values than the file stores|more than the limit/);
  assert.ok(al.memory().heap - first.heap <= 32 * 2 ** 20, `the heap grew by ${al.memory().heap - first.heap} bytes`);
  const before = al.memory();
  for (let i = 0; i < 20; ++i) {
    assert.throws(() => al.Seq2Seq.fromBytes(huge), /more parameter values than the file stores|more than the limit/);
  }
  const after = al.memory();
  assert.equal(after.used, before.used);
  assert.equal(after.heap, before.heap, 'the heap grew while rejecting the file');
  assert.equal(after.handles, before.handles);
  const tf = al.Seq2Seq.fromBytes(bytes);
  assert.equal(tf.translate('CAT').text, 'K AE T');
  tf.delete();
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
