// "Train your own" panel of the Translate view: a seq2seq model (GRU encoder-decoder,
// additive attention) trained in the worker on pairs the user pastes or loads, or on the
// generated example (numbers in words -> digits). Live loss and held-out exact match per
// epoch; Stop ends the run after the current chunk of steps and Train continues it; the
// trained model goes to the Translate view through its file input (the same path as a
// model file the user picks) or is saved as a file.
import { lineChart, download } from '../lib/plot.js';

const $ = (s) => document.querySelector(s);
const SIZES = { small: { emb: 32, hidden: 64, combine: 128 }, default: {} };

export function init(call) {
  if (!$('#tt-panel')) return;
  let running = false, trained = false, dataKey = null;
  const curves = { loss: [], acc: [] };
  const setButtons = () => {
    $('#tt-train').disabled = running;
    $('#tt-stop').disabled = !running;
    $('#tt-use').disabled = running || !trained;
    $('#tt-save').disabled = running || !trained;
  };
  const lines = () => $('#tt-data').value.split('\n').filter((l) => l.trim()).length;
  const describe = () => { $('#tt-status').textContent = `${lines().toLocaleString('en')} pairs in the box.`; };

  $('#tt-example').addEventListener('click', async () => {
    try {
      const pairs = await call('numberPairs', { count: 5000, seed: 1 });
      $('#tt-data').value = pairs.map(([a, b]) => `${a}\t${b}`).join('\n');
      $('#tt-src').value = 'word';
      $('#tt-tgt').value = 'char';
      $('#tt-error').textContent = '';
      describe();
    } catch (e) {
      $('#tt-error').textContent = e.message;
    }
  });
  $('#tt-file').addEventListener('change', async () => {
    const f = $('#tt-file').files[0];
    if (!f) return;
    $('#tt-data').value = await f.text();
    $('#tt-file').value = '';
    describe();
  });
  $('#tt-data').addEventListener('change', describe);

  function draw() {
    const epochs = curves.loss.length;
    lineChart($('#tt-loss'), [{ name: 'training loss', values: curves.loss }], { xLabel: 'epoch', yLabel: 'loss (cross-entropy)' });
    lineChart($('#tt-acc'), [{ name: 'held-out exact match', values: curves.acc }], { xLabel: 'epoch', yLabel: 'exact match (held-out)' });
    $('#tt-panel').dataset.epochs = String(epochs);
  }

  $('#tt-train').addEventListener('click', async () => {
    const tsv = $('#tt-data').value;
    const epochs = Number($('#tt-epochs').value);
    const config = { srcTokens: $('#tt-src').value, tgtTokens: $('#tt-tgt').value, ...SIZES[$('#tt-size').value] };
    const key = JSON.stringify([tsv.length, tsv.slice(0, 200), tsv.slice(-200), config]);
    const resume = trained && key === dataKey;
    running = true;
    setButtons();
    $('#tt-error').textContent = '';
    if (!resume) { curves.loss = []; curves.acc = []; draw(); }
    const t0 = performance.now();
    const onProgress = (p) => {
      if (p.kind === 'step') {
        $('#tt-bar').value = (p.step % p.stepsPerEpoch) / p.stepsPerEpoch;
        $('#tt-status').textContent = `epoch ${p.epoch + 1} · step ${p.step} · loss ${p.loss.toFixed(4)} · ` +
          `${((performance.now() - t0) / 1000).toFixed(0)} s`;
      } else {
        curves.loss.push(p.loss);
        curves.acc.push(p.valExactMatch);
        draw();
        $('#tt-bar').value = 1;
        $('#tt-status').textContent = `epoch ${p.epoch}: loss ${p.loss.toFixed(4)} · held-out exact match ` +
          `${(100 * p.valExactMatch).toFixed(1)}% of ${p.valPairs} · token error rate ${(100 * p.valTokenErrorRate).toFixed(2)}% · ` +
          `${((performance.now() - t0) / 1000).toFixed(1)} s`;
      }
    };
    try {
      const r = resume ? await call('fitResume', { epochs }, onProgress)
        : await call('fitStart', { tsv, config, options: { epochs } }, onProgress);
      trained = true;
      dataKey = key;
      const s = r.stats;
      const last = r.history.at(-1);
      $('#tt-status').textContent = `${r.stopped ? 'stopped' : 'done'} after ${r.epoch} epoch(s), ${r.step} steps · ` +
        `${s.trainPairs.toLocaleString('en')} training / ${s.validPairs.toLocaleString('en')} held-out pairs` +
        (s.tooLong ? ` (${s.tooLong} too long, left out)` : '') + ` · ${s.params.toLocaleString('en')} parameters` +
        (last ? ` · held-out exact match ${(100 * last.valExactMatch).toFixed(1)}%` : '') +
        ` · ${((performance.now() - t0) / 1000).toFixed(1)} s. Train again to continue.`;
      $('#tt-panel').dataset.state = r.stopped ? 'stopped' : 'done';
    } catch (e) {
      $('#tt-error').textContent = e.message;
      $('#tt-panel').dataset.state = 'error';
    } finally {
      running = false;
      setButtons();
    }
  });
  $('#tt-stop').addEventListener('click', () => { call('fitStop'); });
  $('#tt-save').addEventListener('click', async () => {
    const bytes = await call('fitSave');
    download('my-seq2seq.safetensors', new Blob([bytes]), 'application/octet-stream');
  });
  // into the Translate view's model list, through its file input
  $('#tt-use').addEventListener('click', async () => {
    const bytes = await call('fitSave');
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'trained-in-this-tab.safetensors', { type: 'application/octet-stream' }));
    $('#tr-input').value = $('#tt-data').value.split('\n').find((l) => l.includes('\t'))?.split('\t')[0] ?? '';
    const input = $('#tr-file');
    input.files = dt.files;
    input.dispatchEvent(new Event('change'));
  });
  setButtons();
}
