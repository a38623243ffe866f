// translate(text, { beam, nBest: true }): every finished hypothesis of the beam, best
// first, each with its tokens, probabilities, attention, log-probability and ranking
// score; the first is the output translate() gives without nBest.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const MODELS = ['dates', 'g2p-cmudict', 'g2p-transformer'].map((n) => join(ROOT, 'models', n, 'model.safetensors'));
const skip = MODELS.every((m) => existsSync(m)) ? false : 'shipped models missing';
let al;
before(async () => { if (!skip) al = await loadPkg(); });

const gnmt = (h, alpha) => h.logprob / Math.pow((5 + h.tokens.length + (h.eosProb > 0 ? 1 : 0)) / 6, alpha);

function checkList(r, plain, beam, alpha) {
  const list = r.nBest;
  assert.ok(Array.isArray(list) && list.length >= 1 && list.length <= beam, `${list?.length} hypotheses for beam ${beam}`);
  // the first is the output, and the output is what translate gives without nBest
  assert.equal(list[0].text, r.text);
  assert.equal(list[0].logprob, r.logprob);
  assert.equal(r.text, plain.text);
  assert.equal(r.logprob, plain.logprob);
  assert.deepEqual(Array.from(r.attention), Array.from(plain.attention));
  for (let k = 0; k < list.length; ++k) {
    const h = list[k];
    assert.equal(h.rows, h.tokens.length);
    assert.equal(h.cols, r.cols);
    assert.equal(h.attention.length, h.rows * h.cols);
    assert.equal(h.probs.length, h.tokens.length);
    // alpha crosses as a float32: 1e-6 relative
    assert.ok(Math.abs(h.score - gnmt(h, alpha)) < 1e-6 * Math.max(1, Math.abs(h.score)), `score ${h.score} vs ${gnmt(h, alpha)}`);
    // logprob is the sum of the chosen tokens' log-probabilities and </s>'s
    const sum = h.probs.reduce((a, p) => a + Math.log(p), 0) + (h.eosProb > 0 ? Math.log(h.eosProb) : 0);
    assert.ok(Math.abs(sum - h.logprob) < 1e-3, `logprob ${h.logprob} vs ${sum}`);
    for (let i = 0; i < h.rows; ++i) {
      const row = h.attention.subarray(i * h.cols, (i + 1) * h.cols).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(row - 1) < 1e-3, `attention row ${i} sums to ${row}`);
    }
    if (k) assert.ok(list[k - 1].score >= h.score, 'best first');
  }
  assert.equal(new Set(list.map((h) => h.tokens.join(' '))).size, list.length, 'distinct hypotheses');
  assert.equal(r.score, list[0].score);
}

test('nBest: every finished hypothesis of the beam, best first, for RNN and Transformer models', { skip }, () => {
  for (const file of MODELS) {
    const m = al.Seq2Seq.fromBytes(readFileSync(file));
    try {
      for (const [input, beam, alpha] of [['KNIGHTS', 4, 0.6], ['THROUGH', 8, 0], ['ATTENTION', 2, 1]]) {
        const text = /dates/.test(file) ? '4 JUL 1976' : input;
        const r = m.translate(text, { beam, alpha, nBest: true });
        checkList(r, m.translate(text, { beam, alpha }), beam, alpha);
        if (beam >= 4) assert.ok(r.nBest.length >= 2, `${file} ${text}: ${r.nBest.length} hypotheses`);
      }
      // greedy: one hypothesis; without nBest the key is absent
      const short = /dates/.test(file) ? '23JAN2015' : 'QUEUE';
      assert.equal(m.translate(short, { nBest: true }).nBest.length, 1);
      assert.equal(m.translate(short).nBest, undefined);
      // a cut at maxLen: hypotheses without </s> have eosProb 0 and are still listed
      const cut = m.translate(short, { beam: 3, maxLen: 2, nBest: true });
      assert.ok(cut.nBest.length >= 1);
      for (const h of cut.nBest) assert.ok(h.tokens.length <= 2);
      assert.equal(new Set(cut.nBest.map((h) => h.tokens.join(' '))).size, cut.nBest.length, 'each output once (a cut copy of a finished one is not listed again)');
      if (/dates/.test(file)) assert.ok(cut.nBest.every((h) => h.eosProb === 0 && h.tokens.length === 2), 'a date is cut at 2 characters');
      assert.throws(() => m.translate(short, { beam: 4, nBest: 'yes' }), /nBest: expected true or false/);
    } finally {
      m.delete();
    }
  }
});
