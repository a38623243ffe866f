// Shared by the wasm benchmarks: the tests' package loader (build/pkg or $ATTNLAB_PKG) and the
// command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tests/js/helpers.mjs';

export { ROOT, PKG, loadPkg } from '../../tests/js/helpers.mjs';

export const args = process.argv.slice(2);
// the word after the flag `name` ('--runs') on the command line, or def when the flag is not given
export const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
export const asJson = args.includes('--json');

// The largest held-out message under 2 KB in web/data/han-samples.json: a typical e-mail, not a toy.
export function typicalEmail() {
  const { samples } = JSON.parse(readFileSync(join(ROOT, 'web', 'data', 'han-samples.json'), 'utf8'));
  const fits = samples.filter((s) => Buffer.byteLength(s.text) < 2048);
  return fits.sort((a, b) => b.text.length - a.text.length)[0];
}
