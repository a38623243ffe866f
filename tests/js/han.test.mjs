// HAN through the JS package: classify held-out messages with the shipped
// model (same numbers as the native CLI), attention sums, errors, ownership.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, ROOT, modelFile, withModel } from './helpers.mjs';

const al = await loadPkg();
const MODEL = modelFile('han-spam');
const SAMPLES = join(ROOT, 'web', 'data', 'han-samples.json');
const have = existsSync(MODEL) && existsSync(SAMPLES);
const skip = have ? false : 'models/han-spam/model.safetensors or web/data/han-samples.json missing';

function checkSums(r) {
  let ss = 0;
  for (const s of r.sentences) {
    ss += s.weight;
    let ws = 0;
    for (const w of s.words) {
      ws += w.weight;
      assert.ok(Math.abs(w.score - Math.sqrt(s.weight) * w.weight) < 1e-6);
      assert.ok(s.text.includes(w.text), `${w.text} not in ${s.text}`);
    }
    assert.ok(Math.abs(ws - 1) < 1e-4, `word weights sum to ${ws}`);
  }
  if (r.sentences.length) assert.ok(Math.abs(ss - 1) < 1e-4, `sentence weights sum to ${ss}`);
}

test('held-out samples: wasm gives the native CLI\'s probabilities, weights sum to 1', { skip }, () => {
  withModel(al.HAN, MODEL, (han) => {
    assert.deepEqual(han.config.labels, ['ham', 'spam']);
    assert.ok(han.paramCount > 100000);
    const { samples } = JSON.parse(readFileSync(SAMPLES, 'utf8'));
    assert.ok(samples.length >= 10);
    let right = 0;
    for (const s of samples) {
      const r = han.classify(s.text);
      assert.equal(r.probs.length, 2);
      assert.ok(Math.abs(r.probs[0] + r.probs[1] - 1) < 1e-5);
      // computed natively by 'attnlab eval --samples' on the same text
      assert.ok(Math.abs(r.probs[1] - s.han_p_spam) < 1e-4, `${s.id}: wasm ${r.probs[1]} native ${s.han_p_spam}`);
      assert.equal(r.label, s.han_label);
      assert.equal(r.label, r.probs[1] >= r.probs[0] ? 'spam' : 'ham');
      assert.ok(r.sentences.length >= 2);
      assert.ok(s.text.includes(r.sentences[0].text) || r.sentences[0].text.length > 0);
      checkSums(r);
      right += r.label === s.label;
    }
    assert.ok(right >= samples.length - 2, `${right} / ${samples.length} right`);
  });
});

test('HTML, empty and huge inputs', { skip }, () => {
  withModel(al.HAN, MODEL, (han) => {
    const html = han.classify('Subject: hi\n\n<html><body><p>Click <a href="http://x.example.com">here</a> to WIN $1,000,000 now!</p></body></html>');
    assert.ok(html.sentences.length >= 2);
    assert.ok(!html.sentences.some((s) => s.text.includes('<p>')));
    checkSums(html);
    const empty = han.classify('');
    assert.deepEqual(empty.sentences, []);
    assert.ok(Number.isFinite(empty.probs[0]) && Number.isFinite(empty.probs[1]));
    const big = han.classify('Buy cheap watches now. '.repeat(60000));  // 1.4 MB
    assert.equal(big.truncated, true);
    assert.ok(big.sentences.length <= han.config.maxSentences);
    for (const s of big.sentences) assert.ok(s.words.length <= han.config.maxWords);
    checkSums(big);
  });
});

test('errors throw JS Errors and the module stays usable', { skip }, () => {
  const bytes = readFileSync(MODEL);
  assert.throws(() => al.HAN.fromBytes(new Uint8Array([1, 2, 3])), (e) => e instanceof Error && /attnlab/.test(e.message));
  assert.throws(() => al.HAN.fromBytes(bytes.subarray(0, 1000)), Error);
  assert.throws(() => al.HAN.fromBytes('not bytes'), /Uint8Array or ArrayBuffer/);
  assert.throws(() => new al.HAN(), /HAN.fromBytes/);
  // another kind of model file
  const mmoe = new al.MMoE({ gate: 'softmax' });
  const other = mmoe.save();
  mmoe.delete();
  assert.throws(() => al.HAN.fromBytes(other), /kind 'han'/);
  const han = al.HAN.fromBytes(new Uint8Array(bytes).buffer);
  assert.throws(() => han.classify(42), /expects a string/);
  assert.throws(() => han.classify(null), /expects a string/);
  assert.equal(han.classify('Subject: lunch\n\nSee you at noon?').sentences.length, 2);  // still usable
  han.delete();
});

test('fromUrl loads the same model (Node: a file path)', { skip }, async () => {
  const a = await al.HAN.fromUrl(MODEL);
  const b = al.HAN.fromBytes(readFileSync(MODEL));
  try {
    const text = 'Subject: cheap meds\n\nBuy cheap meds online now, no prescription needed!';
    assert.deepEqual(a.classify(text), b.classify(text));
    assert.equal(a.paramCount, b.paramCount);
  } finally {
    a.delete();
    b.delete();
  }
});

test('a deleted HAN throws, delete twice is harmless', { skip }, () => {
  const han = al.HAN.fromBytes(readFileSync(MODEL));
  han.delete();
  assert.equal(han.deleted, true);
  assert.throws(() => han.classify('hello'), /deleted/);
  assert.throws(() => han.paramCount, /deleted/);
  han.delete();
});
