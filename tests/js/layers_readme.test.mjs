// The README's "train at scale in PyTorch, run in the browser with attnlab" example, run
// as written: its Python block trains and saves a module with Debian's python3-torch,
// scripts/export_torch.py exports it, and its JS block (importing the built package)
// prints the shapes and that attnlab's output matches PyTorch's. Skipped without torch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, PKG, PY, hasTorch, readmeSection, fencedBlock as block } from './helpers.mjs';

test('the README layer example runs as written and matches PyTorch', { skip: !hasTorch() && 'no torch in /usr/bin/python3' }, () => {
  const s = readmeSection('README.md', '## Train at scale in PyTorch, run in the browser with attnlab');
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

test('export_torch.py refuses what attnlab does not implement, saying why', { skip: !hasTorch() && 'no torch in /usr/bin/python3' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-export-'));
  const run = (py, args = []) => {
    writeFileSync(join(dir, 'make.py'), `import torch\nfrom torch import nn\ntorch.save(${py}, "in.pt")\n`);
    execFileSync(PY, ['make.py'], { cwd: dir, stdio: 'ignore' });
    try {
      execFileSync(PY, [join(ROOT, 'scripts', 'export_torch.py'), 'in.pt', 'out.safetensors', ...args], { cwd: dir, stdio: 'pipe' });
      return 'exported';
    } catch (e) {
      assert.equal(e.status, 2);
      return e.stderr.toString();
    }
  };
  try {
    assert.match(run('nn.MultiheadAttention(8, 2, add_bias_kv=True)'), /add_bias_kv=True is not supported/);
    assert.match(run('nn.MultiheadAttention(8, 2, kdim=4)'), /kdim\/vdim != embed_dim is not supported/);
    assert.match(run('nn.LSTM(4, 6, proj_size=3)'), /proj_size > 0 is not supported/);
    assert.match(run('nn.TransformerEncoderLayer(8, 2, activation=torch.tanh)'), /activation .* is not supported \(relu or gelu\)/);
    assert.match(run('nn.Conv1d(2, 2, 3)'), /Conv1d is not supported \(supported: MultiheadAttention, GRU, LSTM/);
    assert.match(run('nn.GRU(4, 6).state_dict()'), /a state_dict needs --kind/);
    assert.match(run('nn.TransformerEncoderLayer(8, 2).state_dict()', ['--kind', 'TransformerEncoderLayer']), /--nhead is required/);
    assert.equal(run('nn.GRU(4, 6, num_layers=2).state_dict()', ['--kind', 'GRU']), 'exported');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
