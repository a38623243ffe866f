// Attention forward, side by side in one run (one Node process for the JS
// engines; ORT with 2 threads in a child process because it reads its thread
// count once per process; PyTorch through /usr/bin/python3 if torch is there):
//   scaled-dot attention T=128 d=64, multi-head self-attention T=128 E=256 h=4
//   attnlab wasm SIMD | tfjs-backend-wasm (SIMD) | onnxruntime-web wasm 1 & 2 threads | PyTorch CPU 1 thread | attnlab native
//   node bench/peers/attention.mjs      (after scripts/build.sh native wasm)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const T = 128, D = 64, E = 256, H = 4;
const MIN_MS = Number(process.env.BENCH_MS || 1500);

function rand(n, seed) {
  let s = seed >>> 0;
  const a = new Float32Array(n);
  for (let i = 0; i < n; ++i) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = s / 2 ** 32 - 0.5; }
  return a;
}

async function timeMs(fn) {
  for (let i = 0; i < 5; ++i) await fn();
  const samples = [];
  const end = performance.now() + MIN_MS;
  while (performance.now() < end) {
    const t0 = performance.now();
    let n = 0;
    do { await fn(); ++n; } while (performance.now() - t0 < 20);
    samples.push((performance.now() - t0) / n);
  }
  samples.sort((x, y) => x - y);
  return samples[Math.floor(samples.length / 2)];
}

async function ortRun(threads) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  const out = {};
  for (const [name, file] of [['sdpa', 'sdpa_t128_d64.onnx'], ['mha', 'mha_t128_e256_h4.onnx']]) {
    const session = await ort.InferenceSession.create(readFileSync(join(ROOT, 'bench', 'models', file)),
      { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const feeds = {};
    for (const inp of session.inputNames) {
      const dims = inp === 'x' ? [1, T, E] : [1, T, D];
      feeds[inp] = new ort.Tensor('float32', rand(dims.reduce((a, b) => a * b), inp.length * 7), dims);
    }
    out[name] = await timeMs(() => session.run(feeds));
  }
  return out;
}

// child mode: ORT with N threads in its own process
if (process.argv[2] === '--ort-child') {
  console.log(JSON.stringify(await ortRun(Number(process.argv[3]))));
  process.exit(0);
}

async function tfjsRun() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(join(ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + '/');
  wasm.setThreadsCount?.(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const q = tf.tensor3d(rand(T * D, 1), [1, T, D]), k = tf.tensor3d(rand(T * D, 2), [1, T, D]);
  const v = tf.tensor3d(rand(T * D, 3), [1, T, D]);
  const sdpa = () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(D))), v)).dataSync();
  const x = tf.tensor2d(rand(T * E, 4), [T, E]);
  const wIn = tf.tensor2d(rand(E * 3 * E, 5), [E, 3 * E]), bIn = tf.tensor1d(rand(3 * E, 6));
  const wOut = tf.tensor2d(rand(E * E, 7), [E, E]), bOut = tf.tensor1d(rand(E, 8));
  const dh = E / H;
  const mha = () => tf.tidy(() => {
    const qkv = tf.add(tf.matMul(x, wIn), bIn);                       // (T, 3E)
    const [qq, kk, vv] = tf.split(qkv, 3, 1);
    const heads = (t) => tf.transpose(tf.reshape(t, [T, H, dh]), [1, 0, 2]);  // (H, T, dh)
    const s = tf.mul(tf.matMul(heads(qq), heads(kk), false, true), 1 / Math.sqrt(dh));
    const ctx = tf.matMul(tf.softmax(s), heads(vv));                 // (H, T, dh)
    const merged = tf.reshape(tf.transpose(ctx, [1, 0, 2]), [T, E]);
    return tf.add(tf.matMul(merged, wOut), bOut);
  }).dataSync();
  return { sdpa: await timeMs(sdpa), mha: await timeMs(mha), backend: tf.getBackend() };
}

const rows = {};
const { load } = await import(join(ROOT, 'build', 'pkg', 'node.mjs'));
const al = await load();
rows['attnlab wasm SIMD (1 thread)'] = { sdpa: al.kernels.attention('sdpa', { T, D, minMs: MIN_MS }),
  mha: al.kernels.attention('mha', { T, D: E, heads: H, minMs: MIN_MS }) };
rows['tfjs-backend-wasm (SIMD, 1 thread)'] = await tfjsRun();
rows['onnxruntime-web wasm, 1 thread'] = await ortRun(1);
try {
  rows['onnxruntime-web wasm, 2 threads'] = JSON.parse(execFileSync('node', [fileURLToPath(import.meta.url), '--ort-child', '2']).toString().trim().split('\n').pop());
} catch (e) {
  console.error('ORT 2 threads failed:', e.message);
}
try {
  const t = JSON.parse(execFileSync('/usr/bin/python3', [join(ROOT, 'scripts', 'bench_torch_attention.py'), '--json'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
  rows[`PyTorch ${t.version} CPU, 1 thread (${t.blas})`] = { sdpa: t.sdpa * 1e3, mha: t.mha * 1e3 };
} catch {
  console.error('(PyTorch not available: ATTNLAB_WITH_TORCH=1 scripts/setup.sh installs python3-torch)');
}
const nat = join(ROOT, 'build', 'native', 'bench_attention');
if (existsSync(nat)) {
  const j = JSON.parse(execFileSync(nat, ['--benchmark_format=json', '--benchmark_min_time=0.5',
    '--benchmark_filter=BM_ScaledDotAttention_T128_d64$|BM_MHA_T128_E256_h4$']).toString());
  const unit = { ns: 1e-6, us: 1e-3, ms: 1 };
  const get = (n) => { const b = j.benchmarks.find((x) => x.name === n); return b && b.real_time * unit[b.time_unit]; };
  rows['attnlab native (-march=native, 1 thread)'] = { sdpa: get('BM_ScaledDotAttention_T128_d64'), mha: get('BM_MHA_T128_E256_h4') };
}

const ours = rows['attnlab wasm SIMD (1 thread)'];
console.log(`\n| engine | scaled-dot T=128 d=64 | MHA T=128 E=256 h=4 |`);
console.log('|---|---|---|');
for (const [name, r] of Object.entries(rows)) {
  const cell = (op) => (r[op] == null ? '-' : `${r[op] < 1 ? (r[op] * 1000).toFixed(0) + ' µs' : r[op].toFixed(2) + ' ms'} (${(r[op] / ours[op]).toFixed(2)}x)`);
  console.log(`| ${name} | ${cell('sdpa')} | ${cell('mha')} |`);
}
console.log('\n(x) = time relative to attnlab wasm SIMD; >1 means slower than attnlab.');
