#!/usr/bin/python3
"""Where two G2P models differ, word by word, from the files `attnlab eval --predictions`
writes for each on the same split:

    attnlab eval --model models/g2p-cmudict/model.safetensors --predictions gru.tsv
    attnlab eval --model models/g2p-transformer/model.safetensors --predictions tf.tsv
    python3 scripts/g2p_compare.py gru.tsv tf.tsv

Prints, per decoder (greedy, and beam when both files have it): each model's WER, the words
both get wrong (the WER of an oracle that picks the right one of the two: a floor for any
combination of them), the words only one of them gets right (with McNemar's test on those
counts: are the two models' error rates different?), how often their outputs are the same,
and each model's WER by word length.
"""
import csv
import math
import sys


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def mcnemar_p(b, c):
    """Two-sided p of McNemar's test with continuity correction on the discordant counts b, c
    (chi-square with 1 degree of freedom: p = erfc(sqrt(chi2 / 2)))."""
    if b + c == 0:
        return 1.0
    chi2 = max(abs(b - c) - 1, 0) ** 2 / (b + c)
    return math.erfc(math.sqrt(chi2 / 2))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = read(argv[1]), read(argv[2])
    na, nb = argv[1], argv[2]
    if [r["word"] for r in a] != [r["word"] for r in b]:
        print("g2p_compare.py: the two files do not hold the same words in the same order "
              "(evaluate both models on the same split, with the same --limit)", file=sys.stderr)
        return 1
    n = len(a)
    if n == 0:
        print("g2p_compare.py: no words", file=sys.stderr)
        return 1
    pct = lambda k: 100.0 * k / n
    for dec in ("greedy", "beam"):
        if dec not in a[0] or dec not in b[0]:
            continue
        ca = [r[dec + "_correct"] == "1" for r in a]
        cb = [r[dec + "_correct"] == "1" for r in b]
        print("%s, %d words:" % (dec, n))
        print("  WER %s %.2f%%, %s %.2f%%" % (na, pct(n - sum(ca)), nb, pct(n - sum(cb))))
        only_a = sum(x and not y for x, y in zip(ca, cb))
        only_b = sum(y and not x for x, y in zip(ca, cb))
        print("  both wrong %.2f%% (the oracle of the two); only %s right %.2f%%; only %s right %.2f%%; "
              "same output %.1f%%" % (
                  pct(sum(not x and not y for x, y in zip(ca, cb))), na, pct(only_a), nb, pct(only_b),
                  pct(sum(r[dec] == s[dec] for r, s in zip(a, b)))))
        print("  words only one model gets right: %d / %d (McNemar, continuity-corrected: p = %.3f)"
              % (only_a, only_b, mcnemar_p(only_a, only_b)))
        groups = ((1, 5), (6, 8), (9, 11), (12, 99))
        for lo, hi in groups:
            idx = [i for i, r in enumerate(a) if lo <= len(r["word"]) <= hi]
            if not idx:
                continue
            wa = 100.0 * sum(not ca[i] for i in idx) / len(idx)
            wb = 100.0 * sum(not cb[i] for i in idx) / len(idx)
            label = "%d-%d letters" % (lo, hi) if hi < 99 else "%d+ letters" % lo
            print("  %-12s %5d words: WER %s %.1f%%, %s %.1f%%" % (label, len(idx), na, wa, nb, wb))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
