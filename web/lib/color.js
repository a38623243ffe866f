// The page's colour scale for weights: white (0) to blue (1), and the WCAG
// contrast arithmetic that picks a readable text colour on a shaded cell.

/** The scale's colour for a weight in [0, 1] (values outside are clamped), as [r, g, b]. */
export function weightRgb(w) {
  const t = Math.max(0, Math.min(1, Number.isFinite(w) ? w : 0));
  const c = (a, b) => Math.round(a + (b - a) * t);
  return [c(247, 33), c(251, 80), c(255, 190)];
}

/** Blue scale for weights in [0, 1] (values outside are clamped). */
export function weightColor(w) {
  return `rgb(${weightRgb(w).join(',')})`;
}

/** Parses '#rgb', '#rrggbb' or 'rgb(a)(r, g, b[, a])' into [r, g, b] (0-255). */
export function parseRgb(s) {
  const t = String(s).trim();
  let m = /^#([0-9a-f]{3})$/i.exec(t);
  if (m) return [...m[1]].map((h) => parseInt(h + h, 16));
  m = /^#([0-9a-f]{6})$/i.exec(t);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i.exec(t);
  if (m) return [m[1], m[2], m[3]].map(Number);
  throw new Error(`not a colour: '${s}'`);
}

/** WCAG 2 relative luminance of an sRGB colour [r, g, b] (0-255). */
export function luminance([r, g, b]) {
  const lin = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export function contrast(a, b) {
  const la = luminance(a), lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const INK = [29, 35, 48], WHITE = [255, 255, 255], BLACK = [0, 0, 0];
const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * The text colour for a background [r, g, b]: the page's ink or white, whichever
 * contrasts more, or black where neither reaches WCAG AA's 4.5:1 (black or white
 * always reaches 4.58:1 on any colour).
 */
export function textOn(bg) {
  const best = contrast(INK, bg) >= contrast(WHITE, bg) ? INK : WHITE;
  return hex(contrast(best, bg) >= 4.5 ? best : BLACK);
}
