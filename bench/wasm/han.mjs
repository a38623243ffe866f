// Wasm benchmark: classifying a typical e-mail (< 2 KB) with the shipped HAN
// model through the JS package (tokenize + forward + JSON result), median ms.
//   node bench/wasm/han.mjs [--runs 200] [--json]
// Uses build/pkg (or $ATTNLAB_PKG), models/han-spam/model.safetensors and a
// held-out message from web/data/han-samples.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadPkg, opt, asJson, typicalEmail } from './common.mjs';

const runs = Number(opt('--runs')) || 200;
const al = await loadPkg();
const han = al.HAN.fromBytes(readFileSync(join(ROOT, 'models', 'han-spam', 'model.safetensors')));
const msg = typicalEmail();
const bytes = Buffer.byteLength(msg.text);
let sink = 0;
for (let i = 0; i < 20; ++i) sink += han.classify(msg.text).probs[1];
const t = [];
const cpu0 = process.cpuUsage();
for (let i = 0; i < runs; ++i) {
  const t0 = performance.now();
  const r = han.classify(msg.text);
  t.push(performance.now() - t0);
  sink += r.probs[1];
}
const cpu = process.cpuUsage(cpu0);
// CPU time per call (user + system): less sensitive than wall time to other
// processes on a shared machine
const cpuMs = (cpu.user + cpu.system) / 1000 / runs;
t.sort((a, b) => a - b);
const r = han.classify(msg.text);
const words = r.sentences.reduce((n, s) => n + s.words.length, 0);
const out = {
  bench: 'han_classify_wasm', message: msg.id, bytes, sentences: r.sentences.length, words,
  runs, median_ms: t[runs >> 1], cpu_ms_per_call: cpuMs, p10_ms: t[Math.floor(runs * 0.1)], p90_ms: t[Math.floor(runs * 0.9)],
  simd: al.simdInfo(), node: process.version, sink: sink > 0,
};
han.delete();
if (asJson) console.log(JSON.stringify(out));
else
  console.log(`HAN classify (wasm, ${process.version}): ${bytes} B message, ${r.sentences.length} sentences, ${words} words: ` +
              `median ${out.median_ms.toFixed(2)} ms (p10 ${out.p10_ms.toFixed(2)}, p90 ${out.p90_ms.toFixed(2)}) over ${runs} runs; ` +
              `CPU ${cpuMs.toFixed(2)} ms per call`);
