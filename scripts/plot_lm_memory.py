#!/usr/bin/env python3
"""Plots test bits per character against the evaluation memory length for a
Transformer-XL character LM, with its memory-less baseline as a line, from the
JSON that `attnlab eval --json` prints (plain Python, writes an SVG).

  python3 scripts/plot_lm_memory.py models/xl-sotu/eval-xl.json models/xl-sotu/eval-baseline.json \
      models/xl-sotu/bpc-memory.svg
"""
import json
import sys


def main(xl_path, base_path, out_path):
    xl = json.load(open(xl_path))["results"]
    base = json.load(open(base_path))["results"][0]["bpc"]
    pts = sorted((r["mem"], r["bpc"]) for r in xl)
    W, H, L, R, T, B = 520, 320, 70, 20, 30, 50
    mems = [m for m, _ in pts]
    lo = min([b for _, b in pts] + [base]) - 0.02
    hi = max([b for _, b in pts] + [base]) + 0.02
    def x(i):
        return L + (W - L - R) * (i / max(1, len(mems) - 1))
    def y(v):
        return T + (H - T - B) * (hi - v) / (hi - lo)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="18" text-anchor="middle">test bits per character vs memory at evaluation (segment 64)</text>']
    for k in range(5):  # y grid
        v = lo + (hi - lo) * k / 4
        s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.3f}</text>')
    for i, m in enumerate(mems):
        s.append(f'<text x="{x(i):.1f}" y="{H - B + 18}" text-anchor="middle">{m}</text>')
    s.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">memory length (characters)</text>')
    s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(base):.1f}" y2="{y(base):.1f}" stroke="#c44" stroke-dasharray="6 4"/>')
    s.append(f'<text x="{W - R}" y="{y(base) - 6:.1f}" text-anchor="end" fill="#c44">baseline, no memory: {base:.4f}</text>')
    path = " ".join(f'{"M" if i == 0 else "L"}{x(i):.1f},{y(b):.1f}' for i, (_, b) in enumerate(pts))
    s.append(f'<path d="{path}" fill="none" stroke="#246" stroke-width="2"/>')
    for i, (m, b) in enumerate(pts):
        s.append(f'<circle cx="{x(i):.1f}" cy="{y(b):.1f}" r="4" fill="#246"/>')
        s.append(f'<text x="{x(i):.1f}" y="{y(b) - 9:.1f}" text-anchor="middle" fill="#246">{b:.4f}</text>')
    s.append('</svg>')
    open(out_path, "w").write("\n".join(s) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
