// Seq2seq models trained in PyTorch with scripts/attnlab_torch.py and exported with
// save_attnlab (tests/fixtures/seq2seq_torch, made by scripts/fixtures_seq2seq_torch.py):
// in wasm, Seq2Seq.fromBytes loads each one and greedy decoding (precision 'f32') gives
// PyTorch's tokens, each chosen token's probability and the final </s> probability within
// 1e-5 relative of PyTorch's float64 reference; damaged files throw Errors that say what is
// wrong, and the module stays usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadPkg } from './helpers.mjs';

const al = await loadPkg();
const DIR = join(ROOT, 'tests', 'fixtures', 'seq2seq_torch');
const EXPECTED = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));
const REL_TOL = 1e-5;
const rel = (got, want) => Math.abs(got - want) / Math.max(Math.abs(want), 1e-30);

test('every PyTorch-trained seq2seq decodes greedily as PyTorch does', (t) => {
  let checked = 0;
  let worst = 0;
  for (const m of EXPECTED.models) {
    const model = al.Seq2Seq.fromBytes(readFileSync(join(DIR, m.file)));
    try {
      assert.equal(model.info().kind, m.kind, m.name);
      for (const c of m.cases) {
        const what = `${m.name} '${c.input}'`;
        const r = model.translate(c.input, { beam: 1, precision: 'f32' });
        assert.deepEqual(r.tokens, c.tokens, what);
        assert.equal(r.text, c.text, what);
        assert.equal(r.probs.length, c.probs.length, what);
        c.probs.forEach((p, i) => {
          worst = Math.max(worst, rel(r.probs[i], p));
          assert.ok(rel(r.probs[i], p) < REL_TOL, `${what} step ${i}: ${r.probs[i]} vs PyTorch ${p}`);
        });
        worst = Math.max(worst, rel(r.eosProb, c.eos_prob));
        assert.ok(rel(r.eosProb, c.eos_prob) < REL_TOL, `${what} </s>: ${r.eosProb} vs PyTorch ${c.eos_prob}`);
        ++checked;
      }
    } finally {
      model.delete();
    }
  }
  assert.ok(checked >= 50, `${checked} inputs checked`);
  t.diagnostic(`${checked} inputs of ${EXPECTED.models.length} models; largest relative probability error ${worst.toExponential(2)}`);
});

// the file with its JSON header edited by fn(header) (data bytes unchanged)
function withHeader(file, fn) {
  const b = readFileSync(join(DIR, file));
  const n = Number(b.readBigUInt64LE(0));
  const h = JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
  fn(h);
  let s = JSON.stringify(h);
  while ((s.length % 8) !== 0) s += ' ';
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(Buffer.byteLength(s)));
  return Buffer.concat([head, Buffer.from(s, 'utf8'), b.subarray(8 + n)]);
}

test('damaged PyTorch exports throw clear Errors and the module stays usable', () => {
  const f = 'gru_additive.safetensors';
  const bad = [
    [withHeader(f, (h) => { const c = JSON.parse(h.__metadata__.config); c.score = 'bahdanau'; h.__metadata__.config = JSON.stringify(c); }),
      /bahdanau.*|score must be one of/],
    [withHeader(f, (h) => { const v = JSON.parse(h.__metadata__.tgt_vocab); v.push('z'); h.__metadata__.tgt_vocab = JSON.stringify(v); }),
      /target tokens/],
    [withHeader(f, (h) => { h['attention.vv'] = h['attention.v']; delete h['attention.v']; }), /attention\.v/],
    [withHeader(f, (h) => { delete h.__metadata__.tgt_vocab; }), /tgt_vocab/],
    [readFileSync(join(DIR, f)).subarray(0, 1000), /./],
  ];
  for (const [bytes, re] of bad) {
    assert.throws(() => al.Seq2Seq.fromBytes(bytes), (e) => e instanceof Error && re.test(e.message));
  }
  const m = al.Seq2Seq.fromBytes(readFileSync(join(DIR, f)));
  const c = EXPECTED.models.find((x) => x.file === f).cases[0];
  assert.deepEqual(m.translate(c.input, { precision: 'f32' }).tokens, c.tokens);
  m.delete();
});
