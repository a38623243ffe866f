// Kernel benchmark, side by side: native (-march=native), native SSE4.1 (the
// wasm build's instruction set), wasm SIMD in Node and wasm SIMD in headless
// Chromium, each with its own measured micro-kernel peak.
//   node bench/kernels.mjs            (after scripts/build.sh native native-sse41 wasm site)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CASES = [
  ['gemm_nn', [256, 256, 256], 'GEMM 256x256x256'],
  ['gemm_nn', [1, 256, 256], 'GEMM 1x256x256 (GEMV path)'],
  ['gemm_nn', [32, 64, 64], 'GEMM 32x64x64'],
  ['softmax_rows', [128, 128], 'softmax 128x128'],
  ['exp', [4096], 'exp 4096'],
];
const MIN_MS = Number(process.env.BENCH_MS || 400);

function shapeName(s) { return s.filter((x) => x).join('x'); }

function nativeRun(dir) {
  const exe = join(ROOT, 'build', dir, 'bench_kernels');
  if (!existsSync(exe)) return null;
  const filter = CASES.map(([n, s]) => `^${n}/(simd|ref)/${shapeName(s)}$`).concat(['^simd_peak']).join('|');
  const out = execFileSync(exe, [`--benchmark_filter=${filter}`, '--benchmark_format=json',
    `--benchmark_min_time=${MIN_MS / 1000}`], { maxBuffer: 1 << 26 }).toString();
  const json = JSON.parse(out.slice(out.indexOf('{')));
  const res = { peak: 0 };
  for (const b of json.benchmarks) {
    if (b.name.startsWith('simd_peak')) { res.peak = b.GFLOPS; continue; }
    const [name, kind, shape] = b.name.split('/');
    res[`${name}/${kind}/${shape}`] = { ns: b.real_time, gflops: b.GFLOPS };
  }
  return res;
}

// V8 runs wasm on baseline code first and swaps in optimized code later, per function and
// only between calls: a first timing measures the baseline compiler (GEMM 256^3 at about
// half speed in Node 20). Every case runs once untimed before anything is timed.
function warmUp(al, cases, ms) {
  al.kernels.peakGflops(ms);
  for (const [name, shape] of cases) al.kernels.bench(name, shape, { minMs: ms, withRef: true });
}

function collect(al) {
  warmUp(al, CASES, 150);
  const res = { peak: al.kernels.peakGflops(MIN_MS) };
  for (const [name, shape] of CASES) {
    const r = al.kernels.bench(name, shape, { minMs: MIN_MS, withRef: true });
    res[`${name}/simd/${shapeName(shape)}`] = { ns: r.ns, gflops: r.gflops };
    res[`${name}/ref/${shapeName(shape)}`] = { ns: r.refNs, gflops: r.refGflops };
  }
  return res;
}

async function nodeRun() {
  const pkg = join(ROOT, 'build', 'pkg', 'node.mjs');
  if (!existsSync(pkg)) return null;
  const { load } = await import(pkg);
  return collect(await load());
}

async function chromiumRun() {
  if (!existsSync(join(ROOT, 'build', 'site', 'index.html'))) return null;
  const { startBrowser } = await import('../tests/browser/helpers.mjs');
  const ctx = await startBrowser();
  try {
    const page = await ctx.browser.newPage();
    await page.goto(ctx.base + 'index.html#engine');
    const res = await page.evaluate(async ({ cases, minMs }) => {
      const { load } = await import('/pkg/index.js');
      const al = await load();
      const shapeName = (s) => s.filter((x) => x).join('x');
      al.kernels.peakGflops(150);  // warm-up, as warmUp() in Node
      for (const [name, shape] of cases) al.kernels.bench(name, shape, { minMs: 150, withRef: true });
      const out = { peak: al.kernels.peakGflops(minMs) };
      for (const [name, shape] of cases) {
        const r = al.kernels.bench(name, shape, { minMs, withRef: true });
        out[`${name}/simd/${shapeName(shape)}`] = { ns: r.ns, gflops: r.gflops };
        out[`${name}/ref/${shapeName(shape)}`] = { ns: r.refNs, gflops: r.refGflops };
      }
      return out;
    }, { cases: CASES, minMs: Math.max(MIN_MS, 300) });
    return res;
  } finally {
    await ctx.close();
  }
}

const engines = [
  ['native (-march=native)', nativeRun('native')],
  ['native SSE4.1', nativeRun('native-sse41')],
  ['wasm SIMD, Node ' + process.version, await nodeRun()],
  ['wasm SIMD, Chromium', await chromiumRun()],
].filter(([, r]) => r);

const fmt = (x, d = 1) => (x == null ? '-' : x.toFixed(d));
console.log(`\n| | ${engines.map(([n]) => n).join(' | ')} |`);
console.log(`|---|${engines.map(() => '---').join('|')}|`);
console.log(`| micro-kernel peak (GFLOPS) | ${engines.map(([, r]) => fmt(r.peak)).join(' | ')} |`);
for (const [name, shape, label] of CASES) {
  const key = `${name}/simd/${shapeName(shape)}`;
  const cells = engines.map(([, r]) => {
    const v = r[key];
    if (!v) return '-';
    if (name.startsWith('gemm')) return `${fmt(v.gflops)} GF (${fmt(100 * v.gflops / r.peak, 0)}% of peak)`;
    return `${fmt(v.ns / 1000, 2)} µs`;
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
  const ref = engines.map(([, r]) => {
    const s = r[key], f = r[`${name}/ref/${shapeName(shape)}`];
    return s && f ? `${fmt(f.ns / s.ns, 1)}x` : '-';
  });
  console.log(`| ↳ speed-up over scalar twin | ${ref.join(' | ')} |`);
}
const sse = engines.find(([n]) => n === 'native SSE4.1');
for (const [n, r] of engines.filter(([n]) => n.startsWith('wasm'))) {
  const key = 'softmax_rows/simd/128x128';
  if (sse && r[key]) console.log(`\n${n}: softmax 128x128 = ${fmt(r[key].ns / sse[1][key].ns, 2)}x native SSE4.1 time (goal <= 1.5x)`);
  const g = r['gemm_nn/simd/256x256x256'];
  if (g) console.log(`${n}: GEMM 256^3 = ${fmt(100 * g.gflops / r.peak, 0)}% of its measured SIMD peak (goal >= 85%)`);
}
