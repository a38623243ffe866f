// Small, dependency-free drawing helpers: line charts (SVG), heatmaps
// (canvas, values on hover), bars, and export of a canvas as PNG / data as JSON.
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

/** Blue scale for weights in [0, 1]. */
export function weightColor(w) {
  const t = Math.max(0, Math.min(1, w));
  const c = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${c(247, 33)},${c(251, 80)},${c(255, 190)})`;
}

/**
 * Heatmap of a rows x cols Float32Array with row/col labels; hover shows the value.
 * Colours span [0, max] (values above max saturate).
 * Returns the canvas (for PNG export).
 */
export function heatmap(container, values, rows, cols, { rowLabels = [], colLabels = [], cell = 26, title = '', max = 1 } = {}) {
  const padL = 8 + 9 * Math.max(1, ...rowLabels.map((s) => String(s).length));
  const padT = 8 + 9 * Math.max(1, ...colLabels.map((s) => String(s).length));
  const canvas = document.createElement('canvas');
  const dpr = window.devicePixelRatio || 1;
  const w = padL + cols * cell + 4, h = padT + rows * cell + 4;
  canvas.width = w * dpr;
  canvas.height = h * dpr;
  canvas.style.width = `${w}px`;
  canvas.style.maxWidth = '100%';
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', title || 'attention heatmap');
  const g = canvas.getContext('2d');
  g.scale(dpr, dpr);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, w, h);
  g.font = '12px system-ui, sans-serif';
  g.fillStyle = '#1d2330';
  g.textAlign = 'right';
  g.textBaseline = 'middle';
  rowLabels.forEach((s, r) => g.fillText(String(s), padL - 4, padT + r * cell + cell / 2));
  g.save();
  colLabels.forEach((s, c) => {
    g.save();
    g.translate(padL + c * cell + cell / 2, padT - 4);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'left';
    g.fillText(String(s), 0, 0);
    g.restore();
  });
  g.restore();
  for (let r = 0; r < rows; ++r) {
    for (let c = 0; c < cols; ++c) {
      g.fillStyle = weightColor(values[r * cols + c] / (max > 0 ? max : 1));
      g.fillRect(padL + c * cell, padT + r * cell, cell - 1, cell - 1);
    }
  }
  const tip = document.createElement('div');
  tip.className = 'tip';
  tip.hidden = true;
  canvas.addEventListener('mousemove', (ev) => {
    const rect = canvas.getBoundingClientRect();
    const sx = w / rect.width;
    const x = (ev.clientX - rect.left) * sx - padL, y = (ev.clientY - rect.top) * sx - padT;
    const c = Math.floor(x / cell), r = Math.floor(y / cell);
    if (r < 0 || c < 0 || r >= rows || c >= cols) { tip.hidden = true; return; }
    tip.hidden = false;
    tip.textContent = `${rowLabels[r] ?? r} ← ${colLabels[c] ?? c}: ${values[r * cols + c].toFixed(3)}`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  const wrap = document.createElement('div');
  wrap.className = 'heatmap';
  wrap.append(canvas, tip);
  container.replaceChildren(wrap);
  return canvas;
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
  const blob = blobOrText instanceof Blob ? blobOrText : new Blob([blobOrText], { type });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function downloadCanvas(name, canvas) {
  canvas.toBlob((b) => b && download(name, b, 'image/png'), 'image/png');
}
