// The npm package as a user gets it: `npm pack`, install into a fresh folder,
// run the Node example, and type-check an example that uses the whole API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG, ROOT } from './helpers.mjs';

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'attnlab-pkg-'));
  execFileSync('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], { cwd: dir });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tgz, 'npm pack produced no tarball');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', `./${tgz}`], { cwd: dir, stdio: 'pipe' });
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

test('the packed package installs and the Node example runs as written', () => {
  copyFileSync(join(ROOT, 'examples', 'node-mmoe.mjs'), join(dir, 'node-mmoe.mjs'));
  const out = execFileSync('node', ['node-mmoe.mjs'], { cwd: dir }).toString();
  assert.match(out, /epoch 5: train MSE \d+\.\d+ \/ \d+\.\d+/);
  const gates = out.match(/task 1 gate of sample 0: (.*)/)[1].split(' ').map(Number);
  assert.equal(gates.length, 8);
  assert.ok(Math.abs(gates.reduce((a, b) => a + b, 0) - 1) < 0.05);
});

test('the package exports map serves node, browser and the .wasm', () => {
  const pkg = JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("./node_modules/attnlab/package.json"))'], { cwd: dir }).toString());
  assert.equal(pkg.exports['.'].node, './node.mjs');
  assert.equal(pkg.exports['.'].browser, './index.js');
  assert.equal(pkg.exports['.'].types, './index.d.ts');
  assert.equal(pkg.exports['./attnlab.wasm'], './attnlab.wasm');
  const wasmPath = execFileSync('node', ['--input-type=module', '-e',
    "console.log(import.meta.resolve('attnlab/attnlab.wasm'))"], { cwd: dir }).toString().trim();
  assert.match(wasmPath, /node_modules\/attnlab\/attnlab\.wasm$/);
});

test('tsc --noEmit passes on an example that uses the whole API through index.d.ts', () => {
  copyFileSync(join(ROOT, 'examples', 'typecheck.ts'), join(dir, 'typecheck.ts'));
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  execFileSync(tsc, ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', 'typecheck.ts'], { cwd: dir, stdio: 'pipe' });
  // and a wrong use is rejected, so the check has teeth
  writeFileSync(join(dir, 'bad.ts'), "import { load } from 'attnlab';\nconst al = await load();\nconst n: string = al.simdInfo().lanes;\nexport {};\n");
  assert.throws(() => execFileSync(tsc, ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', 'bad.ts'], { cwd: dir, stdio: 'pipe' }));
});
