// Wasm tier: seq2seq models trained by the native CLI on the user's own pairs
// (tests/fixtures/seq2seq_pairs/, made by scripts/make_pairs_fixtures.sh) load through
// Seq2Seq.fromBytes and translate as the native `attnlab predict` did: word and char tokens,
// Chinese characters, outputs joined with '' or ' ', unseen tokens as <unk>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT } from './helpers.mjs';

const al = await loadPkg();
const DIR = join(ROOT, 'tests', 'fixtures', 'seq2seq_pairs');
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));

function replay(name, tokens) {
  const m = al.Seq2Seq.fromBytes(readFileSync(join(DIR, `${name}.safetensors`)));
  try {
    const info = m.info();
    assert.equal(info.kind, 'seq2seq');
    assert.equal(info.config.src_tokens, tokens.src);
    assert.equal(info.config.tgt_tokens, tokens.tgt);
    assert.equal(info.config.output_sep, tokens.tgt === 'word' ? ' ' : '');
    for (const { input, output } of expected[name]) {
      const r = m.translate(input);
      assert.deepEqual(r.tokens, output.output, input);
      assert.equal(r.text, output.text, input);
      assert.equal(r.text, r.tokens.join(tokens.tgt === 'word' ? ' ' : ''));
      assert.deepEqual(r.inputTokens, output.input, input);
      assert.equal(r.probs.length, output.probs.length);
      for (let i = 0; i < r.probs.length; ++i) assert.ok(Math.abs(r.probs[i] - output.probs[i]) < 1e-3, `${input} ${i}`);
      assert.equal(r.cols, tokens.src === 'word' ? input.split(' ').length : [...input].length);
    }
    return m;
  } catch (e) {
    m.delete();
    throw e;
  }
}

test('word-token source, char-token target: English number words -> digits', () => {
  const m = replay('words', { src: 'word', tgt: 'char' });
  try {
    assert.equal(m.translate('seven thousand twelve').text, '7012');
    // an unseen word is <unk>, not an error
    const r = m.translate('seven zillion twelve');
    assert.deepEqual(r.inputTokens, ['seven', '<unk>', 'twelve']);
    assert.throws(() => m.translate(''), (e) => e instanceof Error && /empty input/.test(e.message));
    assert.throws(() => m.translate('one '.repeat(40)), (e) => e instanceof Error && /too long/.test(e.message));
    assert.equal(m.translate('forty two').text, expected.words[1].output.text);  // still usable
  } finally {
    m.delete();
  }
});

test('Chinese characters in, words out joined with spaces', () => {
  const m = replay('zh', { src: 'char', tgt: 'word' });
  try {
    const r = m.translate('一千零一十');
    assert.deepEqual(r.inputTokens, ['一', '千', '零', '一', '十']);
    assert.equal(r.cols, 5);
    assert.ok(r.text.includes(' '), r.text);
    assert.deepEqual(m.translate('三百X').inputTokens, ['三', '百', '<unk>']);
  } finally {
    m.delete();
  }
});
