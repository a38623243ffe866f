#!/usr/bin/python3
"""Exports the issue-3 benchmark ops to ONNX (opset 17) for onnxruntime-web / tfjs peers:

  bench/models/sdpa_t128_d64.onnx       inputs q, k, v (1,128,64) -> out (1,128,64)
                                        softmax(q k^T / sqrt(64)) v
  bench/models/mha_t128_e256_h4.onnx    input x (1,128,256) -> out (1,128,256)
                                        nn.MultiheadAttention(256, 4, batch_first=True)
                                        self-attention, need_weights=False
  bench/models/attention_models.json    shapes, input names and a test vector
                                        (first 8 outputs for a seeded input) per model

Run: /usr/bin/python3 scripts/export_onnx_attention.py
"""
import json
import math
import os

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "models")


class SDPA(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.scale = 1.0 / math.sqrt(d)

    def forward(self, q, k, v):
        return torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * self.scale, dim=-1).matmul(v)


class MHA(torch.nn.Module):
    def __init__(self, e, h):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(e, h, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    meta = {}
    T, D = 128, 64
    sdpa = SDPA(D).eval()
    q, k, v = (torch.randn(1, T, D) for _ in range(3))
    path = os.path.join(OUT, "sdpa_t128_d64.onnx")
    torch.onnx.export(sdpa, (q, k, v), path, opset_version=17, input_names=["q", "k", "v"],
                      output_names=["out"])
    with torch.no_grad():
        ref = sdpa(q, k, v)
    meta["sdpa_t128_d64.onnx"] = {"inputs": {"q": [1, T, D], "k": [1, T, D], "v": [1, T, D]},
                                  "output": [1, T, D], "seed": 0,
                                  "out_head": ref.flatten()[:8].tolist()}
    E, H = 256, 4
    mha = MHA(E, H).eval()
    x = torch.randn(1, T, E)
    path = os.path.join(OUT, "mha_t128_e256_h4.onnx")
    torch.onnx.export(mha, (x,), path, opset_version=17, input_names=["x"], output_names=["out"])
    with torch.no_grad():
        ref = mha(x)
    meta["mha_t128_e256_h4.onnx"] = {"inputs": {"x": [1, T, E]}, "output": [1, T, E],
                                     "out_head": ref.flatten()[:8].tolist()}
    meta["_note"] = ("made by scripts/export_onnx_attention.py with torch " + torch.__version__ +
                     ", opset 17; inputs are random: feed any tensor of the stated shape")
    with open(os.path.join(OUT, "attention_models.json"), "w") as f:
        json.dump(meta, f, indent=1)
    for fn in sorted(os.listdir(OUT)):
        print(os.path.join(OUT, fn), os.path.getsize(os.path.join(OUT, fn)), "bytes")


if __name__ == "__main__":
    main()
