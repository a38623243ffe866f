// MMoE through the JS package: the API, errors, ownership, heap use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const al = await loadPkg();

test('create, train a few epochs, predict: gates are distributions and the loss falls', async () => {
  const { x, y } = al.data.mmoeSynthetic({ n: 3000, p: 0.8, sines: 1, seed: 2 });
  assert.equal(x.length, 3000 * 100);
  assert.equal(y.length, 3000 * 2);
  const m = new al.MMoE({ gate: 'attention', seed: 3 });
  try {
    assert.equal(m.config.gate, 'attention');
    assert.equal(m.paramCount, 13506);
    const before = m.evaluate(x, y);
    const epochs = [];
    await m.fit(x, y, { epochs: 8, lr: 3e-3, onEpoch: (e) => { epochs.push(e.epoch); } });
    assert.deepEqual(epochs, [0, 1, 2, 3, 4, 5, 6, 7]);
    const after = m.evaluate(x, y);
    for (let t = 0; t < 2; ++t) assert.ok(after[t] < 0.3 * before[t], `task ${t}: ${before[t]} -> ${after[t]}`);
    const { pred, gates, n } = m.predict(x.subarray(0, 50 * 100));
    assert.equal(n, 50);
    assert.equal(pred.length, 100);
    assert.equal(gates.length, 2 * 50 * 8);
    for (let r = 0; r < 100; ++r) {
      let s = 0;
      for (let e = 0; e < 8; ++e) s += gates[r * 8 + e];
      assert.ok(Math.abs(s - 1) < 1e-5);
    }
  } finally {
    m.delete();
  }
});

test('bad input throws an Error with a message and the module stays usable', () => {
  const m = new al.MMoE({ gate: 'softmax' });
  assert.throws(() => m.predict(new Float32Array(150)), /multiple of inputDim = 100/);
  assert.throws(() => m.predict(new Float32Array(0)), /empty input/);
  const nan = new Float32Array(100); nan[7] = NaN;
  assert.throws(() => m.predict(nan), /not finite/);
  assert.throws(() => m.trainEpoch(new Float32Array(100), new Float32Array(3)), /y: expected 1 x 2/);
  assert.throws(() => new al.MMoE({ gate: 'sigmoid' }), /unknown gate 'sigmoid'/);
  assert.throws(() => new al.MMoE({ experts: 0 }), /experts must be in \[1, 256\]/);
  assert.throws(() => al.MMoE.fromBytes(new Uint8Array([1, 2, 3])), /too few for the 8-byte header/);
  assert.throws(() => al.data.mmoeSynthetic({ p: 2 }), /correlation p must be in \[-1, 1\]/);
  assert.equal(m.predict(new Float32Array(100)).pred.length, 2);  // still usable
  m.delete();
  assert.throws(() => m.predict(new Float32Array(100)), /was deleted/);
  m.delete();  // deleting twice is harmless
});

test('save -> fromBytes gives identical predictions; f16 files are smaller', () => {
  const m = new al.MMoE({ gate: 'attention-x', seed: 5 });
  const { x } = al.data.mmoeSynthetic({ n: 20, seed: 1 });
  const bytes = m.save();
  const back = al.MMoE.fromBytes(bytes);
  assert.deepEqual(Array.from(back.predict(x).pred), Array.from(m.predict(x).pred));
  assert.ok(m.save({ f16: true }).length < bytes.length * 0.6);
  m.delete();
  back.delete();
});

test('the shipped models load and beat an untrained model on fresh data', () => {
  for (const gate of ['softmax', 'attention']) {
    const file = join(ROOT, 'models', 'mmoe-synthetic', `${gate}.safetensors`);
    assert.ok(existsSync(file), `${file} missing`);
    const m = al.MMoE.fromBytes(readFileSync(file));
    const fresh = new al.MMoE({ gate });
    // the shipped models were trained on the tasks of seed 1: same tasks, fresh samples
    const { x, y } = al.data.mmoeSynthetic({ n: 2000, p: 0.5, sines: 3, seed: 4242, taskSeed: 1 });
    const trained = m.evaluate(x, y), untrained = fresh.evaluate(x, y);
    assert.equal(m.config.gate, gate);
    for (let t = 0; t < 2; ++t) assert.ok(trained[t] < 0.5 * untrained[t], `${gate} task ${t}: ${trained[t]} vs ${untrained[t]}`);
    m.delete();
    fresh.delete();
  }
});

test('fromUrl reads a file path in Node and names the file when it is missing', async () => {
  const m = await al.MMoE.fromUrl(join(ROOT, 'models', 'mmoe-synthetic', 'attention.safetensors'));
  assert.equal(m.config.gate, 'attention');
  m.delete();
  await assert.rejects(al.MMoE.fromUrl('/no/such/model.safetensors'), /cannot read the model file \/no\/such\/model\.safetensors/);
});

test('10,000 predict calls leave the wasm heap flat', () => {
  const m = new al.MMoE({ gate: 'attention' });
  const x = new Float32Array(4 * 100).fill(0.5);
  for (let i = 0; i < 100; ++i) m.predict(x);
  const before = al.memory().used;
  for (let i = 0; i < 10000; ++i) m.predict(x);
  const after = al.memory().used;
  assert.ok(after - before <= 1024, `heap grew by ${after - before} bytes`);
  // errors too: a failing call must not leak its buffers
  const e0 = al.memory().used;
  for (let i = 0; i < 2000; ++i) assert.throws(() => m.predict(new Float32Array(150)));
  assert.ok(al.memory().used - e0 <= 64 * 1024, `heap grew by ${al.memory().used - e0} bytes over 2,000 errors`);
  m.delete();
});
