// Benchmark (not a test): size of the .wasm and time from having its bytes to
// a ready module in Node, fresh process each time (goal: ready < 100 ms).
//   node bench/wasm/load.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PKG } from './common.mjs';

if (process.argv[2] === '--child') {
  const bytes = readFileSync(join(PKG, 'attnlab.wasm'));
  const { load } = await import(join(PKG, 'node.mjs'));
  const t0 = performance.now();
  const al = await load({ wasmBinary: bytes });
  al.softmax([1, 2]);
  console.log(performance.now() - t0);
  process.exit(0);
}
const wasm = readFileSync(join(PKG, 'attnlab.wasm'));
const times = [];
for (let i = 0; i < 7; ++i) times.push(Number(execFileSync('node', [fileURLToPath(import.meta.url), '--child']).toString()));
times.sort((a, b) => a - b);
console.log(`attnlab.wasm: ${(wasm.length / 1024).toFixed(0)} KB, ${(gzipSync(wasm, { level: 9 }).length / 1024).toFixed(0)} KB gzipped (goal <= 400 KB)`);
console.log(`ready after the bytes are read, Node ${process.version}: median ${times[3].toFixed(1)} ms, best ${times[0].toFixed(1)} ms over 7 fresh processes (goal < 100 ms)`);
