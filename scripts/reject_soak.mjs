// The long run of the error-path check: N rejected calls (default 1,000,000)
// of a few entry points through the built package, printing how far the stack
// pointer, the heap in use and the JS handle count moved (0 = nothing leaked)
// and checking the module still translates afterwards.
//   node scripts/reject_soak.mjs [N]      (after scripts/build.sh wasm)
// tests/js/reliability.test.mjs runs every entry point the same way, fewer times.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { load } = await import(join(process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg'), 'node.mjs'));
const al = await load();
const dates = al.Seq2Seq.fromBytes(readFileSync(join(ROOT, 'models', 'dates', 'model.safetensors')));
const N = Number(process.argv[2] || 1000000);
const cases = [
  ['translate (a character outside the alphabet)', () => dates.translate('JAN 23, 2015 \u00e9')],
  ['softmax(null)', () => al.softmax(null)],
  ['Seq2Seq.fromBytes (damaged bytes)', () => al.Seq2Seq.fromBytes(new Uint8Array([1, 2, 3]))],
  ['new MMoE({ experts: 0 })', () => new al.MMoE({ experts: 0 })],
];
let moved = 0;
for (const [name, fn] of cases) {
  try { fn(); } catch { /* warm-up */ }
  const a = al.memory();
  const t0 = performance.now();
  let errors = 0;
  for (let i = 0; i < N; ++i) {
    try { fn(); } catch (e) { if (e instanceof Error) ++errors; }
  }
  const b = al.memory();
  const d = [b.stack - a.stack, b.used - a.used, b.handles - a.handles];
  moved += d.some((x) => x !== 0);
  console.log(`${name}: ${errors}/${N} Errors in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
    `stack moved ${d[0]} B, heap in use ${d[1]} B, handles ${d[2]}`);
}
const ok = dates.translate('JAN 23, 2015').text === '2015-01-23';
console.log(`afterwards: translate('JAN 23, 2015') ${ok ? 'still gives 2015-01-23' : 'is WRONG'}`);
process.exit(moved || !ok ? 1 : 0);
