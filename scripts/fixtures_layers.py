#!/usr/bin/python3
"""Round-trip fixtures of the layer files: random PyTorch layers exported by
scripts/export_torch.py, with their PyTorch outputs in float64. Run with Debian's
python3 (torch 1.13.1):

    /usr/bin/python3 scripts/fixtures_layers.py

Writes tests/fixtures/layers/<case>.safetensors (the exporter's output, from
torch.save(module) or from a state_dict plus flags) and tests/fixtures/layers/cases.json:
per case the file, the call (inputs, masks, options in the JS API's names) and the
expected outputs. Weights and inputs are float32-representable; the references are
computed in float64 with autograd on (so torch 1.13's fused inference path, which
zeroes padded positions, is not taken).
"""
import json
import os
import subprocess
import sys
import tempfile

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "layers")
EXPORT = os.path.join(HERE, "export_torch.py")


def t2(x):
    a = x.detach().cpu().double()
    return {"shape": list(a.shape), "data": [float("%.9g" % v) for v in a.reshape(-1).tolist()]}


def mask(x):
    """bool mask -> {shape, data 0/1, bool: true}; float mask -> {shape, data, bool: false}"""
    if x.dtype == torch.bool:
        return {"shape": list(x.shape), "data": [int(v) for v in x.reshape(-1).tolist()], "bool": True}
    d = t2(x)
    d["bool"] = False
    return d


def rnd(g, *shape, scale=1.0):
    return (torch.randn(*shape, generator=g) * scale).float().double()


def randomize(m, g, scale=0.4):
    m.double()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(rnd(g, *p.shape, scale=scale))
    m.eval()  # dropout off (the exporter drops it; the references are eval-mode)
    return m


def export(name, m, flags=None):
    """torch.save(module) (or its state_dict when flags are given) -> export_torch.py."""
    path = os.path.join(OUT, name + ".safetensors")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.pt")
        torch.save(m.state_dict() if flags is not None else m, src)
        cmd = [sys.executable, EXPORT, src, path] + (flags or [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return os.path.basename(path)


def padding(g, B, S):
    """(B,S) bool, True = ignore, never a whole row"""
    m = torch.rand(B, S, generator=g) < 0.3
    m[:, 0] = False
    return m


def mha_cases(g):
    cases = []
    # self-attention, sequence first, key padding mask, averaged weights
    m = randomize(nn.MultiheadAttention(8, 2, dropout=0.3), g)
    x = rnd(g, 5, 3, 8)
    kpm = padding(g, 3, 5)
    out, w = m(x, x, x, key_padding_mask=kpm, need_weights=True)
    cases.append({"name": "mha_self_seqfirst", "kind": "MultiheadAttention", "file": export("mha_self_seqfirst", m),
                  "call": {"query": t2(x), "self": True, "keyPaddingMask": mask(kpm)},
                  "expect": {"out": t2(out), "weights": t2(w)}})
    # cross-attention, batch first, additive attn_mask, per-head weights
    m = randomize(nn.MultiheadAttention(12, 3, batch_first=True), g)
    q, k, v = rnd(g, 2, 4, 12), rnd(g, 2, 6, 12), rnd(g, 2, 6, 12)
    am = rnd(g, 4, 6, scale=0.8)
    out, w = m(q, k, v, attn_mask=am, need_weights=True, average_attn_weights=False)
    cases.append({"name": "mha_cross_batchfirst", "kind": "MultiheadAttention", "file": export("mha_cross_batchfirst", m),
                  "call": {"query": t2(q), "key": t2(k), "value": t2(v), "attnMask": mask(am),
                           "averageAttnWeights": False},
                  "expect": {"out": t2(out), "weights": t2(w)}})
    # no bias, per-(batch, head) bool mask, exported from a state_dict
    m = randomize(nn.MultiheadAttention(8, 4, bias=False, batch_first=True), g)
    q, k, v = rnd(g, 2, 5, 8), rnd(g, 2, 5, 8), rnd(g, 2, 5, 8)
    bm = torch.rand(8, 5, 5, generator=g) < 0.4
    for i in range(5):
        bm[:, i, i] = False
    out, _ = m(q, k, v, attn_mask=bm, need_weights=False)
    cases.append({"name": "mha_nobias_boolmask", "kind": "MultiheadAttention",
                  "file": export("mha_nobias_boolmask", m, ["--kind", "MultiheadAttention", "--num-heads", "4",
                                                            "--batch-first"]),
                  "call": {"query": t2(q), "key": t2(k), "value": t2(v), "attnMask": mask(bm),
                           "needWeights": False},
                  "expect": {"out": t2(out)}})
    # unbatched (T,E), with a causal bool mask given explicitly (torch 1.13 has no is_causal)
    m = randomize(nn.MultiheadAttention(8, 2), g)
    x = rnd(g, 6, 8)
    causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    out, w = m(x, x, x, attn_mask=causal)
    cases.append({"name": "mha_unbatched_causal", "kind": "MultiheadAttention", "file": export("mha_unbatched_causal", m),
                  "call": {"query": t2(x), "self": True, "isCausal": True},
                  "expect": {"out": t2(out), "weights": t2(w)}})
    return cases


def rnn_case(name, g, cls, I, H, L, bidir, batch_first, B, T, lengths, h0, flags=None, bias=True):
    m = randomize(cls(I, H, num_layers=L, bidirectional=bidir, batch_first=batch_first, bias=bias), g)
    D = 2 if bidir else 1
    unbatched = B is None
    if unbatched:
        x = rnd(g, T, I)
    else:
        x = rnd(g, B, T, I) if batch_first else rnd(g, T, B, I)
    lstm = cls is nn.LSTM
    state = None
    call = {"input": t2(x)}
    if h0:
        shp = (L * D, H) if unbatched else (L * D, B, H)
        hh = rnd(g, *shp, scale=0.5)
        call["h0"] = t2(hh)
        state = hh
        if lstm:
            cc = rnd(g, *shp, scale=0.5)
            call["c0"] = t2(cc)
            state = (hh, cc)
    if lengths:
        call["lengths"] = lengths
        packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths), batch_first=batch_first,
                                                   enforce_sorted=False)
        out_p, sn = m(packed, state)
        out, _ = nn.utils.rnn.pad_packed_sequence(out_p, batch_first=batch_first, total_length=T)
    else:
        out, sn = m(x, state)
    expect = {"out": t2(out)}
    if lstm:
        expect["hN"], expect["cN"] = t2(sn[0]), t2(sn[1])
    else:
        expect["hN"] = t2(sn)
    return {"name": name, "kind": cls.__name__, "file": export(name, m, flags), "call": call, "expect": expect}


def rnn_cases(g):
    return [
        rnn_case("gru_2layer_bi", g, nn.GRU, 4, 6, 2, True, False, 3, 5, [5, 2, 4], True),
        rnn_case("lstm_2layer_bi_batchfirst", g, nn.LSTM, 3, 5, 2, True, True, 3, 4, [4, 1, 3], True),
        rnn_case("gru_nobias_statedict", g, nn.GRU, 4, 5, 1, False, False, 2, 6, None, False,
                 flags=["--kind", "GRU"], bias=False),
        rnn_case("lstm_unbatched", g, nn.LSTM, 3, 4, 1, False, False, None, 5, None, True),
        rnn_case("lstm_3layer", g, nn.LSTM, 5, 4, 3, False, True, 2, 3, None, False),
    ]


def transformer_cases(g):
    cases = []
    m = randomize(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2), g)
    x = rnd(g, 5, 2, 8)
    kpm = padding(g, 2, 5)
    y = m(x, src_key_padding_mask=kpm)
    cases.append({"name": "encoder_postnorm_relu", "kind": "TransformerEncoderLayer",
                  "file": export("encoder_postnorm_relu", m),
                  "call": {"src": t2(x), "srcKeyPaddingMask": mask(kpm)}, "expect": {"out": t2(y)}})
    m = randomize(nn.TransformerEncoderLayer(12, 3, 20, dropout=0.0, activation="gelu", norm_first=True,
                                             batch_first=True), g)
    x = rnd(g, 2, 6, 12)
    sm = rnd(g, 6, 6, scale=0.7)
    y = m(x, src_mask=sm)
    cases.append({"name": "encoder_prenorm_gelu_batchfirst", "kind": "TransformerEncoderLayer",
                  "file": export("encoder_prenorm_gelu_batchfirst", m),
                  "call": {"src": t2(x), "srcMask": mask(sm)}, "expect": {"out": t2(y)}})
    m = randomize(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True), g)
    tgt, mem = rnd(g, 2, 4, 8), rnd(g, 2, 6, 8)
    causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    mkpm = padding(g, 2, 6)
    y = m(tgt, mem, tgt_mask=causal, memory_key_padding_mask=mkpm)
    cases.append({"name": "decoder_postnorm_batchfirst", "kind": "TransformerDecoderLayer",
                  "file": export("decoder_postnorm_batchfirst", m),
                  "call": {"tgt": t2(tgt), "memory": t2(mem), "tgtMask": mask(causal),
                           "memoryKeyPaddingMask": mask(mkpm)},
                  "expect": {"out": t2(y)}})
    m = randomize(nn.TransformerDecoderLayer(8, 4, 12, dropout=0.0, activation="gelu", norm_first=True), g)
    tgt, mem = rnd(g, 3, 2, 8), rnd(g, 5, 2, 8)
    tkpm = padding(g, 2, 3)
    mm = rnd(g, 3, 5, scale=0.5)
    y = m(tgt, mem, memory_mask=mm, tgt_key_padding_mask=tkpm)
    cases.append({"name": "decoder_prenorm_gelu_statedict", "kind": "TransformerDecoderLayer",
                  "file": export("decoder_prenorm_gelu_statedict", m,
                                 ["--kind", "TransformerDecoderLayer", "--nhead", "4", "--activation", "gelu",
                                  "--norm-first"]),
                  "call": {"tgt": t2(tgt), "memory": t2(mem), "memoryMask": mask(mm),
                           "tgtKeyPaddingMask": mask(tkpm)},
                  "expect": {"out": t2(y)}})
    return cases


def functional_cases(g):
    cases = []
    q, k, v = rnd(g, 2, 3, 4), rnd(g, 2, 5, 4), rnd(g, 2, 5, 6)
    allow = torch.rand(3, 5, generator=g) < 0.7
    allow[:, 0] = True
    s = q @ k.transpose(1, 2) / 2.0
    s = s.masked_fill(~allow, float("-inf"))
    w = torch.softmax(s, -1)
    cases.append({"name": "scaled_dot_boolmask", "fn": "scaledDot",
                  "call": {"q": t2(q), "k": t2(k), "v": t2(v), "mask": mask(~allow)},
                  "expect": {"out": t2(w @ v), "weights": t2(w)}})
    q, k, v = rnd(g, 4, 3), rnd(g, 4, 3), rnd(g, 4, 2)
    s = q @ k.T / 3 ** 0.5
    s = s.masked_fill(torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), float("-inf"))
    w = torch.softmax(s, -1)
    cases.append({"name": "scaled_dot_unbatched_causal", "fn": "scaledDot",
                  "call": {"q": t2(q), "k": t2(k), "v": t2(v), "causal": True},
                  "expect": {"out": t2(w @ v), "weights": t2(w)}})
    q, k, v = rnd(g, 2, 3, 4), rnd(g, 2, 5, 6), rnd(g, 2, 5, 3)
    wq, wk, va = rnd(g, 7, 4, scale=0.5), rnd(g, 7, 6, scale=0.5), rnd(g, 7)
    allow = torch.rand(2, 3, 5, generator=g) < 0.7
    allow[:, :, 1] = True
    s = torch.tanh((q @ wq.T).unsqueeze(2) + (k @ wk.T).unsqueeze(1)) @ va
    s = s.masked_fill(~allow, float("-inf"))
    w = torch.softmax(s, -1)
    cases.append({"name": "additive_mask", "fn": "additive",
                  "call": {"q": t2(q), "k": t2(k), "v": t2(v), "wq": t2(wq), "wk": t2(wk), "va": t2(va),
                           "mask": mask(~allow)},
                  "expect": {"out": t2(w @ v), "weights": t2(w)}})
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(2222)
    cases = mha_cases(g) + rnn_cases(g) + transformer_cases(g)
    fn = functional_cases(g)
    path = os.path.join(OUT, "cases.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "layers": cases, "functional": fn}, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes,", len(cases), "layer cases,", len(fn), "functional")


if __name__ == "__main__":
    main()
