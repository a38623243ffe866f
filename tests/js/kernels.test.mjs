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
  for (const k of ['gemm_nn', 'gemm_tt', 'gemv_t', 'softmax_rows_mask', 'softmax_rows_fully_masked',
    'softmax_rows_pm1e4', 'exp', 'tanh', 'gelu_backward', 'layernorm_backward', 'max']) {
    assert.ok(names.has(k), `kernel ${k} missing from the self-test`);
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

// Function bodies of the named C++ functions in the disassembly, found via
// the symbol map that the build emits (the .wasm itself carries no names).
function functionBodies(prefixes) {
  const symbols = readFileSync(join(WASM_BUILD, 'attnlab.js.symbols'), 'utf8').split('\n');
  const wanted = new Map();
  for (const line of symbols) {
    const i = line.indexOf(':');
    const name = line.slice(i + 1).replace(/\\28.*/, '');
    if (prefixes.includes(name)) wanted.set(Number(line.slice(0, i)), name);
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
  const bodies = functionBodies(['attnlab::kernels::gemm', 'attnlab::kernels::softmax_rows']);
  for (const name of ['attnlab::kernels::gemm', 'attnlab::kernels::softmax_rows']) {
    assert.ok(bodies[name], `${name} not found in the wasm (symbol map out of date?)`);
    const n = (bodies[name].match(/f32x4\./g) || []).length;
    assert.ok(n >= 8, `${name}: only ${n} f32x4 instructions`);
  }
  assert.match(bodies['attnlab::kernels::gemm'], /f32x4\.mul/);
  assert.match(bodies['attnlab::kernels::softmax_rows'], /i32x4\.shl/);  // the bit-trick exp
  assert.doesNotMatch(bodies['attnlab::kernels::softmax_rows'], /i32\.trunc_sat_f32_s|i32\.trunc_f32_s/);
});
