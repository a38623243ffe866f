#!/usr/bin/python3
"""PyTorch contender of the benchmark suite (bench/suite.mjs runs it; CPU, 1 thread).

  /usr/bin/python3 bench/peers/torch_suite.py CASES.json --rounds 1 --batch-ms 25 [--out DIR] [--onnx DIR]

CASES.json is the suite's list of cases ({id, op, shape fields}); the inputs are made
with the suite's generator (an LCG seeded from the case id, same numbers as in JS and
C++), so every contender computes on the same data. With --out DIR each variant's
output is written to DIR/torch_<case>_<variant>.f32 for the suite to compare with its
float64 reference before it trusts any timing. With --onnx DIR the ONNX graphs of the
cases are exported there (for onnxruntime-web) and nothing is timed.

Statistic (the suite's one statistic): per round, 5 batches of calls, each batch at
least --batch-ms long; the round's value is the median batch's time per call.
Prints one JSON object.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def fnv1a(s):
    h = 0x811C9DC5
    for ch in s.encode():
        h = ((h ^ ch) * 0x01000193) & 0xFFFFFFFF
    return h


def lcg(n, seed, scale):
    """The suite's generator: s = s * 1664525 + 1013904223 (mod 2^32), x = (s / 2^32 - 0.5) * scale.
    Vectorized: K lanes, each a copy of the sequence K steps apart (s -> A s + C)."""
    a, c, mask = 1664525, 1013904223, 0xFFFFFFFF
    K = max(1, min(n, 1024))
    first = np.empty(K, dtype=np.uint64)
    s = seed & mask
    for i in range(K):
        s = (s * a + c) & mask
        first[i] = s
    A, C = 1, 0
    for _ in range(K):
        A, C = (A * a) & mask, (C * a + c) & mask
    rows = -(-n // K)
    st = np.empty((rows, K), dtype=np.uint64)
    st[0] = first
    for r in range(1, rows):
        st[r] = (st[r - 1] * np.uint64(A) + np.uint64(C)) & np.uint64(mask)
    u = st.reshape(-1)[:n].astype(np.float64) / 4294967296.0 - 0.5
    return torch.from_numpy((u * scale).astype(np.float32))


def inputs(case):
    """(name -> tensor) in the suite's order; seed = fnv1a(case id) + input index."""
    base = fnv1a(case["id"])
    res = {}
    for i, (name, shape, scale) in enumerate(case["inputs"]):
        n = 1
        for d in shape:
            n *= d
        res[name] = lcg(n, base + i, scale).reshape(shape)
    return res


def variants(case, x):
    """(variant name -> callable returning the output tensor) for one case."""
    op = case["op"]
    v = {}
    if op in ("gemm", "gemv"):
        a, b = x["a"], x["b"]
        bt = b.t().contiguous()
        out = torch.empty(a.shape[0], b.shape[1])
        v["torch.mm"] = lambda: torch.mm(a, b)
        v["torch.mm(out=)"] = lambda: torch.mm(a, b, out=out)
        v["F.linear (B^T stored)"] = lambda: F.linear(a, bt)
        if op == "gemv":
            a1 = a.reshape(-1)
            v["torch.mv (B^T stored)"] = lambda: torch.mv(bt, a1).reshape(1, -1)
    elif op == "softmax":
        s = x["x"]
        v["torch.softmax"] = lambda: torch.softmax(s, dim=-1)
        v["F.softmax"] = lambda: F.softmax(s, dim=1)
    elif op == "sdpa":
        q, k, vv = x["q"], x["k"], x["v"]
        sc = 1.0 / math.sqrt(q.shape[-1])
        v["softmax(q k^T * s) v"] = lambda: torch.softmax(torch.mm(q, k.t()) * sc, dim=-1).mm(vv)
        v["softmax((q*s) k^T) v"] = lambda: torch.softmax(torch.mm(q * sc, k.t()), dim=-1).mm(vv)
        if hasattr(F, "scaled_dot_product_attention"):
            v["F.scaled_dot_product_attention"] = lambda: F.scaled_dot_product_attention(q[None], k[None], vv[None])[0]
    elif op == "mha":
        E, H = case["E"], case["H"]
        m = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
        with torch.no_grad():
            m.in_proj_weight.copy_(x["in_proj_weight"])
            m.in_proj_bias.copy_(x["in_proj_bias"])
            m.out_proj.weight.copy_(x["out_proj.weight"])
            m.out_proj.bias.copy_(x["out_proj.bias"])
        xb = x["x"][None]
        v["nn.MultiheadAttention need_weights=False"] = lambda: m(xb, xb, xb, need_weights=False)[0][0]
        T, dh = xb.shape[1], E // H
        wi, bi, wo, bo = x["in_proj_weight"], x["in_proj_bias"], x["out_proj.weight"], x["out_proj.bias"]
        sc = 1.0 / math.sqrt(dh)

        def functional():
            qkv = F.linear(x["x"], wi, bi)                         # (T, 3E)
            q, k, vv = qkv.split(E, dim=1)
            heads = lambda t: t.reshape(T, H, dh).transpose(0, 1)  # (H, T, dh)
            p = torch.softmax(torch.bmm(heads(q) * sc, heads(k).transpose(1, 2)), dim=-1)
            ctx = torch.bmm(p, heads(vv)).transpose(0, 1).reshape(T, E)
            return F.linear(ctx, wo, bo)
        v["functional (linear + bmm)"] = functional
    else:
        raise SystemExit("torch_suite: unknown op %r" % op)
    return v


def round_median(fn, batch_ms):
    times = []
    for _ in range(5):
        n = 0
        t0 = time.perf_counter()
        while True:
            fn()
            n += 1
            t1 = time.perf_counter()
            if (t1 - t0) * 1e3 >= batch_ms:
                break
        times.append((t1 - t0) * 1e3 / n)
    times.sort()
    return times[2]


def blas_in_use():
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower()}
        return ", ".join(sorted(libs)) or "unknown"
    except OSError:
        return "unknown"


def export_onnx(cases, outdir):
    os.makedirs(outdir, exist_ok=True)

    class Wrap(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *a):
            return self.fn(*a)

    class MhaWrap(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, xx):
            return self.m(xx[None], xx[None], xx[None], need_weights=False)[0][0]

    for case in cases:
        x = inputs(case)
        op = case["op"]
        graphs = []
        if op in ("gemm", "gemv"):
            b = x["b"]
            graphs.append(("input", Wrap(lambda a, bb: torch.matmul(a, bb)), (x["a"], b), ["a", "b"]))
            const = torch.nn.Linear(b.shape[0], b.shape[1], bias=False)
            with torch.no_grad():
                const.weight.copy_(b.t())
            graphs.append(("const", const, (x["a"],), ["a"]))
        elif op == "softmax":
            graphs.append(("input", Wrap(lambda s: torch.softmax(s, dim=-1)), (x["x"],), ["x"]))
        elif op == "sdpa":
            sc = 1.0 / math.sqrt(case["D"])
            graphs.append(("input", Wrap(lambda q, k, v: torch.softmax(torch.matmul(q, k.t()) * sc, dim=-1).matmul(v)),
                           (x["q"], x["k"], x["v"]), ["q", "k", "v"]))
        elif op == "mha":
            m = torch.nn.MultiheadAttention(case["E"], case["H"], batch_first=True).eval()
            with torch.no_grad():
                m.in_proj_weight.copy_(x["in_proj_weight"])
                m.in_proj_bias.copy_(x["in_proj_bias"])
                m.out_proj.weight.copy_(x["out_proj.weight"])
                m.out_proj.bias.copy_(x["out_proj.bias"])
            graphs.append(("const", MhaWrap(m), (x["x"],), ["x"]))
        for tag, mod, args, names in graphs:
            path = os.path.join(outdir, "%s.%s.onnx" % (case["id"], tag))
            if os.path.exists(path):
                continue
            with torch.no_grad():
                torch.onnx.export(mod, args, path, input_names=names, output_names=["out"], opset_version=17)
    print(json.dumps({"onnx": outdir}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--batch-ms", type=float, default=25)
    ap.add_argument("--out", help="write each variant's output here (float32, raw)")
    ap.add_argument("--onnx", help="export the ONNX graphs here and exit")
    ap.add_argument("--name", default="torch")
    a = ap.parse_args()
    with open(a.cases) as f:
        cases = json.load(f)
    torch.set_num_threads(1)
    if a.onnx:
        export_onnx(cases, a.onnx)
        return
    res = {"version": torch.__version__, "threads": torch.get_num_threads(), "blas": blas_in_use(), "cases": {}}
    with torch.no_grad():
        for case in cases:
            x = inputs(case)
            vs = variants(case, x)
            cres = {}
            for name, fn in vs.items():
                out = fn()
                if a.out:
                    safe = "".join(c if c.isalnum() else "_" for c in name)
                    out.contiguous().numpy().astype("<f4").tofile(os.path.join(a.out, "%s_%s_%s.f32" % (a.name, case["id"], safe)))
                fn()
                cres[name] = [round_median(fn, a.batch_ms) for _ in range(a.rounds)]
            res["cases"][case["id"]] = cres
    print(json.dumps(res))


if __name__ == "__main__":
    sys.exit(main())
