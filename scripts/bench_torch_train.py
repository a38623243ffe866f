#!/usr/bin/python3
"""Training throughput of the GRU encoder-decoder with dot-product attention in
PyTorch CPU (1 thread), the same shapes as bench/native/bench_train.cpp
(embedding 64, GRU 128, batch 64, T=12, vocab 40, Adam), then runs the native
benchmark and prints both and the ratio.

    /usr/bin/python3 scripts/bench_torch_train.py [--native build/native/bench_train]
"""
import argparse
import json
import os
import subprocess
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

B, T, V, E, H = 64, 12, 40, 64, 128


class Seq2SeqAttn(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, E, padding_idx=0)
        self.tgt_emb = nn.Embedding(V, E, padding_idx=0)
        self.encoder = nn.GRU(E, H, batch_first=True)
        self.decoder = nn.GRU(E, H, batch_first=True)
        self.combine = nn.Linear(2 * H, H)
        self.out = nn.Linear(H, V)

    def forward(self, src, src_mask, tgt_in, tgt_out):
        enc, h = self.encoder(self.src_emb(src))                # (B,Ts,H)
        dec, _ = self.decoder(self.tgt_emb(tgt_in), h)          # (B,Td,H)
        scores = torch.bmm(dec, enc.transpose(1, 2))            # (B,Td,Ts)
        scores = scores.masked_fill(src_mask[:, None, :], float("-inf"))
        a = torch.softmax(scores, dim=-1)
        ctx = torch.bmm(a, enc)
        comb = torch.tanh(self.combine(torch.cat([ctx, dec], dim=-1)))
        logits = self.out(comb)
        return F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=0)


def torch_samples_per_s(seconds):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    m = Seq2SeqAttn()
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    src = torch.randint(3, V, (B, T))
    tgt = torch.flip(src, [1])
    tgt_in = torch.cat([torch.ones(B, 1, dtype=torch.long), tgt[:, :-1]], 1)
    tgt_out = torch.cat([tgt[:, :-1], torch.full((B, 1), 2, dtype=torch.long)], 1)
    src_mask = torch.zeros(B, T, dtype=torch.bool)

    def step():
        opt.zero_grad()
        loss = m(src, src_mask, tgt_in, tgt_out)
        loss.backward()
        opt.step()
        return loss

    for _ in range(5):
        step()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        step()
        n += 1
    dt = time.perf_counter() - t0
    return B * n / dt, 1e3 * dt / n


def native_samples_per_s(path):
    out = subprocess.run([path, "--benchmark_filter=BM_TrainSeq2SeqAttn", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    return b["samples/s"], b["real_time"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", default=os.path.join(here, "..", "build", "native", "bench_train"))
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    tsps, tms = torch_samples_per_s(args.seconds)
    cfg = torch.__config__.show()
    blas = cfg.split("BLAS_INFO=")[1].split(",")[0] if "BLAS_INFO=" in cfg else "?"
    a, b = torch.randn(768, 384), torch.randn(384, 384)
    for _ in range(3):
        a @ b
    t0 = time.perf_counter()
    for _ in range(20):
        a @ b
    gf = 2 * 768 * 384 * 384 * 20 / (time.perf_counter() - t0) / 1e9
    # Debian's python3-torch is built with BLAS_INFO=generic (reference BLAS):
    # say so, since it sets PyTorch's speed here
    print(f"pytorch BLAS: {blas}, 1-thread matmul 768x384x384: {gf:.1f} GFLOPS")
    print(f"pytorch {torch.__version__} (1 thread): {tsps:8.0f} samples/s  {tms:6.2f} ms/step")
    if not os.path.exists(args.native):
        print(f"native benchmark not found at {args.native}; build the bench_train target")
        return
    nsps, nms = native_samples_per_s(args.native)
    print(f"attnlab native (1 thread):      {nsps:8.0f} samples/s  {nms:6.2f} ms/step")
    print(f"ratio attnlab / pytorch: {nsps / tsps:.2f}x")


if __name__ == "__main__":
    main()
