// Wasm benchmark: attribution beside attention for a typical e-mail (< 2 KB) with the shipped
// HAN model through the JS package, against the goals: integrated gradients with 32
// steps <= 150 ms, gradient x input <= 10 ms (each call also classifies, tokenizes and runs the
// two removal passes). Also G2P (RNN seq2seq) on one word, and the Transformer English -> Chinese
// model on one sentence. Median wall time and CPU per call.
//   node bench/wasm/explain.mjs [--runs 20] [--json] [--against <other package dir>]
// Uses build/pkg (or $ATTNLAB_PKG), models/han-spam, models/g2p-cmudict, models/en-zh-tatoeba and the largest
// held-out message under 2 KB in web/data/han-samples.json (as bench/wasm/han.mjs).
// --against: a second build of the package (e.g. a copy of build/pkg made before a change),
// loaded in the same process and timed in alternation with the first; each row then prints both
// and the ratio (other / this: above 1 means this build is faster). The machine's load shifts
// wall time; CPU per call is the steadier figure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, PKG, loadPkg, opt, asJson, typicalEmail } from './common.mjs';

const runs = Number(opt('--runs')) || 20;
const AGAINST = opt('--against', null);

const msg = typicalEmail();
const bytes = Buffer.byteLength(msg.text);
const ZH = 'I am Chinese.';  // the articles' sentence (models/en-zh-tatoeba/CARD.md)

// one package's models and the calls to time
async function setup(dir) {
  const al = await loadPkg(dir);
  const han = al.HAN.fromBytes(readFileSync(join(ROOT, 'models', 'han-spam', 'model.safetensors')));
  const g2p = al.Seq2Seq.fromBytes(readFileSync(join(ROOT, 'models', 'g2p-cmudict', 'model.safetensors')));
  const zh = al.Seq2Seq.fromBytes(readFileSync(join(ROOT, 'models', 'en-zh-tatoeba', 'model.safetensors')));
  const calls = [
    ['han classify (attention only)', () => han.classify(msg.text).probs[1], null],
    ['han grad x input', () => han.classify(msg.text, { attribution: 'grad' }).explain.f, 10],
    ['han integrated gradients, 32 steps', () => han.classify(msg.text, { attribution: 'ig', steps: 32 }).explain.f, 150],
    ['g2p translate ATTENTION', () => g2p.translate('ATTENTION').logprob, null],
    ['g2p grad x input', () => g2p.translate('ATTENTION', { attribution: 'grad' }).attribution.f[0], null],
    ['g2p integrated gradients, 32 steps', () => g2p.translate('ATTENTION', { attribution: 'ig', steps: 32 }).attribution.f[0], null],
    [`en-zh transformer translate (${ZH})`, () => zh.translate(ZH).logprob, null],
    ['en-zh transformer grad x input', () => zh.translate(ZH, { attribution: 'grad' }).attribution.f[0], null],
    ['en-zh transformer IG, 32 steps', () => zh.translate(ZH, { attribution: 'ig', steps: 32 }).attribution.f[0], null],
  ];
  // a call this package cannot make (an older build, say) is left out of the comparison
  for (const c of calls) {
    try { c[1](); } catch (e) { c[1] = null; c.push(e.message); }
  }
  return { han, g2p, calls, close: () => { han.delete(); g2p.delete(); zh.delete(); } };
}

let sink = 0;
// time fns[i] `runs` times each, alternating between them call by call; median wall and CPU per call
function measure(fns) {
  // warm-up: V8 compiles wasm in tiers (a baseline compiler first, the optimizing one in the
  // background), so the first calls of a fresh process run slower code
  for (const fn of fns) for (let i = 0; i < 10; ++i) sink += fn();
  const t = fns.map(() => []);
  const cpu = fns.map(() => 0);
  for (let i = 0; i < runs; ++i) {
    fns.forEach((fn, j) => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      sink += fn();
      t[j].push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[j] += (c.user + c.system) / 1000;
    });
  }
  return t.map((x, j) => {
    x.sort((a, b) => a - b);
    return { median_ms: x[runs >> 1], cpu_ms_per_call: cpu[j] / runs };
  });
}

const mine = await setup(PKG);
const other = AGAINST ? await setup(AGAINST) : null;
const r = mine.han.classify(msg.text);
const words = r.sentences.reduce((n, s) => n + s.words.length, 0);
const rows = mine.calls.map(([name, fn, goal], i) => {
  if (!fn) throw new Error(`${name}: ${mine.calls[i][3]}`);
  const theirs = other?.calls[i][1];
  const m = measure(theirs ? [fn, theirs] : [fn]);
  const row = { name, ...m[0], goal_ms: goal };
  if (other && !theirs) row.against_error = other.calls[i][3];
  if (theirs) {
    row.against = m[1];
    row.ratio_median = m[1].median_ms / m[0].median_ms;
    row.ratio_cpu = m[1].cpu_ms_per_call / m[0].cpu_ms_per_call;
  }
  return row;
});
mine.close();
if (other) other.close();
const out = { bench: 'explain_wasm', message: msg.id, bytes, sentences: r.sentences.length, words, runs, rows,
  against: AGAINST, node: process.version, sink: Number.isFinite(sink) };
if (asJson) console.log(JSON.stringify(out));
else {
  console.log(`attribution (wasm, ${process.version}): ${bytes} B message, ${r.sentences.length} sentences, ${words} words; ${runs} runs` +
    (AGAINST ? `; against ${AGAINST} (ratio = other / this)` : ''));
  const ms = (v) => v.toFixed(1).padStart(7);
  for (const x of rows) {
    const goal = x.goal_ms ? `  goal <= ${x.goal_ms} ms: ${x.cpu_ms_per_call <= x.goal_ms ? 'met' : 'NOT met'} (CPU)` : '';
    const vs = x.against ? `  | other: median ${ms(x.against.median_ms)} ms  CPU ${ms(x.against.cpu_ms_per_call)} ms` +
      `  ratio median ${x.ratio_median.toFixed(2)}x  CPU ${x.ratio_cpu.toFixed(2)}x` : x.against_error ? '  | other: cannot (' + x.against_error.slice(0, 60) + ')' : '';
    console.log(`  ${x.name.padEnd(44)} median ${ms(x.median_ms)} ms  CPU ${ms(x.cpu_ms_per_call)} ms${vs}${goal}`);
  }
}
