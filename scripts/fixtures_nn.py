#!/usr/bin/python3
"""PyTorch reference fixtures for attnlab's nn layers, losses, optimizers and
safetensors reader. Run with Debian's python3 (torch 1.13.1):

    /usr/bin/python3 scripts/fixtures_nn.py

Writes tests/fixtures/nn_*.json and tests/fixtures/torch_small.safetensors
(written by hand with struct + json, no safetensors package). Layer
references are computed in float64 from float32-representable inputs.
"""
import json
import os
import struct

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures")


def t2(x):
    """tensor -> {shape, data} (flat float list, rounded to 9 significant digits)"""
    a = x.detach().cpu().double().numpy()
    return {"shape": list(a.shape), "data": [float("%.9g" % v) for v in a.reshape(-1)]}


def rnd(g, *shape, scale=1.0):
    return (torch.randn(*shape, generator=g) * scale).float().double()


def write(name, obj):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


def rnn_case(kind, g, B, T, I, H, bidir, lengths, with_h0):
    cls = torch.nn.GRU if kind == "gru" else torch.nn.LSTM
    m = cls(I, H, batch_first=True, bidirectional=bidir).double()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(rnd(g, *p.shape, scale=0.4))
    D = 2 if bidir else 1
    x = rnd(g, B, T, I).requires_grad_(True)
    h0 = rnd(g, D, B, H, scale=0.5).requires_grad_(True) if with_h0 else None
    c0 = rnd(g, D, B, H, scale=0.5).requires_grad_(True) if (with_h0 and kind == "lstm") else None
    packed = pack_padded_sequence(x, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
    if kind == "gru":
        out_p, hn = m(packed, h0)
        cn = None
    else:
        out_p, (hn, cn) = m(packed, (h0, c0) if with_h0 else None)
    out, _ = pad_packed_sequence(out_p, batch_first=True, total_length=T)
    R = rnd(g, B, T, D * H)
    Rh = rnd(g, D, B, H)
    loss = (out * R).sum() + (hn * Rh).sum()
    Rc = None
    if cn is not None:
        Rc = rnd(g, D, B, H)
        loss = loss + (cn * Rc).sum()
    loss.backward()
    case = {
        "kind": kind, "B": B, "T": T, "I": I, "H": H, "bidirectional": bidir,
        "lengths": lengths, "x": t2(x), "R": t2(R), "Rh": t2(Rh),
        "out": t2(out), "hn": t2(hn), "dx": t2(x.grad),
        "params": {n: t2(p) for n, p in m.named_parameters()},
        "grads": {n: t2(p.grad) for n, p in m.named_parameters()},
    }
    if h0 is not None:
        case["h0"] = t2(h0)
        case["dh0"] = t2(h0.grad)
    if c0 is not None:
        case["c0"] = t2(c0)
        case["dc0"] = t2(c0.grad)
    if cn is not None:
        case["cn"] = t2(cn)
        case["Rc"] = t2(Rc)
    return case


def rnn_fixtures():
    g = torch.Generator().manual_seed(1234)
    cases = []
    for kind in ("gru", "lstm"):
        cases.append(rnn_case(kind, g, 3, 5, 4, 6, False, [5, 2, 4], True))
        cases.append(rnn_case(kind, g, 3, 5, 4, 6, True, [3, 5, 1], False))
        cases.append(rnn_case(kind, g, 2, 4, 3, 5, True, [4, 4], True))
        cases.append(rnn_case(kind, g, 2, 1, 3, 4, False, [1, 1], False))
    write("nn_rnn.json", {"cases": cases})


def layernorm_fixture():
    g = torch.Generator().manual_seed(7)
    x = rnd(g, 2, 3, 7, scale=2.0).requires_grad_(True)
    ln = torch.nn.LayerNorm(7).double()
    with torch.no_grad():
        ln.weight.copy_(rnd(g, 7))
        ln.bias.copy_(rnd(g, 7))
    y = ln(x)
    R = rnd(g, 2, 3, 7)
    (y * R).sum().backward()
    write("nn_layernorm.json", {"x": t2(x), "weight": t2(ln.weight), "bias": t2(ln.bias),
                                "eps": 1e-5, "R": t2(R), "y": t2(y), "dx": t2(x.grad),
                                "dweight": t2(ln.weight.grad), "dbias": t2(ln.bias.grad)})


def ce_fixture():
    g = torch.Generator().manual_seed(11)
    cases = []
    for ignore, ls in ((-100, 0.0), (0, 0.0), (0, 0.1), (-100, 0.2)):
        logits = rnd(g, 8, 6, scale=3.0).requires_grad_(True)
        targets = torch.randint(0, 6, (8,), generator=g)
        if ignore == 0:
            targets[1] = 0
            targets[5] = 0
        else:
            targets[3] = -100
        loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=ignore,
                                                 label_smoothing=ls)
        loss.backward()
        cases.append({"logits": t2(logits), "targets": targets.tolist(), "ignore_index": ignore,
                      "label_smoothing": ls, "loss": float(loss), "dlogits": t2(logits.grad)})
    # MSE and BCE-with-logits
    p = rnd(g, 4, 3).requires_grad_(True)
    t = rnd(g, 4, 3)
    mse = torch.nn.functional.mse_loss(p, t)
    mse.backward()
    z = rnd(g, 5, 2, scale=6.0).requires_grad_(True)
    y = torch.rand(5, 2, generator=g).double()
    bce = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    bce.backward()
    write("nn_loss.json", {"ce": cases,
                           "mse": {"pred": t2(p), "target": t2(t), "loss": float(mse),
                                   "dpred": t2(p.grad)},
                           "bce": {"logits": t2(z), "target": t2(y), "loss": float(bce),
                                   "dlogits": t2(z.grad)}})


def optim_fixture():
    """float32, like the C++ side: 3 steps with fixed gradients."""
    g = torch.Generator().manual_seed(3)
    res = {}
    configs = {
        "adam": lambda ps: torch.optim.Adam(ps, lr=0.01, betas=(0.9, 0.99), eps=1e-8,
                                            weight_decay=0.05),
        "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01, betas=(0.8, 0.95), eps=1e-6,
                                              weight_decay=0.1),
        "sgd": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01,
                                          nesterov=True),
    }
    for name, make in configs.items():
        a = torch.randn(3, 4, generator=g).requires_grad_(True)
        b = torch.randn(5, generator=g).requires_grad_(True)
        init = {"a": t2(a), "b": t2(b)}
        opt = make([a, b])
        grads, after = [], []
        for _ in range(3):
            ga = torch.randn(3, 4, generator=g)
            gb = torch.randn(5, generator=g)
            a.grad = ga.clone()
            b.grad = gb.clone()
            opt.step()
            grads.append({"a": t2(ga), "b": t2(gb)})
            after.append({"a": t2(a), "b": t2(b)})
        res[name] = {"init": init, "grads": grads, "after": after,
                     "hyper": opt.param_groups[0]["lr"]}
    write("nn_optim.json", res)


def safetensors_fixture():
    """A model file written by hand: F32 and F16 tensors + __metadata__."""
    g = torch.Generator().manual_seed(5)
    w = torch.randn(3, 4, generator=g).numpy().astype("<f4")
    bias = (torch.randn(3, generator=g) * 100).numpy().astype("<f2")  # stored as F16
    emb = torch.randn(5, 2, generator=g).numpy().astype("<f4")
    tensors = [("linear.weight", "F32", w), ("linear.bias", "F16", bias), ("emb.weight", "F32", emb)]
    header, blobs, off = {}, [], 0
    for name, dt, arr in tensors:
        raw = arr.tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header["__metadata__"] = {"kind": "torch-test", "config": json.dumps({"in": 4, "out": 3}),
                              "vocab": json.dumps(["<pad>", "a", "b", "c", "d"])}
    hb = json.dumps(header).encode("utf-8")
    hb += b" " * ((8 - len(hb) % 8) % 8)
    path = os.path.join(OUT, "torch_small.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for raw in blobs:
            f.write(raw)
    print("wrote", path)
    # expected values (F16 widened exactly to float) for the test
    write("nn_safetensors_expected.json", {
        "linear.weight": {"shape": [3, 4], "data": [float(v) for v in w.reshape(-1)]},
        "linear.bias": {"shape": [3], "data": [float(v) for v in bias.astype(np.float32)]},
        "emb.weight": {"shape": [5, 2], "data": [float(v) for v in emb.reshape(-1)]},
        # float -> half round-to-nearest-even cases, checked by numpy
        "half_cases": [[float(v), int(np.array([v], dtype=np.float32).astype(np.float16).view(np.uint16)[0])]
                       for v in [0.0, -0.0, 1.0, -2.5, 65504.0, 65520.0, 1e6, 6.1e-5, 5.96e-8,
                                 2.98e-8, 2.99e-8, 1e-9, 0.1, 0.3333333, 1.0009765625,
                                 1.00048828125, 1.00146484375, 3.0517578e-05, -7.3e-6, 2049.0,
                                 2051.0, 4097.0]],
    })


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    rnn_fixtures()
    layernorm_fixture()
    ce_fixture()
    optim_fixture()
    safetensors_fixture()
