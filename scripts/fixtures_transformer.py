#!/usr/bin/python3
"""Writes tests/fixtures/transformer_layers.json: PyTorch references for attnlab's
Transformer encoder and decoder layers (run with /usr/bin/python3, torch 1.13).

nn.TransformerEncoderLayer / nn.TransformerDecoderLayer with batch_first=True and
dropout=0, both norm_first settings, ReLU and GELU, with key padding masks and the
causal mask. Parameters are random float32 values (rounded, so C++ sees exactly the
same numbers) stored under their state_dict keys; the computation runs in float64.
Loss for the gradients: sum(out * R) with a stored random R. Stored per case: inputs,
masks, parameters, R, out, and the gradients of every input and parameter.

Every tensor is {"shape": [...], "data": [flat row-major list]}; bool masks hold 0/1.
"""
import json
import math
import os

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "transformer_layers.json")
torch.manual_seed(2024)


def f32(*shape, scale=1.0):
    return (torch.randn(*shape) * scale).float().double()


def enc(t):
    t = t.detach()
    if t.dtype == torch.bool:
        return {"shape": list(t.shape), "data": [int(x) for x in t.flatten().tolist()]}
    return {"shape": list(t.shape), "data": [float("%.9g" % x) for x in t.double().flatten().tolist()]}


def randomize(layer):
    with torch.no_grad():
        for name, p in layer.named_parameters():
            if name.startswith("norm"):  # near 1 (weight) / 0 (bias), still random
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + torch.randn_like(p) * 0.2)
            else:
                p.copy_(torch.randn_like(p) * 0.4)
            p.copy_(p.float().double())


def causal(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def encoder_case(norm_first, activation, use_causal, B=2, T=4, E=8, H=2, F=16):
    layer = torch.nn.TransformerEncoderLayer(E, H, dim_feedforward=F, dropout=0.0,
                                             activation=activation, batch_first=True,
                                             norm_first=norm_first).double()
    randomize(layer)
    x = f32(B, T, E).requires_grad_(True)
    kpm = torch.tensor([[False, False, False, True], [False, False, True, True]])[:, :T]
    mask = causal(T) if use_causal else None
    y = layer(x, src_mask=mask, src_key_padding_mask=kpm)
    R = f32(*y.shape)
    (y * R).sum().backward()
    case = {"kind": "encoder", "B": B, "T": T, "E": E, "H": H, "F": F, "norm_first": norm_first,
            "activation": activation, "causal": use_causal, "x": enc(x),
            "key_padding_mask": enc(kpm), "R": enc(R), "out": enc(y), "grad.x": enc(x.grad)}
    for name, p in layer.named_parameters():
        case[name] = enc(p)
        case["grad." + name] = enc(p.grad)
    assert torch.isfinite(y).all()
    return case


def decoder_case(norm_first, activation, B=2, T=4, S=5, E=8, H=2, F=16):
    layer = torch.nn.TransformerDecoderLayer(E, H, dim_feedforward=F, dropout=0.0,
                                             activation=activation, batch_first=True,
                                             norm_first=norm_first).double()
    randomize(layer)
    x = f32(B, T, E).requires_grad_(True)
    mem = f32(B, S, E).requires_grad_(True)
    tgt_kpm = torch.tensor([[False, False, False, True], [False, False, True, True]])
    mem_kpm = torch.tensor([[False, False, False, False, True], [False, False, False, True, True]])
    y = layer(x, mem, tgt_mask=causal(T), tgt_key_padding_mask=tgt_kpm,
              memory_key_padding_mask=mem_kpm)
    R = f32(*y.shape)
    (y * R).sum().backward()
    case = {"kind": "decoder", "B": B, "T": T, "S": S, "E": E, "H": H, "F": F,
            "norm_first": norm_first, "activation": activation, "causal": True,
            "x": enc(x), "memory": enc(mem), "tgt_key_padding_mask": enc(tgt_kpm),
            "memory_key_padding_mask": enc(mem_kpm), "R": enc(R), "out": enc(y),
            "grad.x": enc(x.grad), "grad.memory": enc(mem.grad)}
    for name, p in layer.named_parameters():
        case[name] = enc(p)
        case["grad." + name] = enc(p.grad)
    assert torch.isfinite(y).all()
    return case


def main():
    cases = {
        "_meta": {"torch": torch.__version__, "script": "scripts/fixtures_transformer.py"},
        "enc_post_relu_kpm": encoder_case(False, "relu", False),
        "enc_pre_relu_kpm": encoder_case(True, "relu", False),
        "enc_post_gelu_causal_kpm": encoder_case(False, "gelu", True),
        "enc_pre_gelu_causal_kpm": encoder_case(True, "gelu", True),
        "dec_post_relu": decoder_case(False, "relu"),
        "dec_pre_relu": decoder_case(True, "relu"),
        "dec_post_gelu": decoder_case(False, "gelu"),
        "dec_pre_gelu": decoder_case(True, "gelu"),
    }
    with open(OUT, "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
