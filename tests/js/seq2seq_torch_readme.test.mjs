// The package README's "Models trained in PyTorch" example, run as written: its Python block
// trains a seq2seq of scripts/attnlab_torch.py with Debian's python3-torch (scripts/ on
// PYTHONPATH), scripts/export_torch.py exports it, and its JS block (importing the built
// package) decodes the same word; both print what the README's `text prints` block says.
// Skipped without torch. (readme_examples.test.mjs runs only the ```js node blocks, which
// need no file of the reader's own.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, PKG, PY, hasTorch, readmeSection, fencedBlock as block } from './helpers.mjs';

test('the README PyTorch seq2seq example runs as written and attnlab decodes as PyTorch', { skip: !hasTorch() && 'no torch in /usr/bin/python3' }, () => {
  const s = readmeSection('bindings/js/README.md', '### Models trained in PyTorch');
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-readme-s2s-'));
  try {
    writeFileSync(join(dir, 'train.py'), block(s, 'python'));
    const env = { ...process.env, PYTHONPATH: join(ROOT, 'scripts') };
    const py = execFileSync(PY, ['train.py'], { cwd: dir, env, encoding: 'utf8' });
    execFileSync(PY, [join(ROOT, 'scripts', 'export_torch.py'), 'reverse.pt', 'reverse.safetensors'], { cwd: dir, stdio: 'ignore' });
    const js = block(s, 'js').replace("from 'attnlab'", `from ${JSON.stringify(join(PKG, 'node.mjs'))}`);
    writeFileSync(join(dir, 'run.mjs'), js);
    const out = execFileSync(process.execPath, ['run.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.equal(py.trim() + '\n' + out.trim(), block(s, 'text prints').trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('export_torch.py refuses a seq2seq whose vocabulary does not start with the specials', { skip: !hasTorch() && 'no torch in /usr/bin/python3' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-export-s2s-'));
  try {
    writeFileSync(join(dir, 'make.py'), [
      'import torch, attnlab_torch as at',
      'v = at.SPECIALS + list("ab")',
      'm = at.TransformerSeq2Seq(v, v, d_model=8, nhead=2, dim_feedforward=8, enc_layers=1, dec_layers=1)',
      'm.tgt_vocab = ["a", "b"] + v[2:] + ["<pad>", "<unk>"]',
      'torch.save(m, "bad.pt")', ''].join('\n'));
    execFileSync(PY, ['make.py'], { cwd: dir, env: { ...process.env, PYTHONPATH: join(ROOT, 'scripts') }, stdio: 'ignore' });
    let err = '';
    try {
      execFileSync(PY, [join(ROOT, 'scripts', 'export_torch.py'), 'bad.pt', 'bad.safetensors'], { cwd: dir, stdio: 'pipe' });
    } catch (e) {
      err = e.stderr.toString();
      assert.equal(e.status, 2);
    }
    assert.match(err, /tgt_vocab: the first four tokens must be/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
