// The long run of the error-path check: N rejected calls (default 1,000,000) of
// every entry point in the table tests/js/rejected_calls.mjs, through the built
// package, printing how far the stack pointer, the heap in use and the JS handle
// count moved (0 = nothing leaked), whether every call threw the expected Error,
// and checking the module still translates afterwards.
//   node scripts/reject_soak.mjs [N] [name regexp]      (after scripts/build.sh wasm)
// tests/js/reliability.test.mjs runs the same table, fewer times.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { rejectedCalls } from '../tests/js/rejected_calls.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { load } = await import(join(process.env.ATTNLAB_PKG || join(ROOT, 'build', 'pkg'), 'node.mjs'));
const al = await load();
const N = Number(process.argv[2] || 1000000);
const only = process.argv[3] ? new RegExp(process.argv[3]) : null;  // optional filter on the names
const { REJECTED, objects: { dates } } = rejectedCalls(al, ROOT);
const cases = REJECTED.filter(([name]) => !only || only.test(name));
let moved = 0;
for (const [name, fn, pattern] of cases) {
  try { fn(); } catch { /* warm-up */ }
  const a = al.memory();
  const t0 = performance.now();
  let errors = 0;
  for (let i = 0; i < N; ++i) {
    try { fn(); } catch (e) { if (e instanceof Error && pattern.test(e.message)) ++errors; }
  }
  const b = al.memory();
  const d = [b.stack - a.stack, b.used - a.used, b.handles - a.handles];
  moved += d.some((x) => x !== 0) || errors !== N;
  console.log(`${name}: ${errors}/${N} Errors in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
    `stack moved ${d[0]} B, heap in use ${d[1]} B, handles ${d[2]}`);
}
const ok = dates.translate('JAN 23, 2015').text === '2015-01-23';
console.log(`afterwards: translate('JAN 23, 2015') ${ok ? 'still gives 2015-01-23' : 'is WRONG'}`);
process.exit(moved || !ok ? 1 : 0);
