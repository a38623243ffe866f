// The README's "train at scale in PyTorch, run in the browser with attnlab" example, run
// as written: its Python block trains and saves a module with Debian's python3-torch,
// scripts/export_torch.py exports it, and its JS block (importing the built package)
// prints the shapes and that attnlab's output matches PyTorch's. Skipped without torch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, PKG } from './helpers.mjs';

const PY = '/usr/bin/python3';
const hasTorch = (() => {
  try {
    execFileSync(PY, ['-c', 'import torch'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function section() {
  const md = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = md.indexOf('## Train at scale in PyTorch, run in the browser with attnlab');
  assert.ok(start >= 0, 'README has the section');
  const end = md.indexOf('\n## ', start + 10);
  return md.slice(start, end < 0 ? undefined : end);
}
const block = (text, lang) => {
  const m = text.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)```'));
  assert.ok(m, `a ${lang} block`);
  return m[1];
};

test('the README layer example runs as written and matches PyTorch', { skip: !hasTorch && 'no torch in /usr/bin/python3' }, () => {
  const s = section();
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-readme-layers-'));
  try {
    writeFileSync(join(dir, 'train.py'), block(s, 'python'));
    execFileSync(PY, ['train.py'], { cwd: dir, stdio: 'ignore' });
    execFileSync(PY, [join(ROOT, 'scripts', 'export_torch.py'), 'mha.pt', 'mha.safetensors'], { cwd: dir, stdio: 'ignore' });
    const js = block(s, 'js').replace("from 'attnlab'", `from ${JSON.stringify(join(PKG, 'node.mjs'))}`);
    writeFileSync(join(dir, 'run.mjs'), js);
    const out = execFileSync(process.execPath, ['run.mjs'], { cwd: dir, encoding: 'utf8' });
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^MultiheadAttention \{ batch_first: true, bias: true, embed_dim: 16, num_heads: 4 \}$/);
    assert.equal(lines[1], '[ 2, 5, 16 ] [ 2, 5, 5 ]');
    assert.equal(lines[2], 'true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
