// Small, dependency-free drawing helpers: line charts (SVG), heatmaps (see
// heatmap.js), bars, and file downloads.
import { weightColor } from './color.js';
import { heatmap, colorLegend, saveAs } from './heatmap.js';

export { weightColor, heatmap, colorLegend };
const NS = 'http://www.w3.org/2000/svg';
const el = (tag, attrs = {}, parent) => {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent?.append(e);
  return e;
};

export const PALETTE = ['#3457d5', '#c2185b', '#2e7d32', '#d08c00', '#6a1b9a', '#00838f'];

/** series: [{ name, values: number[], color?, dashed? }] */
export function lineChart(container, series, { width = 420, height = 200, xLabel = '', yLabel = '' } = {}) {
  const L = 44, R = 10, T = 10, B = 28;
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  const n = Math.max(2, ...series.map((s) => s.values.length));
  let lo = Math.min(...all), hi = Math.max(...all);
  if (!all.length) { lo = 0; hi = 1; }
  if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
  const X = (i) => L + (i / (n - 1)) * (width - L - R);
  const Y = (v) => T + ((hi - v) / (hi - lo)) * (height - T - B);
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': yLabel || 'chart' });
  el('line', { x1: L, y1: height - B, x2: width - R, y2: height - B, stroke: '#999' }, svg);
  el('line', { x1: L, y1: T, x2: L, y2: height - B, stroke: '#999' }, svg);
  for (const v of [lo, (lo + hi) / 2, hi]) {
    const t = el('text', { x: L - 4, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 10 }, svg);
    t.textContent = v.toFixed(v < 10 ? 3 : 1);
  }
  const xl = el('text', { x: (L + width - R) / 2, y: height - 6, 'text-anchor': 'middle', 'font-size': 10 }, svg);
  xl.textContent = xLabel;
  series.forEach((s, k) => {
    const pts = s.values.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(' ');
    el('polyline', { points: pts, fill: 'none', stroke: s.color || PALETTE[k % PALETTE.length], 'stroke-width': 2,
      'stroke-dasharray': s.dashed ? '4 3' : '' }, svg);
    const lg = el('text', { x: width - R - 4, y: T + 12 + 12 * k, 'text-anchor': 'end', 'font-size': 10,
      fill: s.color || PALETTE[k % PALETTE.length] }, svg);
    lg.textContent = s.name;
  });
  container.replaceChildren(svg);
  return svg;
}

export function bars(container, labels, values, { max = 1, digits = 3 } = {}) {
  container.replaceChildren(...values.map((v, i) => {
    const row = document.createElement('div');
    row.className = 'bar';
    const l = document.createElement('span');
    l.textContent = labels[i];
    const track = document.createElement('span');
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = `${Math.max(0, Math.min(100, (100 * v) / max)).toFixed(1)}%`;
    track.append(fill);
    const n = document.createElement('span');
    n.className = 'val';
    n.textContent = v.toFixed(digits);
    row.append(l, track, n);
    return row;
  }));
}

export function download(name, blobOrText, type = 'application/json') {
  saveAs(name, blobOrText, type);
}
