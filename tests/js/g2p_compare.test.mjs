// scripts/g2p_compare.py on two small files in the format of `attnlab eval --predictions`:
// the oracle and one-side counts, McNemar's test on the latter, the same-output share and the
// per-length WER it prints follow from the rows; files of different words are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';

const HEAD = 'word\treferences\tgreedy\tgreedy_correct\tgreedy_edits';
// word, reference, output, correct
const rows = (list) => [HEAD, ...list.map(([w, r, o, c]) => `${w}\t${r}\t${o}\t${c}\t${c ? 0 : 1}`)].join('\n') + '\n';

test('g2p_compare.py counts where two models differ', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-g2p-compare-'));
  try {
    // CAT: both right; DOG: only a; PHONE: only b; ATTENTION: both wrong, different outputs
    writeFileSync(join(dir, 'a.tsv'), rows([['CAT', 'K AE T', 'K AE T', 1], ['DOG', 'D AO G', 'D AO G', 1],
      ['PHONE', 'F OW N', 'P OW N', 0], ['ATTENTION', 'AH T EH N SH AH N', 'AE T EH N SH AH N', 0]]));
    writeFileSync(join(dir, 'b.tsv'), rows([['CAT', 'K AE T', 'K AE T', 1], ['DOG', 'D AO G', 'D AA G', 0],
      ['PHONE', 'F OW N', 'F OW N', 1], ['ATTENTION', 'AH T EH N SH AH N', 'AH T IY N SH AH N', 0]]));
    const r = spawnSync('python3', [join(ROOT, 'scripts', 'g2p_compare.py'), 'a.tsv', 'b.tsv'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /greedy, 4 words:/);
    assert.match(r.stdout, /WER a\.tsv 50\.00%, b\.tsv 50\.00%/);
    assert.match(r.stdout, /both wrong 25\.00% \(the oracle of the two\); only a\.tsv right 25\.00%; only b\.tsv right 25\.00%; same output 25\.0%/);
    assert.match(r.stdout, /words only one model gets right: 1 \/ 1 \(McNemar, continuity-corrected: p = 1\.000\)/);
    assert.match(r.stdout, /1-5 letters\s+3 words: WER a\.tsv 33\.3%, b\.tsv 33\.3%/);
    assert.match(r.stdout, /9-11 letters\s+1 words: WER a\.tsv 100\.0%, b\.tsv 100\.0%/);
    assert.doesNotMatch(r.stdout, /^beam/m);  // no beam columns in these files
    // 10 words only a gets right, none only b: chi2 = (10 - 1)^2 / 10 = 8.1, p = erfc(sqrt(4.05)) = 0.0044
    const ten = Array.from({ length: 10 }, (_, i) => `W${'ABCDEFGHIJ'[i]}`);
    writeFileSync(join(dir, 'a10.tsv'), rows(ten.map((w) => [w, 'W', 'W', 1])));
    writeFileSync(join(dir, 'b10.tsv'), rows(ten.map((w) => [w, 'W', 'V', 0])));
    const r10 = spawnSync('python3', [join(ROOT, 'scripts', 'g2p_compare.py'), 'a10.tsv', 'b10.tsv'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r10.status, 0, r10.stderr);
    assert.match(r10.stdout, /words only one model gets right: 10 \/ 0 \(McNemar, continuity-corrected: p = 0\.004\)/);
    writeFileSync(join(dir, 'c.tsv'), rows([['CAT', 'K AE T', 'K AE T', 1]]));
    const bad = spawnSync('python3', [join(ROOT, 'scripts', 'g2p_compare.py'), 'a.tsv', 'c.tsv'], { cwd: dir, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /same words in the same order/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
