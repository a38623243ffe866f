// LanguageModel through the JS package: loading, reproducible generation for a
// seed, onToken streaming and early stop, option errors, ownership. Uses the
// shipped models/xl-sotu model (or $ATTNLAB_LM_MODEL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT, withModel } from './helpers.mjs';

const al = await loadPkg();
const MODEL = process.env.ATTNLAB_LM_MODEL || join(ROOT, 'models', 'xl-sotu', 'model.safetensors');
const skip = existsSync(MODEL) ? false : `${MODEL} missing`;

test('generation is reproducible for a seed and streams every character', { skip }, () => {
  withModel(al.LanguageModel, MODEL, (lm) => {
    assert.ok(['xl', 'baseline'].includes(lm.config.arch));
    assert.ok(lm.paramCount > 1000);
    const opts = { n: 120, temperature: 0.8, topK: 20, seed: 7 };
    const a = lm.generate('The Congress', opts);
    const b = lm.generate('The Congress', opts);
    assert.equal(a.text, b.text);
    assert.equal(a.chars, 120);
    assert.notEqual(lm.generate('The Congress', { ...opts, seed: 8 }).text, a.text);
    const seen = [];
    const c = lm.generate('The Congress', { ...opts, onToken: (ch, i) => { seen.push([ch, i]); } });
    assert.equal(c.text, a.text);
    assert.equal(seen.map((s) => s[0]).join(''), a.text);
    assert.deepEqual(seen.map((s) => s[1]), [...Array(120).keys()]);
    const stopped = lm.generate('', { n: 50, seed: 1, onToken: (ch, i) => i < 9 });
    assert.equal(stopped.chars, 10);
    // greedy = top-1
    assert.equal(lm.generate('We', { n: 40, temperature: 0 }).text,
                 lm.generate('We', { n: 40, topK: 1, seed: 3 }).text);
  });
});

test('attention per generated character: rows are distributions over memory + segment', { skip }, () => {
  withModel(al.LanguageModel, MODEL, (lm) => {
    const plain = lm.generate('We the People', { n: 30, seed: 4 });
    const g = lm.generate('We the People', { n: 30, seed: 4, attention: true });
    assert.equal(g.text, plain.text);
    assert.equal(g.promptChars, 13);
    assert.equal(g.attention.length, 30);
    const { nLayer, nHead } = lm.config;
    g.attention.forEach((a, i) => {
      assert.equal(a.query, 12 + i);
      assert.equal(a.weights.length, nLayer * nHead * a.keys);
      assert.ok(a.memory < a.keys);
      for (let r = 0; r < nLayer * nHead; ++r) {
        const s = a.weights.subarray(r * a.keys, (r + 1) * a.keys).reduce((x, y) => x + y, 0);
        assert.ok(Math.abs(s - 1) < 1e-4, `row sums to ${s}`);
      }
    });
  });
});

test('bad options and bad bytes are Errors; the model stays usable; delete', { skip }, () => {
  const lm = al.LanguageModel.fromBytes(readFileSync(MODEL));
  assert.throws(() => lm.generate('x', { temperature: -1 }), /temperature/);
  assert.throws(() => lm.generate('x', { n: 1.5 }), /n: expected a whole number/);
  assert.throws(() => lm.generate(3), /string prompt/);
  assert.throws(() => lm.generate('x', { attention: 1 }), /attention: expected true or false/);
  assert.throws(() => lm.generate('x', { n: 5, onToken: () => { throw new Error('from the callback'); } }),
                /from the callback/);
  assert.equal(lm.generate('x', { n: 5, seed: 2 }).chars, 5);
  lm.delete();
  assert.ok(lm.deleted);
  assert.throws(() => lm.generate('x'), /deleted/);
  assert.throws(() => al.LanguageModel.fromBytes(new Uint8Array([1, 2, 3])), /attnlab/);
  assert.throws(() => al.LanguageModel.fromBytes('nope'), /Uint8Array/);
});
