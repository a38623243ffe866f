// The one heatmap of the page: a rows x cols map of values on a canvas, with
//  - a colour legend stating the scale (own, from the data, or shared between
//    maps so that e.g. the heads of a layer compare), and a swatch for masked cells;
//  - axis titles (what the rows and the columns are) and row / column labels
//    at a fixed 12 px that never overlap (labels that would collide are skipped;
//    a big map scrolls sideways instead of shrinking);
//  - hover highlighting of the row and the column (and a callback, so a view can
//    highlight the matching tokens);
//  - keyboard navigation of the cells (arrow keys, Home/End, PageUp/PageDown on
//    the focusable canvas) with the value announced in an aria-live region;
//  - a table of the values in a <details> (built when opened);
//  - masked cells (a mask, or NaN / -Infinity values) hatched grey, never
//    mistaken for zero weights;
//  - export of the shown map as PNG, SVG, CSV and JSON.
import { weightColor } from './color.js';

export const LABEL_PX = 12;  // label font size in CSS pixels
const FONT = `${LABEL_PX}px system-ui, sans-serif`;
const TITLE_FONT = `600 ${LABEL_PX}px system-ui, sans-serif`;
const TITLE_BAND = 18;       // room for an axis title
const MASK_FILL = '#d5d9e2', MASK_LINE = '#7b8497';
const INK = '#1d2330', MUTED = '#5b6475', ACCENT = '#b4540a';

/** A value as shown in tips, tables and the legend. */
export function formatValue(v, digits = 3) {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  return Math.abs(v) >= 1e4 ? v.toExponential(2) : v.toFixed(digits);
}

const slug = (s) => String(s || 'heatmap').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'heatmap';

/**
 * A colour legend: the ramp from min to max with its values, the label of the
 * quantity, and (when masked) the swatch of masked cells. Used by every heatmap,
 * and once per group when several maps share one scale.
 */
export function colorLegend(container, { min = 0, max = 1, label = 'value', masked = false, digits = 3, note = '', minText = '', maxText = '' } = {}) {
  const div = document.createElement('div');
  div.className = 'hm-legend';
  div.dataset.min = String(min);
  div.dataset.max = String(max);
  const name = document.createElement('span');
  name.className = 'hm-legend-label';
  name.textContent = `${label}:`;
  const lo = document.createElement('span');
  lo.className = 'hm-legend-min';
  lo.textContent = minText || formatValue(min, digits);
  const ramp = document.createElement('span');
  ramp.className = 'hm-ramp';
  ramp.setAttribute('aria-hidden', 'true');
  ramp.style.background = `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((t) => weightColor(t)).join(', ')})`;
  const hi = document.createElement('span');
  hi.className = 'hm-legend-max';
  hi.textContent = maxText || formatValue(max, digits);
  div.append(name, lo, ramp, hi);
  const sr = document.createElement('span');
  sr.className = 'visually-hidden';
  sr.textContent = ` (light ${lo.textContent} to dark ${hi.textContent}; values outside are drawn at the ends)`;
  div.append(sr);
  if (masked) {
    const m = document.createElement('span');
    m.className = 'hm-legend-masked';
    const sw = document.createElement('span');
    sw.className = 'hm-swatch-masked';
    sw.setAttribute('aria-hidden', 'true');
    m.append(sw, 'masked (not attended)');
    div.append(m);
  }
  if (note) {
    const n = document.createElement('span');
    n.className = 'hm-legend-note';
    n.textContent = note;
    div.append(n);
  }
  container?.append(div);
  return div;
}

// indices of the labels to draw so that consecutive drawn labels are >= gap px apart
function spaced(labels, pitch, gap) {
  const out = [];
  let last = -Infinity;
  labels.forEach((s, i) => {
    if (s === '' || s == null) return;
    if ((i - last) * pitch >= gap) { out.push(i); last = i; }
  });
  return out;
}

function hatchPattern(g, dpr) {
  const p = document.createElement('canvas');
  const n = Math.max(1, Math.round(6 * dpr));
  p.width = p.height = n;
  const q = p.getContext('2d');
  q.fillStyle = MASK_FILL;
  q.fillRect(0, 0, n, n);
  q.strokeStyle = MASK_LINE;
  q.lineWidth = Math.max(1, dpr);
  q.beginPath();
  q.moveTo(0, n); q.lineTo(n, 0);
  q.moveTo(-n / 2, n / 2); q.lineTo(n / 2, -n / 2);
  q.moveTo(n / 2, n + n / 2); q.lineTo(n + n / 2, n / 2);
  q.stroke();
  const pat = g.createPattern(p, 'repeat');
  pat.setTransform?.(new DOMMatrix().scale(1 / dpr));
  return pat;
}

/**
 * Heatmap of a rows x cols array (row-major) into container. Returns the canvas.
 * Options (all optional):
 *   rowLabels, colLabels   labels of the rows and columns
 *   rowTitle, colTitle     axis titles: what the rows and the columns are
 *   title                  the map's name (accessible name, export file names)
 *   cell | cellW, cellH    cell size in CSS px (default 26)
 *   min, max               colour scale: numbers (shared between maps: pass the same
 *                          ones) or 'data' for this map's own min / max (default 0..1)
 *   valueLabel             what the values are, for the legend (default 'weight')
 *   rowLabelGap            least distance in px between drawn row labels (default 12)
 *   mask                   array of rows*cols, truthy = masked; NaN and -Infinity are masked too
 *   digits                 decimals shown (default 3)
 *   cellLabel(r, c)        extra text for a cell (e.g. the word at that position)
 *   onHover(r, c)          called with the hovered / focused cell, (-1, -1) when none
 *   decorate(g, layout)    draws extra marks over the map (also in PNG export)
 *   legend                 false: no legend (a group legend is shown elsewhere)
 *   compact                true: the picture only (thumbnails): no labels, legend,
 *                          keyboard, table or export
 *   name                   base of export file names
 *   meta                   what the map is of, e.g. { model, input, output }: kept in the
 *                          JSON export and written under the legend of the PNG and SVG
 */
export function heatmap(container, values, rows, cols, opts = {}) {
  const {
    rowLabels = [], colLabels = [], rowTitle = '', colTitle = '', title = '', cell = 26,
    valueLabel = 'weight', digits = 3, cellLabel = null, onHover = null, decorate = null,
    legend = true, compact = false, mask = null,
  } = opts;
  const cellW = opts.cellW ?? cell, cellH = opts.cellH ?? cell;
  const n = rows * cols;
  const isMasked = (i) => Boolean(mask && mask[i]) || Number.isNaN(values[i]) || values[i] === -Infinity;
  let maskedCount = 0, dmin = Infinity, dmax = -Infinity;
  for (let i = 0; i < n; ++i) {
    if (isMasked(i)) { ++maskedCount; continue; }
    const v = values[i];
    if (Number.isFinite(v)) { dmin = Math.min(dmin, v); dmax = Math.max(dmax, v); }
  }
  if (dmin > dmax) { dmin = 0; dmax = 1; }
  let min = opts.min === 'data' ? dmin : opts.min ?? 0;
  let max = opts.max === 'data' ? dmax : opts.max ?? 1;
  if (!(max > min)) max = min + (Math.abs(min) > 0 ? Math.abs(min) * 1e-3 : 1);
  const colour = (v) => (v === Infinity ? weightColor(1) : weightColor((v - min) / (max - min)));
  const rl = (r) => String(rowLabels[r] ?? ''), cl = (c) => String(colLabels[c] ?? '');
  const rowName = (r) => rl(r) || String(r + 1), colName = (c) => cl(c) || String(c + 1);

  // layout (CSS px)
  const canvas = document.createElement('canvas');
  const g = canvas.getContext('2d');
  g.font = FONT;
  const showLabels = !compact;
  const rowW = showLabels ? Math.max(0, ...rowLabels.map((s) => g.measureText(String(s)).width)) : 0;
  const colWs = showLabels ? colLabels.map((s) => g.measureText(String(s)).width) : [];
  const colMax = Math.max(0, ...colWs);
  const colHoriz = colMax <= cellW;  // labels that fit a column stay upright (single characters, short names)
  const rowTitleOn = showLabels && rowTitle, colTitleOn = showLabels && colTitle;
  const padL = (compact ? 1 : 6) + (rowTitleOn ? TITLE_BAND : 0) + (rowW ? Math.ceil(rowW) + 6 : 0);
  const padT = (compact ? 1 : 6) + (colTitleOn ? TITLE_BAND : 0) +
    (colMax ? (colHoriz ? LABEL_PX + 6 : Math.ceil(colMax) + 6) : 0);
  // the axis titles fit: the column title from the first column, the row title centred on the rows
  g.font = TITLE_FONT;
  const colTitleW = colTitleOn ? g.measureText(`${colTitle} →`).width : 0;
  const rowTitleW = rowTitleOn ? g.measureText(rowTitle).width : 0;
  g.font = FONT;
  const rowTitleY = Math.max(padT + rowTitleW / 2, padT + (rows * cellH) / 2);
  const w = Math.ceil(Math.max(padL + cols * cellW + (compact ? 1 : 6), padL + colTitleW + 6));
  const h = Math.ceil(Math.max(padT + rows * cellH + (compact ? 1 : 6), rowTitleY + rowTitleW / 2 + 6));
  const rowShown = showLabels ? spaced(rowLabels.slice(0, rows), cellH, Math.max(LABEL_PX, opts.rowLabelGap ?? 0)) : [];
  const colShown = showLabels ? spaced(colLabels.slice(0, cols), cellW, colHoriz ? colMax : LABEL_PX) : [];
  const layout = { padL, padT, cellW, cellH, rows, cols, width: w, height: h, rowTitleY };
  const gap = cellW >= 6 && cellH >= 6 ? 1 : 0;

  function draw(ctx, dpr, hl = null, focus = null) {
    ctx.save();
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    ctx.textBaseline = 'middle';
    if (colTitleOn) {
      ctx.font = TITLE_FONT;
      ctx.fillStyle = MUTED;
      // from the first column, so a map scrolled on a phone shows it
      ctx.textAlign = 'left';
      ctx.fillText(`${colTitle} →`, padL, 6 + TITLE_BAND / 2 - 2);
    }
    if (rowTitleOn) {
      ctx.font = TITLE_FONT;
      ctx.fillStyle = MUTED;
      ctx.save();
      ctx.translate(6 + TITLE_BAND / 2 - 2, rowTitleY);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
      ctx.fillText(rowTitle, 0, 0);
      ctx.restore();
    }
    const label = (on) => {
      ctx.font = on ? `700 ${LABEL_PX}px system-ui, sans-serif` : FONT;
      ctx.fillStyle = on ? ACCENT : INK;
    };
    ctx.textAlign = 'right';
    for (const r of rowShown) {
      label(hl && hl.r === r);
      ctx.fillText(rl(r), padL - 4, padT + r * cellH + cellH / 2);
    }
    if (hl && hl.r >= 0 && !rowShown.includes(hl.r) && rl(hl.r)) {
      label(true);
      ctx.fillText(rl(hl.r), padL - 4, padT + hl.r * cellH + cellH / 2);
    }
    const colText = (c) => {
      if (colHoriz) {
        ctx.textAlign = 'center';
        ctx.fillText(cl(c), padL + c * cellW + cellW / 2, padT - 3 - LABEL_PX / 2);
      } else {
        ctx.save();
        ctx.translate(padL + c * cellW + cellW / 2, padT - 4);
        ctx.rotate(-Math.PI / 2);
        ctx.textAlign = 'left';
        ctx.fillText(cl(c), 0, 0);
        ctx.restore();
      }
    };
    for (const c of colShown) { label(hl && hl.c === c); colText(c); }
    if (hl && hl.c >= 0 && !colShown.includes(hl.c) && cl(hl.c)) { label(true); colText(hl.c); }
    let pat = null;
    for (let r = 0; r < rows; ++r) {
      for (let c = 0; c < cols; ++c) {
        const i = r * cols + c;
        if (isMasked(i)) ctx.fillStyle = pat ||= hatchPattern(ctx, dpr);
        else ctx.fillStyle = colour(values[i]);
        ctx.fillRect(padL + c * cellW, padT + r * cellH, cellW - gap, cellH - gap);
      }
    }
    decorate?.(ctx, layout);
    const mark = hl && hl.r >= 0 ? hl : focus;
    if (mark && mark.r >= 0) {
      // the row and the column as bands, the cell outlined
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = ACCENT;
      ctx.strokeRect(padL - 0.5, padT + mark.r * cellH - 0.5, cols * cellW, cellH);
      ctx.strokeRect(padL + mark.c * cellW - 0.5, padT - 0.5, cellW, rows * cellH);
      ctx.lineWidth = 3;
      ctx.strokeStyle = INK;
      ctx.strokeRect(padL + mark.c * cellW - 1, padT + mark.r * cellH - 1, cellW + 1, cellH + 1);
    }
    ctx.restore();
  }

  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  g.scale(dpr, dpr);
  const axes = rowTitle || colTitle ? ` (rows: ${rowTitle || 'rows'}, columns: ${colTitle || 'columns'})` : '';
  canvas.setAttribute('aria-label', `${title || 'heatmap'}${axes}, ${rows} × ${cols}`);
  Object.assign(canvas.dataset, {
    rows: String(rows), cols: String(cols), rowTitle, colTitle, labelPx: String(LABEL_PX),
    cssWidth: String(w), min: String(min), max: String(max), masked: String(maskedCount),
  });
  draw(g, dpr);
  canvas.heatmap = { layout, min, max, maskedCount };
  if (compact) {
    canvas.setAttribute('role', 'img');
    canvas.className = 'hm-compact';
    container.replaceChildren(canvas);
    return canvas;
  }

  const wrap = document.createElement('div');
  wrap.className = 'heatmap';
  const scroller = document.createElement('div');
  scroller.className = 'hm-scroll';
  scroller.append(canvas);
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-roledescription', 'heatmap');
  const help = document.createElement('span');
  help.className = 'visually-hidden';
  help.id = `hm-help-${Math.random().toString(36).slice(2, 10)}`;
  help.textContent = 'Arrow keys move between cells, Home and End go to the row ends, Page Up and Page Down to the column ends; the value is read out.';
  canvas.setAttribute('aria-describedby', help.id);
  const tip = document.createElement('div');
  tip.className = 'tip';  // keeps its line when empty, so nothing below moves under the pointer
  const live = document.createElement('p');
  live.className = 'hm-live visually-hidden';
  live.setAttribute('aria-live', 'polite');
  live.setAttribute('aria-atomic', 'true');

  const describe = (r, c) => {
    const i = r * cols + c;
    const extra = cellLabel ? cellLabel(r, c) : '';
    const v = isMasked(i) ? 'masked' : formatValue(values[i], digits);
    return `${rowTitle || 'row'} ${r + 1} “${rowName(r)}”, ${colTitle || 'column'} ${c + 1} “${colName(c)}”` +
      `${extra ? ` (${extra})` : ''}: ${v}`;
  };
  const show = (on) => tip.classList.toggle('on', on);
  let hover = null, cursor = { r: 0, c: 0 }, focused = false;
  const redraw = () => { g.setTransform(dpr, 0, 0, dpr, 0, 0); draw(g, dpr, hover, focused ? cursor : null); };
  const cellAt = (ev) => {
    const rect = canvas.getBoundingClientRect();
    const s = w / rect.width;
    const x = (ev.clientX - rect.left) * s - padL, y = (ev.clientY - rect.top) * s - padT;
    const c = Math.floor(x / cellW), r = Math.floor(y / cellH);
    return r < 0 || c < 0 || r >= rows || c >= cols ? null : { r, c };
  };
  canvas.addEventListener('mousemove', (ev) => {
    const at = cellAt(ev);
    if (at?.r === hover?.r && at?.c === hover?.c) return;
    hover = at;
    redraw();
    if (!at) { show(false); onHover?.(-1, -1); return; }
    show(true);
    tip.textContent = describe(at.r, at.c);
    onHover?.(at.r, at.c);
  });
  canvas.addEventListener('mouseleave', () => {
    hover = null;
    redraw();
    if (!focused) show(false);
    onHover?.(-1, -1);
  });
  canvas.addEventListener('click', (ev) => {
    const at = cellAt(ev);
    if (at) cursor = at;
  });
  const announce = () => {
    const text = describe(cursor.r, cursor.c);
    live.textContent = text;
    show(true);
    tip.textContent = text;
    canvas.dataset.cursor = `${cursor.r},${cursor.c}`;
    // keep the cell in view in a scrolled map
    const x = padL + cursor.c * cellW;
    if (x < scroller.scrollLeft + padL) scroller.scrollLeft = Math.max(0, x - padL);
    else if (x + cellW > scroller.scrollLeft + scroller.clientWidth) scroller.scrollLeft = x + cellW - scroller.clientWidth + 8;
    onHover?.(cursor.r, cursor.c);
  };
  canvas.addEventListener('focus', () => { focused = true; redraw(); announce(); });
  canvas.addEventListener('blur', () => { focused = false; redraw(); show(false); onHover?.(-1, -1); });
  canvas.addEventListener('keydown', (ev) => {
    const moves = {
      ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0],
      Home: [0, -cols], End: [0, cols], PageUp: [-rows, 0], PageDown: [rows, 0],
    };
    const m = moves[ev.key];
    if (!m) return;
    ev.preventDefault();
    cursor = { r: Math.max(0, Math.min(rows - 1, cursor.r + m[0])), c: Math.max(0, Math.min(cols - 1, cursor.c + m[1])) };
    redraw();
    announce();
  });

  // the values as a table, built when first opened
  const details = document.createElement('details');
  details.className = 'hm-table';
  const summary = document.createElement('summary');
  summary.textContent = `values as a table (${rows} × ${cols})`;
  details.append(summary);
  details.addEventListener('toggle', () => {
    if (!details.open || details.querySelector('table')) return;
    const box = document.createElement('div');
    box.className = 'hm-table-scroll';
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', `${title || 'heatmap'}: values`);
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = `${title || 'heatmap'}: rows ${rowTitle || 'rows'}, columns ${colTitle || 'columns'}`;
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    const corner = document.createElement('th');
    corner.scope = 'col';
    corner.textContent = `${rowTitle || 'row'} \\ ${colTitle || 'column'}`;
    hr.append(corner);
    for (let c = 0; c < cols; ++c) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = colName(c);
      hr.append(th);
    }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (let r = 0; r < rows; ++r) {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = rowName(r);
      tr.append(th);
      for (let c = 0; c < cols; ++c) {
        const td = document.createElement('td');
        const i = r * cols + c;
        td.textContent = isMasked(i) ? '—' : formatValue(values[i], digits);
        if (isMasked(i)) td.title = 'masked';
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.append(cap, thead, tbody);
    box.append(table);
    details.append(box);
  });

  // export of what is shown
  const base = slug(opts.name || title);
  const exp = document.createElement('div');
  exp.className = 'hm-export';
  const expLabel = document.createElement('span');
  expLabel.textContent = 'export';
  exp.append(expLabel);
  const meta = opts.meta || null;
  const data = () => exportData({ values, rows, cols, rowLabels: Array.from({ length: rows }, (_, r) => rowName(r)),
    colLabels: Array.from({ length: cols }, (_, c) => colName(c)), rowTitle, colTitle, title, min, max, valueLabel, isMasked, meta });
  const formats = {
    png: () => exportPng(draw, w, h, { min, max, valueLabel, masked: maskedCount > 0, meta }, `${base}.png`),
    svg: () => saveAs(`${base}.svg`, toSvg(data(), { layout, rowShown, colShown, colHoriz, colour, decorate }), 'image/svg+xml'),
    csv: () => saveAs(`${base}.csv`, toCsv(data()), 'text/csv'),
    json: () => saveAs(`${base}.json`, JSON.stringify(data(), null, 1), 'application/json'),
  };
  for (const [fmt, fn] of Object.entries(formats)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `hm-${fmt}`;
    b.textContent = fmt.toUpperCase();
    b.setAttribute('aria-label', `export ${title || 'this map'} as ${fmt.toUpperCase()}`);
    b.addEventListener('click', fn);
    exp.append(b);
  }

  wrap.append(scroller, tip, live, help);
  if (legend) colorLegend(wrap, { min, max, label: valueLabel, masked: maskedCount > 0, digits });
  wrap.append(exp, details);
  container.replaceChildren(wrap);
  return canvas;
}

function exportData({ values, rows, cols, rowLabels, colLabels, rowTitle, colTitle, title, min, max, valueLabel, isMasked, meta }) {
  const grid = [], masked = [];
  for (let r = 0; r < rows; ++r) {
    const row = [];
    for (let c = 0; c < cols; ++c) {
      const i = r * cols + c;
      if (isMasked(i)) { row.push(null); masked.push([r, c]); } else row.push(Number.isFinite(values[i]) ? values[i] : null);
    }
    grid.push(row);
  }
  const d = { title, rowTitle, colTitle, valueLabel, rows, cols, rowLabels, colLabels, scale: { min, max }, values: grid, masked };
  return meta ? { meta, ...d } : d;
}

const csvField = (s) => (/[",\n\r]/.test(String(s)) ? `"${String(s).replace(/"/g, '""')}"` : String(s));

/** CSV of an exported map: a header of column labels, then one line per row (label first); masked cells empty. */
export function toCsv(d) {
  const lines = [[`${d.rowTitle || 'row'} \\ ${d.colTitle || 'column'}`, ...d.colLabels].map(csvField).join(',')];
  d.values.forEach((row, r) => lines.push([csvField(d.rowLabels[r]), ...row.map((v) => (v === null ? '' : String(v)))].join(',')));
  return `${lines.join('\n')}\n`;
}

// the lines written under an exported picture's legend: 'key: value' per entry of meta
const CAPTION_H = 16;
function captionLines(meta) {
  if (!meta) return [];
  return Object.entries(meta).filter(([, v]) => v != null && v !== '')
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`.replace(/\s+/g, ' ').slice(0, 160));
}

const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function toSvg(d, { layout: L, rowShown, colShown, colHoriz, colour, decorate }) {
  const legendH = 40, caption = captionLines(d.meta);
  const W = Math.ceil(Math.max(L.width, 260, ...caption.map((l) => l.length * 7 + 12))), H = L.height + legendH + caption.length * CAPTION_H;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="${LABEL_PX}">`,
    `<title>${xml(d.title || 'heatmap')}</title>`,
    `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${MASK_FILL}"/><path d="M0 6L6 0M-3 3L3 -3M3 9L9 3" stroke="${MASK_LINE}"/></pattern>`,
    `<linearGradient id="ramp">${[0, 0.25, 0.5, 0.75, 1].map((t) => `<stop offset="${t}" stop-color="${weightColor(t)}"/>`).join('')}</linearGradient></defs>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`];
  if (d.colTitle) out.push(`<text x="${L.padL}" y="${6 + TITLE_BAND / 2 + 2}" font-weight="600" fill="${MUTED}">${xml(d.colTitle)} →</text>`);
  if (d.rowTitle) out.push(`<text transform="translate(${6 + TITLE_BAND / 2 + 2} ${L.rowTitleY}) rotate(-90)" text-anchor="middle" font-weight="600" fill="${MUTED}">${xml(d.rowTitle)}</text>`);
  for (const r of rowShown) out.push(`<text x="${L.padL - 4}" y="${L.padT + r * L.cellH + L.cellH / 2 + 4}" text-anchor="end" fill="${INK}">${xml(d.rowLabels[r])}</text>`);
  for (const c of colShown) {
    const x = L.padL + c * L.cellW + L.cellW / 2;
    out.push(colHoriz ? `<text x="${x}" y="${L.padT - 5}" text-anchor="middle" fill="${INK}">${xml(d.colLabels[c])}</text>`
      : `<text transform="translate(${x + 4} ${L.padT - 4}) rotate(-90)" fill="${INK}">${xml(d.colLabels[c])}</text>`);
  }
  const gap = L.cellW >= 6 && L.cellH >= 6 ? 1 : 0;
  d.values.forEach((row, r) => row.forEach((v, c) => {
    const masked = v === null;
    out.push(`<rect x="${L.padL + c * L.cellW}" y="${L.padT + r * L.cellH}" width="${L.cellW - gap}" height="${L.cellH - gap}" ` +
      `fill="${masked ? 'url(#hatch)' : colour(v)}"><title>${xml(`${d.rowLabels[r]} / ${d.colLabels[c]}: ${masked ? 'masked' : v}`)}</title></rect>`);
  }));
  if (decorate) {
    // a view's extra marks (drawn on a canvas) as a transparent picture over the cells
    const c = document.createElement('canvas');
    c.width = L.width * 2;
    c.height = L.height * 2;
    const g = c.getContext('2d');
    g.scale(2, 2);
    decorate(g, L);
    out.push(`<image x="0" y="0" width="${L.width}" height="${L.height}" href="${c.toDataURL('image/png')}"/>`);
  }
  const y = L.height + 8;
  out.push(`<text x="6" y="${y + 12}" fill="${INK}">${xml(d.valueLabel)}: ${xml(formatValue(d.scale.min))}</text>`,
    `<rect x="120" y="${y + 2}" width="100" height="14" fill="url(#ramp)" stroke="${MUTED}"/>`,
    `<text x="226" y="${y + 12}" fill="${INK}">${xml(formatValue(d.scale.max))}</text>`);
  if (d.masked.length) out.push(`<rect x="6" y="${y + 20}" width="14" height="12" fill="url(#hatch)"/><text x="24" y="${y + 30}" fill="${INK}">masked</text>`);
  caption.forEach((line, i) => out.push(`<text x="6" y="${y + legendH - 8 + (i + 1) * CAPTION_H - 4}" fill="${INK}">${xml(line)}</text>`));
  out.push('</svg>');
  return out.join('\n');
}

let g0 = null;  // measures caption text

function exportPng(draw, w, h, { min, max, valueLabel, masked, meta }, name) {
  const caption = captionLines(meta);
  g0 ||= document.createElement('canvas').getContext('2d');
  g0.font = FONT;
  const legendH = 40, W = Math.ceil(Math.max(w, 260, ...caption.map((l) => g0.measureText(l).width + 12))),
    H = h + legendH + caption.length * CAPTION_H;
  const c = document.createElement('canvas');
  const dpr = 2;
  c.width = W * dpr;
  c.height = H * dpr;
  const g = c.getContext('2d');
  g.scale(dpr, dpr);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  draw(g, dpr);
  const y = h + 8;
  g.font = FONT;
  g.fillStyle = INK;
  g.textBaseline = 'middle';
  g.textAlign = 'left';
  g.fillText(`${valueLabel}: ${formatValue(min)}`, 6, y + 9);
  const grad = g.createLinearGradient(120, 0, 220, 0);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) grad.addColorStop(t, weightColor(t));
  g.fillStyle = grad;
  g.fillRect(120, y + 2, 100, 14);
  g.fillStyle = INK;
  g.fillText(formatValue(max), 226, y + 9);
  if (masked) {
    g.fillStyle = hatchPattern(g, dpr);
    g.fillRect(6, y + 20, 14, 12);
    g.fillStyle = INK;
    g.fillText('masked', 24, y + 26);
  }
  g.fillStyle = INK;
  caption.forEach((line, i) => g.fillText(line, 6, y + legendH - 8 + (i + 1) * CAPTION_H - 8));
  c.toBlob((b) => b && saveAs(name, b, 'image/png'), 'image/png');
}

/** Saves a Blob or a string as a file download. */
export function saveAs(name, blobOrText, type = 'application/json') {
  const blob = blobOrText instanceof Blob ? blobOrText : new Blob([blobOrText], { type });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
