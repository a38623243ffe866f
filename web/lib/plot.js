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

// "nice" ticks that cover [lo, hi]: from a multiple of the step at or below lo to one at
// or above hi, the step 1, 2 or 5 times a power of ten, about target steps
export function niceTicks(lo, hi, target = 5) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw * (1 - 1e-9));
  const out = [];
  const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
  for (let k = first; k <= last; ++k) out.push(Math.abs(k * step) < step * 1e-9 ? 0 : k * step);
  return out;
}

/**
 * A line chart: series: [{ name, values: number[], color?, dashed? }] over x = 1..n
 * (epochs). Axis titles (xLabel, yLabel), ticks on both axes, and a legend under the
 * plot (never on the lines). Returns the svg.
 */
export function lineChart(container, series, { width = 420, height = 220, xLabel = '', yLabel = '' } = {}) {
  const L = 58, R = 12, T = 10, B = 40;
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  const n = Math.max(2, ...series.map((s) => s.values.length));
  let lo = Math.min(...all), hi = Math.max(...all);
  if (!all.length) { lo = 0; hi = 1; }
  if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
  const yTicks = niceTicks(lo, hi, 4);
  lo = yTicks[0]; hi = yTicks.at(-1);
  const X = (i) => L + (i / (n - 1)) * (width - L - R);  // i = 0..n-1 is epoch i + 1
  const Y = (v) => T + ((hi - v) / (hi - lo)) * (height - T - B);
  // drawn at its size (shrunk on narrow screens, never enlarged): 11 px ticks, 12 px titles
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': `${yLabel || 'value'} by ${xLabel || 'step'}: ${series.map((s) => s.name).join(', ')}` });
  svg.classList.add('line-chart');
  const ink = 'currentColor';
  el('line', { x1: L, y1: height - B, x2: width - R, y2: height - B, stroke: '#8a93a6' }, svg);
  el('line', { x1: L, y1: T, x2: L, y2: height - B, stroke: '#8a93a6' }, svg);
  const digits = Math.max(0, Math.min(4, -Math.floor(Math.log10(Math.max(1e-12, (yTicks[1] ?? hi) - yTicks[0])))));
  for (const v of yTicks) {
    el('line', { x1: L - 4, y1: Y(v), x2: width - R, y2: Y(v), stroke: '#8a93a6', 'stroke-opacity': 0.25 }, svg);
    const t = el('text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: ink, class: 'y-tick' }, svg);
    t.textContent = v.toFixed(digits);
  }
  // x ticks at whole steps (every one up to 10, then a nice stride)
  const stride = n <= 10 ? 1 : [2, 5, 10, 20, 50, 100, 200, 500].find((x) => n / x <= 10) ?? Math.ceil(n / 10);
  const xTicks = [1];
  for (let k = stride; k <= n; k += stride) if (k > 1) xTicks.push(k);
  for (const k of xTicks) {
    el('line', { x1: X(k - 1), y1: height - B, x2: X(k - 1), y2: height - B + 4, stroke: '#8a93a6' }, svg);
    const t = el('text', { x: X(k - 1), y: height - B + 15, 'text-anchor': 'middle', 'font-size': 11, fill: ink, class: 'x-tick' }, svg);
    t.textContent = String(k);
  }
  const xl = el('text', { x: (L + width - R) / 2, y: height - 4, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 600,
    fill: ink, class: 'x-title' }, svg);
  xl.textContent = xLabel;
  const yl = el('text', { transform: `translate(13 ${(T + height - B) / 2}) rotate(-90)`, 'text-anchor': 'middle', 'font-size': 12,
    'font-weight': 600, fill: ink, class: 'y-title' }, svg);
  yl.textContent = yLabel;
  series.forEach((s, k) => {
    const pts = s.values.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(' ');
    el('polyline', { points: pts, fill: 'none', stroke: s.color || PALETTE[k % PALETTE.length], 'stroke-width': 2,
      'stroke-dasharray': s.dashed ? '4 3' : '' }, svg);
  });
  // the legend sits under the plot, one swatch (solid or dashed, as drawn) per series
  const legend = document.createElement('ul');
  legend.className = 'chart-legend';
  for (const [k, s] of series.entries()) {
    const li = document.createElement('li');
    const sw = el('svg', { width: 22, height: 10, 'aria-hidden': 'true' });
    el('line', { x1: 1, y1: 5, x2: 21, y2: 5, stroke: s.color || PALETTE[k % PALETTE.length], 'stroke-width': 2,
      'stroke-dasharray': s.dashed ? '4 3' : '' }, sw);
    li.append(sw, s.name);
    legend.append(li);
  }
  container.replaceChildren(svg, legend);
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
