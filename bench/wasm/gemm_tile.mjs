// Which GEMM tile the wasm module picks, in N fresh Node processes (the choice is made
// once per process at the 16th large GEMM, see src/attnlab/kernels/gemm.cpp): a stable
// choice gives the same tile every time.
//   node bench/wasm/gemm_tile.mjs [--runs 5]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPkg, args, opt } from './common.mjs';

const runs = Number(opt('--runs')) || 5;

if (args.includes('--child')) {
  const al = await loadPkg();
  al.kernels.bench('gemm_nn', [256, 256, 256], { minMs: 50 });  // dozens of large GEMMs: the 16th picks the tile
  console.log(al.simdInfo().gemmTile);
  process.exit(0);
}
const picks = [];
for (let i = 0; i < runs; ++i) {
  picks.push(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child'], { env: process.env }).toString().trim());
}
const count = {};
for (const p of picks) count[p] = (count[p] ?? 0) + 1;
console.log(`GEMM tile chosen in ${runs} fresh Node ${process.version} processes: ${Object.entries(count).map(([t, n]) => `${t} x${n}`).join(', ')}`);
