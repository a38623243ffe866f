#!/usr/bin/python3
"""PyTorch (CPU, torch.set_num_threads(1)) timings of the issue-3 attention shapes,
printed beside attnlab's native Google Benchmark numbers.

  /usr/bin/python3 scripts/bench_torch_attention.py [--native build/<dir>/bench_attention]

Shapes (forward, batch 1, float32, no grad):
  scaled-dot attention  T=128 d=64:  softmax(q k^T / 8) v
  multi-head attention  T=128 d_model=256 h=4: nn.MultiheadAttention self-attention,
                        need_weights=False (and =True, averaged, for reference)
With --native PATH the script runs that bench_attention binary (JSON output) and
prints a side-by-side table.
"""
import argparse
import json
import math
import subprocess
import time

import torch
import torch.nn.functional as F


def timeit(fn, min_time=1.0, warmup=20):
    for _ in range(warmup):
        fn()
    n, best = 1, None
    # repeat batches until min_time has passed; report the median of batch means
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = (time.perf_counter() - t0) / n
        samples.append(dt)
        if dt * n < 0.01:
            n *= 2
    samples.sort()
    return samples[len(samples) // 2]


def torch_numbers():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    res = {}
    with torch.no_grad():
        T, D = 128, 64
        q, k, v = (torch.randn(1, T, D) for _ in range(3))
        scale = 1.0 / math.sqrt(D)

        def sdpa():
            return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * scale, dim=-1).bmm(v)

        res["sdpa"] = timeit(sdpa)
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0
            res["sdpa_fused"] = timeit(lambda: F.scaled_dot_product_attention(q, k, v))
        E, H = 256, 4
        mha = torch.nn.MultiheadAttention(E, H, batch_first=True).eval()
        x = torch.randn(1, T, E)
        res["mha"] = timeit(lambda: mha(x, x, x, need_weights=False))
        res["mha_weights"] = timeit(lambda: mha(x, x, x, need_weights=True))
    return res


def native_numbers(path):
    out = subprocess.run([path, "--benchmark_format=json", "--benchmark_min_time=0.5"],
                         check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return {b["name"]: b["real_time"] * unit[b["time_unit"]] for b in data["benchmarks"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", help="path to the bench_attention executable")
    ap.add_argument("--json", action="store_true", help="print torch's times (seconds) as one JSON object")
    args = ap.parse_args()
    t = torch_numbers()
    if args.json:
        cfg = torch.__config__.show()
        blas = cfg[cfg.find("BLAS_INFO"):].split(",")[0].strip() if "BLAS_INFO" in cfg else "BLAS_INFO=?"
        print(json.dumps({"version": torch.__version__, "blas": blas, **t}))
        return
    blas = [x for x in torch.__config__.show().split(",") if "BLAS_INFO" in x]
    print(f"PyTorch {torch.__version__}, 1 thread, {blas[0].strip() if blas else 'BLAS_INFO ?'}")
    if blas and "generic" in blas[0]:
        print("  note: BLAS_INFO=generic means the reference (netlib) BLAS: a pip/MKL build of torch"
              " is several times faster than these numbers")
    for k, v in t.items():
        print(f"  torch {k:12s} {v * 1e6:9.1f} us")
    if args.native:
        n = native_numbers(args.native)
        rows = [
            ("scaled-dot T=128 d=64", "BM_ScaledDotAttention_T128_d64", "sdpa"),
            ("scaled-dot raw kernel", "BM_ScaledDotAttentionRaw_T128_d64", "sdpa"),
            ("MHA T=128 E=256 h=4", "BM_MHA_T128_E256_h4", "mha"),
            ("MHA + avg weights", "BM_MHA_T128_E256_h4_weights", "mha_weights"),
        ]
        print(f"\n{'op':26s} {'attnlab':>11s} {'torch':>11s} {'torch/attnlab':>14s}")
        for label, nk, tk in rows:
            if nk in n:
                print(f"{label:26s} {n[nk] * 1e6:9.1f}us {t[tk] * 1e6:9.1f}us {t[tk] / n[nk]:13.2f}x")


if __name__ == "__main__":
    main()
