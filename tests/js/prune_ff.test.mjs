// scripts/prune_ff.py on the shipped Transformer: the narrowed file keeps a subset of each
// layer's feed-forward units in order (rows of linear1 with their biases, the same columns of
// linear2), copies every other tensor, records the new width in its config, and loads and
// decodes in the package; widths it cannot keep are refused with the file's width named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, loadPkg, modelFile, skipWithout, withModel } from './helpers.mjs';

const NAME = 'g2p-transformer';

// safetensors -> { meta, t: name -> { shape, values (Float32Array) } } for F16 / F32 files
function readSafetensors(path) {
  const b = readFileSync(path);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString());
  const meta = header.__metadata__ || {};
  delete header.__metadata__;
  const data = b.subarray(8 + n);
  const t = {};
  for (const [name, { dtype, shape, data_offsets: [lo, hi] }] of Object.entries(header)) {
    const raw = data.subarray(lo, hi);
    const count = shape.reduce((a, c) => a * c, 1);
    const values = new Float32Array(count);
    for (let i = 0; i < count; ++i) {
      if (dtype === 'F32') values[i] = raw.readFloatLE(4 * i);
      else if (dtype === 'F16') values[i] = half(raw.readUInt16LE(2 * i));
      else throw new Error(`dtype ${dtype}`);
    }
    t[name] = { shape, values };
  }
  return { meta, t };
}
function half(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}
const prune = (args, cwd) => spawnSync('python3', [join(ROOT, 'scripts', 'prune_ff.py'), ...args], { cwd, encoding: 'utf8' });

test('prune_ff.py keeps whole units of the feed-forward blocks, in order', { skip: skipWithout(NAME) }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-prune-'));
  try {
    const r = prune([modelFile(NAME), 'p.safetensors', '--ff', '64'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /encoder\.layers\.0: kept 64 of 512 units/);
    const a = readSafetensors(modelFile(NAME)), p = readSafetensors(join(dir, 'p.safetensors'));
    const ca = JSON.parse(a.meta.config), cp = JSON.parse(p.meta.config);
    assert.equal(cp.dim_feedforward, 64);
    assert.deepEqual({ ...cp, dim_feedforward: 512 }, ca);  // nothing else in the config changed
    assert.match(p.meta.pruned_ff, /^64 of 512 units/);
    assert.deepEqual(Object.keys(p.t).sort(), Object.keys(a.t).sort());
    const E = ca.d_model, F = 512;
    let layers = 0;
    for (const name of Object.keys(a.t)) {
      const m = /^(.*)\.linear1\.weight$/.exec(name);
      if (!m) {
        if (/\.linear(1\.bias|2\.weight)$/.test(name)) continue;
        assert.deepEqual(p.t[name].values, a.t[name].values, name);  // copied unchanged
        continue;
      }
      ++layers;
      const L = m[1], w1 = a.t[name].values, q1 = p.t[name].values;
      assert.deepEqual(p.t[name].shape, [64, E]);
      assert.deepEqual(p.t[`${L}.linear2.weight`].shape, [E, 64]);
      // each kept row is an original row; the rows are increasing (original order)
      let from = 0;
      for (let j = 0; j < 64; ++j) {
        const row = q1.subarray(j * E, (j + 1) * E);
        let found = -1;
        for (let u = from; u < F && found < 0; ++u)
          if (w1.subarray(u * E, (u + 1) * E).every((v, i) => v === row[i])) found = u;
        assert.ok(found >= 0, `${L}: kept row ${j} is not an original row after ${from}`);
        assert.equal(p.t[`${L}.linear1.bias`].values[j], a.t[`${L}.linear1.bias`].values[found]);
        for (let i = 0; i < E; ++i)
          assert.equal(p.t[`${L}.linear2.weight`].values[i * 64 + j], a.t[`${L}.linear2.weight`].values[i * F + found]);
        from = found + 1;
      }
    }
    assert.equal(layers, ca.enc_layers + ca.dec_layers);
    const al = await loadPkg();
    withModel(al.Seq2Seq, join(dir, 'p.safetensors'), (m) => {
      assert.equal(m.info().config.dim_feedforward, 64);
      const t = m.translate('attention', { beam: 1, heads: false });
      assert.ok(Array.isArray(t.tokens) && t.tokens.length > 0);
    });
    const wide = prune([modelFile(NAME), 'q.safetensors', '--ff', '512'], dir);
    assert.notEqual(wide.status, 0);
    assert.match(wide.stderr, /--ff must be in \[1, 512\) \(the file's dim_feedforward is 512\), got 512/);
    const rnn = prune([modelFile('g2p-cmudict'), 'q.safetensors', '--ff', '8'], dir);
    assert.notEqual(rnn.status, 0);
    assert.match(rnn.stderr, /kind 'seq2seq'; this prunes transformer-seq2seq files/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
