// The attention playground and the benchmark entry points through the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPkg } from './helpers.mjs';

const al = await loadPkg();
const T = 5, D = 8;
const x = Float32Array.from({ length: T * D }, (_, i) => Math.sin(0.37 * i));

const rowSums = (w, rows, cols) => Array.from({ length: rows }, (_, r) => w.slice(r * cols, (r + 1) * cols).reduce((a, b) => a + b, 0));

test('attend: every score function, global, with padding and causal masks', () => {
  for (const { name: score } of al.scoreKinds()) {  // every score of the library's table
    const r = al.playground.attend({ score, x, T, D, validKeys: 3, causal: true });
    assert.equal(r.weights.length, T * T);
    assert.equal(r.out.length, T * D);
    for (let i = 0; i < T; ++i) {
      for (let j = 0; j < T; ++j) {
        const allowed = j < 3 && j <= i;
        assert.equal(r.mask[i * T + j], allowed ? 1 : 0);
        if (!allowed) assert.equal(r.weights[i * T + j], 0, `${score} (${i},${j}) should be masked`);
      }
    }
    for (const s of rowSums(r.weights, T, T)) assert.ok(Math.abs(s - 1) < 1e-5, `${score}: row sum ${s}`);
  }
});

test('local-m and local-p: weights only inside the window; local-p reports its centres', () => {
  const m = al.playground.attend({ score: 'dot', mode: 'local-m', window: 1, x, T, D });
  for (let i = 0; i < T; ++i) for (let j = 0; j < T; ++j) if (Math.abs(i - j) > 1) assert.equal(m.weights[i * T + j], 0);
  const p = al.playground.attend({ score: 'additive', mode: 'local-p', window: 1, x, T, D });
  assert.equal(p.positions.length, T);
  assert.ok(Array.from(p.positions).every((v) => v >= 0 && v <= T));
  for (const s of rowSums(p.weights, T, T)) assert.ok(s > 0 && s <= 1 + 1e-5);  // Gaussian-damped
});

test('multihead: per-head weights, their average and the disagreement terms', () => {
  const r = al.playground.multihead({ x, T, E: D, heads: 2, causal: true });
  assert.equal(r.heads.length, 2 * T * T);
  for (const s of rowSums(r.heads, 2 * T, T)) assert.ok(Math.abs(s - 1) < 1e-5);
  for (let i = 0; i < T * T; ++i) assert.ok(Math.abs(r.weights[i] - (r.heads[i] + r.heads[T * T + i]) / 2) < 1e-6);
  for (const k of ['subspace', 'position', 'output']) assert.ok(Number.isFinite(r.disagreement[k]));
});

test('bad playground input throws an Error and the module stays usable', () => {
  assert.throws(() => al.playground.attend({ score: 'nope', x, T, D }), /score kind/);
  assert.throws(() => al.playground.attend({ score: 'dot', x: x.subarray(1), T, D }), /expected 5 x 8 = 40 values/);
  assert.throws(() => al.playground.attend({ score: 'dot', mode: 'sideways', x, T, D }), /mode/);
  assert.throws(() => al.playground.multihead({ x, T, E: D, heads: 3 }), /divisible/);
  assert.equal(al.playground.attend({ score: 'dot', x, T, D }).weights.length, T * T);
});

test('benchmark entry points answer with sane numbers', () => {
  assert.ok(al.kernels.list().length >= 30);
  const b = al.kernels.bench('softmax_rows', [8, 8], { minMs: 5, withRef: true });
  assert.ok(b.ns > 0 && b.refNs > 0 && b.gflops > 0);
  assert.ok(al.kernels.peakGflops(5) > 0.5);
  assert.ok(al.kernels.attention('sdpa', { T: 16, D: 8, minMs: 5 }) > 0);
  assert.ok(al.kernels.attention('mha', { T: 16, D: 8, heads: 2, minMs: 5 }) > 0);
  assert.throws(() => al.kernels.attention('conv', {}), /op must be 'sdpa' or 'mha'/);
  const mem = al.memory();
  assert.ok(mem.used > 0 && mem.heap >= mem.used);
});

test('the score list agrees in C++ (the table), JS, TypeScript and every score runs', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('./helpers.mjs');
  const kinds = al.scoreKinds();
  const names = kinds.map((k) => k.name);
  assert.ok(names.length >= 6, `only ${names.length} scores`);
  const dts = readFileSync(join(ROOT, 'bindings', 'js', 'index.d.ts'), 'utf8');
  const union = dts.match(/export type PlaygroundScore = ([^;]+);/)[1].split('|').map((s) => s.trim().replace(/'/g, ''));
  assert.deepEqual([...union].sort(), [...names].sort(), 'index.d.ts PlaygroundScore differs from al.scoreKinds()');
  for (const k of kinds) {
    const r = al.playground.attend({ score: k.name, T: 3, D: 4, x: Float32Array.from({ length: 12 }, (_, i) => Math.sin(i)) });
    assert.equal(r.weights.length, 9, k.name);
    for (const a of k.aliases) assert.equal(al.playground.attend({ score: a, T: 3, D: 4, x: new Float32Array(12) }).weights.length, 9, a);
  }
  assert.throws(() => al.playground.attend({ score: 'nope', T: 2, D: 2, x: [1, 2, 3, 4] }), /expected one of dot, scaled_dot/);
});
