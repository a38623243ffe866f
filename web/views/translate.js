// Translate view: seq2seq with attention. Type a word (spelling -> sound) or
// a date (any of 20 formats -> YYYY-MM-DD); see the output tokens with their
// probabilities and the attention heatmap (rows: outputs, columns: inputs).
import { heatmap, downloadCanvas, download, weightColor } from '../lib/plot.js';

const $ = (s) => document.querySelector(s);

export function init(call, manifest) {
  const models = manifest.filter((m) => m.kind === 'seq2seq');
  const sel = $('#tr-model');
  if (!models.length) {
    $('#tr-body').hidden = true;
    $('#tr-missing').hidden = false;
    return;
  }
  sel.replaceChildren(...models.map((m, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = m.title;
    return o;
  }));
  let timer = null, last = null, seq = 0;
  const examples = () => {
    const m = models[Number(sel.value)];
    $('#tr-examples').replaceChildren(...(m.examples || []).map((ex) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'chip';
      b.textContent = ex;
      b.addEventListener('click', () => { $('#tr-input').value = ex; run(); });
      return b;
    }));
    $('#tr-about').textContent = m.about || '';
  };
  async function run() {
    const m = models[Number(sel.value)];
    const text = $('#tr-input').value;
    const beam = Number($('#tr-beam').value);
    const precision = $('#tr-precision').value;
    const my = ++seq;
    try {
      const r = await call('translate', { url: m.url, text, beam, precision });
      if (my !== seq) return;  // a newer request superseded this one
      last = { model: m.title, text, beam, precision, ...r, attention: Array.from(r.attention) };
      $('#tr-error').textContent = '';
      const out = $('#tr-output');
      out.replaceChildren(...r.tokens.map((t, i) => {
        const span = document.createElement('span');
        span.className = 'tok';
        span.textContent = t;
        span.title = `p = ${r.probs[i].toFixed(3)}`;
        span.style.background = weightColor(r.probs[i] * 0.6);
        const p = document.createElement('small');
        p.textContent = r.probs[i].toFixed(2);
        span.append(p);
        return span;
      }));
      out.dataset.text = r.tokens.join(m.join ?? ' ');
      $('#tr-latency').textContent = `${r.ms.toFixed(2)} ms in wasm (${beam > 1 ? `beam ${beam}` : 'greedy'}, ${precision} weights)`;
      const canvas = heatmap($('#tr-heatmap'), Float32Array.from(r.attention), r.rows, r.cols,
        { rowLabels: r.tokens, colLabels: r.inputTokens, cell: 24, title: 'attention: outputs x inputs' });
      $('#tr-png').onclick = () => downloadCanvas('attention.png', canvas);
      $('#tr-heatmap').dataset.rows = String(r.rows);
      $('#tr-heatmap').dataset.cols = String(r.cols);
    } catch (e) {
      if (my !== seq) return;
      $('#tr-error').textContent = e.message;
      $('#tr-output').replaceChildren();
      $('#tr-output').dataset.text = '';
      $('#tr-heatmap').replaceChildren();
    }
  }
  const schedule = () => { clearTimeout(timer); timer = setTimeout(run, 150); };
  $('#tr-input').addEventListener('input', schedule);
  $('#tr-beam').addEventListener('change', run);
  $('#tr-precision').addEventListener('change', run);
  sel.addEventListener('change', () => { examples(); const m = models[Number(sel.value)]; $('#tr-input').value = m.examples?.[0] ?? ''; run(); });
  $('#tr-json').addEventListener('click', () => last && download('translation-attention.json', JSON.stringify(last)));
  examples();
  $('#tr-input').value = models[0].examples?.[0] ?? '';
  run();
}
