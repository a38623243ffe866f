// translate()'s timing fields: `ms` is the decode's own time in wasm; a Transformer's head maps
// (heads: true, the default) come from a float32 pass after the decode, timed apart in
// `headsMs`, so `ms` stays the decode's cost whether or not the maps are asked for.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const TF = join(ROOT, 'models', 'g2p-transformer', 'model.safetensors');
const GRU = join(ROOT, 'models', 'g2p-cmudict', 'model.safetensors');
const skip = existsSync(TF) && existsSync(GRU) ? false : 'shipped models missing';
let al;
before(async () => { if (!skip) al = await loadPkg(); });

test('Transformer translate: ms is the decode, headsMs the head maps pass, both inside the call', { skip }, () => {
  const m = al.Seq2Seq.fromBytes(readFileSync(TF));
  try {
    for (const beam of [1, 4]) {
      const t0 = performance.now();
      const r = m.translate('PRONUNCIATION', { beam });
      const wall = performance.now() - t0;
      assert.ok(r.heads && r.heads.cross.layers > 0, 'maps by default');
      assert.equal(typeof r.headsMs, 'number');
      assert.ok(r.ms > 0 && r.headsMs > 0, `ms ${r.ms}, headsMs ${r.headsMs}`);
      // two disjoint parts of the call: their sum cannot exceed the call's wall time
      assert.ok(r.ms + r.headsMs <= wall + 0.05, `ms ${r.ms} + headsMs ${r.headsMs} > wall ${wall}`);
      const plain = m.translate('PRONUNCIATION', { beam, heads: false });
      assert.equal(plain.heads, undefined);
      assert.equal(plain.headsMs, undefined);
      assert.equal(plain.text, r.text);
    }
  } finally {
    m.delete();
  }
});

test('RNN translate: no head maps, no headsMs', { skip }, () => {
  const m = al.Seq2Seq.fromBytes(readFileSync(GRU));
  try {
    const r = m.translate('ATTENTION');
    assert.equal(r.heads, undefined);
    assert.equal(r.headsMs, undefined);
    assert.ok(r.ms > 0);
  } finally {
    m.delete();
  }
});
