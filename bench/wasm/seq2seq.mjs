// Decode speed of the shipped seq2seq models in wasm (Node): greedy and beam-4 decoding of
// one input with each decoder precision (int8 weights = the default, int16, float32),
// median over many runs (after warm-up). Goals: greedy < 0.3 ms, beam 4 < 1.5 ms
// for one G2P word (RNN); Transformer greedy <= 0.5 ms, against the GRU in the same run;
// English -> Chinese (en-zh-tatoeba, en-zh-tatoeba-gru) greedy <= 5 ms for a short sentence.
//   node bench/wasm/seq2seq.mjs [--runs 300] [--pkg build/pkg] [--precision int8,int16,f32]
//     [--models en-zh-tatoeba,g2p-cmudict]   (only these models; default: all)
//     [--against <other package dir>]         (G2P words and en-zh sentences, this build against another)
//     [--against-file <model file>]           (the same, this package: the one --models model's
//                                              shipped file against this other file of its task)
//     [--extra <g2p model file>[,<file>...]]  (typical words: these files too, interleaved with
//                                              the --models G2P models, each against the GRU)
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, PKG, loadPkg, opt, asJson } from './common.mjs';

const RUNS = Number(opt('--runs', 300));
const al = await loadPkg(resolve(opt('--pkg', PKG)));
const AGAINST = opt('--against', '');
const PRECISIONS = opt('--precision', 'int8,int16,f32').split(',');
const ONLY = opt('--models', '') ? opt('--models', '').split(',') : null;
const wanted = (name) => !ONLY || ONLY.includes(name);
const AGAINST_FILE = opt('--against-file', '');
const EXTRA = opt('--extra', '') ? opt('--extra', '').split(',').map((f) => resolve(f)) : [];
for (const f of EXTRA) if (!existsSync(f)) throw new Error(`--extra: no file ${f}`);
if (AGAINST_FILE && (AGAINST || !ONLY || ONLY.length !== 1)) {
  throw new Error('--against-file FILE compares one model: give --models with its one name (e.g. --models g2p-transformer), and no --against');
}
const dictWords = () => readFileSync(join(ROOT, 'node_modules', '@stdlib', 'datasets-cmudict', 'data', 'dict.txt'), 'latin1')
  .split('\n').map((l) => l.split(/\s+/)[0]).filter((w) => /^[A-Z]+$/.test(w)).filter((_, i) => i % 400 === 0);

// --against DIR: this package against another build of it (e.g. a copy of build/pkg made
// before a change), loaded in the same process; per model and beam, every input (G2P: the
// typical words, 7 passes; English -> Chinese: the sentences below, 151 passes) is decoded
// (int8, the default) by both in turn, the order alternating; the mean over the inputs of
// each one's median in-wasm time, the ratio (other / this: above 1 means this build is
// faster) and how many outputs differ. --against-file FILE: the same comparison in this
// package, between the shipped model file and FILE (e.g. an earlier model of the same
// architecture: its speed can differ, e.g. gemm_i8_sparse follows its ReLU zeros).
const cases = [
  ['g2p-cmudict', ['cat', 'attention', 'pronunciation']],
  ['g2p-cmudict-stress', ['attention']],
  ['g2p-cmudict-fast', ['cat', 'attention']],
  ['dates', ['JAN 23, 2015']],
  ['dates-additive', ['JAN 23, 2015']],
  ['g2p-cmudict-dot', ['attention']],
  ['g2p-transformer', ['cat', 'attention']],
  ['en-zh-tatoeba', ['I am Chinese.', 'My mother made a sweater for me.']],
  ['en-zh-tatoeba-gru', ['I am Chinese.', 'My mother made a sweater for me.']],
];
if (AGAINST || AGAINST_FILE) {
  const other = AGAINST ? await loadPkg(resolve(AGAINST)) : al;
  const otherBytes = AGAINST_FILE ? readFileSync(resolve(AGAINST_FILE)) : null;
  const dict = dictWords();
  const median = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
  console.log(AGAINST ? `seq2seq decode, int8, this build against ${AGAINST} (ratio = other / this):`
    : `seq2seq decode, int8, the shipped file against ${AGAINST_FILE} (ratio = other / this):`);
  // G2P: the typical words; English -> Chinese: the sentences of the cases above, more passes
  for (const name of ['g2p-cmudict', 'g2p-cmudict-fast', 'g2p-transformer', 'en-zh-tatoeba', 'en-zh-tatoeba-gru'].filter(wanted)) {
    const words = name.startsWith('g2p') ? dict : cases.find(([n]) => n === name)[1];
    const passes = Math.max(7, Math.ceil(300 / words.length)) | 1;
    const bytes = readFileSync(join(ROOT, 'models', name, 'model.safetensors'));
    const pair = [al.Seq2Seq.fromBytes(bytes), other.Seq2Seq.fromBytes(otherBytes || bytes)];
    for (const beam of [1, 4]) {
      const o = { beam, heads: false };
      for (const w of words) for (const m of pair) m.translate(w, o);  // warm-up
      const t = [words.map(() => []), words.map(() => [])];
      let differ = 0;
      for (let pass = 0; pass < passes; ++pass)
        words.forEach((w, i) => {
          const out = [];
          for (const k of (pass + i) % 2 ? [1, 0] : [0, 1]) {
            const r = pair[k].translate(w, o);
            t[k][i].push(r.ms);
            out[k] = r.text;
          }
          if (pass === 0 && out[0] !== out[1]) differ++;
        });
      const mean = (k) => t[k].reduce((a, x) => a + median(x), 0) / words.length;
      console.log(`  ${name.padEnd(17)} beam ${beam}: this ${mean(0).toFixed(3)} ms/input, other ${mean(1).toFixed(3)} ms/input, ratio x${(mean(1) / mean(0)).toFixed(3)}; outputs differing ${differ}/${words.length} (${words.length} inputs x ${passes} passes)`);
    }
    for (const m of pair) m.delete();
  }
  process.exit(0);
}

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(q * (s.length - 1))]; };
const median = (xs) => quantile(xs, 0.5);


function bench(m, input, beam, precision) {
  for (let i = 0; i < 20; ++i) m.translate(input, { beam, precision, heads: false });
  const wall = [], inside = [];
  let out;
  for (let i = 0; i < RUNS; ++i) {
    const t0 = performance.now();
    out = m.translate(input, { beam, precision, heads: false });
    wall.push(performance.now() - t0);
    inside.push(out.ms);
  }
  // on a shared machine a run is sometimes preempted for a scheduler quantum (~10 ms):
  // the 10th percentile shows the undisturbed time next to the median
  return { input, beam, precision, output: out.text, medianMs: median(wall), p10Ms: quantile(wall, 0.1),
    medianMsInWasm: median(inside), steps: out.rows + 1 };
}

const results = [];
for (const [name, inputs] of cases) {
  if (!wanted(name)) continue;
  const file = join(ROOT, 'models', name, 'model.safetensors');
  if (!existsSync(file)) continue;
  const m = al.Seq2Seq.fromBytes(readFileSync(file));
  for (const input of inputs)
    for (const beam of [1, 4])
      for (const precision of PRECISIONS) results.push({ model: name, ...bench(m, input, beam, precision) });
  m.delete();
}
// "One word" on average: every 400th headword of CMUdict (A-Z only, 292 words whose
// lengths follow the dictionary's), each decoded greedily and with beam 4, 5 passes; the
// mean over the words of each word's median in-wasm time.
const dictFile = join(ROOT, 'node_modules', '@stdlib', 'datasets-cmudict', 'data', 'dict.txt');
const typical = [];
let headsCost = null;
// The RNN and Transformer G2P models on the same words in one run, interleaved: each pass
// decodes every word with every model before the next pass (a slow spell of the shared
// machine hits all models alike). Transformer models decode without head maps (heads:
// false), as the RNN models do.
const TYPICAL = ['g2p-cmudict', 'g2p-cmudict-fast', 'g2p-transformer'].filter(wanted);
if (existsSync(dictFile) && (TYPICAL.length || EXTRA.length)) {
  const words = readFileSync(dictFile, 'latin1').split('\n')
    .map((l) => l.split(/\s+/)[0]).filter((w) => /^[A-Z]+$/.test(w)).filter((_, i) => i % 400 === 0);
  const loaded = TYPICAL.map((model) => [model, join(ROOT, 'models', model, 'model.safetensors')])
    .filter(([, f]) => existsSync(f)).map(([model, f]) => [model, f, false])
    .concat(EXTRA.map((f) => [`file ${f}`, f, true]))
    .map(([model, f, extra]) => ({ model, extra, m: al.Seq2Seq.fromBytes(readFileSync(f)) }));
  // precisions interleaved too (each word decoded at every precision in turn, the order
  // rotating from pass to pass), so that their ratio is not a matter of which ran first
  for (const beam of [1, 4]) {
    for (const precision of PRECISIONS)  // warm-up
      for (const { m } of loaded) for (const w of words.slice(0, 50)) m.translate(w, { beam, precision, heads: false });
    // per word, model and precision the median of 5 passes, then the mean over the words
    const per = PRECISIONS.map(() => loaded.map(() => words.map(() => [])));
    const letters = loaded.map(() => 0), steps = loaded.map(() => 0);
    for (let pass = 0; pass < 5; ++pass)
      words.forEach((w, i) => loaded.forEach(({ m }, j) => {
        for (let q = 0; q < PRECISIONS.length; ++q) {
          const p = (q + pass + i) % PRECISIONS.length;
          const r = m.translate(w, { beam, precision: PRECISIONS[p], heads: false });
          per[p][j][i].push(r.ms);
          if (pass === 0 && p === 0) { letters[j] += w.length; steps[j] += r.rows + 1; }
        }
      }));
    PRECISIONS.forEach((precision, p) => loaded.forEach(({ model, extra }, j) => {
      const meanMs = per[p][j].reduce((a, xs) => a + median(xs), 0) / words.length;
      typical.push({ model, extra, precision, beam, words: words.length, meanMs, meanLetters: letters[j] / words.length, meanSteps: steps[j] / words.length });
    }));
  }
  // the Transformer with its head maps (heads: true, translate's default): the decode's own
  // time (ms) and the float32 maps pass (headsMs), greedy, the first precision
  const tf = loaded.find(({ model }) => model === 'g2p-transformer');
  if (tf) {
    const ms = words.map(() => []), maps = words.map(() => []);
    for (let pass = 0; pass < 5; ++pass)
      words.forEach((w, i) => { const r = tf.m.translate(w, { precision: PRECISIONS[0] }); ms[i].push(r.ms); maps[i].push(r.headsMs); });
    const mean = (xs) => xs.reduce((a, x) => a + median(x), 0) / words.length;
    headsCost = { precision: PRECISIONS[0], ms: mean(ms), headsMs: mean(maps) };
  }
  for (const { m } of loaded) m.delete();
}

console.log(`seq2seq decode in wasm (Node ${process.version}, ${al.simdInfo().arch}), median of ${RUNS} runs`);
for (const r of results)
  console.log(`  ${r.model.padEnd(16)} ${('"' + r.input + '"').padEnd(16)} beam ${r.beam} ${r.precision.padEnd(5)}: median ${r.medianMs.toFixed(3)} ms,` +
    ` p10 ${r.p10Ms.toFixed(3)} ms (in wasm, median ${r.medianMsInWasm.toFixed(3)} ms; ${r.steps} decoder steps) -> ${r.output}`);
for (const t of typical)
  console.log(`  ${t.model}, mean over ${t.words} CMUdict words (${t.meanLetters.toFixed(1)} letters, ${t.meanSteps.toFixed(1)} decoder steps): ` +
    `beam ${t.beam} ${t.precision.padEnd(5)} ${t.meanMs.toFixed(3)} ms per word in wasm`);
// int8 against int16 (the same words, passes interleaved): above 1 means int8 is faster
for (const t of typical.filter((x) => x.precision === 'int16')) {
  const i8 = typical.find((x) => x.model === t.model && x.precision === 'int8' && x.beam === t.beam);
  if (i8) console.log(`  ${t.model}, beam ${t.beam}: int16 / int8 time per word x${(t.meanMs / i8.meanMs).toFixed(2)}`);
}
for (const t of typical.filter((x) => x.model === 'g2p-transformer' || x.extra)) {
  const gru = typical.find((x) => x.model === 'g2p-cmudict' && x.precision === t.precision && x.beam === t.beam);
  const who = t.model === 'g2p-transformer' ? 'Transformer' : t.model;
  if (gru) console.log(`  ${who} / GRU (g2p-cmudict), beam ${t.beam} ${t.precision}: x${(t.meanMs / gru.meanMs).toFixed(2)} the time per word`);
}
if (headsCost) {
  console.log(`  g2p-transformer with head maps (heads: true), greedy ${headsCost.precision}: decode ${headsCost.ms.toFixed(3)} ms + ` +
    `maps ${headsCost.headsMs.toFixed(3)} ms per word (maps x${(headsCost.headsMs / headsCost.ms).toFixed(2)} the decode)`);
}
if (asJson) console.log(JSON.stringify({ results, typical, headsCost }));
