#!/usr/bin/python3
"""Writes tests/fixtures/attention_*.json: PyTorch reference values for attnlab's
attention family (run with /usr/bin/python3, torch 1.13).

Every tensor is stored as {"shape": [...], "data": [flat row-major list]}. Inputs
and parameters are float32 values (so C++ sees exactly the same numbers); the
reference computation runs in float64. Loss for gradients: sum(out * R) with a
stored random R, plus sum(weights * RW) where RW is stored.

  attention_mha.json     nn.MultiheadAttention(batch_first=True): key padding +
                         bool/float/causal attn masks, both weight modes, self
                         and cross attention; outputs, weights, input and param grads.
  attention_scores.json  attend() with each score function written in torch
                         (dot, scaled_dot, general, additive, cosine, location),
                         with per-batch key lengths; outputs, weights, grads.
  attention_more.json    Luong local-m / local-p (general score), HAN context pooling,
                         MHA with the three disagreement terms of Li et al. 2018
                         (loss = sum(out*R) + w . terms), and Transformer-XL relative
                         attention with memory using the reference code's pad-and-reshape
                         relative shift; all written in torch.
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
    RW = f32(*w.shape)
    ((out * R).sum() + (w * RW).sum()).backward()
    sd = mha.state_dict()
    case.update({
        "in_proj_weight": enc(sd["in_proj_weight"]), "in_proj_bias": enc(sd["in_proj_bias"]),
        "out_proj.weight": enc(sd["out_proj.weight"]), "out_proj.bias": enc(sd["out_proj.bias"]),
        "R": enc(R), "RW": enc(RW), "out": enc(out), "weights": enc(w),
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


# ------------------------------------------------------------------ local, pooling, disagreement
def local_case(mode, B=2, T=4, S=7, Dq=4, Dk=5, Dv=3, D=2, A=3, lengths=(7, 5)):
    q = f32(B, T, Dq).requires_grad_(True)
    k = f32(B, S, Dk).requires_grad_(True)
    v = f32(B, S, Dv).requires_grad_(True)
    W = f32(Dq, Dk, scale=0.5).requires_grad_(True)
    params = {"score.weight": W}
    Lb = torch.tensor(lengths, dtype=torch.float64).view(B, 1)
    if mode == "p":
        Wp = f32(A, Dq, scale=0.7).requires_grad_(True)
        vp = f32(A, scale=0.7).requires_grad_(True)
        params.update({"predictor.weight": Wp, "predictor.v": vp})
        p = Lb * torch.sigmoid(torch.tanh(q @ Wp.T) @ vp)  # (B,T)
    else:
        p = torch.minimum(torch.arange(T, dtype=torch.float64).view(1, T), Lb - 1).expand(B, T)
    sc = q @ W @ k.transpose(1, 2)
    pos = torch.arange(S, dtype=torch.float64).view(1, 1, S)
    pd = p.detach().unsqueeze(-1)
    lo = torch.clamp(torch.ceil(pd - D), min=0)
    hi = torch.minimum(torch.floor(pd + D), Lb.view(B, 1, 1) - 1)
    inside = (pos >= lo) & (pos <= hi)
    align = torch.softmax(sc.masked_fill(~inside, float("-inf")), dim=-1)
    if mode == "p":
        sigma = D / 2.0
        w = align * torch.exp(-(pos - p.unsqueeze(-1)) ** 2 / (2 * sigma * sigma))
    else:
        w = align
    out = w @ v
    R = f32(*out.shape)
    (out * R).sum().backward()
    case = {"mode": mode, "window": D, "Dq": Dq, "Dk": Dk, "A": A, "lengths": list(lengths),
            "query": enc(q), "key": enc(k), "value": enc(v), "R": enc(R),
            "out": enc(out), "weights": enc(w), "positions": enc(p),
            "grad.query": enc(q.grad), "grad.key": enc(k.grad), "grad.value": enc(v.grad)}
    for n, t in params.items():
        case[n] = enc(t)
        case["grad." + n] = enc(t.grad)
    return "local_" + mode, case


def pooling_case(B=3, T=5, D=4, A=3, lengths=(5, 2, 3)):
    h = f32(B, T, D).requires_grad_(True)
    W = f32(A, D, scale=0.6).requires_grad_(True)
    b = f32(A, scale=0.6).requires_grad_(True)
    u = f32(A, scale=0.8).requires_grad_(True)
    sc = torch.tanh(h @ W.T + b) @ u
    mask = torch.arange(T).view(1, T) >= torch.tensor(lengths).view(B, 1)
    a = torch.softmax(sc.masked_fill(mask, float("-inf")), dim=-1)
    out = (a.unsqueeze(-1) * h).sum(1)
    R, RW = f32(*out.shape), f32(*a.shape)
    ((out * R).sum() + (a * RW).sum()).backward()
    return "pooling", {"D": D, "A": A, "lengths": list(lengths), "h": enc(h), "R": enc(R),
                       "RW": enc(RW), "out": enc(out), "weights": enc(a), "grad.h": enc(h.grad),
                       "proj.weight": enc(W), "proj.bias": enc(b), "context": enc(u),
                       "grad.proj.weight": enc(W.grad), "grad.proj.bias": enc(b.grad),
                       "grad.context": enc(u.grad)}


def mean_pairwise_cos(x):  # x: (H, ...) -> 1/H^2 sum_ij cos(x_i, x_j)
    f = x.reshape(x.shape[0], -1)
    u = f / f.norm(dim=1, keepdim=True)
    return (u @ u.T).sum() / x.shape[0] ** 2


def disagreement_case(B=2, T=3, S=4, E=8, H=2, w=(0.3, 0.5, 0.7)):
    Dh = E // H
    q = f32(B, T, E).requires_grad_(True)
    k = f32(B, S, E).requires_grad_(True)
    v = f32(B, S, E).requires_grad_(True)
    Win = f32(3 * E, E, scale=0.4).requires_grad_(True)
    bin_ = f32(3 * E, scale=0.4).requires_grad_(True)
    Wo = f32(E, E, scale=0.4).requires_grad_(True)
    bo = f32(E, scale=0.4).requires_grad_(True)
    kpm = torch.tensor([[False, False, False, False], [False, False, False, True]])
    Q = (q @ Win[:E].T + bin_[:E]).view(B, T, H, Dh).transpose(1, 2)
    K = (k @ Win[E:2 * E].T + bin_[E:2 * E]).view(B, S, H, Dh).transpose(1, 2)
    V = (v @ Win[2 * E:].T + bin_[2 * E:]).view(B, S, H, Dh).transpose(1, 2)  # (B,H,S,Dh)
    sc = (Q @ K.transpose(-1, -2)) / math.sqrt(Dh)
    P = torch.softmax(sc.masked_fill(kpm.view(B, 1, 1, S), float("-inf")), dim=-1)  # (B,H,T,S)
    O = P @ V  # (B,H,T,Dh)
    out = O.transpose(1, 2).reshape(B, T, E) @ Wo.T + bo
    sub = sum(mean_pairwise_cos(V[b]) for b in range(B)) / B
    pos = sum((P[b].sum(0) ** 2).sum() / H ** 2 for b in range(B)) / B
    outd = sum(mean_pairwise_cos(O[b]) for b in range(B)) / B
    R = f32(*out.shape)
    ((out * R).sum() + w[0] * sub + w[1] * pos + w[2] * outd).backward()
    case = {"B": B, "T": T, "S": S, "E": E, "H": H, "weights_reg": list(w),
            "key_padding_mask": enc(kpm), "query": enc(q), "key": enc(k), "value": enc(v),
            "R": enc(R), "out": enc(out), "terms": [sub.item(), pos.item(), outd.item()],
            "in_proj_weight": enc(Win), "in_proj_bias": enc(bin_),
            "out_proj.weight": enc(Wo), "out_proj.bias": enc(bo),
            "grad.query": enc(q.grad), "grad.key": enc(k.grad), "grad.value": enc(v.grad),
            "grad.in_proj_weight": enc(Win.grad), "grad.in_proj_bias": enc(bin_.grad),
            "grad.out_proj.weight": enc(Wo.grad), "grad.out_proj.bias": enc(bo.grad)}
    return "mha_disagreement", case


def rel_shift(x):  # x: (B,H,T,L), the Transformer-XL reference trick
    B, H, T, L = x.shape
    zero_pad = torch.zeros(B, H, T, 1, dtype=x.dtype)
    xp = torch.cat([zero_pad, x], dim=3).view(B, H, L + 1, T)
    return xp[:, :, 1:].reshape(B, H, T, L)


def relxl_case(B=2, T=3, M=2, E=6, H=2, Dh=4, mem_len=4):
    I = H * Dh
    x = f32(B, T, E).requires_grad_(True)
    mem = f32(B, M, E)  # no grad: memory is a constant
    Wqkv = f32(3 * I, E, scale=0.4).requires_grad_(True)
    Wr = f32(I, E, scale=0.4).requires_grad_(True)
    Wo = f32(E, I, scale=0.4).requires_grad_(True)
    u = f32(H, Dh, scale=0.3).requires_grad_(True)
    vb = f32(H, Dh, scale=0.3).requires_grad_(True)
    cat = torch.cat([mem, x], dim=1)  # (B,L,E)
    L = M + T
    heads = cat @ Wqkv.T
    q = heads[:, -T:, :I].view(B, T, H, Dh).transpose(1, 2)  # (B,H,T,Dh)
    k = heads[:, :, I:2 * I].view(B, L, H, Dh).transpose(1, 2)
    v = heads[:, :, 2 * I:].view(B, L, H, Dh).transpose(1, 2)
    pos_seq = torch.arange(L - 1, -1, -1.0, dtype=torch.float64)
    inv_freq = 1 / (10000 ** (torch.arange(0.0, E, 2.0, dtype=torch.float64) / E))
    sinusoid = torch.outer(pos_seq, inv_freq)
    R = torch.cat([sinusoid.sin(), sinusoid.cos()], dim=-1).float().double()  # (L,E)
    r = (R @ Wr.T).view(L, H, Dh).transpose(0, 1)  # (H,L,Dh)
    AC = (q + u.view(1, H, 1, Dh)) @ k.transpose(-1, -2)
    BD = rel_shift((q + vb.view(1, H, 1, Dh)) @ r.transpose(-1, -2).unsqueeze(0))
    score = (AC + BD) / math.sqrt(Dh)
    mask = torch.triu(torch.ones(T, L, dtype=torch.bool), diagonal=1 + M)
    P = torch.softmax(score.masked_fill(mask, float("-inf")), dim=-1)  # (B,H,T,L)
    out = (P @ v).transpose(1, 2).reshape(B, T, I) @ Wo.T
    Rr = f32(*out.shape)
    (out * Rr).sum().backward()
    new_mem = cat[:, -min(mem_len, L):].detach()
    case = {"B": B, "T": T, "M": M, "E": E, "H": H, "Dh": Dh, "mem_len": mem_len,
            "x": enc(x), "memory": enc(mem), "R": enc(Rr), "out": enc(out), "weights": enc(P),
            "new_memory": enc(new_mem), "grad.x": enc(x.grad)}
    for n, t in (("qkv_net.weight", Wqkv), ("r_net.weight", Wr), ("o_net.weight", Wo),
                 ("r_w_bias", u), ("r_r_bias", vb)):
        case[n] = enc(t)
        case["grad." + n] = enc(t.grad)
    return "relxl", case


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {
        "attention_mha.json": mha_fixtures(),
        "attention_scores.json": dict(score_case(k) for k in
                                      ("dot", "scaled_dot", "general", "additive", "cosine",
                                       "location")),
        "attention_more.json": dict([local_case("m", lengths=(7, 3)), local_case("p"),
                                     pooling_case(), disagreement_case(), relxl_case()]),
    }
    for fn, obj in files.items():
        obj["_meta"] = {"torch": torch.__version__, "script": "scripts/fixtures_attention.py"}
        path = os.path.join(OUT, fn)
        with open(path, "w") as f:
            json.dump(obj, f, separators=(",", ":"))
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
