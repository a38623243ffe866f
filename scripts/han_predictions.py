#!/usr/bin/env python3
"""Summarise HAN spam predictions of several runs on one split.

Input: CSV files written by `attnlab eval --model M --split valid --predictions F`
(columns id, group, label, han_p_spam[, baseline_p_spam]), one per trained model,
all on the same split. Prints, with the standard library only:
  - errors per run at threshold 0.5 and at other thresholds;
  - errors of probability-averaging ensembles of every subset size (mean, min, max);
  - the messages each run gets wrong, with how many runs (and the baseline) miss them.

  python3 scripts/han_predictions.py /tmp/valid_seed*.csv
"""
import csv
import itertools
import os
import sys

THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "han_p_spam" not in rows[0]:
        sys.exit(f"{path}: not an 'attnlab eval --predictions' CSV")
    return rows


def errors(p, y, t=0.5):
    return sum((pi >= t) != yi for pi, yi in zip(p, y))


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = [load(p) for p in paths]
    keys = [(r["group"], r["id"]) for r in runs[0]]
    for path, rows in zip(paths, runs):
        if [(r["group"], r["id"]) for r in rows] != keys:
            sys.exit(f"{path}: a different split than {paths[0]}")
    y = [int(r["label"]) for r in runs[0]]
    probs = [[float(r["han_p_spam"]) for r in rows] for rows in runs]
    names = [os.path.basename(p) for p in paths]
    print(f"{len(y)} messages, {sum(y)} spam; {len(runs)} runs")
    print("errors per run by threshold: " + " ".join(f"{t:>4}" for t in THRESHOLDS))
    for n, p in zip(names, probs):
        print(f"  {n:<28}" + " ".join(f"{errors(p, y, t):>4}" for t in THRESHOLDS))
    if "baseline_p_spam" in runs[0][0]:
        b = [float(r["baseline_p_spam"]) for r in runs[0]]
        print(f"  {'baseline (tf-idf logreg)':<28}" + " ".join(f"{errors(b, y, t):>4}" for t in THRESHOLDS))
    else:
        b = None
    print("probability-averaging ensembles (threshold 0.5): size, subsets, errors mean / min / max")
    for k in range(1, len(runs) + 1):
        es = []
        for c in itertools.combinations(range(len(runs)), k):
            avg = [sum(probs[j][i] for j in c) / k for i in range(len(y))]
            es.append(errors(avg, y))
        print(f"  {k:>2} {len(es):>4}   {sum(es) / len(es):6.2f} {min(es):4d} {max(es):4d}")
    print("messages missed by any run: group id, runs wrong, baseline wrong")
    for i, (g, mid) in enumerate(keys):
        k = sum((p[i] >= 0.5) != y[i] for p in probs)
        bw = b is not None and (b[i] >= 0.5) != y[i]
        if k or bw:
            print(f"  {g:<11} {mid}  {k:>2}/{len(runs)}  {'yes' if bw else 'no'}")


if __name__ == "__main__":
    main(sys.argv[1:])
