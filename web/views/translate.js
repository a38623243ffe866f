// Translate view: seq2seq with attention. Type a word (spelling -> sound) or
// a date (any of 20 formats -> YYYY-MM-DD); see the output tokens with their
// probabilities and the attention heatmap (rows: outputs, columns: inputs).
import { heatmap, download, weightColor } from '../lib/plot.js';
import { ATTENTIONS, renderHeads } from './heads.js';

const $ = (s) => document.querySelector(s);

export function init(call, manifest) {
  // RNN and Transformer seq2seq models share the view; Transformers add the head view
  const models = manifest.filter((m) => m.kind === 'seq2seq' || m.kind === 'transformer-seq2seq');
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
  // head view (Transformer models): attention kind, layer, enlarged head, comparison model
  const hv = { kind: 'cross', layer: '0', selected: null, compare: '', scale: 'shared', r: null, r2: null };
  const transformers = models.filter((m) => m.kind === 'transformer-seq2seq');
  $('#hv-kind').replaceChildren(...ATTENTIONS.map((a) => {
    const o = document.createElement('option');
    o.value = a.key;
    o.textContent = a.label;
    return o;
  }));
  function drawHeads() {
    const m = models[Number(sel.value)];
    const on = Boolean(hv.r?.heads);
    $('#tr-heads').hidden = !on;
    if (!on) return;
    const L = hv.r.heads.cross.layers;
    if ($('#hv-layer').options.length !== L + 1) {
      $('#hv-layer').replaceChildren(...[...Array(L).keys()].map((l) => {
        const o = document.createElement('option');
        o.value = String(l);
        o.textContent = `layer ${l + 1}`;
        return o;
      }), Object.assign(document.createElement('option'), { value: 'all', textContent: 'all layers' }));
      $('#hv-layer').value = hv.layer;
    }
    const others = transformers.filter((t) => t !== m);
    const cmp = $('#hv-compare');
    const keep = cmp.value;
    cmp.replaceChildren(Object.assign(document.createElement('option'), { value: '', textContent: 'none' }),
      ...others.map((t) => Object.assign(document.createElement('option'), { value: t.url, textContent: t.title })));
    cmp.value = others.some((t) => t.url === keep) ? keep : '';
    hv.compare = cmp.value;
    const onSelect = (layer, head) => { hv.selected = { layer, head }; drawHeads(); };
    renderHeads($('#hv-main'), hv.r, { kind: hv.kind, layer: hv.layer, selected: hv.selected, title: m.title, onSelect, scale: hv.scale });
    const side = $('#hv-side');
    side.hidden = !(hv.compare && hv.r2);
    if (!side.hidden) {
      const t = transformers.find((x) => x.url === hv.compare);
      renderHeads(side, hv.r2, { kind: hv.kind, layer: hv.layer, selected: hv.selected, title: t ? t.title : hv.compare, onSelect,
        scale: hv.scale });
    }
  }
  async function runCompare(text, beam, my) {
    hv.r2 = null;
    if (!hv.compare || !hv.r?.heads) return;
    try {
      hv.r2 = await call('translate', { url: hv.compare, text, beam, precision: 'f32' });
    } catch (e) {
      hv.r2 = null;
      if (my === seq) $('#tr-error').textContent = `comparison model: ${e.message}`;
    }
  }
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
      // hovering a cell (or moving the keyboard cursor) marks its output token
      const hl = (row) => out.querySelectorAll('.tok').forEach((t, i) => t.classList.toggle('hl', i === row));
      heatmap($('#tr-heatmap'), Float32Array.from(r.attention), r.rows, r.cols, {
        rowLabels: r.tokens, colLabels: r.inputTokens, cell: 24, title: `attention of ${m.title}`, name: 'attention',
        rowTitle: 'output token', colTitle: 'input token', valueLabel: 'attention weight', onHover: (row) => hl(row),
      });
      $('#tr-heatmap').dataset.rows = String(r.rows);
      $('#tr-heatmap').dataset.cols = String(r.cols);
      hv.r = r;
      await runCompare(text, beam, my);
      if (my !== seq) return;
      drawHeads();
    } catch (e) {
      if (my !== seq) return;
      $('#tr-error').textContent = e.message;
      $('#tr-output').replaceChildren();
      $('#tr-output').dataset.text = '';
      $('#tr-heatmap').replaceChildren();
      hv.r = null;
      drawHeads();
    }
  }
  const schedule = () => { clearTimeout(timer); timer = setTimeout(run, 150); };
  $('#tr-input').addEventListener('input', schedule);
  $('#tr-beam').addEventListener('change', run);
  $('#tr-precision').addEventListener('change', run);
  sel.addEventListener('change', () => { examples(); const m = models[Number(sel.value)]; $('#tr-input').value = m.examples?.[0] ?? ''; run(); });
  $('#hv-kind').addEventListener('change', () => { hv.kind = $('#hv-kind').value; hv.selected = null; drawHeads(); });
  $('#hv-scale').addEventListener('change', () => { hv.scale = $('#hv-scale').value; drawHeads(); });
  $('#hv-layer').addEventListener('change', () => { hv.layer = $('#hv-layer').value; hv.selected = null; drawHeads(); });
  $('#hv-compare').addEventListener('change', () => { hv.compare = $('#hv-compare').value; run(); });
  $('#tr-png').addEventListener('click', () => $('#tr-heatmap .hm-png')?.click());
  $('#tr-json').addEventListener('click', () => last && download('translation-attention.json', JSON.stringify(last)));
  examples();
  $('#tr-input').value = models[0].examples?.[0] ?? '';
  run();
}
