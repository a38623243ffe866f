// DIN and AutoInt through the JS package: training in one call, the attention
// it returns, and bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPkg } from './helpers.mjs';

const al = await loadPkg();

test('DIN learns the synthetic clicks and beats its sum-pooling Base', () => {
  const din = al.recsys.din({ pooling: 'attention', epochs: 4, train: 8000, test: 2000, seed: 1 });
  const base = al.recsys.din({ pooling: 'sum', epochs: 4, train: 8000, test: 2000, seed: 1 });
  assert.equal(din.history.length, 4);
  assert.deepEqual(din.history.map((h) => h.epoch), [1, 2, 3, 4]);
  const auc = din.history.at(-1).auc, aucBase = base.history.at(-1).auc;
  assert.ok(auc > 0.9, `DIN test AUC ${auc}`);
  assert.ok(auc > aucBase, `DIN ${auc} vs Base ${aucBase}`);
  const ex = din.examples;
  assert.equal(ex.n, 8);
  assert.ok(ex.weights instanceof Float32Array);
  assert.equal(ex.weights.length, ex.n * din.T);
  assert.equal(ex.cats.length, ex.n * din.T);
  // padding gets weight 0; behaviours of the candidate's category carry the larger |weight|
  let same = 0, other = 0, ns = 0, no = 0;
  for (let s = 0; s < ex.n; ++s)
    for (let t = 0; t < din.T; ++t) {
      const w = ex.weights[s * din.T + t];
      if (t >= ex.len[s]) { assert.equal(w, 0); continue; }
      if (ex.cats[s * din.T + t] === ex.candCat[s]) { same += Math.abs(w); ++ns; } else { other += Math.abs(w); ++no; }
    }
  assert.ok(same / ns > 2 * (other / no), `mean |w| same ${same / ns} other ${other / no}`);
});

test('DIN with softmax weights: every history\'s weights sum to 1', () => {
  const r = al.recsys.din({ pooling: 'softmax', epochs: 1, train: 2000, test: 500, examples: 5 });
  for (let s = 0; s < r.examples.n; ++s) {
    let sum = 0;
    for (let t = 0; t < r.T; ++t) sum += r.examples.weights[s * r.T + t];
    if (r.examples.len[s] > 0) assert.ok(Math.abs(sum - 1) < 1e-5, `row ${s}: ${sum}`);
  }
});

test('AutoInt finds the planted pair; without interacting layers it cannot', () => {
  const a = al.recsys.autoint({ layers: 2, heads: 2, epochs: 5, seed: 1 });
  const lin = al.recsys.autoint({ layers: 0, epochs: 5, seed: 1 });
  const F = a.fields, H = a.heads;
  assert.equal(a.attention.length, a.layers * H * F * F);
  assert.equal(lin.attention.length, 0);
  assert.ok(a.history.at(-1).auc > 0.8, `AutoInt AUC ${a.history.at(-1).auc}`);
  assert.ok(lin.history.at(-1).auc < 0.65, `no-interaction AUC ${lin.history.at(-1).auc}`);
  // layer 1, mean over heads: field a attends to field b more than to an average other field
  let toB = 0, toOthers = 0;
  for (let h = 0; h < H; ++h)
    for (let k = 0; k < F; ++k) {
      const w = a.attention[(h * F + a.fieldA) * F + k] / H;
      if (k === a.fieldB) toB += w; else if (k !== a.fieldA) toOthers += w / (F - 2);
    }
  assert.ok(toB > 1.5 * toOthers, `a->b ${toB} vs a->others ${toOthers}`);
  for (let r = 0; r < a.layers * H * F; ++r) {
    let s = 0;
    for (let k = 0; k < F; ++k) s += a.attention[r * F + k];
    assert.ok(Math.abs(s - 1) < 1e-4);
  }
});

test('bad options throw an Error with a message and the module stays usable', () => {
  assert.throws(() => al.recsys.din({ pooling: 'max' }), /pooling: expected 'attention', 'softmax' or 'sum'/);
  assert.throws(() => al.recsys.din({ epochs: 0 }), /epochs: expected a whole number in \[1, 200\]/);
  assert.throws(() => al.recsys.din({ lr: Number.NaN }), /lr: expected a number/);
  assert.throws(() => al.recsys.autoint({ fieldA: 2, fieldB: 2 }), /fieldA and fieldB must differ/);
  assert.throws(() => al.recsys.autoint({ fields: 3, fieldB: 7 }), /fieldB: expected a whole number in \[0, 2\]/);
  assert.throws(() => al.recsys.autoint({ residual: 'yes' }), /residual: expected true or false/);
  const r = al.recsys.din({ epochs: 1, train: 500, test: 200, examples: 0 });
  assert.equal(r.history.length, 1);
  assert.equal(r.examples, undefined);
});
