// load()'s wasmModule option: an already compiled module (or a promise of one) is only
// instantiated; something else is a clear Error, and a later load() still works. And simdInfo,
// which a page asks at start-up, does not run the GEMM tile choice (tens of ms on fresh code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG, modelFile } from './helpers.mjs';

const { load } = await import(join(PKG, 'node.mjs'));
const bytes = readFileSync(join(PKG, 'attnlab.wasm'));

test('a wasmModule that is not a WebAssembly.Module rejects with an Error, then a compiled one loads', async () => {
  await assert.rejects(load({ wasmModule: Promise.resolve(bytes) }), (e) => e instanceof Error && /wasmModule: expected a WebAssembly\.Module/.test(e.message));
  await assert.rejects(load({ wasmModule: Promise.reject(new Error('compile failed here')) }), /compile failed here/);
  // a path that does not exist is not read when a module is given
  const al = await load({ wasmModule: WebAssembly.compile(bytes), wasmPath: '/nonexistent/attnlab.wasm' });
  const p = al.softmax(new Float32Array([1, 2, 3]));
  assert.deepEqual(Array.from(p, (x) => x.toFixed(4)), ['0.0900', '0.2447', '0.6652']);
  assert.ok(al.simdInfo().lanes >= 4);
  assert.equal(await load(), al, 'load() caches the loaded module');
});

test('neither simdInfo nor a first translation times the GEMM tiles; many large products do', async () => {
  const al = await load();
  assert.equal(al.simdInfo().gemmTile, 'auto');
  const m = al.Seq2Seq.fromBytes(readFileSync(modelFile('dates')));
  try {
    assert.equal(m.translate('10/2/1994').text, '1994-10-02');
  } finally {
    m.delete();
  }
  assert.equal(al.simdInfo().gemmTile, 'auto', 'the first translation ran the default tile');
  al.kernels.bench('gemm_nn', [128, 128, 128], { minMs: 20 });
  assert.match(al.simdInfo().gemmTile, /^\d+x\d+$/);
});
