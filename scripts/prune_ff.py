#!/usr/bin/python3
"""Narrow the feed-forward blocks of a Transformer model file (structured pruning).

    python3 scripts/prune_ff.py IN.safetensors OUT.safetensors --ff 256

Keeps, in every encoder and decoder layer, the FF hidden units with the largest
|linear1.weight[j,:]| * |linear2.weight[:,j]| (L2 norms: how much a unit can pass through,
the magnitude criterion of structured pruning), in their original order, with their biases;
everything else is copied unchanged and the config's dim_feedforward is set to --ff. The
result is an initialization for `attnlab train g2p --arch transformer --ff N --init-from OUT`
(it is not a good model by itself). Tensors keep their dtype (F32 or F16); the metadata
records what was done ("pruned_from", "pruned_ff").
"""
import argparse
import json
import math
import re
import struct
import sys

FORMATS = {"F32": ("f", 4), "F16": ("e", 2)}


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 8:
        sys.exit("%s: not a safetensors file (shorter than its header size)" % path)
    n = struct.unpack("<Q", b[:8])[0]
    if n > len(b) - 8:
        sys.exit("%s: header of %d bytes past the end of the file" % (path, n))
    header = json.loads(b[8:8 + n])
    data = b[8 + n:]
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, t in header.items():
        if t["dtype"] not in FORMATS:
            sys.exit("%s: tensor %s has dtype %s; only F32 and F16 are read here" % (path, name, t["dtype"]))
        code, size = FORMATS[t["dtype"]]
        lo, hi = t["data_offsets"]
        count = math.prod(t["shape"]) if t["shape"] else 1
        if hi - lo != count * size or hi > len(data):
            sys.exit("%s: tensor %s: offsets do not match its shape" % (path, name))
        tensors[name] = (t["dtype"], list(t["shape"]), list(struct.unpack("<%d%s" % (count, code), data[lo:hi])))
    return meta, tensors


def write(path, meta, tensors):
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        dtype, shape, values = tensors[name]
        code, size = FORMATS[dtype]
        raw = struct.pack("<%d%s" % (len(values), code), *values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--ff", type=int, required=True, help="feed-forward width to keep")
    a = ap.parse_args(argv)
    meta, t = read(a.input)
    if meta.get("kind") != "transformer-seq2seq":
        sys.exit("%s: kind %r; this prunes transformer-seq2seq files" % (a.input, meta.get("kind")))
    cfg = json.loads(meta["config"])
    E, F = cfg["d_model"], cfg["dim_feedforward"]
    if not 1 <= a.ff < F:
        sys.exit("--ff must be in [1, %d) (the file's dim_feedforward is %d), got %d" % (F, F, a.ff))
    layers = sorted({m.group(1) for m in (re.match(r"((?:en|de)coder\.layers\.\d+)\.linear1\.weight$", n) for n in t) if m})
    for L in layers:
        d1, s1, w1 = t[L + ".linear1.weight"]
        _, _, b1 = t[L + ".linear1.bias"]
        d2, s2, w2 = t[L + ".linear2.weight"]
        if s1 != [F, E] or s2 != [E, F]:
            sys.exit("%s: unexpected shapes %s, %s" % (L, s1, s2))
        score = []
        for j in range(F):
            n1 = math.sqrt(sum(w1[j * E + i] ** 2 for i in range(E)))
            n2 = math.sqrt(sum(w2[i * F + j] ** 2 for i in range(E)))
            score.append((n1 * n2, j))
        keep = sorted(j for _, j in sorted(score, reverse=True)[:a.ff])
        kept = set(keep)
        t[L + ".linear1.weight"] = (d1, [a.ff, E], [w1[j * E + i] for j in keep for i in range(E)])
        t[L + ".linear1.bias"] = (t[L + ".linear1.bias"][0], [a.ff], [b1[j] for j in keep])
        t[L + ".linear2.weight"] = (d2, [E, a.ff], [w2[i * F + j] for i in range(E) for j in keep])
        share = sum(s for s, j in score if j in kept) / sum(s for s, _ in score)
        print("%s: kept %d of %d units (%.1f%% of the summed scores)" % (L, a.ff, F, 100 * share))
    cfg["dim_feedforward"] = a.ff
    meta["config"] = json.dumps(cfg, separators=(",", ":"), sort_keys=True)
    meta["pruned_from"] = a.input
    meta["pruned_ff"] = "%d of %d units per layer, by |linear1 row| * |linear2 column|" % (a.ff, F)
    write(a.output, meta, t)
    print("wrote %s" % a.output)


if __name__ == "__main__":
    main()
