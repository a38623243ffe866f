// Wasm tier: the shipped English -> Chinese models (models/en-zh-tatoeba, the Transformer chosen
// on validation, and models/en-zh-tatoeba-gru, the GRU with additive attention) through the JS
// Seq2Seq like any seq2seq model: English read as lowercased words with punctuation split
// off, Chinese written by character and joined without spaces, attention rows = Chinese
// characters, columns = English words; greedy and beam search; the articles' sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const al = await loadPkg();
// each model, its kind, and the output character whose attention row peaks at an input word
const MODELS = [
  { dir: 'en-zh-tatoeba', kind: 'transformer-seq2seq', peak: ['中', 'chinese'] },
  { dir: 'en-zh-tatoeba-gru', kind: 'seq2seq', peak: ['我', 'i'] },
];

// The card's table row of a sentence: | n | English | split | references | greedy | beam 4 |
function cardRow(dir, english) {
  const card = readFileSync(join(ROOT, 'models', dir, 'CARD.md'), 'utf8');
  const line = card.split('\n').find((l) => l.split('|').map((c) => c.trim())[2] === english);
  assert.ok(line, `no row for ${english} in ${dir}/CARD.md`);
  const c = line.split('|').map((x) => x.trim());
  return { split: c[3], refs: c[4], greedy: c[5], beam: c[6] };
}

for (const { dir, kind, peak } of MODELS) {
  const MODEL = join(ROOT, 'models', dir, 'model.safetensors');
  test(`${dir}: "I am Chinese." with its attention, English words x Chinese characters`, { skip: !existsSync(MODEL) && 'no shipped model' }, () => {
    const m = al.Seq2Seq.fromBytes(readFileSync(MODEL));
    try {
      const info = m.info();
      assert.equal(info.kind, kind);
      if (kind === 'seq2seq') {
        assert.equal(info.score, 'additive');
        assert.equal(info.config.rnn, 'gru');
      }
      assert.equal(info.config.src_tokens, 'wordpunct');
      assert.equal(info.config.tgt_tokens, 'char');
      assert.ok(info.srcVocab.includes('chinese') && info.tgtVocab.includes('我'));
      const r = m.translate('I am Chinese.');
      assert.deepEqual(r.inputTokens, ['i', 'am', 'chinese', '.']);
      assert.equal(r.cols, 4);
      assert.equal(r.rows, r.tokens.length);
      assert.equal(r.text, r.tokens.join(''));
      // the wasm decoder writes what the card's table says (made with the native CLI, int8 both)
      const card = cardRow(dir, 'I am Chinese.');
      assert.equal(card.split, 'train');
      assert.equal(r.text, card.greedy);
      assert.equal(r.attention.length, r.rows * r.cols);
      for (let i = 0; i < r.rows; ++i) {
        let s = 0;
        for (let j = 0; j < r.cols; ++j) s += r.attention[i * r.cols + j];
        assert.ok(Math.abs(s - 1) < 1e-4, `row ${i} sums to ${s}`);
      }
      // a character of the output looks most at its English word
      const k = r.tokens.indexOf(peak[0]);
      assert.ok(k >= 0, r.text);
      const row = Array.from(r.attention.slice(k * r.cols, (k + 1) * r.cols));
      assert.equal(r.inputTokens[row.indexOf(Math.max(...row))], peak[1], `attention of ${peak[0]}: ${row}`);
      // case and spacing do not matter to the word tokens; beam search applies
      assert.equal(m.translate('  i AM chinese .').text, r.text);
      const b = m.translate('I am Chinese.', { beam: 4 });
      assert.equal(b.text, card.beam);
      assert.equal(b.text, b.tokens.join(''));
      // an unseen word is <unk>, not an error; a test-split sentence translates to Chinese characters
      const u = m.translate('I am Zorblaxian.');
      assert.deepEqual(u.inputTokens, ['i', 'am', '<unk>', '.']);
      const t = m.translate('It snowed last night.');
      assert.equal(cardRow(dir, 'It snowed last night.').split, 'test');
      assert.equal(t.text, cardRow(dir, 'It snowed last night.').greedy);
      assert.ok(/[\u4e00-\u9fff]/.test(t.text) && !/ /.test(t.text), t.text);
      assert.throws(() => m.translate(''), (e) => e instanceof Error && /empty/.test(e.message));
      assert.equal(m.translate('I am Chinese.').text, r.text);  // still usable after the error
    } finally {
      m.delete();
    }
  });
}
