#!/usr/bin/python3
"""Fixtures for the PyTorch -> attnlab seq2seq round trip (tests/fixtures/seq2seq_torch/).

Trains tiny models of scripts/attnlab_torch.py on a toy task (reverse a string of the
letters a-h, 3..7 long), seeded, a few hundred Adam steps each, exports each with
save_attnlab, and writes the PyTorch greedy decoding of held-out inputs (tokens, the
probability of each chosen token and of the final </s>, computed in float64) to
expected.json. The native (tests/native/seq2seq_torch_test.cpp) and JS
(tests/js/seq2seq_torch.test.mjs) tests load the files and decode the same inputs.

    /usr/bin/python3 scripts/fixtures_seq2seq_torch.py [OUT_DIR]
"""
import json
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_torch as at  # noqa: E402

LETTERS = "abcdefgh"
RNN = dict(emb=16, enc_hidden=24, attn_dim=16, combine=32, max_src_len=10, max_tgt_len=10)


def rnn_kind(rnn, bidirectional, input_feed, score, **extra):
    """The RNN seq2seq's constructor arguments: the sizes in RNN and these choices."""
    return dict(RNN, rnn=rnn, bidirectional=bidirectional, input_feed=input_feed, score=score, **extra)


KINDS = [
    # name, class, constructor arguments, steps
    ("gru_additive", at.Seq2Seq, rnn_kind("gru", False, True, "additive"), 400),
    ("lstm_general_bi", at.Seq2Seq, rnn_kind("lstm", True, True, "general"), 400),
    ("gru_dot_bi_nofeed", at.Seq2Seq, rnn_kind("gru", True, False, "dot"), 400),
    ("lstm_scaled_dot", at.Seq2Seq, rnn_kind("lstm", False, True, "scaled_dot"), 400),
    ("gru_cosine_bi", at.Seq2Seq, rnn_kind("gru", True, True, "cosine"), 400),
    ("gru_location_bi", at.Seq2Seq, rnn_kind("gru", True, True, "location"), 400),
    ("lstm_local_p_bi", at.Seq2Seq, rnn_kind("lstm", True, True, "local_p", local_window=2), 400),
    ("transformer_prenorm", at.TransformerSeq2Seq,
     dict(d_model=32, nhead=4, dim_feedforward=64, enc_layers=2, dec_layers=2, dropout=0.0,
          norm_first=True, pos="sinusoidal", max_src_len=10, max_tgt_len=10), 300),
    ("transformer_postnorm_learned", at.TransformerSeq2Seq,
     dict(d_model=32, nhead=2, dim_feedforward=64, enc_layers=1, dec_layers=2, dropout=0.0,
          norm_first=False, pos="learned", activation="gelu", max_src_len=10, max_tgt_len=10), 300),
]


def sample(rng):
    s = "".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 7)))
    return s, s[::-1]


def main(out_dir):
    torch.set_num_threads(1)  # the same numbers on every run
    os.makedirs(out_dir, exist_ok=True)
    vocab = at.Vocab(at.SPECIALS + list(LETTERS), "char")
    test_rng = random.Random(99)
    tests = [sample(test_rng)[0] for _ in range(12)] + ["abc", "hgfedcb"]
    expected = {"task": "reverse a string of a-h", "generator": "scripts/fixtures_seq2seq_torch.py",
                "torch": torch.__version__, "models": []}
    for name, cls, kw, steps in KINDS:
        torch.manual_seed(1234)
        rng = random.Random(1234)
        m = cls(vocab.tokens, vocab.tokens, **kw)
        opt = torch.optim.Adam(m.parameters(), lr=0.01)
        t0 = time.time()
        m.train()
        for _ in range(steps):
            pairs = [sample(rng) for _ in range(32)]
            src, src_len, tin, tout = at.make_batch(
                [(vocab.encode(a), vocab.encode(b)) for a, b in pairs], vocab, vocab)
            loss = at.seq2seq_loss(m(src, src_len, tin), tout)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 5.0)
            opt.step()
        m.eval()
        file = name + ".safetensors"
        size = at.save_attnlab(m, os.path.join(out_dir, file))
        ref = m.double()  # the reference decoding in float64
        cases, correct = [], 0
        for text in tests:
            ids, probs, eos = ref.greedy(vocab.encode(text))
            out = vocab.join(ids)
            correct += out == text[::-1]
            cases.append({"input": text, "tokens": [vocab.tokens[i] for i in ids], "text": out,
                          "probs": probs, "eos_prob": eos})
        print("%-30s loss %.4f  %2d/%d reversed  %.1fs  %d bytes" % (
            name, float(loss), correct, len(tests), time.time() - t0, size))
        expected["models"].append({"name": name, "file": file, "kind": "seq2seq" if cls is at.Seq2Seq
                                   else "transformer-seq2seq", "config": m.config,
                                   "train_steps": steps, "final_loss": float(loss),
                                   "cases": cases})
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures", "seq2seq_torch"))
