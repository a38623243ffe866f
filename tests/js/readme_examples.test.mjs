// The package README's examples, run as a user would: pack attnlab (build/pkg) and
// attnlab-models (build/pkg-models), install both tarballs into an empty folder
// (offline), take every ```js node block of the installed README, run it with node
// in that folder and compare what it prints with the ```text prints block under it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG, ROOT } from './helpers.mjs';

const MODELS_PKG = process.env.ATTNLAB_MODELS_PKG || join(ROOT, 'build', 'pkg-models');
const skip = existsSync(join(PKG, 'node.mjs')) && existsSync(join(MODELS_PKG, 'index.js'))
  ? false : 'build/pkg or build/pkg-models missing: run scripts/build.sh wasm';

/**
 * The fenced blocks of a markdown text: [{ info, body, line }] in order. A
 * ```js node block is runnable; the next block, if its info is `text prints`, is
 * what it prints.
 */
export function fencedBlocks(md) {
  const blocks = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; ++i) {
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (++i; i < lines.length && lines[i] !== '```'; ++i) body.push(lines[i]);
    if (i === lines.length) throw new Error(`README: the block opened on line ${start + 1} is never closed`);
    blocks.push({ info: open[1].trim(), body: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

export function runnableExamples(md) {
  const blocks = fencedBlocks(md);
  const out = [];
  blocks.forEach((b, k) => {
    if (b.info !== 'js node') return;
    const next = blocks[k + 1];
    const prints = next && next.info === 'text prints' ? next.body : null;
    out.push({ line: b.line, code: b.body, prints });
  });
  return out;
}

let dir;
before(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'attnlab-readme-'));
  for (const p of [PKG, MODELS_PKG]) execFileSync('npm', ['pack', p, '--pack-destination', dir, '--silent'], { cwd: dir });
  const tgz = readdirSync(dir).filter((f) => f.endsWith('.tgz')).sort();
  assert.deepEqual(tgz.map((f) => f.replace(/-[\d.]+\.tgz$/, '')), ['attnlab', 'attnlab-models']);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', ...tgz.map((f) => `./${f}`)], { cwd: dir, stdio: 'pipe' });
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

test('the installed README is the package\'s own, with measured sizes', { skip }, () => {
  const md = readFileSync(join(dir, 'node_modules', 'attnlab', 'README.md'), 'utf8');
  assert.doesNotMatch(md, /<!-- sizes -->/, 'the build fills the size table');
  assert.doesNotMatch(md, /^## Quick start \(fresh Debian/m, 'not the repository README');
  const wasm = readFileSync(join(dir, 'node_modules', 'attnlab', 'attnlab.wasm')).length;
  assert.match(md, new RegExp(`\\| \`attnlab\\.wasm\` \\| ${wasm.toLocaleString('en-US')} \\|`), 'the .wasm size in the table is the shipped file\'s');
  for (const cls of ['Seq2Seq', 'HAN', 'MMoE', 'LanguageModel', 'playground', 'softmax', 'Transformer'])
    assert.match(md, new RegExp(cls), `the README covers ${cls}`);
  assert.match(md, /wasm-unsafe-eval/);
  const models = readFileSync(join(dir, 'node_modules', 'attnlab-models', 'README.md'), 'utf8');
  assert.doesNotMatch(models, /<!-- models -->/);
});

test('the models package: an index entry per model file, hash and size as installed', { skip }, async () => {
  const base = join(dir, 'node_modules', 'attnlab-models');
  const index = JSON.parse(readFileSync(join(base, 'index.json'), 'utf8'));
  const page = JSON.parse(readFileSync(join(ROOT, 'models', 'index.json'), 'utf8'));
  assert.equal(index.length, page.length, 'every model of models/index.json is shipped');
  const { createHash } = await import('node:crypto');
  for (const m of index) {
    const bytes = readFileSync(join(base, m.file));
    assert.equal(bytes.length, m.size, m.name);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), m.sha256, m.name);
    assert.ok(existsSync(join(base, m.card)), `${m.name}: ${m.card}`);
    assert.ok(['seq2seq', 'transformer-seq2seq', 'han', 'mmoe', 'char-lm'].includes(m.kind), m.kind);
  }
  assert.equal(new Set(index.map((m) => m.name)).size, index.length, 'names are unique');
  // the loader as installed: an unknown name lists the known ones; a file cut short is refused by its size
  const script = `import { fetchModel, loadModel } from 'attnlab-models';
    import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
    try { await fetchModel('nope'); } catch (e) { console.log(e.message); }
    mkdirSync('cut/models/dates', { recursive: true });
    writeFileSync('cut/models/dates/model.safetensors', readFileSync('node_modules/attnlab-models/models/dates/model.safetensors').subarray(1));
    try { await fetchModel('dates', { baseUrl: 'cut' }); } catch (e) { console.log(e.message); }
    try { await loadModel({}, 'dates'); } catch (e) { console.log(e.message); }`;
  writeFileSync(join(dir, 'loader-errors.mjs'), script);
  const out = execFileSync('node', ['loader-errors.mjs'], { cwd: dir, encoding: 'utf8' }).split('\n');
  assert.match(out[0], /^attnlab-models: no model named "nope"; expected one of dates, dates-additive, /);
  assert.match(out[1], /^attnlab-models: cut\/models\/dates\/model\.safetensors has \d+ bytes, the index expects \d+ for dates; not loaded$/);
  assert.match(out[2], /^attnlab-models: loadModel\(al, name\) needs the API of attnlab's load\(\) with Seq2Seq/);
});

const md = skip ? '' : readFileSync(join(PKG, 'README.md'), 'utf8');
const examples = runnableExamples(md);
test('the README has runnable examples, each with what it prints', { skip }, () => {
  assert.ok(examples.length >= 8, `${examples.length} runnable examples`);
  for (const e of examples) assert.ok(e.prints && e.prints.trim(), `the example on line ${e.line} says what it prints`);
});

for (const e of examples) {
  const first = e.code.split('\n').find((l) => !/^import |^$/.test(l)) || '';
  test(`README example on line ${e.line} (${first.slice(0, 50)}) runs and prints what the README says`, { skip }, () => {
    const file = join(dir, `example-${e.line}.mjs`);
    writeFileSync(file, e.code + '\n');
    const r = spawnSync('node', [file], { cwd: dir, encoding: 'utf8', timeout: 240000 });
    assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}\n${r.stderr}`);
    assert.equal(r.stdout.trimEnd(), (e.prints ?? '').trimEnd(), `printed:\n${r.stdout}`);
  });
}
