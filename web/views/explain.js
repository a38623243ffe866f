// Attention beside attribution, for the HAN and Translate views: an "attention | attribution |
// both" switch over the page's one heatmap component, the Kendall tau between the two, and the
// top-k removal check (explain/attribution.hpp in the library computes all of it; this file only
// draws). Each view owns one panel: explainPanel(prefix) finds #<prefix>-explain-* elements.
import { heatmap } from '../lib/plot.js';

const fmt = (v, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(d));
const STEPS = 32;  // integrated gradients' steps on the page

/** What attention can and cannot tell, with sources: the caption under both panels. */
export const CAPTION = 'Attention weights say where the model looked, not what decided. Jain & Wallace ' +
  '(2019, “Attention is not Explanation”, NAACL) found attention often disagrees with gradient-based ' +
  'importance and that quite different attention maps can give the same prediction; Wiegreffe & Pinter ' +
  '(2019, “Attention is not not Explanation”, EMNLP) showed that such alternative maps are not always what a ' +
  'trained model would learn, so whether attention explains depends on the model and the task. Here the ' +
  'attribution is integrated gradients (Sundararajan et al. 2017, 32 steps from a zero embedding) of the ' +
  'log-probability of the prediction with respect to each input token’s embedding. Kendall’s tau compares ' +
  'the two rankings (1 = same order, 0 = unrelated); the removal check deletes the top-k tokens by each ' +
  'ranking and reruns the model: the ranking whose removal moves the probability more points at what the ' +
  'decision rested on.';

function panel(prefix) {
  const q = (s) => document.getElementById(`${prefix}-explain-${s}`);
  return { mode: q('mode'), maps: q('maps'), stats: q('stats'), caption: q('caption'), error: q('error') };
}

/** The panel's elements, written once into the view's #<prefix>-explain. */
function buildPanel(prefix) {
  const host = document.getElementById(`${prefix}-explain`);
  if (!host || host.childElementCount) return;
  const id = (s) => `${prefix}-explain-${s}`;
  host.innerHTML = `<h3>Attention beside attribution</h3>
    <div class="controls">
      <label>show <select id="${id('mode')}">
        <option value="attention">attention</option><option value="attribution">attribution</option><option value="both">both</option>
      </select></label>
    </div>
    <p id="${id('error')}" class="error" role="alert"></p>
    <div id="${id('stats')}" aria-live="polite"></div>
    <div id="${id('maps')}" class="explain-maps"></div>
    <p id="${id('caption')}" class="stat caption"></p>`;
}

/** The current switch value: 'attention' | 'attribution' | 'both'. */
export function explainMode(prefix) {
  return panel(prefix).mode?.value ?? 'attention';
}

function clearPanel(p, message = '') {
  p.maps.replaceChildren();
  p.stats.replaceChildren();
  p.error.textContent = message;
  p.maps.dataset.shown = '';
}

function statLine(text, key) {
  const el = document.createElement('p');
  el.className = 'stat';
  el.dataset.stat = key;
  el.textContent = text;
  return el;
}

function drawMaps(p, mode, maps) {
  p.maps.replaceChildren();
  const shown = [];
  for (const m of maps) {
    if (mode !== 'both' && m.key !== mode && !m.always) continue;
    const box = document.createElement('div');
    box.className = 'explain-map';
    box.dataset.map = m.key;
    const h = document.createElement('h4');
    h.textContent = m.title;
    box.append(h);
    const host = document.createElement('div');
    box.append(host);
    p.maps.append(box);
    heatmap(host, m.values, m.rows, m.cols, m.opts);
    shown.push(m.key);
  }
  p.maps.dataset.shown = shown.join(' ');
}

/**
 * HAN: r is the result of classify(text, { attribution: 'ig' }) (words carry `attention` and
 * `attribution`, r.explain has tau and the removal check).
 */
export function renderHanExplain(r) {
  const p = panel('han');
  if (!r?.explain) { clearPanel(p); return; }
  const e = r.explain;
  const S = r.sentences.length, W = Math.max(1, ...r.sentences.map((s) => s.words.length));
  const att = new Float32Array(S * W), attr = new Float32Array(S * W), mask = new Uint8Array(S * W);
  r.sentences.forEach((s, i) => {
    for (let c = 0; c < W; ++c) {
      const w = s.words[c];
      if (!w) { mask[i * W + c] = 1; continue; }
      att[i * W + c] = w.attention;
      attr[i * W + c] = w.attribution;
    }
  });
  const common = {
    rowLabels: r.sentences.map((_, i) => `s${i + 1}`), colLabels: Array.from({ length: W }, (_, i) => String(i + 1)),
    cell: 20, mask, rowTitle: 'sentence', colTitle: 'word position',
    cellLabel: (i, c) => `“${r.sentences[i].words[c]?.text ?? ''}”`,
  };
  drawMaps(p, explainMode('han'), [
    { key: 'attention', title: 'attention: word weight × sentence weight', values: att, rows: S, cols: W,
      opts: { ...common, max: 'data', valueLabel: 'attention', name: 'han-attention' } },
    { key: 'attribution', title: `attribution: integrated gradients to log p(${r.label})`, values: attr, rows: S, cols: W,
      opts: { ...common, min: 'data', max: 'data', valueLabel: 'attribution', name: 'han-attribution' } },
  ]);
  const word = ([s, t]) => r.sentences[s]?.words[t]?.text ?? '?';
  const rm = e.removal;
  const n = r.sentences.reduce((k, s) => k + s.words.length, 0);
  p.stats.replaceChildren(
    statLine(`Kendall tau-b between attention and |attribution| over ${n} words: ${fmt(e.tau, 2)}` +
      (e.tau === null ? ' (undefined: one word, or a constant ranking)' : ''), 'tau'),
    statLine(`Removal check, p(${r.label}) = ${fmt(rm.prob)}: without the top ${rm.k} words by attention ` +
      `(${rm.byAttention.removed.map(word).join(', ')}) ${fmt(rm.byAttention.prob)}; by attribution ` +
      `(${rm.byAttribution.removed.map(word).join(', ')}) ${fmt(rm.byAttribution.prob)}.`, 'removal'),
    statLine(`Completeness: the attributions sum to ${fmt(r.sentences.reduce((a, s) => a + s.words.reduce((b, w) => b + w.attribution, 0), 0))}` +
      `, log p(${r.label}) − log p at the baseline = ${fmt(e.f - e.fBaseline)}.`, 'completeness'),
  );
  p.error.textContent = '';
}

/**
 * Translate: t is the result of translate(text, { attribution: 'ig' }) (RNN or Transformer; a
 * Transformer's result may also carry `rollout`, drawn below the switch's maps).
 */
export function renderTranslateExplain(t) {
  const p = panel('tr');
  if (!t?.attribution) { clearPanel(p); return; }
  const a = t.attribution;
  const common = {
    rowLabels: t.tokens, colLabels: t.inputTokens, rowTitle: 'output', colTitle: 'input', cell: 24,
  };
  const att = t.heads ? 'last decoder layer’s cross-attention, mean over heads' : 'cross-attention';
  const maps = [
    { key: 'attention', title: `attention: ${att}, teacher-forced (float32)`, values: a.attention, rows: a.rows, cols: a.cols,
      opts: { ...common, max: 'data', valueLabel: 'attention', name: 'translate-attention' } },
    { key: 'attribution', title: 'attribution: integrated gradients to each output token’s log p', values: a.values, rows: a.rows, cols: a.cols,
      opts: { ...common, min: 'data', max: 'data', valueLabel: 'attribution', name: 'translate-attribution' } },
  ];
  if (t.rollout) {
    maps.push({ key: 'rollout', always: true, title: 'attention rollout of the encoder self-attention', values: t.rollout.values,
      rows: t.rollout.rows, cols: t.rollout.cols, opts: { rowLabels: t.inputTokens, colLabels: t.inputTokens,
        rowTitle: 'encoder position', colTitle: 'input', cell: 24, max: 'data', valueLabel: 'rollout', name: 'rollout' } });
  }
  drawMaps(p, explainMode('tr'), maps);
  const rm = a.removal;
  const names = (ix) => ix.map((i) => t.inputTokens[i] ?? '?').join(' ');
  p.stats.replaceChildren(
    statLine(`Kendall tau-b per output token: ${a.tau.map((x) => fmt(x, 2)).join(' · ')}; mean ${fmt(a.tauMean, 2)}`, 'tau'),
    statLine(`Removal check, p(output) = ${fmt(rm.prob)}: without the top ${rm.k} input${rm.k === 1 ? '' : 's'} by attention ` +
      `(${names(rm.byAttention.removed)}) ${fmt(rm.byAttention.prob)}; by attribution (${names(rm.byAttribution.removed)}) ` +
      `${fmt(rm.byAttribution.prob)}.`, 'removal'),
  );
  if (t.rollout) {
    p.stats.append(statLine('Transformer: attention is compared with attribution on the last decoder layer’s cross-attention ' +
      'averaged over its heads; the map below the switch’s is the attention rollout (Abnar & Zuidema 2020) of the ' +
      'encoder self-attention: how much each input flows into each encoder position through all layers (head mean ' +
      'plus the residual, rows renormalized, multiplied over the layers).', 'rollout'));
  }
  p.error.textContent = '';
}

const HINT = 'Switch to attribution or both to compute integrated gradients for this input ' +
  '(the map above shows the attention).';

/** HAN: after a classification, the attribution call (when the switch asks for it) and its panel. */
export async function explainHan(call, url, text, isCurrent) {
  const p = panel('han');
  if (!p.mode) return;
  if (explainMode('han') === 'attention') { clearPanel(p); p.stats.append(statLine(HINT, 'hint')); return; }
  try {
    const r = await call('classify', { url, text, attribution: 'ig', steps: STEPS });
    if (isCurrent()) renderHanExplain(r);
  } catch (e) {
    if (isCurrent()) clearPanel(p, e.message);
  }
}

/**
 * Translate: the same for a seq2seq model (m: its manifest entry; RNN or Transformer, whose
 * result also brings the rollout of its encoder self-attention).
 */
export async function explainTranslate(call, m, args, isCurrent) {
  const p = panel('tr');
  if (!p.mode) return;
  if (explainMode('tr') === 'attention') { clearPanel(p); p.stats.append(statLine(HINT, 'hint')); return; }
  try {
    const rollout = m.kind === 'transformer-seq2seq';
    const r = await call('translate', { url: m.url, ...args, attribution: 'ig', steps: STEPS, rollout });
    if (isCurrent()) renderTranslateExplain(r);
  } catch (e) {
    if (isCurrent()) clearPanel(p, e.message);
  }
}

/** Fills the caption and wires the switch (onChange reruns the view). */
export function initExplain(prefix, onChange) {
  buildPanel(prefix);
  const p = panel(prefix);
  if (!p.mode) return;
  p.caption.textContent = CAPTION;
  p.mode.addEventListener('change', onChange);
}

/** Empties a view's panel (its result was cleared). */
export function clearExplain(prefix) {
  const p = panel(prefix);
  if (p.mode) clearPanel(p);
}
