// Browser tier: the MMoE view trains softmax- and attention-gated models in
// two Web Workers and shows loss curves and gate weights.
import assert from 'node:assert/strict';
import { browserForTests, viewTest, runForm, artifact } from './helpers.mjs';

const ctx = browserForTests();

viewTest(ctx, 'race: both gate kinds train in workers, the shown loss falls, gates are distributions', '#mmoe', async (page) => {
  await runForm(page, { '#mmoe-n': '2000', '#mmoe-epochs': '4' }, '#mmoe-race',
    () => document.querySelectorAll('#mmoe-runs .run[data-done="1"]').length === 2);
  const runs = await page.$$eval('#mmoe-runs .run', (els) => els.map((e) => ({
    title: e.querySelector('h3').textContent,
    val: JSON.parse(e.dataset.valMse),
    polylines: e.querySelectorAll('.chart polyline').length,
    g0: Array.from(e.querySelectorAll('.g0 .val')).map((v) => Number(v.textContent)),
    heat: !!e.querySelector('.strip canvas'),
    loss: JSON.parse(e.dataset.trainLoss),
  })));
  await artifact(page, 'mmoe');
  assert.match(runs[0].title, /softmax/);
  assert.match(runs[1].title, /attention/);
  for (const r of runs) {
    assert.equal(r.polylines, 4);
    assert.ok(r.val.every((v) => Number.isFinite(v) && v > 0));
    assert.equal(r.g0.length, 8);
    assert.ok(Math.abs(r.g0.reduce((a, b) => a + b, 0) - 1) < 0.01, `gate means sum ${r.g0}`);
    assert.ok(r.heat);
    assert.ok(r.loss.at(-1) < r.loss[0], `training did not lower the loss: ${r.loss}`);
  }
});

viewTest(ctx, 'a training run can be stopped: the epochs done stay, the buttons come back', '#mmoe', async (page) => {
  await runForm(page, { '#mmoe-n': '50000', '#mmoe-epochs': '100' }, '#mmoe-train',
    () => Number(document.querySelector('#mmoe-runs progress').value) >= 1);
  await page.click('#mmoe-runs .stop');
  await page.waitForSelector('#mmoe-runs .run[data-stopped]', { timeout: 20000 });
  const done = Number(await page.getAttribute('#mmoe-runs .run', 'data-stopped'));
  assert.ok(done >= 1 && done < 100, `stopped after ${done} epochs`);
  assert.match(await page.textContent('#mmoe-runs .stat'), new RegExp(`stopped after ${done} of 100 epochs`));
  assert.equal(await page.$$eval('#mmoe-runs .chart polyline', (p) => p.length), 4, 'the curves of the epochs done stay');
  assert.equal(await page.$('#mmoe-runs .stop'), null);
  assert.equal(await page.isEnabled('#mmoe-train'), true);
  assert.equal(await page.$('#mmoe-runs .run[data-error]'), null);
});
