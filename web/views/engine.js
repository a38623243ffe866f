// Engine: the SIMD kernels checked against their scalar twins inside wasm,
// and a few of them timed, in the worker.
const $ = (s) => document.querySelector(s);

export function init(call, _manifest) {
  // what this build runs on; the GEMM tile is "auto" until enough large products chose it
  const showInfo = (info) => {
    const tile = info.gemmTile === 'auto' ? 'chosen after the first large matrix products' : info.gemmTile;
    $('#simd-info').textContent = `${info.arch}, ${info.lanes} lanes, GEMM tile ${tile}`;
  };

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
      $('#bench-error').textContent = e.message;
    } finally {
      ev.target.disabled = false;
      call('info').then(showInfo, () => {});  // the benchmark's GEMMs chose the tile
    }
  });

  // when the worker is ready
  return showInfo;
}
