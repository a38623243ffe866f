#!/usr/bin/env node
// The disagreement-regularization experiment (Li et al. 2018) on CMUdict G2P:
// five arms (baseline, each of the three penalties, all three) x N seeds, one
// training budget for all, then test WER/PER and head similarity per run.
//
//   node scripts/transformer_experiment.mjs --out runs/disagree [--seeds 3] [--jobs 1]
//       [--bin build/native/attnlab] [--phase train,eval,report]
//
// Every run is resumable: a run with a summary is skipped, a run with a checkpoint
// continues from it. The report writes experiment.csv, experiment.md and
// experiment.svg into --out.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : 'true']);
    return acc;
  }, []));
if (args.help || !args.out) {
  console.log(fs.readFileSync(new URL(import.meta.url)).toString().split('\n').slice(1, 11).join('\n'));
  process.exit(args.help ? 0 : 2);
}
const out = args.out;
const bin = args.bin ?? 'build/native/attnlab';
const seeds = Number(args.seeds ?? 3);
const jobs = Number(args.jobs ?? 1);
const phases = (args.phase ?? 'train,eval,report').split(',');

// One budget for every arm: a small model (d=64, 2+2 layers, 4 heads) for 5 epochs.
const W = '0.125';  // lambda = 1 of the paper, rescaled to our per-token cross-entropy (mean target length ~8)
export const base = ['train', 'g2p', '--arch', 'transformer', '--d-model', '64', '--ff', '256',
  '--enc-layers', '2', '--dec-layers', '2', '--heads', '4', '--epochs', '5', '--warmup', '1000',
  '--lr', '0.001', '--batch-size', '64', '--checkpoint-every', '500', '--json', '--quiet'];
export const arms = {
  baseline: [],
  subspace: ['--disagree-subspace', W],
  position: ['--disagree-position', W],
  output: ['--disagree-output', W],
  all: ['--disagree-subspace', W, '--disagree-position', W, '--disagree-output', W],
};

function run(cmd, argv, logFile) {
  return new Promise((resolve, reject) => {
    const fd = fs.openSync(logFile, 'a');
    const p = spawn(cmd, argv, { stdio: ['ignore', fd, fd] });
    p.on('exit', (code) => { fs.closeSync(fd); code === 0 ? resolve() : reject(new Error(`${cmd} ${argv.join(' ')}: exit ${code} (see ${logFile})`)); });
  });
}

const runs = [];
for (const arm of Object.keys(arms))
  for (let s = 1; s <= seeds; ++s) runs.push({ arm, seed: s, dir: path.join(out, `${arm}-s${s}`) });

async function pool(items, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: jobs }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function train(r) {
  fs.mkdirSync(r.dir, { recursive: true });
  const done = path.join(r.dir, 'train.json');
  if (fs.existsSync(done)) return;
  const ckpt = path.join(r.dir, 'ckpt.bin');
  const argv = [...base, ...arms[r.arm], '--seed', String(r.seed), '--checkpoint', ckpt,
    '--out', path.join(r.dir, 'model.safetensors')];
  if (fs.existsSync(ckpt)) argv.push('--resume', ckpt);
  const log = path.join(r.dir, 'train.log');
  const t0 = Date.now();
  console.log(`train ${r.arm} seed ${r.seed}${argv.includes('--resume') ? ' (resumed)' : ''}`);
  await run(bin, argv, log);
  const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('{'));
  const evals = lines.map((l) => JSON.parse(l)).filter((e) => e.event === 'eval');
  fs.writeFileSync(done, JSON.stringify({ arm: r.arm, seed: r.seed, argv, seconds_this_process: (Date.now() - t0) / 1000, evals }, null, 1));
}

async function evaluate(r) {
  const file = path.join(r.dir, 'eval.json');
  if (fs.existsSync(file)) return;
  if (!fs.existsSync(path.join(r.dir, 'train.json'))) {  // still training (or not started)
    console.log(`eval ${r.arm} seed ${r.seed}: not trained yet, skipped`);
    return;
  }
  console.log(`eval ${r.arm} seed ${r.seed}`);
  const log = path.join(r.dir, 'eval.out');
  fs.rmSync(log, { force: true });
  await run(bin, ['eval', '--model', path.join(r.dir, 'model.safetensors'), '--json', '--beam', '0', '--heads'], log);
  const txt = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('{')).pop();
  const valid = [];
  await run(bin, ['eval', '--model', path.join(r.dir, 'model.safetensors'), '--json', '--beam', '0', '--split', 'valid'], log + '.valid');
  valid.push(JSON.parse(fs.readFileSync(log + '.valid', 'utf8').split('\n').filter((l) => l.startsWith('{')).pop()));
  fs.writeFileSync(file, JSON.stringify({ test: JSON.parse(txt), valid: valid[0] }, null, 1));
}

const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
const se = (a) => a.length < 2 ? 0 : Math.sqrt(a.reduce((s, x) => s + (x - mean(a)) ** 2, 0) / (a.length - 1) / a.length);

function report() {
  const rows = runs.map((r) => {
    const e = JSON.parse(fs.readFileSync(path.join(r.dir, 'eval.json'), 'utf8'));
    const h = e.test.heads;
    return {
      arm: r.arm, seed: r.seed,
      valid_wer: e.valid.greedy.wer, test_wer: e.test.greedy.wer, test_per: e.test.greedy.per,
      enc_pos: h.enc_self.position, dec_pos: h.dec_self.position, cross_pos: h.cross.position,
      enc_out: h.enc_self.output, dec_out: h.dec_self.output, cross_out: h.cross.output,
      pos_term: (h.enc_self.position_term + h.dec_self.position_term + h.cross.position_term) / 3,
      sub_term: (h.enc_self.subspace_term + h.dec_self.subspace_term + h.cross.subspace_term) / 3,
    };
  });
  const cols = Object.keys(rows[0]);
  fs.writeFileSync(path.join(out, 'experiment.csv'), [cols.join(','), ...rows.map((r) => cols.map((c) => r[c]).join(','))].join('\n') + '\n');
  const pct = (a) => `${(100 * mean(a)).toFixed(2)} ± ${(100 * se(a)).toFixed(2)}`;
  const f3 = (a) => `${mean(a).toFixed(3)} ± ${se(a).toFixed(3)}`;
  const md = ['| arm | valid WER % | test WER % | test PER % | attention-map similarity (enc / dec / cross) | output similarity (enc / dec / cross) | position term | subspace term |',
    '|---|---|---|---|---|---|---|---|'];
  const summary = {};
  for (const arm of Object.keys(arms)) {
    const a = rows.filter((r) => r.arm === arm);
    const g = (k) => a.map((r) => r[k]);
    summary[arm] = { n: a.length, test_wer: mean(g('test_wer')), test_wer_se: se(g('test_wer')), valid_wer: mean(g('valid_wer')),
      pos: mean([...g('enc_pos'), ...g('dec_pos'), ...g('cross_pos')]), out: mean([...g('enc_out'), ...g('dec_out'), ...g('cross_out')]) };
    md.push(`| ${arm} (n=${a.length}) | ${pct(g('valid_wer'))} | ${pct(g('test_wer'))} | ${pct(g('test_per'))} | ${f3(g('enc_pos'))} / ${f3(g('dec_pos'))} / ${f3(g('cross_pos'))} | ${f3(g('enc_out'))} / ${f3(g('dec_out'))} / ${f3(g('cross_out'))} | ${f3(g('pos_term'))} | ${f3(g('sub_term'))} |`);
  }
  md.push('', 'mean ± standard error over seeds. Similarities: mean cosine over the pairs of distinct heads, layers and test words ' +
    '(maps from greedy decoding, outputs teacher-forced; 1 = identical). Position and subspace terms: the penalties\' own values ' +
    '(Li et al.\'s form, all ordered pairs including i = j, the position term summed over query rows), mean of the three attentions.');
  fs.writeFileSync(path.join(out, 'experiment.md'), md.join('\n') + '\n');
  fs.writeFileSync(path.join(out, 'experiment.svg'), svg(rows));
  console.log(md.join('\n'));
  const best = Object.entries(summary).sort((x, y) => x[1].valid_wer - y[1].valid_wer)[0][0];
  console.log(`\nlowest mean validation WER: ${best}`);
}

// Three panels: test WER per arm (points per seed, mean ± se) and the heads' mean map and
// output similarities.
function svg(rows) {
  const names = Object.keys(arms);
  const Wd = 940, H = 300, L = 60, T = 36, B = 46, panel = (Wd - L - 100) / 3;
  const s = [`<svg xmlns="http://www.w3.org/2000/svg" width="${Wd}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${Wd}" height="${H}" fill="white"/>`];
  const draw = (x0, title, key, fmt) => {
    const vals = rows.map(key);
    let lo = Math.min(...vals), hi = Math.max(...vals);
    const pad = (hi - lo) * 0.15 || 0.01; lo -= pad; hi += pad;
    const y = (v) => T + (H - T - B) * (hi - v) / (hi - lo);
    const x = (i) => x0 + panel * (i + 0.5) / names.length;
    s.push(`<text x="${x0 + panel / 2}" y="20" text-anchor="middle" font-size="12">${title}</text>`);
    for (let k = 0; k <= 4; ++k) {
      const v = lo + (hi - lo) * k / 4;
      s.push(`<line x1="${x0}" x2="${x0 + panel}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e4e4e4"/>`);
      s.push(`<text x="${x0 - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`);
    }
    names.forEach((arm, i) => {
      const a = rows.filter((r) => r.arm === arm).map(key);
      for (const v of a) s.push(`<circle cx="${(x(i) + 8).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="#999"/>`);
      const m = mean(a), e = se(a);
      s.push(`<line x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${y(m - e).toFixed(1)}" y2="${y(m + e).toFixed(1)}" stroke="#246" stroke-width="2"/>`);
      s.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(m).toFixed(1)}" r="4" fill="#246"/>`);
      s.push(`<text x="${x(i).toFixed(1)}" y="${H - B + 16}" text-anchor="middle">${arm}</text>`);
    });
  };
  draw(L, 'test WER (greedy): mean ± s.e., seeds', (r) => r.test_wer, (v) => `${(100 * v).toFixed(1)}%`);
  draw(L + panel + 50, 'heads: attention-map similarity', (r) => (r.enc_pos + r.dec_pos + r.cross_pos) / 3, (v) => v.toFixed(3));
  draw(L + 2 * panel + 100, 'heads: output similarity', (r) => (r.enc_out + r.dec_out + r.cross_out) / 3, (v) => v.toFixed(3));
  s.push(`<text x="${Wd / 2}" y="${H - 10}" text-anchor="middle" fill="#555">disagreement arms on CMUdict G2P, same budget, ${seeds} seeds each; similarities: mean of encoder self-, decoder self- and cross-attention</text>`);
  s.push('</svg>');
  return s.join('\n') + '\n';
}

if (phases.includes('train')) await pool(runs, train);
if (phases.includes('eval')) await pool(runs, evaluate);
if (phases.includes('report')) report();
