// Translate view: seq2seq with attention. Type a word (spelling -> sound) or
// a date (any of 20 formats -> YYYY-MM-DD); see the output tokens with their
// probabilities and the attention heatmap (rows: outputs, columns: inputs).
// An error clears the result, its timing and the exports; the input stays when
// the model changes; a date model's output that is not a calendar date is flagged.
import { heatmap, download, weightColor } from '../lib/plot.js';
import { textOn, weightRgb } from '../lib/color.js';
import { bindState } from '../lib/urlstate.js';
import { translateModels, modelSlug } from '../lib/manifest.js';
import { onModelFile } from '../lib/modelfile.js';
import { ATTENTIONS, renderHeads } from './heads.js';
import { renderNBest } from '../lib/nbest.js';
import { initExplain, explainTranslate, clearExplain } from './explain.js';

const $ = (s) => document.querySelector(s);
// resolves once the page has painted what is on it now (a frame later; 100 ms at most where
// frames are not drawn, as in a hidden tab)
const afterPaint = () => new Promise((resolve) => {
  const t = setTimeout(resolve, 100);
  requestAnimationFrame(() => setTimeout(() => { clearTimeout(t); resolve(); }, 0));
});

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];

/** Why text is not a calendar date written YYYY-MM-DD, or '' when it is one. */
export function dateProblem(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return `“${text}” is not a date of the form YYYY-MM-DD`;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12) return `${text} is not a calendar date: there is no month ${m[2]}`;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();  // day 0 of the next month: the last of this one
  if (d < 1 || d > days) return `${text} is not a calendar date: ${MONTHS[mo - 1]} ${y} has ${days} days`;
  return '';
}

// typed arrays as plain arrays in JSON exports
const plainJson = (v) => JSON.stringify(v, (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x), 1);

export function init(call, manifest) {
  // RNN and Transformer seq2seq models share the view; Transformers add the head view
  const models = translateModels(manifest);
  const sel = $('#tr-model');
  if (!models.length) {
    $('#tr-body').hidden = true;
    $('#tr-missing').hidden = false;
    return;
  }
  const fillModels = () => sel.replaceChildren(...models.map((m, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = m.title;
    return o;
  }));
  fillModels();
  let timer = null, last = null, seq = 0;
  // the exports stand for the result on screen: off while there is none (before the first, after an error)
  const exportsOn = (on) => { $('#tr-png').disabled = !on; $('#tr-json').disabled = !on; };
  exportsOn(false);
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
      b.addEventListener('click', () => { $('#tr-input').value = ex; url_.save(); run(); });
      return b;
    }));
    $('#tr-about').textContent = m.about || '';
  };
  function clearResult(message) {
    last = null;
    exportsOn(false);
    $('#tr-error').textContent = message;
    $('#tr-warning').textContent = '';
    $('#tr-output').replaceChildren();
    $('#tr-output').dataset.text = '';
    delete $('#tr-output').dataset.input;
    delete $('#tr-output').dataset.beam;
    delete $('#tr-output').dataset.dateValid;
    $('#tr-latency').textContent = '';
    nbestHolder().hidden = true;
    $('#tr-heatmap').replaceChildren();
    delete $('#tr-heatmap').dataset.rows;
    delete $('#tr-heatmap').dataset.cols;
    hv.r = null;
    drawHeads();
    clearExplain('tr');
  }
  // the n-best list sits between the timing and the heatmap
  function nbestHolder() {
    let el = $('#tr-nbest');
    if (!el) {
      el = document.createElement('div');
      el.id = 'tr-nbest';
      el.hidden = true;
      $('#tr-latency').after(el);
    }
    return el;
  }
  async function run() {
    clearTimeout(timer);  // a typed input's pending run would repeat this one (which reads the input too)
    const m = models[Number(sel.value)];
    const text = $('#tr-input').value;
    const beam = Number($('#tr-beam').value);
    const precision = $('#tr-precision').value;
    const my = ++seq;
    try {
      const r = await call('translate', { url: m.url, text, beam, precision });
      if (my !== seq) return;  // a newer request superseded this one
      $('#tr-error').textContent = '';
      const out = $('#tr-output');
      out.replaceChildren(...r.tokens.map((t, i) => {
        const span = document.createElement('span');
        span.className = 'tok';
        span.textContent = t;
        span.title = `p = ${r.probs[i].toFixed(3)}`;
        const bg = weightRgb(r.probs[i] * 0.6);
        span.style.background = weightColor(r.probs[i] * 0.6);
        span.style.color = textOn(bg);
        const p = document.createElement('small');
        p.textContent = r.probs[i].toFixed(2);
        span.append(p);
        return span;
      }));
      const output = r.tokens.join(m.join ?? ' ');
      delete out.dataset.text;  // set once the map is drawn too: the result is then complete
      // a date model can write a day its month does not have (31 FEB -> 02-31) with high probability
      const warning = r.task === 'dates' ? dateProblem(output) : '';
      $('#tr-warning').textContent = warning ? `⚠ ${warning}. The model writes the digits it finds likely and does ` +
        'not check the calendar: its probabilities say nothing about validity.' : '';
      if (r.task === 'dates') out.dataset.dateValid = warning ? '0' : '1';
      else delete out.dataset.dateValid;
      const how = beam > 1 ? `beam ${beam}, ${r.nBest?.length ?? 1} finished hypotheses` : 'greedy';
      const maps = r.headsMs !== undefined ? ` + ${r.headsMs.toFixed(2)} ms for the head maps (float32)` : '';
      $('#tr-latency').textContent = `${r.ms.toFixed(2)} ms in wasm (${how}, ${precision} weights)${maps} · ` +
        `log p = ${r.logprob.toFixed(3)} · p(end) = ${r.eosProb.toFixed(3)}`;
      // with no map on screen yet (the first result, or the first after an error), the output
      // tokens are painted first and the map and the rest drawn after that frame, not in the
      // same one: the first translation shows sooner. Later results replace the map in the same
      // frame.
      if (!$('#tr-heatmap').childElementCount) {
        await afterPaint();
        if (my !== seq) return;
      }
      const input = { text, beam, precision };
      const meta = { model: m.title, input: text, output, ...(warning ? { warning } : {}) };
      last = { model: m.title, modelUrl: m.file ? `file: ${m.file}` : m.url, input, output: {
        text: output, tokens: r.tokens, probs: r.probs, logprob: r.logprob, eosProb: r.eosProb, inputTokens: r.inputTokens,
        attention: { rows: r.rows, cols: r.cols, values: r.attention }, ...(r.heads ? { heads: r.heads } : {}),
        ...(r.nBest ? { nBest: r.nBest.map(({ tokens, logprob, score, eosProb, probs }) => ({ tokens, logprob, score, eosProb, probs })) } : {}),
      }, ...(warning ? { warning } : {}), ms: r.ms, ...(r.headsMs !== undefined ? { headsMs: r.headsMs } : {}) };
      exportsOn(true);
      // hovering a cell (or moving the keyboard cursor) marks its output token
      const hl = (row) => out.querySelectorAll('.tok').forEach((t, i) => t.classList.toggle('hl', i === row));
      // the heatmap of hypothesis k of the n-best list (0: the output)
      const drawMap = (h, k) => {
        heatmap($('#tr-heatmap'), Float32Array.from(h.attention), h.rows, h.cols, {
          rowLabels: h.tokens, colLabels: r.inputTokens, cell: 24, name: 'attention',
          title: `attention of ${m.title}${k ? ` (hypothesis ${k + 1} of the beam)` : ''}`,
          rowTitle: 'output token', colTitle: 'input token', valueLabel: 'attention weight',
          onHover: (row) => hl(k ? -1 : row), meta,
        });
        $('#tr-heatmap').dataset.rows = String(h.rows);
        $('#tr-heatmap').dataset.cols = String(h.cols);
        $('#tr-heatmap').dataset.hypothesis = String(k);
      };
      drawMap(r, 0);
      renderNBest(nbestHolder(), beam > 1 ? r.nBest : null, { beam, join: m.join ?? ' ', onPick: drawMap });
      // which request the shown result answers (a test waits for its own, not an earlier one)
      Object.assign(out.dataset, { input: text, beam: String(beam), text: output });
      hv.r = r;
      await runCompare(text, beam, my);
      if (my !== seq) return;
      drawHeads();
      await explainTranslate(call, m, { text, beam, precision }, () => my === seq);
    } catch (e) {
      if (my !== seq) return;
      clearResult(e.message);
    }
  }
  const schedule = () => { clearTimeout(timer); timer = setTimeout(run, 150); };
  $('#tr-input').addEventListener('input', schedule);
  $('#tr-beam').addEventListener('change', run);
  initExplain('tr', run);
  $('#tr-precision').addEventListener('change', run);
  // a new model keeps the input, unless it is empty or an example of the previous model
  // that the new one does not list (a date example means nothing to a G2P model)
  let current = models[Number(sel.value)];
  sel.addEventListener('change', () => {
    const m = models[Number(sel.value)], input = $('#tr-input');
    const exampleOfOld = (current.examples || []).includes(input.value) && !(m.examples || []).includes(input.value);
    if (!input.value.trim() || exampleOfOld) input.value = m.examples?.[0] ?? input.value;
    current = m;
    examples();
    run();
  });
  $('#hv-kind').addEventListener('change', () => { hv.kind = $('#hv-kind').value; hv.selected = null; drawHeads(); });
  $('#hv-scale').addEventListener('change', () => { hv.scale = $('#hv-scale').value; drawHeads(); });
  $('#hv-layer').addEventListener('change', () => { hv.layer = $('#hv-layer').value; hv.selected = null; drawHeads(); });
  $('#hv-compare').addEventListener('change', () => { hv.compare = $('#hv-compare').value; run(); });
  $('#tr-png').addEventListener('click', () => last && $('#tr-heatmap .hm-png')?.click());
  $('#tr-json').addEventListener('click', () => last && download('translation-attention.json', plainJson(last)));

  // your own model file (a Seq2Seq or Transformer .safetensors written by attnlab), loaded in the worker
  onModelFile($('#tr-file'), $('#tr-file-status'), 'Seq2Seq', call, ({ url, info, file }) => {
    const kind = info.kind === 'transformer-seq2seq' ? 'transformer-seq2seq' : 'seq2seq';
    const sep = info.config?.output_sep ?? (info.config?.tgt_tokens === 'word' ? ' ' : '');
    const entry = { kind, title: `your file: ${file.name} (${kind === 'seq2seq' ? 'RNN' : 'Transformer'}, ${info.score || info.config?.score || 'attention'})`,
      url, file: file.name, join: sep, about: `Loaded from your file ${file.name} (task ${info.config?.task ?? 'unknown'}); it stays in this tab only.`,
      examples: [] };
    const at = models.findIndex((x) => x.file);
    if (at >= 0) models.splice(at, 1, entry); else models.push(entry);
    transformers.splice(0, transformers.length, ...models.filter((x) => x.kind === 'transformer-seq2seq'));
    fillModels();
    sel.value = String(models.indexOf(entry));
    current = entry;
    $('#tr-file-status').textContent = `${file.name}: loaded (${(file.size / 1024).toFixed(0)} KB).`;
    examples();
    url_.save();
    run();
  }, clearResult);

  // the URL holds the model (its path under models/), the input and the decoding options
  const url_ = bindState('translate', {
    model: { el: sel, get: () => modelSlug(models[Number(sel.value)]), set: (v) => {
      const i = v == null ? 0 : models.findIndex((m) => modelSlug(m) === v);
      if (i >= 0) { sel.value = String(i); current = models[i]; examples(); }
    } },
    input: { el: '#tr-input', get: () => $('#tr-input').value,
      set: (v) => { $('#tr-input').value = v ?? models[Number(sel.value)].examples?.[0] ?? ''; } },
    beam: '#tr-beam', precision: '#tr-precision',
  }, { apply: run, always: ['model', 'input'] });
  examples();
  if (!url_.applied) {
    $('#tr-input').value = models[0].examples?.[0] ?? '';
    url_.save();
    run();
  }
}
