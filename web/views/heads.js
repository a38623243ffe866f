// Head view for Transformer models (in the style of bertviz): the attention of one
// layer as thumbnails, one per head, on one colour scale (0..1, so heads compare,
// with one legend for the group) or each on its own maximum; click a thumbnail to
// enlarge it with its labels. Cross-attention (outputs x inputs),
// encoder self-attention (inputs x inputs) and decoder self-attention (outputs x
// outputs). Two models can be shown side by side on the same input, e.g. one trained
// with disagreement regularization and one without.
import { heatmap, colorLegend } from '../lib/plot.js';

export const ATTENTIONS = [
  { key: 'cross', label: 'cross-attention (outputs × inputs)' },
  { key: 'encSelf', label: 'encoder self-attention (inputs × inputs)' },
  { key: 'decSelf', label: 'decoder self-attention (outputs × outputs)' },
];

/** Labels of a head map's rows and columns for one attention kind. */
export function axisLabels(kind, r) {
  if (kind === 'cross') return { rows: r.tokens, cols: r.inputTokens, y: 'output', x: 'input' };
  if (kind === 'encSelf') return { rows: r.inputTokens, cols: r.inputTokens, y: 'input (query)', x: 'input (key)' };
  return { rows: r.tokens, cols: ['<s>', ...r.tokens].slice(0, r.tokens.length), y: 'output (query)', x: 'previous output (key)' };
}

/** Masked cells of a head map: decoder self-attention is causal (query i sees keys 0..i). */
export function headMask(kind, rows, cols) {
  if (kind !== 'decSelf') return null;
  const m = new Uint8Array(rows * cols);
  for (let r = 0; r < rows; ++r) for (let c = r + 1; c < cols; ++c) m[r * cols + c] = 1;
  return m;
}

/** One head's (rows, cols) map out of a HeadMaps (layers, heads, rows, cols). */
export function headSlice(maps, layer, head) {
  const n = maps.rows * maps.cols;
  const at = (layer * maps.heads + head) * n;
  return maps.data.subarray(at, at + n);
}

/** Mean cosine similarity of the flattened maps over pairs of distinct heads (1 = identical). */
export function layerSimilarity(maps, layer) {
  const H = maps.heads;
  if (H < 2) return NaN;
  const hs = Array.from({ length: H }, (_, h) => headSlice(maps, layer, h));
  const norm = hs.map((a) => Math.sqrt(a.reduce((s, x) => s + x * x, 0)));
  let sum = 0, pairs = 0;
  for (let i = 0; i < H; ++i) {
    for (let j = i + 1; j < H; ++j) {
      let d = 0;
      for (let e = 0; e < hs[i].length; ++e) d += hs[i][e] * hs[j][e];
      sum += norm[i] > 0 && norm[j] > 0 ? d / (norm[i] * norm[j]) : 0;
      ++pairs;
    }
  }
  return sum / pairs;
}

/**
 * Renders one model's heads of `layer` (or every layer when layer === 'all') into
 * container; `selected` {layer, head} is drawn enlarged below the thumbnails.
 * onSelect(layer, head) is called when a thumbnail is clicked or activated by keyboard.
 * scale: 'shared' (every head on 0..1, one legend for the group) or 'own' (each head
 * up to its own maximum, stated under it).
 */
export function renderHeads(container, r, { kind = 'cross', layer = 0, selected = null, title = '', onSelect = () => {},
  scale = 'shared' } = {}) {
  const maps = r.heads?.[kind];
  container.replaceChildren();
  if (!maps || !maps.rows || !maps.cols) {
    const p = document.createElement('p');
    p.className = 'stat';
    p.textContent = 'no attention of this kind for this input';
    container.append(p);
    return;
  }
  const lab = axisLabels(kind, r);
  if (title) {
    const h = document.createElement('h4');
    h.textContent = title;
    container.append(h);
  }
  const shared = scale !== 'own';
  const mask = headMask(kind, maps.rows, maps.cols);
  colorLegend(container, shared ? { min: 0, max: 1, label: 'attention weight', masked: Boolean(mask),
    note: 'one scale for every head of this group' }
    : { min: 0, max: 1, maxText: 'each head’s maximum', label: 'attention weight', masked: Boolean(mask),
      note: 'each head on its own scale (its maximum under it): shapes compare, strengths do not' });
  const layers = layer === 'all' ? [...Array(maps.layers).keys()] : [Number(layer)];
  const cell = Math.max(3, Math.min(10, Math.floor(120 / Math.max(maps.rows, maps.cols))));
  for (const l of layers) {
    const row = document.createElement('div');
    row.className = 'head-row';
    const cap = document.createElement('p');
    cap.className = 'stat';
    cap.textContent = `layer ${l + 1}: mean similarity between heads ${layerSimilarity(maps, l).toFixed(3)}`;
    cap.dataset.similarity = layerSimilarity(maps, l).toFixed(4);
    container.append(cap);
    for (let h = 0; h < maps.heads; ++h) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'head-thumb';
      b.dataset.layer = String(l);
      b.dataset.head = String(h);
      b.setAttribute('aria-label', `layer ${l + 1}, head ${h + 1}: enlarge`);
      if (selected && selected.layer === l && selected.head === h) b.setAttribute('aria-pressed', 'true');
      const holder = document.createElement('div');
      const hm = heatmap(holder, headSlice(maps, l, h), maps.rows, maps.cols, { cell, max: shared ? 1 : 'data', mask,
        compact: true, title: `layer ${l + 1} head ${h + 1}` });
      const cap2 = document.createElement('span');
      cap2.textContent = shared ? `head ${h + 1}` : `head ${h + 1} · max ${hm.heatmap.max.toFixed(2)}`;
      b.append(holder, cap2);
      b.addEventListener('click', () => onSelect(l, h));
      row.append(b);
    }
    container.append(row);
  }
  if (selected && selected.layer < maps.layers && selected.head < maps.heads) {
    const big = document.createElement('div');
    big.className = 'head-big';
    heatmap(big, headSlice(maps, selected.layer, selected.head), maps.rows, maps.cols, {
      rowLabels: lab.rows, colLabels: lab.cols, cell: 22, max: shared ? 1 : 'data', mask, legend: !shared,
      rowTitle: lab.y, colTitle: lab.x, valueLabel: 'attention weight', name: `layer-${selected.layer + 1}-head-${selected.head + 1}`,
      title: `${title ? `${title}: ` : ''}layer ${selected.layer + 1}, head ${selected.head + 1}`,
    });
    const cap3 = document.createElement('p');
    cap3.className = 'stat';
    cap3.textContent = `layer ${selected.layer + 1}, head ${selected.head + 1} — rows: ${lab.y}; columns: ${lab.x}; ` +
      (shared ? 'colour 0 (white) to 1 (blue), the same scale as every head above' : 'colour up to this head’s own maximum');
    container.append(cap3, big);
  }
}
