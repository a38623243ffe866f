// MMoE view: train multi-task mixtures of experts in Web Workers, with live
// loss curves and gate weights; race softmax gates against attention gates.
import { WorkerClient } from '../lib/client.js';
import { bars, heatmap, lineChart } from '../lib/plot.js';
import { bindState } from '../lib/urlstate.js';

const $ = (s, root = document) => root.querySelector(s);

function panel(title) {
  const div = document.createElement('div');
  div.className = 'run';
  div.innerHTML = `<h3></h3>
    <progress max="1" value="0"></progress> <button type="button" class="stop">Stop</button>
    <span class="stat" aria-live="polite"></span>
    <div class="chart"></div>
    <div class="gate-bars"><div><h4>task 1 gate, mean over validation</h4><div class="bars g0"></div></div>
      <div><h4>task 2 gate</h4><div class="bars g1"></div></div></div>
    <div class="strip"></div>`;
  $('h3', div).textContent = title;
  return div;
}

function settings() {
  return {
    p: Number($('#mmoe-p').value),
    experts: Math.max(2, Math.min(16, Number($('#mmoe-experts').value) || 8)),
    n: Math.max(1000, Math.min(50000, Number($('#mmoe-n').value) || 10000)),
    epochs: Math.max(1, Math.min(100, Number($('#mmoe-epochs').value) || 20)),
    sines: Math.max(0, Math.min(10, Number($('#mmoe-sines').value) || 0)),
    batch: 128, lr: 2e-3, seed: 1, dataSeed: 1,
  };
}

async function runOne(gate, s, div) {
  const client = new WorkerClient();
  const prog = $('progress', div), stat = $('.stat', div), stop = $('.stop', div);
  prog.max = s.epochs;
  // Stop ends the run (its worker is terminated); the epochs done stay on screen
  let stopped = false, done = 0;
  stop.addEventListener('click', () => { stopped = true; client.terminate(); });
  const curves = { t1: [], t2: [], v1: [], v2: [] };
  const names = Array.from({ length: s.experts }, (_, i) => `expert ${i + 1}`);
  try {
    const res = await client.call('mmoeTrain', { ...s, gate }, (h) => {
      prog.value = h.epoch + 1;
      done = h.epoch + 1;
      stat.textContent = `epoch ${h.epoch + 1}/${s.epochs} · ${(h.ms / 1000).toFixed(1)} s · val MSE ${h.val[0].toFixed(3)} / ${h.val[1].toFixed(3)}`;
      curves.t1.push(h.loss[0]); curves.t2.push(h.loss[1]); curves.v1.push(h.val[0]); curves.v2.push(h.val[1]);
      lineChart($('.chart', div), [
        { name: 'task 1 train', values: curves.t1 }, { name: 'task 2 train', values: curves.t2 },
        { name: 'task 1 val', values: curves.v1, dashed: true }, { name: 'task 2 val', values: curves.v2, dashed: true },
      ], { xLabel: 'epoch', yLabel: 'MSE' });
      if (h.gateMeans) {
        bars($('.g0', div), names, h.gateMeans[0]);
        bars($('.g1', div), names, h.gateMeans[1]);
      }
    });
    stat.textContent = `done: ${s.epochs} epochs on ${s.n} samples in ${res.seconds.toFixed(2)} s · ${res.params} parameters · ` +
      `final val MSE ${res.history.at(-1).val.map((v) => v.toFixed(3)).join(' / ')}`;
    div.dataset.seconds = res.seconds.toFixed(3);
    div.dataset.valMse = JSON.stringify(res.history.at(-1).val);
    div.dataset.trainLoss = JSON.stringify(res.history.map((h) => (h.loss[0] + h.loss[1]) / 2));
    if (res.gates) {
      // strip: rows = task x sample, cols = experts
      const S = res.strip, E = res.experts;
      const strip = document.createElement('div');
      const h4 = document.createElement('h4');
      h4.textContent = `gate weights of ${S} validation samples (rows: task 1 then task 2; columns: experts); ` +
        `colours span the weights' own range (uniform gate: 1/${E} = ${(1 / E).toFixed(3)})`;
      const holder = document.createElement('div');
      strip.append(h4, holder);
      $('.strip', div).replaceChildren(strip);
      heatmap(holder, Float32Array.from(res.gates), 2 * S, E, {
        rowLabels: Array.from({ length: 2 * S }, (_, i) => `task ${1 + Math.floor(i / S)} #${i % S}`),
        colLabels: Array.from({ length: E }, (_, i) => `e${i + 1}`), cellW: 30, cellH: 5, rowLabelGap: 80, min: 'data', max: 'data',
        rowTitle: 'task · sample', colTitle: 'expert', valueLabel: 'gate weight', title: `${gate} gate weights per sample`,
        name: `mmoe-${gate}-gates`,
        // a line between the two tasks' samples
        decorate: (g, L) => {
          g.strokeStyle = '#1d2330';
          g.lineWidth = 2;
          g.beginPath();
          g.moveTo(L.padL - 4, L.padT + S * L.cellH - 0.5);
          g.lineTo(L.padL + L.cols * L.cellW, L.padT + S * L.cellH - 0.5);
          g.stroke();
        },
      });
    }
    div.dataset.done = '1';
    return res;
  } catch (e) {
    if (stopped) {
      stat.textContent = `stopped after ${done} of ${s.epochs} epochs (the curves show the epochs done)`;
      div.dataset.stopped = String(done);
    } else {
      stat.textContent = `error: ${e.message}`;
      div.dataset.error = e.message;
    }
    throw e;
  } finally {
    stop.remove();
    client.terminate();
  }
}

async function showShipped(call) {
  const out = $('#mmoe-shipped-out');
  out.replaceChildren();
  for (const gate of ['softmax', 'attention']) {
    const div = panel(`shipped: ${gate} gates`);
    $('.stop', div).remove();
    out.append(div);
    try {
      const r = await call('mmoeShipped', { url: `models/mmoe-synthetic/${gate}.safetensors`, p: 0.5, sines: 3 });
      $('.stat', div).textContent = `test MSE on fresh data: ${r.mse.map((v) => v.toFixed(3)).join(' / ')} · ${r.params} parameters`;
      $('progress', div).remove();
      $('.stop', div)?.remove();
      const names = Array.from({ length: r.config.experts }, (_, i) => `expert ${i + 1}`);
      bars($('.g0', div), names, r.gateMeans[0]);
      bars($('.g1', div), names, r.gateMeans[1]);
      div.dataset.done = '1';
    } catch (e) {
      $('.stat', div).textContent = `error: ${e.message}`;
    }
  }
}

export function init(call, _manifest) {
  $('#mmoe-shipped').addEventListener('click', () => showShipped(call));
  const p = $('#mmoe-p'), out = $('#mmoe-p-out');
  p.addEventListener('input', () => { out.value = Number(p.value).toFixed(2); });
  // the URL holds the options (training is an action: it waits for the button)
  bindState('mmoe', { p: '#mmoe-p', gate: '#mmoe-gate', experts: '#mmoe-experts', n: '#mmoe-n', epochs: '#mmoe-epochs', sines: '#mmoe-sines' },
    { apply: () => { out.value = Number(p.value).toFixed(2); } });
  const runs = $('#mmoe-runs');
  const busy = (on) => { $('#mmoe-train').disabled = on; $('#mmoe-race').disabled = on; };
  $('#mmoe-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const s = settings(), gate = $('#mmoe-gate').value;
    const div = panel(`${gate} gates, p = ${s.p.toFixed(2)}`);
    runs.replaceChildren(div);
    busy(true);
    try { await runOne(gate, s, div); } catch { /* shown in the panel */ } finally { busy(false); }
  });
  $('#mmoe-race').addEventListener('click', async () => {
    const s = settings();
    const a = panel(`softmax gates, p = ${s.p.toFixed(2)}`), b = panel(`attention gates, p = ${s.p.toFixed(2)}`);
    runs.replaceChildren(a, b);
    runs.classList.add('race');
    busy(true);
    try {
      await Promise.allSettled([runOne('softmax', s, a), runOne('attention', s, b)]);
    } finally {
      busy(false);
    }
  });
}
