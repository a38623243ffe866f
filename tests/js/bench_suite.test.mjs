// The benchmark suite in its quick mode (no timing assertions): every contender's output
// matches the float64 reference, and the report has a row per case with a number from
// every contender this machine has (the JS peers are npm devDependencies, so they must
// be there; PyTorch and the native build may be missing and must then say why).
// It runs in the wasm tier (scripts/test.sh wasm runs node --test tests/js/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, PKG } from './helpers.mjs';

test('bench/suite.mjs --quick: correctness checks pass, every case has every contender', { timeout: 20 * 60 * 1000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-bench-'));
  try {
    const out = join(dir, 'B.md');
    const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'suite.mjs'), '--quick', '--out', out, '--json', join(dir, 'B.json')],
      { env: { ...process.env, ATTNLAB_PKG: PKG }, encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(r.status, 0, `suite failed:\n${r.stderr.slice(-3000)}`);
    const j = JSON.parse(readFileSync(join(dir, 'B.json'), 'utf8'));
    const md = readFileSync(out, 'utf8');
    assert.ok(j.checks.length > 0);
    for (const c of j.checks) assert.ok(c.err !== 'Infinity' && c.err <= j.tolerance, `${c.case} ${c.contender} ${c.variant}: ${c.err}`);
    // ORT-web runs ONNX graphs that torch exports (setup.sh installs torch only with
    // ATTNLAB_WITH_TORCH=1); without torch the row must say so
    const torch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
    for (const name of ['attnlab wasm', 'tfjs-wasm', 'ORT-web']) {
      const k = j.contenders.find((x) => x.name === name);
      assert.ok(k, `${name} has no row`);
      if (name === 'ORT-web' && !torch) assert.match(k.whyNot, /torch/);
      else assert.ok(!k.whyNot, `${name} missing: ${k.whyNot}`);
    }
    const expected = ['gemm_256', 'gemv_256', 'softmax_128', 'sdpa_t32', 'sdpa_t128', 'sdpa_t512', 'mha_t32', 'mha_t128', 'mha_t512'];
    assert.deepEqual(j.cases, expected);
    for (const id of expected) {
      for (const k of j.contenders) {
        if (k.whyNot) continue;
        const b = j.best[id][k.name];
        assert.ok(b && b.median > 0 && Number.isFinite(b.median), `${id}: no time for ${k.name}`);
        // each variant that ran was checked before it was timed
        assert.ok(j.checks.some((c) => c.case === id && c.contender === k.name && c.variant === b.variant), `${id} ${k.name}: unchecked`);
      }
      for (const k of j.contenders.filter((x) => x.whyNot)) assert.match(k.whyNot, /\w/);
    }
    for (const label of ['GEMM 256x256x256', 'softmax 128x128', 'scaled-dot attention T=512 d=64', 'MHA self-attention T=32 E=256 h=4']) {
      assert.ok(md.includes(`| ${label}`), `report has no row '${label}'`);
    }
    assert.ok(!md.includes('**FAILED**'));
    assert.ok(j.modelsText.includes('Seq2seq') && j.modelsText.includes('HAN'));
    assert.ok(!/^failed:/m.test(j.modelsText), j.modelsText);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
