// load()'s wasmModule option: an already compiled module (or a promise of one) is only
// instantiated; something else is a clear Error, and a later load() still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';

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
