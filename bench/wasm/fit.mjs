// Training on your own pairs: time to reach a held-out exact match (default 95%) on the
// generated example (5,000 numbers written in words -> digits, 10% of the sources held out),
// natively (the CLI: `attnlab train seq2seq`, one JSON event per epoch) and in wasm (the
// package's Seq2Seq.create().fit(), the code the page's "train your own" panel runs in its
// worker), one after the other in this run, with the load average printed.
//   node bench/wasm/fit.mjs [--target 0.95] [--epochs 10] [--size default|small] [--json]
// Uses build/pkg (or $ATTNLAB_PKG) and build/native/attnlab.
import { join } from 'node:path';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { spawn, execFileSync } from 'node:child_process';
import { ROOT, loadPkg, opt, asJson } from './common.mjs';

const CLI = join(ROOT, 'build', 'native', 'attnlab');
const target = Number(opt('--target', 0.95)), epochs = Number(opt('--epochs', 10));
const size = opt('--size', 'default');
const SIZES = { small: { emb: 32, hidden: 64, combine: 128 }, default: {} };
const rows = [];

// wasm: the package, as the page runs it
const al = await loadPkg();
{
  const pairs = al.data.numberPairs({ count: 5000, seed: 1 });
  const m = al.Seq2Seq.create({ srcTokens: 'word', ...SIZES[size] });
  let reached = null;
  const t0 = performance.now();
  await m.fit(pairs, { epochs, onEpoch: (e) => {
    if (reached === null && e.valExactMatch >= target) { reached = e; m.stop(); }
  } });
  const last = m.history.at(-1);
  rows.push({ engine: 'wasm (package fit)', params: m.stats().params, epochs: (reached ?? last).epoch,
    seconds: reached ? reached.seconds : null, exact: (reached ?? last).valExactMatch, total: (performance.now() - t0) / 1000 });
  m.delete();
}

// native: the CLI on the same pairs (its own 90/5/5 split by source; validation each epoch)
if (existsSync(CLI)) {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-fit-'));
  try {
    execFileSync(CLI, ['example-pairs', '--count', '5000', '--out', join(dir, 'numbers.tsv')], { stdio: 'ignore' });
    const sizeFlags = size === 'small' ? ['--emb', '32', '--hidden', '64', '--combine', '128'] : [];
    const t0 = performance.now();
    const child = spawn(CLI, ['train', 'seq2seq', '--train', join(dir, 'numbers.tsv'), '--src-tokens', 'word',
      '--epochs', String(epochs), '--json', '--quiet', '--out', join(dir, 'm.safetensors'), ...sizeFlags]);
    let buf = '', reached = null, last = null;
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let ev;
        try { ev = JSON.parse(line); } catch { continue; }
        if (ev.val_exact_err === undefined || ev.val_exact_err === null) continue;
        last = { epoch: ev.epoch, exact: 1 - ev.val_exact_err, seconds: (performance.now() - t0) / 1000 };
        if (!reached && last.exact >= target) { reached = last; child.kill(); }
      }
    });
    await new Promise((res) => child.on('close', res));
    const r = reached ?? last;
    rows.push({ engine: 'native (attnlab train seq2seq)', params: null, epochs: r?.epoch ?? null,
      seconds: reached ? reached.seconds : null, exact: r?.exact ?? null, total: (performance.now() - t0) / 1000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (asJson) console.log(JSON.stringify({ target, size, load: loadavg(), rows }));
else {
  console.log(`time to ${(100 * target).toFixed(0)}% held-out exact match, 5,000 number pairs (words -> digits), ${size} model; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const r of rows)
    console.log(`${r.engine.padEnd(34)} ${r.seconds === null ? `not reached in ${r.epochs} epochs (${(100 * r.exact).toFixed(1)}%)` : `${r.seconds.toFixed(1)} s (epoch ${r.epochs}, ${(100 * r.exact).toFixed(1)}%)`}`);
  const [w, n] = rows;
  if (w?.seconds && n?.seconds) console.log(`wasm / native: x${(w.seconds / n.seconds).toFixed(2)}`);
}
