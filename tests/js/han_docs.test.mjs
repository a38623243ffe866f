// Wasm tier: a 3-class HAN trained by the native CLI on generated documents
// (tests/fixtures/han_docs/, made by scripts/make_docs_fixtures.sh) loads through
// HAN.fromBytes and classifies as the native `attnlab predict` did: label names from the
// model, one probability per class, plain-text tokenizing (a "Subject:" line is a sentence).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT, modelFile, skipWithout, withModel } from './helpers.mjs';

const al = await loadPkg();
const DIR = join(ROOT, 'tests', 'fixtures', 'han_docs');
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));

test('a 3-class model trained on your documents: labels, probabilities and attention as natively', () => {
  withModel(al.HAN, join(DIR, 'topics.safetensors'), (han) => {
    assert.equal(han.config.classes, 3);
    assert.deepEqual(han.config.labels, ['cooking', 'space', 'sport']);
    assert.deepEqual(han.labels, ['cooking', 'space', 'sport']);
    assert.equal(han.config.format, 'text');
    for (const { input, output } of expected.topics) {
      const r = han.classify(input);
      assert.equal(r.label, output.label, input);
      assert.equal(r.labelId, output.label_id, input);
      assert.deepEqual(r.labels, han.labels);
      assert.equal(r.probs.length, 3);
      for (let c = 0; c < 3; ++c) assert.ok(Math.abs(r.probs[c] - output.probs[c]) < 1e-5, `${input} class ${c}`);
      assert.equal(r.empty, output.empty, input);
      assert.equal(r.sentences.length, output.sentences.length, input);
      for (let s = 0; s < r.sentences.length; ++s) {
        assert.equal(r.sentences[s].text, output.sentences[s].text);
        assert.ok(Math.abs(r.sentences[s].weight - output.sentences[s].weight) < 1e-5);
        assert.deepEqual(r.sentences[s].words.map((w) => w.token), output.sentences[s].words.map((w) => w.token));
      }
    }
    // plain text: a "Subject:" line is a sentence of the text, not a header
    const r = han.classify('A hot soup was served. Subject: the oven baked fresh dough.');
    assert.equal(r.sentences.length, 2);
    assert.equal(r.sentences[1].words[0].text, 'Subject');
    assert.equal(r.sentences[1].words[0].token, '<unk>');  // never seen in training
    // labels is a copy: changing it changes nothing in the model
    han.labels[0] = 'x';
    assert.equal(han.labels[0], 'cooking');
  });
});

test('the shipped spam model keeps format email and two labels', { skip: skipWithout('han-spam') }, () => {
  withModel(al.HAN, modelFile('han-spam'), (han) => {
    assert.equal(han.config.format, 'email');
    assert.deepEqual(han.labels, ['ham', 'spam']);
    const r = han.classify('Subject: win money now\n\nClick here for a free prize.');
    assert.deepEqual(r.labels, ['ham', 'spam']);
    assert.equal(r.probs.length, 2);
  });
});
