// Wasm benchmark: attribution beside attention for a typical e-mail (< 2 KB) with the shipped
// HAN model through the JS package, against the goals: integrated gradients with 32
// steps <= 150 ms, gradient x input <= 10 ms (each call also classifies, tokenizes and runs the
// two removal passes). Also G2P (RNN seq2seq) on one word. Median wall time and CPU per call.
//   node bench/wasm/explain.mjs [--runs 20] [--json]
// Uses build/pkg (or $ATTNLAB_PKG), models/han-spam, models/g2p-cmudict and the largest
// held-out message under 2 KB in web/data/han-samples.json (as bench/wasm/han.mjs).
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 20;
const asJson = args.includes('--json');

const { load } = await import(join(PKG, 'node.mjs'));
const al = await load();
const han = al.HAN.fromBytes(readFileSync(join(ROOT, 'models', 'han-spam', 'model.safetensors')));
const g2p = al.Seq2Seq.fromBytes(readFileSync(join(ROOT, 'models', 'g2p-cmudict', 'model.safetensors')));
const { samples } = JSON.parse(readFileSync(join(ROOT, 'web', 'data', 'han-samples.json'), 'utf8'));
const fits = samples.filter((s) => Buffer.byteLength(s.text) < 2048);
const msg = fits.sort((a, b) => b.text.length - a.text.length)[0];
const bytes = Buffer.byteLength(msg.text);

let sink = 0;
function measure(name, fn, goal) {
  for (let i = 0; i < 3; ++i) sink += fn();
  const t = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; ++i) {
    const t0 = performance.now();
    sink += fn();
    t.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  t.sort((a, b) => a - b);
  return { name, median_ms: t[runs >> 1], cpu_ms_per_call: (cpu.user + cpu.system) / 1000 / runs, goal_ms: goal };
}
const r = han.classify(msg.text);
const words = r.sentences.reduce((n, s) => n + s.words.length, 0);
const rows = [
  measure('han classify (attention only)', () => han.classify(msg.text).probs[1], null),
  measure('han grad x input', () => han.classify(msg.text, { attribution: 'grad' }).explain.f, 10),
  measure('han integrated gradients, 32 steps', () => han.classify(msg.text, { attribution: 'ig', steps: 32 }).explain.f, 150),
  measure('g2p translate ATTENTION', () => g2p.translate('ATTENTION').logprob, null),
  measure('g2p grad x input', () => g2p.translate('ATTENTION', { attribution: 'grad' }).attribution.f[0], null),
  measure('g2p integrated gradients, 32 steps', () => g2p.translate('ATTENTION', { attribution: 'ig', steps: 32 }).attribution.f[0], null),
];
han.delete();
g2p.delete();
const out = { bench: 'explain_wasm', message: msg.id, bytes, sentences: r.sentences.length, words, runs, rows,
  node: process.version, sink: Number.isFinite(sink) };
if (asJson) console.log(JSON.stringify(out));
else {
  console.log(`attribution (wasm, ${process.version}): ${bytes} B message, ${r.sentences.length} sentences, ${words} words; ${runs} runs`);
  for (const x of rows) {
    const goal = x.goal_ms ? `  goal <= ${x.goal_ms} ms: ${x.median_ms <= x.goal_ms ? 'met' : 'NOT met'}` : '';
    console.log(`  ${x.name.padEnd(38)} median ${x.median_ms.toFixed(1).padStart(7)} ms  CPU ${x.cpu_ms_per_call.toFixed(1).padStart(7)} ms${goal}`);
  }
}
