// Wasm tier: the native kernel checks, run inside the WebAssembly build, and
// proof that the .wasm really contains SIMD where it matters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPkg, WASM_BUILD } from './helpers.mjs';

const al = await loadPkg();

test('wasm build reports the SIMD128 arch with 4 lanes', () => {
  const info = al.simdInfo();
  assert.match(info.arch, /wasm-simd128/);
  assert.equal(info.lanes, 4);
});

test('every kernel matches its scalar twin inside wasm, at every tile-edge shape', () => {
  const report = al.kernels.selftest(7);
  const names = new Set(report.cases.map((c) => c.name));
  const base = new Set([...names].map((n) => n.replace(/@.*/, '')));
  assert.ok([...names].filter((n) => n.startsWith('gemm_nn@')).length >= 2, 'GEMM checked with one tile only');
  for (const k of ['gemm_nn', 'gemm_tt', 'gemv_t', 'softmax_rows_mask', 'softmax_rows_fully_masked',
    'softmax_rows_pm1e4', 'exp', 'tanh', 'gelu_backward', 'layernorm_backward', 'max']) {
    assert.ok(base.has(k), `kernel ${k} missing from the self-test`);
  }
  const failed = report.cases.filter((c) => !c.passed);
  assert.deepEqual(failed.map((c) => `${c.name} ${c.shape.join('x')}${c.in_place ? ' in place' : ''} ratio ${c.worst_ratio}`), []);
  assert.equal(report.failed, 0);
  assert.ok(report.cases.length > 300, `only ${report.cases.length} checks ran`);
});

test('softmax through the JS API: sums to 1, huge logits stay finite, bad input throws', () => {
  const y = al.softmax(new Float32Array([1e4, -1e4, 0, 1e4]));
  assert.ok(y instanceof Float32Array);
  assert.ok(Math.abs(y[0] - 0.5) < 1e-6 && Math.abs(y[3] - 0.5) < 1e-6);
  assert.ok(y.every(Number.isFinite));
  assert.throws(() => al.softmax(undefined), /expected a Float32Array/);
  // the module stays usable after the error
  assert.ok(Math.abs(al.softmax([0, 0])[1] - 0.5) < 1e-7);
  assert.throws(() => al.kernels.bench('no_such_kernel', [1]), /unknown kernel 'no_such_kernel'/);
});

// Function bodies in the disassembly whose demangled C++ names match the given
// patterns, found via the symbol map the build emits (the .wasm has no names).
function functionBodies(patterns) {
  const decode = (n) => n.replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  const symbols = readFileSync(join(WASM_BUILD, 'attnlab.js.symbols'), 'utf8').split('\n');
  const wanted = new Map();
  for (const line of symbols) {
    const i = line.indexOf(':');
    const name = decode(line.slice(i + 1));
    if (patterns.some((p) => p.test(name))) wanted.set(Number(line.slice(0, i)), name);
  }
  const dis = execFileSync('wasm-objdump', ['-d', join(WASM_BUILD, 'attnlab.wasm')], { maxBuffer: 1 << 30 }).toString();
  const bodies = {};
  for (const chunk of dis.split(/\n(?=[0-9a-f]+ func\[)/)) {
    const m = chunk.match(/^[0-9a-f]+ func\[(\d+)\]/);
    if (m && wanted.has(Number(m[1]))) bodies[wanted.get(Number(m[1]))] = chunk;
  }
  return bodies;
}

test('the .wasm contains f32x4 SIMD in GEMM and softmax, and no emulated float->int in softmax', () => {
  const micro = /^attnlab::kernels::\(anonymous namespace\)::Tile<.*>::micro\(/;
  const softmax = /^attnlab::kernels::softmax_rows\(/;
  const bodies = functionBodies([micro, softmax]);
  const micros = Object.keys(bodies).filter((n) => micro.test(n));
  assert.ok(micros.length >= 2, `GEMM micro-kernels not found: ${Object.keys(bodies)}`);
  for (const name of micros) {
    const muls = (bodies[name].match(/f32x4\.mul/g) || []).length;
    const adds = (bodies[name].match(/f32x4\.add/g) || []).length;
    assert.ok(muls >= 8 && adds >= 8, `${name}: ${muls} f32x4.mul, ${adds} f32x4.add`);
  }
  const sm = Object.keys(bodies).find((n) => softmax.test(n));
  assert.ok(sm, 'softmax_rows not found in the wasm');
  assert.ok((bodies[sm].match(/f32x4\./g) || []).length >= 8, 'softmax_rows has too little f32x4 code');
  assert.match(bodies[sm], /i32x4\.shl/);  // the bit-trick exp, inlined
  assert.doesNotMatch(bodies[sm], /i32\.trunc_sat_f32_s|i32\.trunc_f32_s/);  // no scalar float->int
});

test('the quantized products use the 16-bit multiply-add and the quantizer rounds in SIMD', () => {
  const pats = [/^attnlab::kernels::gemm_i8\(/, /^attnlab::kernels::gemm_i16\(/,
    /^attnlab::kernels::gemm_i8_sparse\(/, /^attnlab::kernels::quantize_rows_i16\(/];
  const bodies = functionBodies(pats);
  for (const p of pats) {
    const name = Object.keys(bodies).find((n) => p.test(n));
    assert.ok(name, `${p} not found in the wasm`);
    const b = bodies[name];
    if (/gemm/.test(name)) {
      const dots = (b.match(/i32x4\.dot_i16x8_s/g) || []).length;
      assert.ok(dots >= (/sparse/.test(name) ? 4 : 8), `${name}: ${dots} i32x4.dot_i16x8_s`);
      // int8 weights loaded and widened by one instruction per 8 (v128.load8x8_s), not a
      // 16-byte load and two extensions (the shuffles left are the horizontal sums')
      if (/gemm_i8/.test(name)) {
        assert.ok((b.match(/v128\.load8x8_s/g) || []).length >= 8, `${name}: too few v128.load8x8_s`);
        assert.doesNotMatch(b, /i16x8\.extend_(low|high)_i8x16_s/);
      }
    } else {
      // the main loop scales, rounds and narrows in SIMD (the scalar tail for the last
      // cols % 8 values may convert with scalar code)
      assert.match(b, /i16x8\.narrow_i32x4_s/);
      assert.match(b, /f32x4\.mul/);
    }
  }
  const report = al.kernels.selftest(3);
  for (const k of ['gemm_i8', 'gemm_i8_sparse', 'gemm_i16', 'quantize_rows_i8', 'quantize_rows_i16'])
    assert.ok(report.cases.some((c) => c.name === k && c.passed), `${k} missing or failing`);
});

test('the .wasm is built with bulk memory: memory.copy and memory.fill in our code', () => {
  const dis = execFileSync('wasm-objdump', ['-d', join(WASM_BUILD, 'attnlab.wasm')], { maxBuffer: 1 << 30 }).toString();
  const copies = (dis.match(/memory\.copy/g) || []).length;
  const fills = (dis.match(/memory\.fill/g) || []).length;
  assert.ok(copies >= 50 && fills >= 20, `${copies} memory.copy, ${fills} memory.fill (built without -mbulk-memory?)`);
});
