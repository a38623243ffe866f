// Training in the package: Seq2Seq.create(config).fit(pairs) learns numbers in words ->
// digits, stop() and fit() again resume exactly, the saved file loads with fromBytes and in
// the same tokenization, and bad pairs or options throw at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPkg } from './helpers.mjs';

const al = await loadPkg();
const SMALL = { srcTokens: 'word', emb: 16, hidden: 32, attnDim: 32, combine: 48 };
const FIT = { batchSize: 16, lr: 5e-3, warmup: 20 };

test('numberPairs: distinct, seeded, words and digits', () => {
  const a = al.data.numberPairs({ count: 300, max: 999, seed: 4 });
  const b = al.data.numberPairs({ count: 300, max: 999, seed: 4 });
  assert.deepEqual(a, b);
  assert.equal(new Set(a.map((p) => p[1])).size, 300);
  for (const [w, d] of a) assert.match(d, /^\d+$/) && assert.match(w, /^[a-z ]+$/);
  assert.deepEqual(al.data.numberPairs({ count: 1, max: 0 }), [['zero', '0']]);
});

test('fit learns the numbers task and reports every epoch', async () => {
  const pairs = al.data.numberPairs({ count: 1200, max: 999, seed: 3 });
  const m = al.Seq2Seq.create(SMALL);
  const seen = [];
  const r = await m.fit(pairs, { ...FIT, epochs: 12, onEpoch: (e) => seen.push(e) });
  assert.equal(r.stopped, false);
  assert.equal(r.epoch, 12);
  assert.equal(seen.length, 12);
  assert.deepEqual(seen.map((e) => e.epoch), [...Array(12).keys()].map((i) => i + 1));
  assert.ok(seen[11].loss < seen[0].loss * 0.3, `loss ${seen[0].loss} -> ${seen[11].loss}`);
  assert.ok(seen[11].valExactMatch > 0.8, `held-out exact match ${seen[11].valExactMatch}`);
  const st = m.stats();
  assert.equal(st.trainPairs + st.validPairs, pairs.length);
  assert.equal(m.translate('forty two').text, '42');
  // the saved file: same outputs through fromBytes, an unseen word becomes <unk>
  const loaded = al.Seq2Seq.fromBytes(m.save('f32'));
  for (const w of ['seven', 'nine hundred ninety nine', 'twelve'])
    assert.deepEqual(loaded.translate(w).tokens, m.translate(w).tokens, w);
  assert.equal(loaded.translate('zebra seven').inputTokens[0], '<unk>');
  assert.equal(loaded.info().config.src_tokens, 'word');
  loaded.delete();
  m.delete();
  assert.throws(() => m.translate('seven'), /deleted/);
});

test('stop() then fit() again gives the same model as one uninterrupted fit', async () => {
  const pairs = al.data.numberPairs({ count: 300, max: 999, seed: 5 });
  const a = al.Seq2Seq.create(SMALL), b = al.Seq2Seq.create(SMALL);
  let steps = 0;
  const first = await a.fit(pairs, { ...FIT, epochs: 2, chunkSteps: 3, onStep: () => { if (++steps === 4) a.stop(); } });
  assert.equal(first.stopped, true);
  assert.equal(first.step, 12);  // 4 chunks of 3 steps
  const second = await a.fit(pairs, { epochs: 2 });
  assert.equal(second.stopped, false);
  const whole = await b.fit(pairs, { ...FIT, epochs: 2 });
  assert.equal(second.step, whole.step);
  assert.deepEqual(a.save(), b.save());
  // an AbortSignal stops it too
  const ctl = new AbortController();
  const c = al.Seq2Seq.create(SMALL);
  const r = await c.fit(pairs, { ...FIT, epochs: 5, onEpoch: () => ctl.abort(), signal: ctl.signal });
  assert.equal(r.stopped, true);
  assert.equal(r.epoch, 1);
  for (const m of [a, b, c]) m.delete();
});

test('fit: other pairs, changed fixed options and untrained use are clear Errors', async () => {
  const pairs = al.data.numberPairs({ count: 50, max: 99, seed: 1 });
  const m = al.Seq2Seq.create(SMALL);
  assert.throws(() => m.translate('seven'), /not been trained yet: call fit/);
  await m.fit(pairs, { ...FIT, epochs: 1 });
  assert.throws(() => m.fit(pairs.slice()), /not the pairs the first fit call used/);
  assert.throws(() => m.fit(pairs, { batchSize: 8 }), /batchSize is fixed by the first fit call \(16\)/);
  assert.throws(() => m.fit(pairs, { epochs: -1 }), /epochs: expected a whole number/);
  assert.throws(() => al.Seq2Seq.create('gru'), /expected a config object/);
  // TSV text works as pairs too, and a bad line names its number
  const t = al.Seq2Seq.create({ emb: 4, hidden: 4, attnDim: 4, combine: 4 });
  assert.throws(() => t.fit('ab\tba\ncd dc\n'), /line 2/);
  m.delete();
  t.delete();
});
