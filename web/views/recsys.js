// Click-through models with attention (DIN and AutoInt), trained in the worker
// on synthetic data generated there, with their attention drawn:
//  - DIN: each test history's behaviours shaded by their activation weight
//    (|weight| for the paper's unnormalized unit), the candidate's category marked;
//  - AutoInt: per layer and head, which field attends to which (mean over test samples).
import { heatmap, colorLegend, lineChart, weightColor } from '../lib/plot.js';
import { bindState } from '../lib/urlstate.js';
import { textOn, weightRgb } from '../lib/color.js';
import { WorkerClient } from '../lib/client.js';

const $ = (s, root = document) => root.querySelector(s);
const clampInt = (v, lo, hi, def) => {
  const x = Math.round(Number(v));
  return Number.isFinite(x) && String(v).trim() !== '' ? Math.max(lo, Math.min(hi, x)) : def;
};

function dinHistories(container, r) {
  const ex = r.examples;
  container.replaceChildren();
  for (let s = 0; s < ex.n; ++s) {
    let max = 1e-9;
    for (let t = 0; t < ex.len[s]; ++t) max = Math.max(max, Math.abs(ex.weights[s * r.T + t]));
    const row = document.createElement('div');
    row.className = 'din-row';
    const head = document.createElement('div');
    head.className = 'din-head';
    head.textContent = `candidate c${ex.candCat[s]} · ${ex.nSame[s]} of ${ex.len[s]} behaviours in its category · ` +
      `p(click) ${ex.prob[s].toFixed(2)} · ${ex.label[s] ? 'clicked' : 'not clicked'}`;
    const toks = document.createElement('div');
    toks.className = 'tokens';
    for (let t = 0; t < ex.len[s]; ++t) {
      const w = ex.weights[s * r.T + t], same = ex.cats[s * r.T + t] === ex.candCat[s];
      const tok = document.createElement('span');
      tok.className = same ? 'tok same' : 'tok';
      tok.style.background = weightColor(Math.abs(w) / max);
      tok.style.color = textOn(weightRgb(Math.abs(w) / max));  // 4.5:1 on every shade
      tok.title = `behaviour ${t + 1}: category c${ex.cats[s * r.T + t]}, weight ${w.toFixed(3)}`;
      tok.innerHTML = `c${ex.cats[s * r.T + t]}<small>${w.toFixed(2)}</small>`;
      toks.append(tok);
    }
    row.append(head, toks);
    container.append(row);
  }
}

// A training run in a worker of its own: the time so far is shown while it runs (the
// package reports no per-epoch progress for these models) and Stop ends it by
// terminating that worker. Rejects with e.stopped = true when stopped.
function stoppable(op, args, { status, stop, progress, what }) {
  const client = new WorkerClient();
  const t0 = performance.now();
  const secs = () => ((performance.now() - t0) / 1000).toFixed(1);
  const tick = () => { status.textContent = `training ${what}… ${secs()} s`; };
  tick();
  const timer = setInterval(tick, 250);
  let stopped = false;
  const onStop = () => { stopped = true; client.terminate(); };
  stop.hidden = false;
  progress.hidden = false;
  stop.addEventListener('click', onStop);
  return client.call(op, args).catch((e) => {
    throw stopped ? Object.assign(new Error(`stopped after ${secs()} s: nothing was kept`), { stopped: true }) : e;
  }).finally(() => {
    clearInterval(timer);
    stop.hidden = true;
    progress.hidden = true;
    stop.removeEventListener('click', onStop);
    client.terminate();
  });
}

export function init(_call, _manifest) {
  // the URL holds the options (training is an action: it waits for the button)
  bindState('recsys', { pooling: '#din-pooling', dinN: '#din-n', dinEpochs: '#din-epochs', layers: '#autoint-layers', heads: '#autoint-heads', autointEpochs: '#autoint-epochs' });
  const dinOut = $('#din-out'), autoOut = $('#autoint-out');

  async function trainDin(pooling, status, what) {
    const epochs = clampInt($('#din-epochs').value, 1, 50, 6);
    const train = clampInt($('#din-n').value, 1000, 100000, 12000);
    const t0 = performance.now();
    const r = await stoppable('recsysDin', { pooling, epochs, train, test: 3000, seed: 1 },
      { status, stop: $('#din-stop'), progress: $('#din-progress'), what });
    return { ...r, seconds: (performance.now() - t0) / 1000 };
  }

  $('#din-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const btns = document.querySelectorAll('#din-form button[type=submit]');
    btns.forEach((b) => { b.disabled = true; });
    $('#din-error').textContent = '';
    const compare = ev.submitter && ev.submitter.id === 'din-compare';
    const kinds = compare ? ['attention', 'softmax', 'sum'] : [$('#din-pooling').value];
    const names = { attention: 'DIN (unnormalized weights)', softmax: 'DIN, softmax weights', sum: 'Base (sum pooling)' };
    dinOut.replaceChildren();
    delete dinOut.dataset.done;
    delete dinOut.dataset.pooling;
    const status = document.createElement('p');
    status.className = 'stat';
    status.setAttribute('aria-live', 'polite');
    dinOut.append(status);
    const series = [], rows = [];
    try {
      for (const k of kinds) {
        const r = await trainDin(k, status, `${names[k]} (${kinds.indexOf(k) + 1} of ${kinds.length})`);
        series.push({ name: names[k], values: r.history.map((h) => h.auc) });
        rows.push([names[k], r.history.at(-1).auc, r.params, r.seconds]);
        if (k === kinds[0]) {
          // the first model's histories (DIN when comparing)
          const h = document.createElement('h3');
          h.textContent = `${names[k]}: test histories, behaviours shaded by ${k === 'attention' ? '|activation weight|' : 'weight'} ` +
            '(outlined: the candidate\'s category)';
          const box = document.createElement('div');
          box.className = 'din-histories';
          dinOut.append(h, box);
          dinHistories(box, r);
          dinOut.dataset.pooling = k;
        }
      }
      status.textContent = '';
      const table = document.createElement('table');
      table.innerHTML = '<thead><tr><th>model</th><th>test AUC</th><th>parameters</th><th>seconds</th></tr></thead>';
      const tb = document.createElement('tbody');
      for (const [n, auc, p, s] of rows) {
        const tr = document.createElement('tr');
        tr.innerHTML = `<td>${n}</td><td>${auc.toFixed(3)}</td><td>${p}</td><td>${s.toFixed(2)}</td>`;
        tb.append(tr);
      }
      table.append(tb);
      const chart = document.createElement('div');
      dinOut.prepend(table, chart);
      lineChart(chart, series, { xLabel: 'epoch', yLabel: 'test AUC' });
      dinOut.dataset.done = String(rows.length);
    } catch (e) {
      if (e.stopped) status.textContent = e.message;
      else { status.textContent = ''; $('#din-error').textContent = e.message; }
    } finally {
      btns.forEach((b) => { b.disabled = false; });
    }
  });

  $('#autoint-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const btn = $('#autoint-train');
    btn.disabled = true;
    $('#autoint-error').textContent = '';
    autoOut.replaceChildren();
    delete autoOut.dataset.auc;
    try {
      const layers = clampInt($('#autoint-layers').value, 0, 4, 2);
      const heads = clampInt($('#autoint-heads').value, 1, 8, 2);
      const epochs = clampInt($('#autoint-epochs').value, 1, 50, 5);
      const t0 = performance.now();
      const r = await stoppable('recsysAutoInt', { layers, heads, epochs, seed: 1 },
        { status: $('#autoint-status'), stop: $('#autoint-stop'), progress: $('#autoint-progress'), what: `AutoInt, ${epochs} epochs` });
      const secs = (performance.now() - t0) / 1000;
      $('#autoint-status').textContent = '';
      const F = r.fields, H = r.heads;
      const p = document.createElement('p');
      p.className = 'stat';
      p.textContent = `test AUC ${r.history.at(-1).auc.toFixed(3)} after ${epochs} epochs (${secs.toFixed(2)} s, ` +
        `${r.params} parameters). The label depends only on fields f${r.fieldA} and f${r.fieldB} together.`;
      autoOut.dataset.auc = String(r.history.at(-1).auc);
      autoOut.append(p);
      const labels = Array.from({ length: F }, (_, f) => (f === r.fieldA || f === r.fieldB ? `f${f}*` : `f${f}`));
      const grid = document.createElement('div');
      grid.className = 'pg-grid';
      // one colour scale for every head (up to the largest weight of any head), one legend
      let top = 0;
      for (const v of r.attention) top = Math.max(top, v);
      if (r.layers) colorLegend(autoOut, { min: 0, max: top, label: 'mean attention weight', note: 'one scale for every head' });
      for (let l = 0; l < r.layers; ++l)
        for (let h = 0; h < H; ++h) {
          const cell = document.createElement('div');
          const t = document.createElement('h4');
          t.textContent = `layer ${l + 1}, head ${h + 1}`;
          const hm = document.createElement('div');
          cell.append(t, hm);
          grid.append(cell);
          const a = r.attention.subarray((l * H + h) * F * F, (l * H + h + 1) * F * F);
          heatmap(hm, a, F, F, { rowLabels: labels, colLabels: labels, max: top, legend: false,
            rowTitle: 'field (query)', colTitle: 'field (key)', valueLabel: 'mean attention weight',
            title: `AutoInt layer ${l + 1} head ${h + 1}: field attends to field`, name: `autoint-layer-${l + 1}-head-${h + 1}` });
        }
      if (!r.layers) {
        const n = document.createElement('p');
        n.textContent = 'No interacting layer: the model is a logistic regression on the field embeddings and cannot express the pair.';
        autoOut.append(n);
      }
      autoOut.append(grid);
    } catch (e) {
      if (e.stopped) $('#autoint-status').textContent = e.message;
      else { $('#autoint-status').textContent = ''; $('#autoint-error').textContent = e.message; }
    } finally {
      btn.disabled = false;
    }
  });
}
