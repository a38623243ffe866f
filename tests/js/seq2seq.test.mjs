// Wasm tier: the shipped seq2seq models (G2P, dates) through the JS API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const al = await loadPkg();
const G2P = join(ROOT, 'models', 'g2p-cmudict', 'model.safetensors');
const DATES = join(ROOT, 'models', 'dates', 'model.safetensors');

function rowSums(r) {
  const s = [];
  for (let i = 0; i < r.rows; ++i) {
    let t = 0;
    for (let j = 0; j < r.cols; ++j) t += r.attention[i * r.cols + j];
    s.push(t);
  }
  return s;
}

test('G2P model: info, greedy and beam translations with attention', { skip: !existsSync(G2P) && 'no shipped G2P model' }, () => {
  const m = al.Seq2Seq.fromBytes(readFileSync(G2P));
  try {
    const info = m.info();
    assert.equal(info.kind, 'seq2seq');
    assert.equal(info.score, 'additive');
    assert.ok(info.srcVocab.includes('A') && info.tgtVocab.includes('AH'));
    const r = m.translate('cat');
    assert.deepEqual(r.tokens, ['K', 'AE', 'T']);
    assert.equal(r.text, 'K AE T');
    assert.deepEqual(r.inputTokens, ['C', 'A', 'T']);
    assert.equal(r.rows, 3);
    assert.equal(r.cols, 3);
    assert.ok(r.attention instanceof Float32Array && r.attention.length === 9);
    for (const s of rowSums(r)) assert.ok(Math.abs(s - 1) < 1e-4, `row sum ${s}`);
    assert.ok(r.probs instanceof Float32Array && r.probs.length === 3);
    for (const p of r.probs) assert.ok(p > 0 && p <= 1);
    assert.equal(typeof r.ms, 'number');
    const b = m.translate('attention', { beam: 4 });
    assert.ok(b.tokens.length >= 5);
    assert.equal(b.attention.length, b.rows * b.cols);
    assert.equal(b.cols, 9);
    // beam 1 is greedy
    assert.deepEqual(m.translate('phoenix', { beam: 1 }).tokens, m.translate('phoenix').tokens);
    // the int8 (default) and int16 decoders against float32: same words, close probabilities
    for (const w of ['attention', 'phoenix', 'cat'])
      for (const [precision, tol] of [['int8', 2e-2], ['int16', 2e-3]]) {
        const q = m.translate(w, { precision }), f = m.translate(w, { precision: 'f32' });
        assert.deepEqual(q.tokens, f.tokens, w);
        for (let i = 0; i < q.probs.length; ++i) assert.ok(Math.abs(q.probs[i] - f.probs[i]) < tol, `${w} ${precision} ${i}`);
      }
    assert.deepEqual(m.translate('phoenix').tokens, m.translate('phoenix', { precision: 'int8' }).tokens);
    assert.throws(() => m.translate('cat', { precision: 'f16' }), (e) => e instanceof Error && /precision/.test(e.message));
    assert.equal(m.translate('cat').text, 'K AE T');  // still usable after the error
  } finally {
    m.delete();
  }
});

test('dates model (tfjs architecture) normalizes several formats', { skip: !existsSync(DATES) && 'no shipped dates model' }, () => {
  const m = al.Seq2Seq.fromBytes(new Uint8Array(readFileSync(DATES)).buffer);
  try {
    assert.equal(m.info().score, 'dot');
    assert.equal(m.info().config.rnn, 'lstm');
    for (const s of ['23JAN2015', '012315', '01/23/15', 'JAN 23, 15', '2015.1.23', '20150123', '23 jan 2015'])
      assert.equal(m.translate(s).text, '2015-01-23', s);
    const r = m.translate('1/2/1999', { beam: 3 });
    assert.equal(r.text, '1999-01-02');
    assert.equal(r.cols, 8);
    assert.equal(r.rows, 10);
  } finally {
    m.delete();
  }
});

test('bad inputs throw Errors with the reason and the model stays usable', { skip: !existsSync(G2P) && 'no shipped G2P model' }, () => {
  const m = al.Seq2Seq.fromBytes(readFileSync(G2P));
  try {
    assert.throws(() => m.translate('ab3d'), (e) => e instanceof Error && /unknown character '3' at position 2/.test(e.message));
    assert.throws(() => m.translate(''), (e) => e instanceof Error && /empty input/.test(e.message));
    assert.throws(() => m.translate('a'.repeat(100)), (e) => e instanceof Error && /100 characters.*at most 40/.test(e.message));
    assert.throws(() => m.translate('cat', { beam: 0 }), /beam/);
    assert.throws(() => m.translate(42), /string/);
    assert.deepEqual(m.translate('cat').tokens, ['K', 'AE', 'T']);
  } finally {
    m.delete();
  }
  assert.equal(m.deleted, true);
  assert.throws(() => m.translate('cat'), /deleted/);
  assert.throws(() => m.info(), /deleted/);
  m.delete();  // twice is harmless
});

test('damaged model bytes throw an Error', () => {
  assert.throws(() => al.Seq2Seq.fromBytes(new Uint8Array([1, 2, 3])), Error);
  assert.throws(() => al.Seq2Seq.fromBytes('nope'), /Uint8Array/);
});
