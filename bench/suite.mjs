// The benchmark suite: one entry point, one statistic, every contender on its fastest
// correct path, written to BENCHMARKS.md.
//   node bench/suite.mjs [--rounds 5] [--batch-ms 25] [--out BENCHMARKS.md] [--json build/bench/BENCHMARKS.json]
//     [--no-models] [--cases gemm_256,softmax_128,...]
//   node bench/suite.mjs --quick      (CI: 1 round, 1 ms batches, report in build/bench/)
// Needs: scripts/build.sh native wasm (build/pkg, build/native/bench_suite); npm
// devDependencies (tfjs, onnxruntime-web); /usr/bin/python3 with torch (PyTorch rows and
// the ONNX graphs for onnxruntime-web); bench/peers/setup_openblas.sh once for the
// PyTorch + OpenBLAS row. A missing peer gives an "n/a (why)" cell, never a silent gap.
//
// Fairness rules:
// - Same inputs everywhere: an LCG seeded from the case id (JS here, C++ in
//   bench/native/bench_suite.cpp, Python in bench/peers/torch_suite.py).
// - Correctness first: every variant's output is compared with a float64 reference
//   computed here; a variant over its tolerance stops the suite (exit 1) before any
//   timing is believed.
// - Every contender runs its variants (e.g. tfjs matMul with transposeB vs an explicit
//   transpose); the fastest correct one is kept and named.
// - One statistic: per round, 5 batches of calls, each at least --batch-ms long; the
//   round's value is the median batch's time per call. Reported: the median over rounds,
//   with the spread (min-max over rounds). Ratios are taken per round (contender /
//   attnlab wasm in the same round) and reported as their median and spread.
// - Contenders are interleaved: each round runs every contender once, in an order that
//   rotates from round to round. The JS engines share this process; the native build and
//   PyTorch run as one child process per round (1 thread each).
// - The load average is recorded at every round.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { loadavg, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (n) => args.includes('--' + n);
const opt = (n, d) => { const i = args.indexOf('--' + n); return i >= 0 ? args[i + 1] : d; };
const QUICK = flag('quick');
const ROUNDS = Number(opt('rounds', QUICK ? 1 : 5));
const BATCH_MS = Number(opt('batch-ms', QUICK ? 1 : 25));
const OUT = opt('out', QUICK ? join(ROOT, 'build', 'bench', 'BENCHMARKS.quick.md') : join(ROOT, 'BENCHMARKS.md'));
const MODELS = !flag('no-models');
// the results as data (the CI test reads them); kept out of the source tree by default
const JSON_OUT = opt('json', join(ROOT, 'build', 'bench', (QUICK ? 'BENCHMARKS.quick' : 'BENCHMARKS') + '.json'));
const PKG = process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg');
const NATIVE = join(ROOT, 'build', 'native', 'bench_suite');
const PY = '/usr/bin/python3';
const OPENBLAS_DIR = '/usr/lib/x86_64-linux-gnu/openblas-pthread';
const WORK = join(ROOT, 'build', 'bench');
mkdirSync(WORK, { recursive: true });
const log = (...a) => console.error('[suite]', ...a);

// ---------------------------------------------------------------- cases
const xavier = (fanIn, fanOut) => 2 * Math.sqrt(6 / (fanIn + fanOut));  // LCG is in [-0.5, 0.5)
const CASES = [];
const gemmCase = (id, label, M, N, K) => ({ id, label, op: M === 1 ? 'gemv' : 'gemm', M, N, K,
  inputs: [['a', [M, K], 1], ['b', [K, N], 1]], flops: 2 * M * N * K });
CASES.push(gemmCase('gemm_256', 'GEMM 256x256x256', 256, 256, 256));
CASES.push(gemmCase('gemv_256', 'GEMV (1x256)(256x256)', 1, 256, 256));
CASES.push({ id: 'softmax_128', label: 'softmax 128x128 (rows)', op: 'softmax', R: 128, C: 128,
  inputs: [['x', [128, 128], 16]], flops: 5 * 128 * 128 });
for (const T of [32, 128, 512]) {
  CASES.push({ id: `sdpa_t${T}`, label: `scaled-dot attention T=${T} d=64`, op: 'sdpa', T, D: 64,
    inputs: [['q', [T, 64], 2], ['k', [T, 64], 2], ['v', [T, 64], 2]], flops: 4 * T * T * 64 });
}
for (const T of [32, 128, 512]) {
  const E = 256, H = 4;
  CASES.push({ id: `mha_t${T}`, label: `MHA self-attention T=${T} E=256 h=4`, op: 'mha', T, E, H,
    inputs: [['x', [T, E], 2], ['in_proj_weight', [3 * E, E], xavier(E, 3 * E)], ['in_proj_bias', [3 * E], 0.2],
      ['out_proj.weight', [E, E], xavier(E, E)], ['out_proj.bias', [E], 0.2]],
    flops: 2 * T * E * 3 * E + 4 * T * T * E + 2 * T * E * E });
}
const ONLY = opt('cases', '') ? opt('cases', '').split(',') : null;
const cases = ONLY ? CASES.filter((c) => ONLY.includes(c.id)) : CASES;
const casesFile = join(WORK, 'cases.json');
writeFileSync(casesFile, JSON.stringify(cases));

// ---------------------------------------------------------------- inputs (the LCG)
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(s)) h = Math.imul(h ^ ch, 0x01000193) >>> 0;
  return h;
}
function lcg(n, seed, scale) {
  let s = seed >>> 0;
  const a = new Float32Array(n);
  for (let i = 0; i < n; ++i) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = (s / 4294967296 - 0.5) * scale; }
  return a;
}
function inputsOf(c) {
  const base = fnv1a(c.id), res = {};
  c.inputs.forEach(([name, shape, scale], i) => { res[name] = lcg(shape.reduce((x, y) => x * y, 1), (base + i) >>> 0, scale); });
  return res;
}

// ---------------------------------------------------------------- float64 references
function matmul64(A, B, M, N, K, bias = null, transB = false) {  // A (M,K), B (K,N) or (N,K) if transB
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; ++i) {
    for (let j = 0; j < N; ++j) {
      let s = bias ? bias[j] : 0;
      for (let k = 0; k < K; ++k) s += A[i * K + k] * (transB ? B[j * K + k] : B[k * N + j]);
      C[i * N + j] = s;
    }
  }
  return C;
}
function softmax64(X, R, C) {
  const Y = new Float64Array(R * C);
  for (let r = 0; r < R; ++r) {
    let m = -Infinity;
    for (let c = 0; c < C; ++c) m = Math.max(m, X[r * C + c]);
    let s = 0;
    for (let c = 0; c < C; ++c) s += (Y[r * C + c] = Math.exp(X[r * C + c] - m));
    for (let c = 0; c < C; ++c) Y[r * C + c] /= s;
  }
  return Y;
}
function sdpa64(q, k, v, T, S, D, ldq = D, ldk = D, ldv = D, qo = 0, ko = 0, vo = 0) {
  const out = new Float64Array(T * D), sc = 1 / Math.sqrt(D), row = new Float64Array(S);
  for (let t = 0; t < T; ++t) {
    let m = -Infinity;
    for (let s = 0; s < S; ++s) {
      let d = 0;
      for (let j = 0; j < D; ++j) d += q[qo + t * ldq + j] * k[ko + s * ldk + j];
      row[s] = d * sc;
      m = Math.max(m, row[s]);
    }
    let z = 0;
    for (let s = 0; s < S; ++s) z += (row[s] = Math.exp(row[s] - m));
    for (let s = 0; s < S; ++s) {
      const w = row[s] / z;
      for (let j = 0; j < D; ++j) out[t * D + j] += w * v[vo + s * ldv + j];
    }
  }
  return out;
}
function reference(c, x) {
  if (c.op === 'gemm' || c.op === 'gemv') return matmul64(x.a, x.b, c.M, c.N, c.K);
  if (c.op === 'softmax') return softmax64(x.x, c.R, c.C);
  if (c.op === 'sdpa') return sdpa64(x.q, x.k, x.v, c.T, c.T, c.D);
  const { T, E, H } = c, dh = E / H;
  const qkv = matmul64(x.x, x.in_proj_weight, T, 3 * E, E, x.in_proj_bias, true);  // (T, 3E)
  const ctx = new Float64Array(T * E);
  for (let h = 0; h < H; ++h) {
    const o = sdpa64(qkv, qkv, qkv, T, T, dh, 3 * E, 3 * E, 3 * E, h * dh, E + h * dh, 2 * E + h * dh);
    for (let t = 0; t < T; ++t) for (let j = 0; j < dh; ++j) ctx[t * E + h * dh + j] = o[t * dh + j];
  }
  return matmul64(ctx, x['out_proj.weight'], T, E, E, x['out_proj.bias'], true);
}
const TOL = 2e-4;  // max |out - ref| / max |ref|; float32 GEMM over K=256 is about 1e-6
function relErr(out, ref) {
  if (!out || out.length !== ref.length) return Infinity;
  let e = 0, m = 0;
  for (let i = 0; i < ref.length; ++i) {
    const d = Math.abs(out[i] - ref[i]);
    e = Number.isNaN(d) ? Infinity : Math.max(e, d);
    m = Math.max(m, Math.abs(ref[i]));
  }
  return e / Math.max(m, 1e-30);
}

// ---------------------------------------------------------------- timing
function roundMedian(fn, batchMs = BATCH_MS) {
  const t = [];
  for (let b = 0; b < 5; ++b) {
    let n = 0;
    const t0 = performance.now();
    let t1;
    do { fn(); ++n; t1 = performance.now(); } while (t1 - t0 < batchMs);
    t.push((t1 - t0) / n);
  }
  t.sort((a, b) => a - b);
  return t[2];
}
const safe = (s) => s.replace(/[^A-Za-z0-9]/g, '_');

// ---------------------------------------------------------------- contenders
// A contender: { name, available | whyNot, variants(case) -> [{ name, output(), time() }] }
// or, for child processes, { name, child: true, runRound(check) -> { caseId: { variant: ms } } }.
const contenders = [];
let attnlabWasm = null;
const inputs = Object.fromEntries(cases.map((c) => [c.id, inputsOf(c)]));

// attnlab wasm
{
  const pkg = join(PKG, 'node.mjs');
  if (!existsSync(pkg)) {
    throw new Error(`suite: ${pkg} is missing; build it first with scripts/build.sh wasm`);
  }
  const { load } = await import(pkg);
  const al = await load();
  attnlabWasm = al;
  const st = al.kernels.selftest(1);
  const kernelCheck = (names) => {
    const mine = st.cases.filter((k) => names.some((n) => k.name === n || k.name.startsWith(n + '@')));
    if (!mine.length) return { err: Infinity, note: `no self-test case for ${names}` };
    const bad = mine.filter((k) => !k.passed);
    return { err: bad.length ? Infinity : 0,
      note: `wasm self-test against the scalar twin: ${mine.length - bad.length}/${mine.length} shapes pass` };
  };
  const layers = {};
  const layerFor = (c) => {
    if (layers[c.id]) return layers[c.id];
    const x = inputs[c.id];
    const names = ['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias'];
    const header = { __metadata__: { format: 'attnlab-layer', kind: 'MultiheadAttention',
      config: JSON.stringify({ embed_dim: c.E, num_heads: c.H, bias: true, batch_first: true }) } };
    let off = 0;
    for (const n of names) {
      const shape = c.inputs.find((i) => i[0] === n)[1];
      header[n] = { dtype: 'F32', shape, data_offsets: [off, off + 4 * x[n].length] };
      off += 4 * x[n].length;
    }
    let h = Buffer.from(JSON.stringify(header));
    h = Buffer.concat([h, Buffer.alloc((8 - (h.length % 8)) % 8, 0x20)]);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(h.length));
    const bytes = Buffer.concat([len, h, ...names.map((n) => Buffer.from(x[n].buffer, x[n].byteOffset, x[n].byteLength))]);
    layers[c.id] = al.layers.fromBytes(new Uint8Array(bytes));
    return layers[c.id];
  };
  contenders.push({ name: 'attnlab wasm', detail: `wasm SIMD128, Node ${process.version}, 1 thread`, variants(c) {
    const x = inputs[c.id];
    const kern = (name, shape, check) => ({ name: `kernels.bench('${name}')`, check,
      time: () => al.kernels.bench(name, shape, { minMs: 5 * BATCH_MS }).ns / 1e6 });
    if (c.op === 'gemm') return [kern('gemm_nn', [c.M, c.N, c.K], kernelCheck(['gemm_nn', 'gemm_nn_beta0']))];
    if (c.op === 'gemv') return [kern('gemv_t', [c.K, c.N], kernelCheck(['gemv_t'])), kern('gemm_nn', [c.M, c.N, c.K], kernelCheck(['gemm_nn']))];
    if (c.op === 'softmax') {
      // the kernel, timed inside wasm; checked here row by row through al.softmax (the same kernel)
      const out = () => { const y = new Float32Array(c.R * c.C); for (let r = 0; r < c.R; ++r) y.set(al.softmax(x.x.subarray(r * c.C, (r + 1) * c.C)), r * c.C); return y; };
      return [{ ...kern('softmax_rows', [c.R, c.C]), output: out }];
    }
    if (c.op === 'sdpa') {
      const t = (d) => ({ data: d, shape: [1, c.T, c.D] });
      const q = t(x.q), k = t(x.k), v = t(x.v);
      const run = () => al.attention.scaledDot(q, k, v, { needWeights: false }).out.data;
      // the caller's array reused across calls (opts.into): nothing allocated per call
      const into = { out: new Float32Array(c.T * c.D) };
      const runInto = () => al.attention.scaledDot(q, k, v, { needWeights: false, into }).out.data;
      return [{ name: 'attention.scaledDot (needWeights false)', output: run, run },
        { name: 'attention.scaledDot (needWeights false, into a reused array)', output: runInto, run: runInto }];
    }
    const mha = layerFor(c);
    const xin = { data: x.x, shape: [1, c.T, c.E] };
    const run = () => mha.forward(xin, null, null, { needWeights: false, batchFirst: true }).out.data;
    const into = { out: new Float32Array(c.T * c.E) };
    const runInto = () => mha.forward(xin, null, null, { needWeights: false, batchFirst: true, into }).out.data;
    return [{ name: 'layers MultiheadAttention.forward (needWeights false)', output: run, run },
      { name: 'layers MultiheadAttention.forward (needWeights false, into a reused array)', output: runInto, run: runInto }];
  } });
}

// tfjs-backend-wasm
try {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(join(ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + '/');
  wasm.setThreadsCount?.(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const ver = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'package.json'), 'utf8')).version;
  const sync = (f) => () => { const t = tf.tidy(f); const d = t.dataSync(); t.dispose(); return d; };
  // the kernel rows time attnlab inside wasm, so tfjs gets a variant without the copy out
  // (the wasm backend computes synchronously; the check still reads the output back)
  const noReadback = (name, f) => ({ name: `${name}, no readback`, output: sync(f), run: () => tf.tidy(f).dispose() });
  contenders.push({ name: 'tfjs-wasm', detail: `@tensorflow/tfjs-backend-wasm ${ver} (SIMD), 1 thread`, variants(c) {
    const x = inputs[c.id];
    if (c.op === 'gemm' || c.op === 'gemv') {
      const a = tf.tensor2d(x.a, [c.M, c.K]), b = tf.tensor2d(x.b, [c.K, c.N]);
      const bt = tf.transpose(b);
      return [
        { name: 'matMul(a, b)', run: sync(() => tf.matMul(a, b)) },
        { name: 'matMul(a, bT, false, true) (B^T stored)', run: sync(() => tf.matMul(a, bt, false, true)) },
        noReadback('matMul(a, b)', () => tf.matMul(a, b)),
        noReadback('matMul(a, bT, false, true) (B^T stored)', () => tf.matMul(a, bt, false, true)),
      ];
    }
    if (c.op === 'softmax') {
      const s = tf.tensor2d(x.x, [c.R, c.C]);
      return [{ name: 'softmax(x)', run: sync(() => tf.softmax(s)) }, noReadback('softmax(x)', () => tf.softmax(s))];
    }
    const att = (q, k, v, scale, explicitT) => {
      const s = explicitT ? tf.matMul(q, tf.transpose(k, [0, 2, 1])) : tf.matMul(q, k, false, true);
      return tf.matMul(tf.softmax(tf.mul(s, scale)), v);
    };
    if (c.op === 'sdpa') {
      const q = tf.tensor3d(x.q, [1, c.T, c.D]), k = tf.tensor3d(x.k, [1, c.T, c.D]), v = tf.tensor3d(x.v, [1, c.T, c.D]);
      const sc = 1 / Math.sqrt(c.D);
      return [
        { name: 'matMul(q, k, false, true)', run: sync(() => att(q, k, v, sc, false)) },
        { name: 'matMul(q, transpose(k))', run: sync(() => att(q, k, v, sc, true)) },
      ];
    }
    const { T, E, H } = c, dh = E / H;
    const xx = tf.tensor2d(x.x, [T, E]);
    const wIn = tf.transpose(tf.tensor2d(x.in_proj_weight, [3 * E, E])), bIn = tf.tensor1d(x.in_proj_bias);
    const wOut = tf.transpose(tf.tensor2d(x['out_proj.weight'], [E, E])), bOut = tf.tensor1d(x['out_proj.bias']);
    const mha = (explicitT) => () => {
      const qkv = tf.add(tf.matMul(xx, wIn), bIn);                        // (T, 3E)
      const [qq, kk, vv] = tf.split(qkv, 3, 1);
      const heads = (t) => tf.transpose(tf.reshape(t, [T, H, dh]), [1, 0, 2]);  // (H, T, dh)
      const ctx = att(heads(qq), heads(kk), heads(vv), 1 / Math.sqrt(dh), explicitT);
      return tf.add(tf.matMul(tf.reshape(tf.transpose(ctx, [1, 0, 2]), [T, E]), wOut), bOut);
    };
    return [
      { name: 'batched matMul(q, k, false, true)', run: sync(mha(false)) },
      { name: 'batched matMul(q, transpose(k))', run: sync(mha(true)) },
    ];
  } });
} catch (e) {
  contenders.push({ name: 'tfjs-wasm', whyNot: `not loadable (${e.message.split('\n')[0]}); npm install` });
}

// onnxruntime-web, wasm, 1 thread (ONNX graphs exported by torch_suite.py --onnx)
const ONNX_DIR = join(WORK, 'onnx');
let torchOk = false;
try {
  execFileSync(PY, ['-c', 'import torch'], { stdio: 'ignore' });
  torchOk = true;
} catch { /* reported in the rows */ }
try {
  if (!torchOk) throw new Error('the ONNX graphs are exported with /usr/bin/python3 + torch, which is missing');
  execFileSync('nice', ['-n', '0', PY, join(ROOT, 'bench', 'peers', 'torch_suite.py'), casesFile, '--onnx', ONNX_DIR],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  const ver = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'onnxruntime-web', 'package.json'), 'utf8')).version;
  const sessions = {};
  for (const c of cases) {
    const x = inputs[c.id];
    const list = [];
    for (const tag of ['input', 'const']) {
      const file = join(ONNX_DIR, `${c.id}.${tag}.onnx`);
      if (!existsSync(file)) continue;
      const s = await ort.InferenceSession.create(readFileSync(file), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const feeds = {};
      for (const n of s.inputNames) feeds[n] = new ort.Tensor('float32', x[n], c.inputs.find((i) => i[0] === n)[1]);
      // session.run is async; one call resolves in the same tick for the wasm EP, timed with await
      const name = tag === 'const' ? (c.op === 'mha' ? 'nn.MultiheadAttention export (weights constant)' : 'MatMul, B constant (prepacked)') : 'all inputs fed';
      // no variant with a pre-allocated output: onnxruntime-web 1.30's wasm backend accepts a
      // CPU tensor as a fetch but never writes the result into it (it stays zero)
      list.push({ name, session: s, feeds });
    }
    sessions[c.id] = list;
  }
  contenders.push({ name: 'ORT-web', detail: `onnxruntime-web ${ver} wasm (SIMD), numThreads 1, graphOptimizationLevel all`, async: true, variants(c) {
    return sessions[c.id].map(({ name, session, feeds }) => ({ name, runAsync: async () => (await session.run(feeds)).out.data }));
  } });
} catch (e) {
  contenders.push({ name: 'ORT-web', whyNot: `not available (${e.message.split('\n')[0]})` });
}

// child-process contenders: PyTorch with each BLAS, attnlab native
const childOut = mkdtempSync(join(tmpdir(), 'attnlab-suite-'));
function childContender(name, detailFn, cmd, argv, env) {
  return { name, child: true, detailFn, runRound(check) {
    const extra = ['--rounds', '1', '--batch-ms', String(BATCH_MS)].concat(check ? ['--out', childOut] : []);
    const out = execFileSync(cmd, [...argv, casesFile, ...extra], { env: { ...process.env, ...env }, maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    const j = JSON.parse(out.trim().split('\n').pop());
    this.info = j;
    return j;
  } };
}
const torchEnv = { OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' };
if (torchOk) {
  contenders.push(childContender('PyTorch (default BLAS)', (j) => `torch ${j.version} CPU, ${j.threads} thread, BLAS ${j.blas}`,
    PY, [join(ROOT, 'bench', 'peers', 'torch_suite.py'), '--name', 'torch'], { ...torchEnv, LD_LIBRARY_PATH: '' }));
  if (existsSync(join(OPENBLAS_DIR, 'libblas.so.3'))) {
    contenders.push(childContender('PyTorch (OpenBLAS)', (j) => `torch ${j.version} CPU, ${j.threads} thread, BLAS ${j.blas}`,
      PY, [join(ROOT, 'bench', 'peers', 'torch_suite.py'), '--name', 'torchob'],
      { ...torchEnv, LD_LIBRARY_PATH: OPENBLAS_DIR + (process.env.LD_LIBRARY_PATH ? ':' + process.env.LD_LIBRARY_PATH : '') }));
  } else {
    contenders.push({ name: 'PyTorch (OpenBLAS)', whyNot: 'OpenBLAS not installed: run bench/peers/setup_openblas.sh' });
  }
} else {
  for (const n of ['PyTorch (default BLAS)', 'PyTorch (OpenBLAS)']) contenders.push({ name: n, whyNot: 'no torch in /usr/bin/python3 (apt-get install python3-torch)' });
}
if (existsSync(NATIVE)) {
  contenders.push(childContender('attnlab native', (j) => `build/native (${j.arch}), 1 thread`, NATIVE, [], {}));
} else {
  contenders.push({ name: 'attnlab native', whyNot: 'build/native/bench_suite missing: scripts/build.sh native' });
}
const childPrefix = { 'PyTorch (default BLAS)': 'torch', 'PyTorch (OpenBLAS)': 'torchob', 'attnlab native': 'native' };

// ---------------------------------------------------------------- correctness, then rounds
const refs = Object.fromEntries(cases.map((c) => [c.id, reference(c, inputs[c.id])]));
const checks = [];   // { case, contender, variant, err, note }
const times = {};    // times[contender][case][variant] = [ms per round]
const loads = [];
const live = contenders.filter((k) => !k.whyNot);
const put = (k, cid, v, ms) => {
  times[k] ??= {}; times[k][cid] ??= {}; (times[k][cid][v] ??= []).push(ms);
};
const inproc = {};   // prepared variants per in-process contender
for (const k of live.filter((k) => !k.child)) {
  inproc[k.name] = {};
  for (const c of cases) {
    const vs = k.variants(c);
    for (const v of vs) {
      let err, note;
      if (v.check) ({ err, note } = v.check);
      else {
        const out = v.runAsync ? await v.runAsync() : (v.output ?? v.run)();
        err = relErr(out, refs[c.id]);
      }
      checks.push({ case: c.id, contender: k.name, variant: v.name, err, note });
    }
    inproc[k.name][c.id] = vs;
  }
}
async function timeVariant(v) {
  if (v.time) return v.time();
  if (v.runAsync) {
    const t = [];
    for (let b = 0; b < 5; ++b) {
      let n = 0;
      const t0 = performance.now();
      let t1;
      do { await v.runAsync(); ++n; t1 = performance.now(); } while (t1 - t0 < BATCH_MS);
      t.push((t1 - t0) / n);
    }
    t.sort((a, b) => a - b);
    return t[2];
  }
  v.run();
  return roundMedian(v.run);
}
// A warm-up round, not counted: every in-process variant runs as in a timed round, so that
// no contender's first round pays for V8's optimizing tier or for the process's allocator
// and GC settling (a fresh Node process allocates its first few thousand output arrays of
// tens of KB several times slower than later ones, whichever engine asks)
if (!QUICK) {
  log('warm-up round (not counted)');
  for (const k of live.filter((x) => !x.child)) for (const c of cases) for (const v of inproc[k.name][c.id]) await timeVariant(v);
}
const started = new Date();
for (let r = 0; r < ROUNDS; ++r) {
  const order = live.map((_, i) => live[(i + r) % live.length]);
  loads.push(loadavg()[0]);
  log(`round ${r + 1}/${ROUNDS}: ${order.map((k) => k.name).join(' -> ')} (load ${loads.at(-1).toFixed(2)})`);
  for (const k of order) {
    if (k.child) {
      let j;
      try {
        j = k.runRound(r === 0);
      } catch (e) {
        k.whyNot = `failed: ${String(e.stderr || e.message).trim().split('\n').pop()}`;
        continue;
      }
      if (r === 0) k.detail = k.detailFn(j);
      for (const [cid, vs] of Object.entries(j.cases)) {
        for (const [vn, msList] of Object.entries(vs)) {
          if (r === 0) {
            const f = join(childOut, `${childPrefix[k.name]}_${cid}_${safe(vn)}.f32`);
            const out = existsSync(f) ? new Float32Array(new Uint8Array(readFileSync(f)).buffer) : null;
            checks.push({ case: cid, contender: k.name, variant: vn, err: relErr(out, refs[cid]) });
          }
          put(k.name, cid, vn, msList[0]);
        }
      }
    } else {
      for (const c of cases) for (const v of inproc[k.name][c.id]) put(k.name, c.id, v.name, await timeVariant(v));
    }
  }
}
loads.push(loadavg()[0]);
// the GEMM tile the wasm module chose (at its 16th large GEMM, see src/attnlab/kernels/gemm.cpp)
contenders[0].detail += `, GEMM tile ${attnlabWasm.simdInfo().gemmTile}`;
rmSync(childOut, { recursive: true, force: true });

// ---------------------------------------------------------------- loud failure
const failed = checks.filter((c) => !(c.err <= TOL));
for (const c of failed) console.error(`CHECK FAILED: ${c.case} / ${c.contender} / ${c.variant}: max rel err ${c.err} > ${TOL}${c.note ? ' (' + c.note + ')' : ''}`);

// ---------------------------------------------------------------- statistics
const med = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const failedSet = new Set(failed.map((c) => `${c.contender}|${c.case}|${c.variant}`));
function best(k, cid) {  // the fastest correct variant: { variant, rounds, median }
  const vs = times[k]?.[cid];
  if (!vs) return null;
  let b = null;
  for (const [v, rs] of Object.entries(vs)) {
    if (failedSet.has(`${k}|${cid}|${v}`)) continue;
    const m = med(rs);
    if (!b || m < b.median) b = { variant: v, rounds: rs, median: m };
  }
  return b;
}
const fmtT = (ms) => (ms < 1 ? `${(ms * 1000).toPrecision(3)} µs` : `${ms.toPrecision(3)} ms`);
const names = contenders.map((k) => k.name);
const base = 'attnlab wasm';
function ratios(k, cid) {  // per round: contender / attnlab wasm
  const a = best(k, cid), b = best(base, cid);
  if (!a || !b) return null;
  return a.rounds.map((t, i) => t / b.rounds[i]);
}
const lines = [];
const P = (s = '') => lines.push(s);
P('# Benchmarks');
P();
P(`Written by \`node bench/suite.mjs${QUICK ? ' --quick' : ''}\` (${ROUNDS} round${ROUNDS > 1 ? 's' : ''}, ${BATCH_MS} ms batches) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; do not edit by hand.`);
P(`Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}. Load average (1 min) at each round's start and at the end: ${loads.map((l) => l.toFixed(2)).join(', ')}.`);
if (QUICK) P('**Quick mode: correctness and completeness only; the timings are too short to mean anything.**');
P();
P('How to read it: time per call, **median over rounds** of each round\'s median batch (5 batches per round, each at least');
P(`${BATCH_MS} ms), spread = [min-max over rounds]; (xR) = the median over rounds of contender time / attnlab wasm time in the same`);
P('round, so R > 1 means attnlab wasm is faster. Each contender is shown on its fastest correct variant (see "Variants").');
P('Contenders run interleaved, one after another in every round, in an order that rotates each round; all use 1 thread.');
if (!QUICK) P('Before the first round, one round of every in-process contender runs untimed (warm-up: V8\'s optimizing tier, the allocator).');
P('What a call includes: the GEMM, GEMV and softmax rows time attnlab wasm inside wasm (kernels.bench, no marshalling),');
P('so tfjs has variants without reading the output back; the attention and MHA rows call every JS contender through');
P('its public API with inputs in and outputs out (attnlab: attention.scaledDot, layers MultiheadAttention.forward).');
P('ORT-web always goes through session.run (inputs copied in, outputs out), which dominates its small-op times.');
P('Outputs: attnlab has a variant that writes into one array reused across calls (opts.into, no allocation per call) beside');
P('the one that allocates; tfjs (dataSync) and ORT-web allocate every output: tfjs-wasm has no read-into call, and');
P('onnxruntime-web 1.30 accepts a pre-allocated CPU output tensor but never writes the result into it (it stays zero).');
P('Allocating tens of KB per call costs page faults on this VM (the allocating and the into variants are both listed under Variants).');
P('The native build and PyTorch run in their own processes on the same inputs.');
P();
P('## Contenders');
P();
for (const k of contenders) P(`- **${k.name}**: ${k.whyNot ? 'n/a: ' + k.whyNot : k.detail ?? ''}`);
P();
P('## Time per call');
P();
P(`| case | ${names.join(' | ')} |`);
P(`|---|${names.map(() => '---').join('|')}|`);
for (const c of cases) {
  const cells = contenders.map((k) => {
    if (k.whyNot && !times[k.name]) return 'n/a';
    const b = best(k.name, c.id);
    if (!b) return 'n/a';
    const rr = ratios(k.name, c.id);
    const gf = c.op === 'gemm' || c.op === 'gemv' || c.op === 'mha' ? ` ${(c.flops / b.median / 1e6).toFixed(1)} GF/s` : '';
    const spread = `[${fmtT(Math.min(...b.rounds))}-${fmtT(Math.max(...b.rounds))}]`;
    return k.name === base || !rr ? `${fmtT(b.median)} ${spread}${gf}` : `${fmtT(b.median)} ${spread}${gf} (x${med(rr).toFixed(2)})`;
  });
  P(`| ${c.label} | ${cells.join(' | ')} |`);
}
P();
P('## Ratios per round (contender / attnlab wasm, fastest variants)');
P();
P(`| case | contender | ${Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`).join(' | ')} |`);
P(`|---|---|${Array.from({ length: ROUNDS }, () => '---').join('|')}|`);
for (const c of cases) {
  for (const k of names.filter((n) => n !== base)) {
    const rr = ratios(k, c.id);
    if (rr) P(`| ${c.label} | ${k} | ${rr.map((x) => x.toFixed(2)).join(' | ')} |`);
  }
}
P();
P('## Variants (every variant timed; the fastest correct one is used above)');
P();
P('| case | contender | variant | median | used |');
P('|---|---|---|---|---|');
for (const c of cases) {
  for (const k of names) {
    const b = best(k, c.id);
    for (const [v, rs] of Object.entries(times[k]?.[c.id] ?? {})) P(`| ${c.label} | ${k} | ${v} | ${fmtT(med(rs))} | ${b && b.variant === v ? 'yes' : ''} |`);
  }
}
P();
P(`## Correctness (before timing): max |out - ref| / max |ref| against a float64 reference, tolerance ${TOL}`);
P();
P('| case | contender | variant | error | |');
P('|---|---|---|---|---|');
for (const c of checks) P(`| ${c.case} | ${c.contender} | ${c.variant} | ${c.note ?? c.err.toExponential(1)} | ${c.err <= TOL ? 'ok' : '**FAILED**'} |`);
P();

// ---------------------------------------------------------------- model level (attnlab only)
if (MODELS) {
  P('## Model level (attnlab wasm in Node)');
  P();
  const runScript = (script, argv) => {
    try {
      return execFileSync('node', [join(ROOT, 'bench', 'wasm', script), ...argv], { maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ATTNLAB_PKG: PKG } }).toString();
    } catch (e) {
      return `failed: ${String(e.stderr || e.message).trim().split('\n').pop()}`;
    }
  };
  // G2P (per word, each decoder precision, and the mean over typical CMUdict words) and
  // the dates model (per date); the other models are in bench/wasm/seq2seq.mjs itself
  const s2sArgs = ['--runs', QUICK ? '3' : '100', '--models', 'g2p-cmudict,dates'];
  P(`Seq2seq decoding per input, each decoder precision (\`node bench/wasm/seq2seq.mjs ${s2sArgs.join(' ')}\`):`);
  P();
  P('```');
  P(runScript('seq2seq.mjs', s2sArgs).trim());
  P('```');
  P();
  P(`HAN, one e-mail through the JS package (\`node bench/wasm/han.mjs --runs ${QUICK ? 5 : 200}\`):`);
  P();
  P('```');
  P(runScript('han.mjs', ['--runs', QUICK ? '5' : '200']).trim());
  P('```');
  P();
}

mkdirSync(join(OUT, '..'), { recursive: true });
writeFileSync(OUT, lines.join('\n') + '\n');
mkdirSync(join(JSON_OUT, '..'), { recursive: true });
writeFileSync(JSON_OUT, JSON.stringify({
  quick: QUICK, rounds: ROUNDS, batchMs: BATCH_MS, loads, tolerance: TOL,
  cases: cases.map((c) => c.id),
  contenders: contenders.map((k) => ({ name: k.name, detail: k.detail ?? null, whyNot: k.whyNot ?? null })),
  checks,
  best: Object.fromEntries(cases.map((c) => [c.id, Object.fromEntries(names.map((k) => [k, best(k, c.id)]))])),
  modelsText: MODELS ? lines.slice(lines.indexOf('## Model level (attnlab wasm in Node)')).join('\n') : null,
}, (k, v) => (v === Infinity ? 'Infinity' : v), 1));
console.log(lines.join('\n'));
log(`wrote ${OUT}`);
if (failed.length) {
  console.error(`suite: ${failed.length} correctness check(s) FAILED (see above); their timings are not used`);
  process.exit(1);
}
process.exit(0);
