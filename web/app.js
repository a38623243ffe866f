// The page: routing between views, and the main compute worker.
import { WorkerClient } from './lib/client.js';
import { init as initMMoE } from './views/mmoe.js';
import { init as initPlayground } from './views/playground.js';
import { init as initTranslate } from './views/translate.js';
import { init as initHAN } from './views/han.js';
import { init as initRecsys } from './views/recsys.js';

const client = new WorkerClient((msg) => setStatus(`worker failed: ${msg}`, true));
export const call = (op, args, onProgress) => client.call(op, args, onProgress);

const $ = (sel) => document.querySelector(sel);
function setStatus(text, error = false) {
  const s = $('#status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

function route() {
  const name = (location.hash || '#home').slice(1);
  const views = document.querySelectorAll('.view');
  let found = false;
  for (const v of views) {
    const on = v.id === `view-${name}`;
    v.hidden = !on;
    found ||= on;
  }
  if (!found) $('#view-home').hidden = false;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}
addEventListener('hashchange', route);
route();
initMMoE(call);
initRecsys(call);

// offline once loaded (service workers need a secure context: https or localhost)
if ('serviceWorker' in navigator && window.isSecureContext) {
  navigator.serviceWorker.register('sw.js').catch(() => {});
}

// models/index.json lists the shipped models the views can load
fetch('models/index.json')
  .then((r) => (r.ok ? r.json() : []), () => [])
  .then((manifest) => {
    initTranslate(call, manifest);
    return initHAN(call, manifest);
  })
  .catch((e) => setStatus(`could not read the model list: ${e.message}`, true));

const runPlayground = initPlayground(call);

$('#engine-selftest').addEventListener('click', async (ev) => {
  ev.target.disabled = true;
  $('#selftest-result').textContent = 'checking…';
  try {
    const r = await call('selftest', { seed: 1 });
    $('#selftest-result').textContent =
      `${r.cases.length - r.failed} of ${r.cases.length} kernel checks passed (${r.arch}, ${r.lanes} lanes)`;
    $('#selftest-result').dataset.failed = String(r.failed);
    $('#selftest-result').dataset.total = String(r.cases.length);
  } catch (e) {
    $('#selftest-result').textContent = e.message;
  } finally {
    ev.target.disabled = false;
  }
});

$('#engine-bench').addEventListener('click', async (ev) => {
  ev.target.disabled = true;
  const tbody = $('#bench-table tbody');
  tbody.replaceChildren();
  $('#bench-table').hidden = false;
  const rows = [['gemm_nn', [256, 256, 256]], ['gemm_nn', [1, 256, 256]], ['gemm_nn', [32, 64, 64]],
    ['softmax_rows', [128, 128]]];
  try {
    const peak = await call('peak', { minMs: 400 });
    const tr = document.createElement('tr');
    tr.innerHTML = `<td>SIMD micro-kernel peak</td><td></td><td></td><td>${peak.toFixed(1)}</td><td></td>`;
    tbody.append(tr);
    for (const [name, shape] of rows) {
      const r = await call('bench', { name, shape, minMs: 300 });
      const row = document.createElement('tr');
      row.innerHTML = `<td>${name}</td><td>${shape.join('×')}</td><td>${(r.ns / 1e3).toFixed(1)}</td>` +
        `<td>${r.gflops.toFixed(1)}</td><td>${(r.refNs / 1e3).toFixed(1)}</td>`;
      tbody.append(row);
    }
  } catch (e) {
    setStatus(e.message, true);
  } finally {
    ev.target.disabled = false;
  }
});

call('info').then((info) => {
  $('#simd-info').textContent = `${info.arch}, ${info.lanes} lanes, GEMM tile ${info.gemmTile}`;
  setStatus('ready');
  document.body.dataset.ready = '1';
  runPlayground();
}, (e) => setStatus(`could not start: ${e.message}`, true));
