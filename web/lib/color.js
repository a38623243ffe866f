// The page's colour scale for weights: white (0) to blue (1).

/** Blue scale for weights in [0, 1] (values outside are clamped). */
export function weightColor(w) {
  const t = Math.max(0, Math.min(1, w));
  const c = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${c(247, 33)},${c(251, 80)},${c(255, 190)})`;
}
