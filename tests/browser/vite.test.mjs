// The README's bundler example, as written: examples/vite built by Vite
// against the packed package, served statically, run in chromium (page and
// module Worker both load the wasm).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launchChromium, watchErrors } from './helpers.mjs';
import { serve } from '../../scripts/serve.mjs';

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'attnlab-vite-'));
  for (const f of ['index.html', 'main.js', 'worker.js', 'vite.config.js', 'favicon.svg']) cpSync(join(ROOT, 'examples', 'vite', f), join(dir, f));
  execFileSync('npm', ['pack', join(ROOT, 'build', 'pkg'), '--pack-destination', dir, '--silent'], { cwd: dir });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'examples', 'vite', 'package.json'), 'utf8'));
  pkg.dependencies.attnlab = `file:./${tgz}`;
  delete pkg.devDependencies;  // vite comes from the repo's node_modules
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline'], { cwd: dir, stdio: 'pipe' });
  symlinkSync(join(ROOT, 'node_modules', 'vite'), join(dir, 'node_modules', 'vite'));
  execFileSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'error'], { cwd: dir, stdio: 'pipe' });
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

test('vite build emits the .wasm as an asset and the built app runs in page and worker', async () => {
  const assets = readdirSync(join(dir, 'dist', 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `no .wasm among ${assets}`);
  const server = await serve(join(dir, 'dist'), 0);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => !document.querySelector('#out').textContent.includes('…'), null, { timeout: 20000 });
    assert.equal(await page.textContent('#out'), '0.090, 0.245, 0.665');
    await page.waitForFunction(() => !document.querySelector('#worker').textContent.includes('…'), null, { timeout: 20000 });
    assert.match(await page.textContent('#worker'), /wasm-simd128.*gate sum 1\.000/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
