// Wasm benchmark: training the page's click-through models through the JS
// package (data generation + training + test AUC each epoch), as the
// DIN · AutoInt view runs them, median of --runs whole runs.
//   node bench/wasm/recsys.mjs [--runs 3] [--json]
// Uses build/pkg (or $ATTNLAB_PKG).
import { loadPkg, opt, asJson } from './common.mjs';

const runs = Number(opt('--runs')) || 3;
const al = await loadPkg();
const cases = [
  ['DIN, activation unit', () => al.recsys.din({ pooling: 'attention' }), '12,000 x 6 epochs'],
  ['DIN, softmax weights', () => al.recsys.din({ pooling: 'softmax' }), '12,000 x 6 epochs'],
  ['Base, sum pooling', () => al.recsys.din({ pooling: 'sum' }), '12,000 x 6 epochs'],
  ['AutoInt, 2 layers x 2 heads', () => al.recsys.autoint({}), '8,000 x 5 epochs'],
  ['no interacting layer', () => al.recsys.autoint({ layers: 0 }), '8,000 x 5 epochs'],
];
const rows = [];
for (const [name, fn, size] of cases) {
  const t = [];
  let r;
  for (let i = 0; i < runs; ++i) {
    const t0 = performance.now();
    r = fn();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  rows.push({ name, size, ms: t[Math.floor(t.length / 2)], auc: r.history.at(-1).auc, params: r.params });
}
if (asJson) {
  console.log(JSON.stringify({ runs, rows }));
} else {
  console.log(`training in wasm (Node ${process.version}), median of ${runs} runs; test AUC after the last epoch`);
  console.log(`${'model'.padEnd(30)}${'samples x epochs'.padEnd(20)}${'ms'.padStart(8)}${'AUC'.padStart(8)}${'params'.padStart(9)}`);
  for (const r of rows)
    console.log(`${r.name.padEnd(30)}${r.size.padEnd(20)}${r.ms.toFixed(0).padStart(8)}${r.auc.toFixed(3).padStart(8)}${String(r.params).padStart(9)}`);
}
