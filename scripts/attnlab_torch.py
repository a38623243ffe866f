#!/usr/bin/python3
"""Reference PyTorch definitions of attnlab's seq2seq model kinds.

Train one of these in PyTorch (any number of GPUs, your own data loop), then write it as an
attnlab model file that the CLI, the native library and the JS package load:

    import attnlab_torch as at
    m = at.Seq2Seq(src_vocab, tgt_vocab, rnn="gru", score="additive")   # or at.TransformerSeq2Seq
    ... train with m(src, src_len, tgt_in) -> logits, at.seq2seq_loss(...) ...
    at.save_attnlab(m, "model.safetensors")            # or torch.save(m, "m.pt") and
                                                       # scripts/export_torch.py m.pt model.safetensors

The modules compute what attnlab's models compute (src/attnlab/models/seq2seq.hpp and
transformer.hpp), with the same parameter names (the state_dict keys are the model file's
tensor names), so the exported file needs no renaming:

Seq2Seq (kind "seq2seq"): GRU or LSTM encoder (optionally bidirectional; the decoder starts
from the encoder's final state, both directions concatenated), a one-layer decoder RNN whose
input is [tgt_emb(y_{t-1}); att_{t-1}] with input feeding (att_{-1} = 0) or tgt_emb(y_{t-1})
without, attention of the decoder state h_t over the encoder outputs (masked past each source
length) with one of the scores
    dot          s . h                     scaled_dot  s . h / sqrt(d)
    general      h . (W s)                 additive    v . tanh(Wq h + Wk s)  (no biases)
    cosine       s . h / (|s| |h|)         location    (W h)[j], W (max_src_len, d)
    local_p      Luong's local-p: general scores in a window around p = S sigmoid(v . tanh(Wp h)),
                 times a Gaussian (sigma = window / 2)
then att_t = tanh(combine([ctx_t; h_t])), logits = out(att_t).

TransformerSeq2Seq (kind "transformer-seq2seq"): torch.nn.TransformerEncoderLayer /
TransformerDecoderLayer stacks (batch_first), embeddings times sqrt(d_model) (scale_embedding),
sinusoidal (sin at even columns, cos at odd) or learned positions, a final LayerNorm after each
stack when norm_first, output projection (tied to tgt_emb or not).

Vocabularies are lists of token strings whose first four entries are <pad> <unk> <s> </s>
(ids 0..3, as attnlab's data::Vocab). With uppercase=True attnlab upper-cases a-z in the input
before the lookup (give such a model an upper-case source vocabulary). Token units: src_tokens / tgt_tokens "char" (one Unicode
code point per token) or "word" (whitespace-separated); attnlab splits text the same way.
Dropout is for training only: attnlab runs the model for inference.
"""
import json
import math
import os
import struct

import torch
from torch import nn
import torch.nn.functional as F

SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]
PAD, UNK, BOS, EOS = 0, 1, 2, 3
RNN_SCORES = ("dot", "scaled_dot", "general", "additive", "cosine", "location", "local_p")


def _check_vocab(v, what):
    if not isinstance(v, (list, tuple)) or not all(isinstance(t, str) for t in v):
        raise ValueError("%s: expected a list of token strings" % what)
    if list(v[:4]) != SPECIALS:
        raise ValueError("%s: the first four tokens must be %s, got %s" % (what, SPECIALS, list(v[:4])))
    if len(set(v)) != len(v):
        raise ValueError("%s: tokens must be unique" % what)
    return list(v)


class Vocab:
    """Token strings <-> ids; text split as attnlab splits it ("char" or "word")."""

    def __init__(self, tokens, unit="char"):
        self.tokens = _check_vocab(tokens, "vocab")
        self.unit = unit
        self.ids = {t: i for i, t in enumerate(self.tokens)}

    def split(self, text):
        return list(text) if self.unit == "char" else text.split()

    def encode(self, text):
        return [self.ids.get(t, UNK) for t in self.split(text)]

    def join(self, ids):
        return ("" if self.unit == "char" else " ").join(self.tokens[i] for i in ids)

    @staticmethod
    def from_texts(texts, unit="char"):
        seen = []
        for s in texts:
            for t in (list(s) if unit == "char" else s.split()):
                if t not in seen and t not in SPECIALS:
                    seen.append(t)
        return Vocab(SPECIALS + sorted(seen), unit)


# ---------------------------------------------------------------- RNN seq2seq
class Score(nn.Module):
    """One attention score: query h (B,Dq), keys (B,S,Dk) -> scores (B,S)."""

    def __init__(self, kind, query_dim, key_dim, attn_dim, max_keys):
        super().__init__()
        self.kind = kind
        if kind in ("dot", "scaled_dot", "cosine") and query_dim != key_dim:
            raise ValueError("score %s needs query_dim == key_dim" % kind)
        if kind == "general":
            b = 1.0 / math.sqrt(key_dim)
            self.weight = nn.Parameter(torch.empty(query_dim, key_dim).uniform_(-b, b))
        elif kind == "additive":
            self.query_proj = nn.Linear(query_dim, attn_dim, bias=False)
            self.key_proj = nn.Linear(key_dim, attn_dim, bias=False)
            b = 1.0 / math.sqrt(attn_dim)
            self.v = nn.Parameter(torch.empty(attn_dim).uniform_(-b, b))
        elif kind == "location":
            b = 1.0 / math.sqrt(query_dim)
            self.weight = nn.Parameter(torch.empty(max_keys, query_dim).uniform_(-b, b))
        elif kind not in ("dot", "scaled_dot", "cosine"):
            raise ValueError("score must be one of %s, got %r" % (", ".join(RNN_SCORES), kind))

    def forward(self, h, keys):
        k = self.kind
        if k == "dot":
            return torch.einsum("bd,bsd->bs", h, keys)
        if k == "scaled_dot":
            return torch.einsum("bd,bsd->bs", h, keys) / math.sqrt(keys.shape[-1])
        if k == "general":
            return torch.einsum("bd,bsd->bs", h, keys @ self.weight.t())
        if k == "additive":
            hid = torch.tanh(self.key_proj(keys) + self.query_proj(h)[:, None, :])
            return hid @ self.v
        if k == "cosine":
            qn = h.norm(dim=-1).clamp_min(1e-8)
            kn = keys.norm(dim=-1).clamp_min(1e-8)
            return torch.einsum("bd,bsd->bs", h, keys) / (qn[:, None] * kn)
        S = keys.shape[1]
        if S > self.weight.shape[0]:
            raise ValueError("location score: at most %d keys, got %d" % (self.weight.shape[0], S))
        return h @ self.weight[:S].t()


class LocalP(nn.Module):
    """Luong local-p attention with the general score (parameter names as attnlab's)."""

    def __init__(self, query_dim, key_dim, attn_dim, window):
        super().__init__()
        self.window = window
        self.score = Score("general", query_dim, key_dim, attn_dim, 0)
        self.predictor = nn.Module()
        self.predictor.weight = nn.Parameter(torch.empty(attn_dim, query_dim).uniform_(
            -1 / math.sqrt(query_dim), 1 / math.sqrt(query_dim)))
        self.predictor.v = nn.Parameter(torch.empty(attn_dim).uniform_(
            -1 / math.sqrt(attn_dim), 1 / math.sqrt(attn_dim)))

    def weights(self, h, keys, lengths):
        # h (B,Dq), keys (B,S,Dk), lengths (B) -> (B,S)
        S = keys.shape[1]
        sc = self.score(h, keys)
        p = lengths.to(h.dtype) * torch.sigmoid(torch.tanh(h @ self.predictor.weight.t()) @ self.predictor.v)
        D = float(self.window)
        j = torch.arange(S, dtype=h.dtype, device=h.device)[None, :]
        lo = torch.ceil(p - D).clamp_min(0)[:, None]
        hi = torch.minimum(torch.floor(p + D), lengths.to(h.dtype) - 1)[:, None]
        allowed = (j >= lo) & (j <= hi)
        w = torch.softmax(sc.masked_fill(~allowed, float("-inf")), dim=-1)
        w = torch.nan_to_num(w, nan=0.0)
        sigma = D / 2
        return w * torch.exp(-(j - p[:, None]) ** 2 / (2 * sigma * sigma))


class Seq2Seq(nn.Module):
    """attnlab's RNN encoder-decoder with attention (kind "seq2seq")."""

    def __init__(self, src_vocab, tgt_vocab, rnn="gru", bidirectional=True, input_feed=True,
                 score="additive", emb=64, enc_hidden=128, attn_dim=128, local_window=3,
                 combine=256, max_src_len=40, max_tgt_len=40, src_tokens="char", tgt_tokens="char",
                 uppercase=False, output_sep=None, task="seq2seq"):
        super().__init__()
        if rnn not in ("gru", "lstm"):
            raise ValueError("rnn must be 'gru' or 'lstm', got %r" % rnn)
        if score not in RNN_SCORES:
            raise ValueError("score must be one of %s, got %r" % (", ".join(RNN_SCORES), score))
        self.src_vocab = _check_vocab(src_vocab, "src_vocab")
        self.tgt_vocab = _check_vocab(tgt_vocab, "tgt_vocab")
        self.config = dict(
            task=task, rnn=rnn, bidirectional=bool(bidirectional), input_feed=bool(input_feed),
            score=score, emb=emb, enc_hidden=enc_hidden, attn_dim=attn_dim,
            local_window=local_window, combine=combine, max_src_len=max_src_len,
            max_tgt_len=max_tgt_len, uppercase=bool(uppercase),
            output_sep=("" if tgt_tokens == "char" else " ") if output_sep is None else output_sep,
            src_tokens=src_tokens, tgt_tokens=tgt_tokens,
            src_vocab=len(self.src_vocab), tgt_vocab=len(self.tgt_vocab))
        De = enc_hidden * (2 if bidirectional else 1)
        self.De = De
        R = nn.GRU if rnn == "gru" else nn.LSTM
        self.src_emb = nn.Embedding(len(self.src_vocab), emb, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(len(self.tgt_vocab), emb, padding_idx=PAD)
        self.encoder = R(emb, enc_hidden, batch_first=True, bidirectional=bidirectional)
        self.decoder = R(emb + (combine if input_feed else 0), De, batch_first=True)
        if score == "local_p":
            self.attention = LocalP(De, De, attn_dim, local_window)
        else:
            self.attention = Score(score, De, De, attn_dim, max_src_len)
        self.combine = nn.Linear(2 * De, combine)
        self.out = nn.Linear(combine, len(self.tgt_vocab))

    @property
    def lstm(self):
        return self.config["rnn"] == "lstm"

    def encode(self, src, src_len):
        """src (B,S) ids, src_len (B) -> enc (B,S,De) (zeros past each length), decoder state."""
        x = self.src_emb(src)
        packed = nn.utils.rnn.pack_padded_sequence(x, src_len.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, st = self.encoder(packed)
        enc, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])

        def join(s):  # (dirs,B,He) -> (1,B,De)
            return torch.cat(list(s), dim=-1)[None]
        state = (join(st[0]), join(st[1])) if self.lstm else join(st)
        return enc, state

    def step(self, y_prev, enc, src_len, state, feed):
        """One decoder step: y_prev (B), feed (B,C) -> att (B,C), weights (B,S), state."""
        x = self.tgt_emb(y_prev)
        if self.config["input_feed"]:
            x = torch.cat([x, feed], dim=-1)
        h, state = self.decoder(x[:, None, :], state)
        h = h[:, 0]
        S = enc.shape[1]
        if isinstance(self.attention, LocalP):
            w = self.attention.weights(h, enc, src_len)
        else:
            sc = self.attention(h, enc)
            valid = torch.arange(S, device=enc.device)[None, :] < src_len[:, None]
            w = torch.softmax(sc.masked_fill(~valid, float("-inf")), dim=-1)
        ctx = torch.einsum("bs,bsd->bd", w, enc)
        att = torch.tanh(self.combine(torch.cat([ctx, h], dim=-1)))
        return att, w, state

    def forward(self, src, src_len, tgt_in):
        """Teacher forcing: src (B,S), src_len (B), tgt_in (B,T) = <s> y -> logits (B,T,V)."""
        enc, state = self.encode(src, src_len)
        B, T = tgt_in.shape
        feed = enc.new_zeros(B, self.config["combine"])
        atts = []
        for t in range(T):
            feed, _, state = self.step(tgt_in[:, t], enc, src_len, state, feed)
            atts.append(feed)
        return self.out(torch.stack(atts, dim=1))

    @torch.no_grad()
    def greedy(self, src_ids, max_len=None):
        """One source (list of ids) -> (output ids, prob of each, prob of </s> or 0)."""
        max_len = max_len or self.config["max_tgt_len"]
        src = torch.tensor([src_ids])
        src_len = torch.tensor([len(src_ids)])
        enc, state = self.encode(src, src_len)
        feed = enc.new_zeros(1, self.config["combine"])
        y = torch.tensor([BOS])
        return _greedy_loop(lambda y, st: self._greedy_step(y, enc, src_len, st), (state, feed), y, max_len)

    def _greedy_step(self, y, enc, src_len, st):
        state, feed = st
        feed, _, state = self.step(y, enc, src_len, state, feed)
        return self.out(feed), (state, feed)


def _greedy_loop(step, st, y, max_len):
    ids, probs, eos_prob = [], [], 0.0
    for _ in range(max_len + 1):
        logits, st = step(y, st)
        p = torch.softmax(logits[0], dim=-1)
        nxt = int(torch.argmax(p))
        if nxt == EOS:
            eos_prob = float(p[nxt])
            break
        if len(ids) == max_len:
            break
        ids.append(nxt)
        probs.append(float(p[nxt]))
        y = torch.tensor([nxt])
    return ids, probs, eos_prob


# ---------------------------------------------------------------- Transformer seq2seq
def sinusoid_table(n, d):
    """(n,d): sin at even columns, cos at odd, frequency 10000^(-2i/d), i = column // 2."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i2 = (torch.arange(d) // 2 * 2).to(torch.float64)
    ang = pos * torch.pow(10000.0, -i2 / d)[None, :]
    return torch.where(torch.arange(d)[None, :] % 2 == 1, torch.cos(ang), torch.sin(ang)).float()


class TransformerSeq2Seq(nn.Module):
    """attnlab's Transformer encoder-decoder (kind "transformer-seq2seq")."""

    def __init__(self, src_vocab, tgt_vocab, d_model=128, nhead=4, dim_feedforward=512,
                 enc_layers=3, dec_layers=3, dropout=0.1, activation="relu", norm_first=True,
                 pos="sinusoidal", tie_output=False, scale_embedding=True, max_src_len=40,
                 max_tgt_len=40, src_tokens="char", tgt_tokens="char", uppercase=False,
                 output_sep=None, task="seq2seq"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError("activation must be relu or gelu, got %r" % activation)
        if pos not in ("sinusoidal", "learned"):
            raise ValueError("pos must be sinusoidal or learned, got %r" % pos)
        self.src_vocab = _check_vocab(src_vocab, "src_vocab")
        self.tgt_vocab = _check_vocab(tgt_vocab, "tgt_vocab")
        self.config = dict(
            task=task, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
            enc_layers=enc_layers, dec_layers=dec_layers, dropout=float(dropout),
            activation=activation, norm_first=bool(norm_first), pos=pos,
            tie_output=bool(tie_output), scale_embedding=bool(scale_embedding),
            max_src_len=max_src_len, max_tgt_len=max_tgt_len, uppercase=bool(uppercase),
            output_sep=("" if tgt_tokens == "char" else " ") if output_sep is None else output_sep,
            src_tokens=src_tokens, tgt_tokens=tgt_tokens,
            src_vocab=len(self.src_vocab), tgt_vocab=len(self.tgt_vocab))
        E = d_model
        self.src_emb = nn.Embedding(len(self.src_vocab), E, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(len(self.tgt_vocab), E, padding_idx=PAD)
        with torch.no_grad():
            self.src_emb.weight.mul_(1 / math.sqrt(E))
            self.tgt_emb.weight.mul_(1 / math.sqrt(E))
        if pos == "learned":
            self.src_pos = nn.Embedding(max_src_len, E)
            self.tgt_pos = nn.Embedding(max_tgt_len + 1, E)
            nn.init.normal_(self.src_pos.weight, std=0.02)
            nn.init.normal_(self.tgt_pos.weight, std=0.02)
        else:
            self.register_buffer("pe", sinusoid_table(max(max_src_len, max_tgt_len + 1), E),
                                 persistent=False)
        enc_layer = nn.TransformerEncoderLayer(E, nhead, dim_feedforward, dropout, activation,
                                               batch_first=True, norm_first=norm_first)
        dec_layer = nn.TransformerDecoderLayer(E, nhead, dim_feedforward, dropout, activation,
                                               batch_first=True, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(enc_layer, enc_layers,
                                             norm=nn.LayerNorm(E) if norm_first else None,
                                             enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec_layer, dec_layers,
                                             norm=nn.LayerNorm(E) if norm_first else None)
        self.out = nn.Linear(E, len(self.tgt_vocab))
        if tie_output:
            self.out.weight = self.tgt_emb.weight
        self.drop = nn.Dropout(dropout)

    def _embed(self, emb, ids, which, start=0):
        E = self.config["d_model"]
        x = emb(ids)
        if self.config["scale_embedding"]:
            x = x * math.sqrt(E)
        T = ids.shape[1]
        if self.config["pos"] == "learned":
            table = (self.src_pos if which == "src" else self.tgt_pos).weight
        else:
            table = self.pe
        if start + T > table.shape[0]:
            raise ValueError("position %d past the table's %d rows" % (start + T - 1, table.shape[0]))
        return self.drop(x + table[start:start + T].to(x.dtype)[None])

    def encode(self, src, src_len):
        pad = torch.arange(src.shape[1], device=src.device)[None, :] >= src_len[:, None]
        return self.encoder(self._embed(self.src_emb, src, "src"), src_key_padding_mask=pad), pad

    def decode_logits(self, mem, src_pad, tgt_in, tgt_pad=None):
        T = tgt_in.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=tgt_in.device), 1)
        h = self.decoder(self._embed(self.tgt_emb, tgt_in, "tgt"), mem, tgt_mask=causal,
                         tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
        return self.out(h)

    def forward(self, src, src_len, tgt_in):
        """Teacher forcing: src (B,S), src_len (B), tgt_in (B,T) = <s> y -> logits (B,T,V)."""
        mem, src_pad = self.encode(src, src_len)
        return self.decode_logits(mem, src_pad, tgt_in, tgt_in == PAD)

    @torch.no_grad()
    def greedy(self, src_ids, max_len=None):
        max_len = max_len or self.config["max_tgt_len"]
        src = torch.tensor([src_ids])
        mem, src_pad = self.encode(src, torch.tensor([len(src_ids)]))

        def step(y, prefix):
            prefix = torch.cat([prefix, y[None]], dim=1)
            return self.decode_logits(mem, src_pad, prefix)[:, -1], prefix
        return _greedy_loop(step, torch.zeros(1, 0, dtype=torch.long), torch.tensor([BOS]), max_len)


# ---------------------------------------------------------------- training helpers
def make_batch(pairs, src_vocab, tgt_vocab):
    """[(src ids, tgt ids)] -> src (B,S), src_len (B), tgt_in (B,T), tgt_out (B,T), padded."""
    B = len(pairs)
    S = max(len(s) for s, _ in pairs)
    T = max(len(t) for _, t in pairs) + 1
    src = torch.full((B, S), PAD, dtype=torch.long)
    tin = torch.full((B, T), PAD, dtype=torch.long)
    tout = torch.full((B, T), PAD, dtype=torch.long)
    for r, (s, t) in enumerate(pairs):
        src[r, :len(s)] = torch.tensor(s)
        tin[r, 0] = BOS
        tin[r, 1:len(t) + 1] = torch.tensor(t, dtype=torch.long)
        tout[r, :len(t)] = torch.tensor(t, dtype=torch.long)
        tout[r, len(t)] = EOS
    return src, torch.tensor([len(s) for s, _ in pairs]), tin, tout


def seq2seq_loss(logits, tgt_out, label_smoothing=0.0):
    """Mean token cross-entropy over the non-<pad> targets."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                           ignore_index=PAD, label_smoothing=label_smoothing)


# ---------------------------------------------------------------- export
def reference_kind(model):
    """The model file kind of a reference model (also of one whose class came from a copy of
    this file imported under another module name), else None."""
    for cls, kind in ((Seq2Seq, "seq2seq"), (TransformerSeq2Seq, "transformer-seq2seq")):
        if isinstance(model, cls):
            return kind
    if isinstance(model, nn.Module) and hasattr(model, "config") and hasattr(model, "src_vocab"):
        return {"Seq2Seq": "seq2seq", "TransformerSeq2Seq": "transformer-seq2seq"}.get(type(model).__name__)
    return None


def checked_tensors(sd):
    """[(name, tensor)] of a state_dict whose entries are all finite float tensors; ValueError
    naming the first entry that is not."""
    tensors = []
    for name, t in sd.items():
        if not torch.is_tensor(t) or not t.is_floating_point():
            raise ValueError("state_dict entry '%s' is not a float tensor" % name)
        if not torch.isfinite(t).all():
            raise ValueError("state_dict entry '%s' holds NaN or infinite values" % name)
        tensors.append((name, t))
    return tensors


def model_file_parts(model):
    """(kind, metadata dict, [(name, tensor)]) of a reference model, checked."""
    kind = reference_kind(model)
    if kind is None:
        raise TypeError("expected attnlab_torch.Seq2Seq or TransformerSeq2Seq, got %s" % type(model).__name__)
    cfg = dict(model.config)
    for attr, emb in (("src_vocab", model.src_emb), ("tgt_vocab", model.tgt_emb)):
        v = _check_vocab(getattr(model, attr), attr)
        if len(v) != emb.num_embeddings:
            raise ValueError("%s has %d tokens, the model's embedding %d rows" % (attr, len(v), emb.num_embeddings))
        cfg[attr] = len(v)
    for key in ("src_tokens", "tgt_tokens"):
        if cfg[key] not in ("", "char", "word"):
            raise ValueError("%s must be '', 'char' or 'word', got %r" % (key, cfg[key]))
    sd = model.state_dict()
    if kind == "transformer-seq2seq" and cfg["tie_output"]:
        sd.pop("out.weight", None)  # attnlab reads the tied weight from tgt_emb
    tensors = checked_tensors(sd)
    meta = {"format": "attnlab-model-1", "kind": kind,
            "config": json.dumps(cfg, separators=(",", ":")),
            "vocab": json.dumps(model.src_vocab, ensure_ascii=False),
            "tgt_vocab": json.dumps(model.tgt_vocab, ensure_ascii=False),
            "exported_by": "scripts/attnlab_torch.py (torch %s)" % torch.__version__}
    return kind, meta, tensors


def safetensors_bytes(tensors, metadata):
    """tensors: list of (name, float32 contiguous tensor) -> bytes of a safetensors file (the one
    writer of them: export_torch.py's layer and model files too)."""
    header = {"__metadata__": metadata}
    blobs = []
    off = 0
    for name, t in tensors:
        b = t.detach().cpu().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def save_attnlab(model, path, src_vocab=None, tgt_vocab=None):
    """Writes `model` as an attnlab model file (safetensors, float32). src_vocab / tgt_vocab
    (lists of token strings, or Vocab) replace the ones the model was built with; they must
    have the same sizes. Returns the number of bytes written."""
    if src_vocab is not None or tgt_vocab is not None:
        for attr, v in (("src_vocab", src_vocab), ("tgt_vocab", tgt_vocab)):
            if v is None:
                continue
            v = _check_vocab(v.tokens if isinstance(v, Vocab) else v, attr)
            if len(v) != len(getattr(model, attr)):
                raise ValueError("%s has %d tokens, the model was built with %d" % (
                    attr, len(v), len(getattr(model, attr))))
            setattr(model, attr, v)
    _, meta, tensors = model_file_parts(model)
    data = safetensors_bytes(tensors, meta)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


if __name__ == "__main__":
    print(__doc__)
