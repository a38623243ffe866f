// Attention playground: self-attention over the words you type. Each word gets
// a fixed pseudo-random embedding (same word, same vector), so equal words
// score high under dot-product scores. Change anything and the scores, the
// mask and the softmax weights recompute in the worker.
import { heatmap, colorLegend, download } from '../lib/plot.js';
import { bindState } from '../lib/urlstate.js';

const $ = (s) => document.querySelector(s);
const D = 16;
export const MAX_WORDS = 24;  // the maps stay readable; more words are cut (and the page says so)

function embed(word) {
  // FNV-1a hash seeds a small LCG: deterministic vector per word
  let h = 2166136261;
  for (const ch of word.toLowerCase()) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  const v = new Float32Array(D);
  for (let i = 0; i < D; ++i) {
    h = (Math.imul(h, 1664525) + 1013904223) >>> 0;
    v[i] = (h / 2 ** 32) * 2 - 1;
  }
  return v;
}

// The score select lists the library's score table (al.scoreKinds()).
async function fillScores(call) {
  const sel = $('#pg-score');
  const kinds = await call('scoreKinds');
  const keep = sel.value;
  sel.replaceChildren(...kinds.map((k) => {
    const o = document.createElement('option');
    o.value = k.name;
    o.textContent = `${k.name.replace('_', ' ')}: ${k.formula}`;
    return o;
  }));
  sel.value = kinds.some((k) => k.name === keep) ? keep : kinds[0].name;
}

export function init(call, _manifest) {
  const scoresFilled = fillScores(call).catch(() => {});
  const inputs = ['#pg-text', '#pg-score', '#pg-mode', '#pg-window', '#pg-causal', '#pg-valid', '#pg-heads'];
  let timer = null, last = null;
  const schedule = () => { clearTimeout(timer); timer = setTimeout(run, 120); };
  for (const s of inputs) $(s).addEventListener('input', schedule);

  let url_ = null;
  const exportOn = (on) => { $('#pg-json').disabled = !on; };
  exportOn(false);
  // controls that cannot form an invalid combination: the window exists in local modes only
  // (at least 1), the causal mask in global mode only (a local window already limits the keys)
  function constrain() {
    const mode = $('#pg-mode').value, local = mode !== 'global';
    const win = $('#pg-window');
    win.disabled = !local;
    if (!(Number(win.value) >= 1)) win.value = '1';
    if (Number(win.value) > Number(win.max)) win.value = win.max;
    win.value = String(Math.round(Number(win.value)));
    const causal = $('#pg-causal');
    causal.disabled = local;
    $('#pg-causal-note').textContent = local ? 'global only: the window already limits the keys' : '';
    return { mode, window: Number(win.value), causal: !local && causal.checked };
  }
  async function run() {
    const all = $('#pg-text').value.trim().split(/\s+/).filter(Boolean);
    const words = all.slice(0, MAX_WORDS);
    $('#pg-cut').textContent = all.length > MAX_WORDS
      ? `${all.length} words typed: only the first ${MAX_WORDS} are used.` : '';
    const out = $('#pg-out');
    const c = constrain();
    url_?.save();  // with the corrected values
    if (!words.length) { out.textContent = 'type a few words'; last = null; exportOn(false); return; }
    const T = words.length;
    const x = new Float32Array(T * D);
    words.forEach((w, i) => x.set(embed(w), i * D));
    const valid = $('#pg-valid');
    valid.max = String(T);
    if (Number(valid.value) > T || valid.dataset.touched !== '1') valid.value = String(T);
    $('#pg-valid-out').value = `${valid.value} of ${T}`;
    const mode = c.mode;
    const args = { x: Array.from(x), T, D, score: $('#pg-score').value, mode, window: c.window,
      causal: c.causal, validKeys: Number(valid.value), seed: 1 };
    const heads = Number($('#pg-heads').value);
    try {
      const r = await call('playground', args);
      const m = await call('playground', { x: Array.from(x), T, E: D, heads, causal: args.causal, validKeys: args.validKeys, seed: 1 });
      last = { words, args, heads, single: r, multihead: m };
      const grid = document.createElement('div');
      grid.className = 'pg-grid';
      const panel = (title, values, rows, cols, note = '', opts = {}) => {
        const div = document.createElement('div');
        div.className = 'pg-panel';
        const h = document.createElement('h4');
        h.textContent = title;
        const holder = document.createElement('div');
        div.append(h, holder);
        if (note) { const p = document.createElement('p'); p.className = 'stat'; p.textContent = note; div.append(p); }
        grid.append(div);
        return heatmap(holder, values, rows, cols, { rowLabels: words, colLabels: words, cell: 22, title,
          rowTitle: 'query word', colTitle: 'key word', ...opts });
      };
      // masked keys (causal, padding, outside a local window): 1 = allowed in r.mask
      const masked = Uint8Array.from(r.mask, (v) => (v ? 0 : 1));
      // scores are unbounded: the colour scale spans this matrix's finite range
      const s = Float32Array.from(r.scores);
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < s.length; ++i) if (!masked[i] && Number.isFinite(s[i])) { lo = Math.min(lo, s[i]); hi = Math.max(hi, s[i]); }
      panel(`scores (${args.score})`, s, T, T, `min ${lo.toFixed(2)}, max ${hi.toFixed(2)} over the allowed keys`,
        { min: 'data', max: 'data', mask: masked, valueLabel: 'score', name: 'scores' });
      panel('mask (1 = key allowed)', Float32Array.from(r.mask), T, T, '', { valueLabel: 'allowed', digits: 0, name: 'mask' });
      const centres = mode === 'local-p' ? 'local-p centres p_t (predicted)' : 'local-m window centres (= t)';
      panel('softmax weights (rows: queries)', Float32Array.from(r.weights), T, T,
        r.positions ? `${centres}: ${Array.from(r.positions, (p) => p.toFixed(1)).join(', ')}` : '',
        { mask: masked, valueLabel: 'attention weight', name: 'weights' });
      const heads_ = document.createElement('div');
      heads_.className = 'pg-grid';
      // the heads share one 0..1 scale and one legend; their mask is the causal / padding one
      const headMask = new Uint8Array(T * T);
      for (let i = 0; i < T; ++i) {
        for (let j = 0; j < T; ++j) headMask[i * T + j] = (args.causal && j > i) || j >= args.validKeys ? 1 : 0;
      }
      const headLegend = document.createElement('div');
      colorLegend(headLegend, { min: 0, max: 1, label: 'attention weight', masked: headMask.some(Boolean),
        note: 'one scale for every head, so heads compare' });
      for (let h = 0; h < heads; ++h) {
        const div = document.createElement('div');
        div.className = 'pg-panel';
        const t = document.createElement('h4');
        t.textContent = `head ${h + 1}`;
        const holder = document.createElement('div');
        div.append(t, holder);
        heads_.append(div);
        heatmap(holder, Float32Array.from(m.heads).subarray(h * T * T, (h + 1) * T * T), T, T,
          { rowLabels: words, colLabels: words, cell: 16, title: `head ${h + 1}`, rowTitle: 'query word', colTitle: 'key word',
            max: 1, legend: false, mask: headMask, valueLabel: 'attention weight', name: `head-${h + 1}` });
      }
      const dis = document.createElement('p');
      dis.className = 'stat';
      dis.id = 'pg-disagreement';
      const d = m.disagreement;
      dis.textContent = `disagreement terms (Li et al. 2018, lower = heads disagree more): subspace ${d.subspace.toFixed(3)}, ` +
        `position ${d.position.toFixed(3)}, output ${d.output.toFixed(3)}`;
      const h3 = document.createElement('h3');
      h3.textContent = `multi-head self-attention (global, with the causal and padding masks), ${heads} heads side by side`;
      // the single-head panels' h4 headings sit under an h3 of their own (no skipped heading level)
      const h3single = document.createElement('h3');
      h3single.textContent = `one ${args.score} attention (${mode}): scores, mask and weights`;
      out.replaceChildren(h3single, grid, h3, headLegend, heads_, dis);
      out.dataset.rows = String(T);
      const sums = [];
      for (let i = 0; i < T; ++i) sums.push(r.weights.slice(i * T, (i + 1) * T).reduce((a, b) => a + b, 0));
      out.dataset.rowSums = JSON.stringify(sums);
      out.dataset.heads = String(heads);
      $('#pg-error').textContent = '';
      exportOn(true);
    } catch (e) {
      last = null;
      exportOn(false);
      out.replaceChildren();
      delete out.dataset.rows;
      $('#pg-error').textContent = e.message;
    }
  }
  $('#pg-valid').addEventListener('input', () => { $('#pg-valid').dataset.touched = '1'; });
  $('#pg-json').addEventListener('click', () => last && download('attention.json', JSON.stringify({
    words: last.words, settings: { ...last.args, x: undefined, heads: last.heads },
    embeddings: last.args.x, scores: Array.from(last.single.scores), mask: Array.from(last.single.mask),
    weights: Array.from(last.single.weights), heads: Array.from(last.multihead.heads), disagreement: last.multihead.disagreement,
  })));
  // the URL holds the words and every option (once the score list is known)
  return async () => {
    await scoresFilled;
    url_ = bindState('playground', {
      text: '#pg-text', score: '#pg-score', mode: '#pg-mode', window: '#pg-window', causal: '#pg-causal', heads: '#pg-heads',
      valid: { el: '#pg-valid', get: () => ($('#pg-valid').dataset.touched === '1' ? $('#pg-valid').value : null),
        set: (v) => {
          if (v == null) { delete $('#pg-valid').dataset.touched; return; }
          $('#pg-valid').max = String(MAX_WORDS);
          $('#pg-valid').dataset.touched = '1';
          $('#pg-valid').value = v;
        } },
    }, { apply: run });
    if (url_.applied) return;
    // the first computation waits until the view is shown: on another view it would only
    // hold up the worker (a first translation waits behind it)
    const shown = () => !$('#view-playground').hidden;
    if (shown()) { run(); return; }
    addEventListener('hashchange', function first() {
      if (!shown()) return;
      removeEventListener('hashchange', first);
      if (!last) run();
    });
  };
}
