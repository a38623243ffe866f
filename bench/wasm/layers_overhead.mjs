// What the layer-level API (al.layers, al.attention) costs over the same computation run
// inside the library, in wasm: each case timed (1) through the public call on
// { data, shape } tensors (staging, checks, layout and copies out included) and (2) as n
// forwards of the library's own layer called directly inside wasm (layersBenchInside:
// at::MultiheadAttention, scaled_dot_attention, nn::Recurrent, TransformerEncoderLayer,
// the paths our models take). Times are CPU time of this process (process.cpuUsage), not
// wall time: on a shared, oversubscribed machine wall time mostly measures waiting.
// Prints ms per call side by side and the ratio (goal: <= 1.05), also for the public call
// writing into arrays the caller reuses (opts.into: no output array allocated per call).
//   node bench/wasm/layers_overhead.mjs [--cpu-ms 300] [--rounds 3]
// --against DIR: the public call (with opts.into) of this package against another build of it
// (e.g. a copy of build/pkg made before a change), both loaded in this process, the two
// alternating over 9 rounds; prints the median CPU time of each and the ratio (other / this:
// above 1 means this build is faster).
//   node bench/wasm/layers_overhead.mjs --against DIR
import { loadPkg, opt } from './common.mjs';

const CPU_MS = Number(opt('--cpu-ms', 300));
const ROUNDS = Number(opt('--rounds', 3));
const AGAINST = opt('--against', '');
const al = await loadPkg();
const raw = al.module;
const other = AGAINST ? await loadPkg(AGAINST) : null;

// deterministic uniform [0,1) numbers (xorshift32)
let seed = 2463534242;
const uniform = () => {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
};
const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());

// a layer file as scripts/export_torch.py writes it, with PyTorch's initial values (the
// inside reference uses the library's, which follow the same rules): weights uniform in
// +-bound(name, shape), LayerNorm weights 1, biases 0
function bound(name, shape) {
  if (name.endsWith('in_proj_weight')) return Math.sqrt(6 / (shape[0] + shape[1]));
  if (/^weight_(ih|hh)/.test(name) || /^bias_(ih|hh)/.test(name)) return 1 / Math.sqrt(shape[0] / 3);
  if (name.endsWith('.weight') && shape.length === 2) return 1 / Math.sqrt(shape[1]);
  return 0;
}
function layerFile(kind, config, tensors) {
  const header = { __metadata__: { format: 'attnlab-layer', kind, config: JSON.stringify(config) } };
  let off = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + n] };
    off += n;
  }
  let hs = JSON.stringify(header);
  hs += ' '.repeat((8 - (hs.length % 8)) % 8);
  const h = new TextEncoder().encode(hs);
  const out = new Uint8Array(8 + h.length + off);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  for (const [name, shape] of tensors) {
    const [b, e] = header[name].data_offsets;
    const f = new Float32Array(out.buffer, 8 + h.length + b, (e - b) / 4);
    const bd = bound(name, shape);
    const norm = /^norm\d\.weight$/.test(name);
    for (let i = 0; i < f.length; ++i) f[i] = norm ? 1 : bd * (2 * uniform() - 1);
  }
  return out;
}
const mhaTensors = (p, E) => [[`${p}in_proj_weight`, [3 * E, E]], [`${p}in_proj_bias`, [3 * E]],
  [`${p}out_proj.weight`, [E, E]], [`${p}out_proj.bias`, [E]]];
// inputs ~ N(0, 1), as the inside reference's
const input = (shape) => ({ data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, normal), shape });

const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
// CPU ms per call of fn(n) (fn runs n calls after a fixed setup costing `setup` CPU ms),
// n grown until one measure takes >= CPU_MS
function cpuMsPerCall(fn, setup = 0) {
  fn(1);
  let n = 1;
  for (;;) {
    const t0 = cpu();
    fn(n);
    const ms = cpu() - t0;
    if (ms >= CPU_MS) return (ms - setup) / n;
    n = Math.max(n * 2, Math.ceil((n * CPU_MS * 1.2) / Math.max(ms, 0.01)));
  }
}
// median CPU ms of fn()
function cpuMedian(fn, k = 7) {
  const t = [];
  for (let i = 0; i < k; ++i) {
    const t0 = cpu();
    fn();
    t.push(cpu() - t0);
  }
  return t.sort((x, y) => x - y)[k >> 1];
}

const cases = [
  {
    name: 'MultiheadAttention B=1 T=128 E=256 H=4 (self, no weights)', op: 'mha', B: 1, T: 128, D: 256, H: 4,
    layer: () => layerFile('MultiheadAttention', { embed_dim: 256, num_heads: 4, batch_first: true }, mhaTensors('', 256)),
    call: (l, x, e) => l.forward(x, null, null, { needWeights: false, ...e }),
  },
  {
    name: 'MultiheadAttention B=1 T=32 E=64 H=4 (self, no weights)', op: 'mha', B: 1, T: 32, D: 64, H: 4,
    layer: () => layerFile('MultiheadAttention', { embed_dim: 64, num_heads: 4, batch_first: true }, mhaTensors('', 64)),
    call: (l, x, e) => l.forward(x, null, null, { needWeights: false, ...e }),
  },
  {
    name: 'GRU B=8 T=32 I=H=64', op: 'gru', B: 8, T: 32, D: 64, H: 1,
    layer: () => layerFile('GRU', { input_size: 64, hidden_size: 64, batch_first: true },
      [['weight_ih_l0', [192, 64]], ['weight_hh_l0', [192, 64]], ['bias_ih_l0', [192]], ['bias_hh_l0', [192]]]),
    call: (l, x, e) => l.forward(x, e),
  },
  {
    name: 'TransformerEncoderLayer B=8 T=32 d=128 H=4 ff=512', op: 'encoder', B: 8, T: 32, D: 128, H: 4,
    layer: () => layerFile('TransformerEncoderLayer', { d_model: 128, nhead: 4, dim_feedforward: 512, batch_first: true },
      [...mhaTensors('self_attn.', 128), ['linear1.weight', [512, 128]], ['linear1.bias', [512]],
        ['linear2.weight', [128, 512]], ['linear2.bias', [128]], ['norm1.weight', [128]], ['norm1.bias', [128]],
        ['norm2.weight', [128]], ['norm2.bias', [128]]]),
    call: (l, x, e) => l.forward(x, e),
  },
  { name: 'attention.scaledDot B=1 T=128 D=64 (no weights)', op: 'sdpa', B: 1, T: 128, D: 64, H: 1 },
  { name: 'attention.scaledDot B=1 T=32 D=32 (no weights)', op: 'sdpa', B: 1, T: 32, D: 32, H: 1 },
];

// The case's public call on input x through package pkg: { call(extraOpts), into (arrays for
// opts.into, sized by a first call), l (the layer, to delete; null for attention.scaledDot) }
function publicCall(pkg, c, x) {
  const l = c.layer ? pkg.layers.fromBytes(c.layer()) : null;
  const call = l ? (e) => c.call(l, x, e) : (e) => pkg.attention.scaledDot(x, x, x, { needWeights: false, ...e });
  const first = call();
  const outs = first.data ? { out: first } : first;
  const into = Object.fromEntries(Object.entries(outs).filter(([, t]) => t).map(([k, t]) => [k, new Float32Array(t.data.length)]));
  return { call, into, l };
}

// --against: the case's call with opts.into on each package, alternating -> median CPU ms each
function against(c) {
  const x = input([c.B, c.T, c.D]);
  const make = (pkg) => {
    const { call, into, l } = publicCall(pkg, c, x);
    return { run: (n) => { for (let i = 0; i < n; ++i) call({ into }); }, l };
  };
  const mine = make(al), theirs = make(other);
  const t = [[], []];
  for (let r = 0; r < 9; ++r) {
    for (const k of r % 2 ? [1, 0] : [0, 1]) t[k].push(cpuMsPerCall([mine, theirs][k].run));
  }
  mine.l?.delete();
  theirs.l?.delete();
  const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  return [med(t[0]), med(t[1])];
}
if (other) {
  console.log(`layer API (opts.into), this build against ${AGAINST}, Node ${process.version}; median CPU ms per call of 9 alternating rounds`);
  console.log('| computation | this ms | other ms | other / this |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases) {
    const [m, o] = against(c);
    console.log(`| ${c.name} | ${m.toFixed(4)} | ${o.toFixed(4)} | ${(o / m).toFixed(3)} |`);
  }
  process.exit(0);
}

const rows = [];
for (const c of cases) {
  const x = input([c.B, c.T, c.D]);
  // (1b) the same call writing into arrays the caller reuses (opts.into): no output allocated
  const { call, into, l } = publicCall(al, c, x);
  const apiN = (n) => { for (let i = 0; i < n; ++i) call(); };
  const intoN = (n) => { for (let i = 0; i < n; ++i) call({ into }); };
  const o = { op: c.op, B: c.B, T: c.T, D: c.D, heads: c.H };
  // setup (inputs, weights) is measured with n = 0 and taken off
  const insideN = (n) => { raw.layersBenchInside({ ...o, n }); };
  let api = Infinity;
  let apiInto = Infinity;
  let inside = Infinity;
  for (let r = 0; r < ROUNDS; ++r) {
    api = Math.min(api, cpuMsPerCall(apiN));
    apiInto = Math.min(apiInto, cpuMsPerCall(intoN));
    const setup = cpuMedian(() => insideN(0));
    inside = Math.min(inside, cpuMsPerCall(insideN, setup));
  }
  if (l) l.delete();
  rows.push([c.name, api, apiInto, inside]);
}

console.log(`layer API vs the same layer called inside wasm, Node ${process.version}; CPU ms per call (best of ${ROUNDS} rounds of >= ${CPU_MS} CPU ms)`);
console.log('| computation | layer API ms | with opts.into ms | inside wasm ms | ratio | ratio with into |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, api, apiInto, inside] of rows) {
  console.log(`| ${name} | ${api.toFixed(4)} | ${apiInto.toFixed(4)} | ${inside.toFixed(4)} | ${(api / inside).toFixed(3)} | ${(apiInto / inside).toFixed(3)} |`);
}
