// Wasm benchmark: character generation speed of the language models through
// the JS package (Transformer-XL carrying its memory one character at a time,
// the baseline re-reading its last segment), median of --runs runs.
//   node bench/wasm/lm_generate.mjs [--n 2000] [--runs 3] [--json] [MODEL.safetensors ...]
// Default models: models/xl-sotu/model.safetensors and
// models/xl-sotu/baseline.safetensors when present. Uses build/pkg (or $ATTNLAB_PKG).
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { ROOT, loadPkg, args, opt, asJson } from './common.mjs';

const n = Number(opt('--n', 2000)), runs = Number(opt('--runs', 3));
let models = args.filter((a, i) => a.endsWith('.safetensors') && !['--n', '--runs'].includes(args[i - 1]));
if (!models.length)
  models = ['model.safetensors', 'baseline.safetensors'].map((f) => join(ROOT, 'models', 'xl-sotu', f)).filter(existsSync);
if (!models.length) throw new Error('no model: pass MODEL.safetensors paths');

const al = await loadPkg();
const rows = [];
for (const path of models) {
  const lm = al.LanguageModel.fromBytes(readFileSync(path));
  const t = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = performance.now();
    const g = lm.generate('Fellow-Citizens of the Senate and House of Representatives: ', { n, temperature: 0.8, seed: i });
    t.push((performance.now() - t0) / g.chars);
  }
  t.sort((a, b) => a - b);
  const msPerChar = t[Math.floor(t.length / 2)];
  rows.push({ model: path, arch: lm.config.arch, params: lm.paramCount, n, charsPerS: 1000 / msPerChar });
  lm.delete();
}
if (asJson) {
  console.log(JSON.stringify({ runs, rows }));
} else {
  console.log(`character generation in wasm (Node ${process.version}), ${n} characters after a 61-character prompt, median of ${runs} runs`);
  for (const r of rows)
    console.log(`${r.arch.padEnd(9)} ${String(r.params).padStart(8)} params  ${r.charsPerS.toFixed(0).padStart(7)} chars/s  ${r.model}`);
}
