#!/usr/bin/python3
"""Writes tests/fixtures/attention_*.json: PyTorch reference values for attnlab's
attention family (run with /usr/bin/python3, torch 1.13).

Every tensor is stored as {"shape": [...], "data": [flat row-major list]}. Inputs
and parameters are float32 values (so C++ sees exactly the same numbers); the
reference computation runs in float64. Loss for gradients: sum(out * R) with a
stored random R (attend fixtures add sum(weights * RW), RW stored).

  attention_mha.json     nn.MultiheadAttention(batch_first=True): key padding +
                         bool/float/causal attn masks, both weight modes, self
                         and cross attention; outputs, weights, input and param grads.
  attention_scores.json  attend() with each score function written in torch
                         (dot, scaled_dot, general, additive, cosine, location),
                         with per-batch key lengths; outputs, weights, grads.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures")
torch.manual_seed(1234)


def f32(*shape, scale=1.0):
    return (torch.randn(*shape) * scale).float().double()


def enc(t):
    if t is None:
        return None
    t = t.detach()
    if t.dtype == torch.bool:
        return {"shape": list(t.shape), "data": [int(x) for x in t.flatten().tolist()]}
    data = [float("%.9g" % x) if math.isfinite(x) else ("-inf" if x < 0 else "inf")
            for x in t.double().flatten().tolist()]
    return {"shape": list(t.shape), "data": data}


# ------------------------------------------------------------------ MHA
def mha_case(name, B, T, S, E, H, self_attn, kpm, mask_kind, average):
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True).double()
    with torch.no_grad():  # round params to float32 values
        for p in mha.parameters():
            p.copy_(torch.randn_like(p) * 0.5)
            p.copy_(p.float().double())
    if self_attn:
        x = f32(B, T, E).requires_grad_(True)
        q = k = v = x
    else:
        q = f32(B, T, E).requires_grad_(True)
        k = f32(B, S, E).requires_grad_(True)
        v = f32(B, S, E).requires_grad_(True)
    attn_mask = None
    case = {"B": B, "T": T, "S": S, "E": E, "H": H, "self_attn": self_attn,
            "average_attn_weights": average, "mask_kind": mask_kind}
    if mask_kind == "bool":
        attn_mask = torch.zeros(T, S, dtype=torch.bool)
        attn_mask[0, 1] = True
        attn_mask[T - 1, 0] = True
        case["attn_mask_bool"] = enc(attn_mask)
    elif mask_kind == "float":
        attn_mask = f32(T, S)
        attn_mask[1, 2] = float("-inf")
        case["attn_mask_float"] = enc(attn_mask)
    elif mask_kind == "causal":
        attn_mask = torch.triu(torch.ones(T, S, dtype=torch.bool), diagonal=1)
        case["is_causal"] = True
    if kpm is not None:
        case["key_padding_mask"] = enc(kpm)
    out, w = mha(q, k, v, key_padding_mask=kpm, attn_mask=attn_mask, need_weights=True,
                 average_attn_weights=average)
    R = f32(*out.shape)
    (out * R).sum().backward()
    sd = mha.state_dict()
    case.update({
        "in_proj_weight": enc(sd["in_proj_weight"]), "in_proj_bias": enc(sd["in_proj_bias"]),
        "out_proj.weight": enc(sd["out_proj.weight"]), "out_proj.bias": enc(sd["out_proj.bias"]),
        "R": enc(R), "out": enc(out), "weights": enc(w),
        "grad.in_proj_weight": enc(mha.in_proj_weight.grad),
        "grad.in_proj_bias": enc(mha.in_proj_bias.grad),
        "grad.out_proj.weight": enc(mha.out_proj.weight.grad),
        "grad.out_proj.bias": enc(mha.out_proj.bias.grad),
    })
    if self_attn:
        case["x"] = enc(x)
        case["grad.x"] = enc(x.grad)
    else:
        for n, t in (("query", q), ("key", k), ("value", v)):
            case[n] = enc(t)
            case["grad." + n] = enc(t.grad)
    assert torch.isfinite(out).all(), name
    return name, case


def mha_fixtures():
    B, T, S, E, H = 2, 3, 5, 8, 2
    kpm = torch.tensor([[False, False, False, False, True], [False, False, True, True, True]])
    kpm_self = torch.tensor([[False, False, False, True], [False, False, False, False]])
    cases = dict([
        mha_case("cross_bool_avg", B, T, S, E, H, False, kpm, "bool", True),
        mha_case("cross_bool_heads", B, T, S, E, H, False, kpm, "bool", False),
        mha_case("cross_float_avg", B, T, S, E, H, False, kpm, "float", True),
        mha_case("self_causal_heads", B, 4, 4, E, H, True, kpm_self, "causal", False),
        mha_case("self_causal_avg", B, 4, 4, E, H, True, kpm_self, "causal", True),
        mha_case("self_nomask_avg", 1, 1, 1, 12, 3, True, None, "none", True),
    ])
    return cases


# ------------------------------------------------------------------ scores
def score_case(kind, B=2, Tq=3, S=5, Dq=4, Dk=6, Dv=3, A=5, max_keys=7):
    if kind in ("dot", "scaled_dot", "cosine"):
        Dk = Dq
    q = f32(B, Tq, Dq).requires_grad_(True)
    k = f32(B, S, Dk).requires_grad_(True)
    v = f32(B, S, Dv).requires_grad_(True)
    lengths = [S, 3]
    params = {}
    if kind == "dot":
        sc = q @ k.transpose(1, 2)
    elif kind == "scaled_dot":
        sc = q @ k.transpose(1, 2) / math.sqrt(Dk)
    elif kind == "general":
        W = f32(Dq, Dk, scale=0.5).requires_grad_(True)
        params["weight"] = W
        sc = q @ W @ k.transpose(1, 2)
    elif kind == "additive":
        W1 = f32(A, Dq, scale=0.5).requires_grad_(True)
        W2 = f32(A, Dk, scale=0.5).requires_grad_(True)
        vv = f32(A).requires_grad_(True)
        params.update({"query_proj.weight": W1, "key_proj.weight": W2, "v": vv})
        hid = torch.tanh((q @ W1.T).unsqueeze(2) + (k @ W2.T).unsqueeze(1))  # (B,Tq,S,A)
        sc = hid @ vv
    elif kind == "cosine":
        sc = F.cosine_similarity(q.unsqueeze(2), k.unsqueeze(1), dim=-1, eps=1e-8)
    elif kind == "location":
        W = f32(max_keys, Dq, scale=0.5).requires_grad_(True)
        params["weight"] = W
        sc = q @ W[:S].T
    mask = torch.zeros(B, Tq, S, dtype=torch.bool)
    for b, L in enumerate(lengths):
        mask[b, :, L:] = True
    w = torch.softmax(sc.masked_fill(mask, float("-inf")), dim=-1)
    out = w @ v
    R = f32(*out.shape)
    RW = f32(*w.shape)
    ((out * R).sum() + (w * RW).sum()).backward()
    case = {"kind": kind, "Dq": Dq, "Dk": Dk, "A": A, "max_keys": max_keys, "lengths": lengths,
            "query": enc(q), "key": enc(k), "value": enc(v), "R": enc(R), "RW": enc(RW),
            "out": enc(out), "weights": enc(w),
            "grad.query": enc(q.grad), "grad.key": enc(k.grad if k.grad is not None else torch.zeros_like(k)), "grad.value": enc(v.grad)}
    for n, p in params.items():
        case[n] = enc(p)
        case["grad." + n] = enc(p.grad)
    return kind, case


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {
        "attention_mha.json": mha_fixtures(),
        "attention_scores.json": dict(score_case(k) for k in
                                      ("dot", "scaled_dot", "general", "additive", "cosine",
                                       "location")),
    }
    for fn, obj in files.items():
        obj["_meta"] = {"torch": torch.__version__, "script": "scripts/fixtures_attention.py"}
        path = os.path.join(OUT, fn)
        with open(path, "w") as f:
            json.dump(obj, f, separators=(",", ":"))
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
