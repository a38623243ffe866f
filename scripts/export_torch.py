#!/usr/bin/python3
"""Export one PyTorch layer, or a whole seq2seq model, as an attnlab file (safetensors).

    /usr/bin/python3 scripts/export_torch.py IN.pt OUT.safetensors
    /usr/bin/python3 scripts/export_torch.py STATE_DICT.pt OUT.safetensors --kind GRU \\
        --hidden-size 64 --num-layers 2 --bidirectional

IN.pt is either a whole module saved with torch.save(module) (its kind and constructor
arguments are read from it) or a state_dict saved with torch.save(module.state_dict());
then --kind names the class and the flags give the constructor arguments the weights do
not show (--num-heads / --nhead, --activation, --norm-first, --batch-first, ...; sizes
are read from the weight shapes unless given).

Whole seq2seq models: IN.pt holds torch.save(model) of scripts/attnlab_torch.py's Seq2Seq
(GRU/LSTM encoder-decoder with attention) or TransformerSeq2Seq, built with its vocabularies;
OUT is then an attnlab model file (kind "seq2seq" or "transformer-seq2seq", config and
vocabularies in __metadata__) that the CLI (attnlab predict --model OUT), the C++ library
(models::load_translator) and the JS package (al.Seq2Seq.fromBytes) load. From Python,
attnlab_torch.save_attnlab(model, path) writes the same file.

Supported layers: nn.MultiheadAttention (kdim = vdim = embed_dim, no add_bias_kv /
add_zero_attn), nn.GRU, nn.LSTM (proj_size 0), nn.TransformerEncoderLayer,
nn.TransformerDecoderLayer (activation relu or gelu). Anything else is refused with the
reason. Dropout is dropped (attnlab runs the layer for inference).

The file: safetensors, float32, tensors named as the module's state_dict; __metadata__
{"format": "attnlab-layer", "kind": class name, "config": JSON of the constructor
arguments}. Load it with al.layers.fromBytes(bytes) (JS) or
attnlab::models::load_layer (C++). Written by attnlab_torch.safetensors_bytes (struct + json, no
safetensors package).
"""
import argparse
import json
import sys

import os

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_torch  # noqa: E402 (the reference seq2seq models, found next to this script)

KINDS = ("MultiheadAttention", "GRU", "LSTM", "TransformerEncoderLayer",
         "TransformerDecoderLayer")


class ExportError(Exception):
    pass


def _act_name(layer):
    code = getattr(layer, "activation_relu_or_gelu", None)
    if code == 1:
        return "relu"
    if code == 2:
        return "gelu"
    act = getattr(layer, "activation", None)
    if act is torch.nn.functional.relu or isinstance(act, nn.ReLU):
        return "relu"
    if act is torch.nn.functional.gelu or isinstance(act, nn.GELU):
        if isinstance(act, nn.GELU) and getattr(act, "approximate", "none") != "none":
            raise ExportError("activation GELU(approximate='tanh') is not supported (only the exact gelu)")
        return "gelu"
    raise ExportError("activation %r is not supported (relu or gelu)" % (act,))


def config_of_module(m):
    """(kind, config) of a module, refusing options attnlab does not implement."""
    if isinstance(m, nn.MultiheadAttention):
        if not m._qkv_same_embed_dim:
            raise ExportError("MultiheadAttention with kdim/vdim != embed_dim is not supported")
        if m.bias_k is not None:
            raise ExportError("MultiheadAttention add_bias_kv=True is not supported")
        if m.add_zero_attn:
            raise ExportError("MultiheadAttention add_zero_attn=True is not supported")
        return "MultiheadAttention", {
            "embed_dim": m.embed_dim, "num_heads": m.num_heads,
            "bias": m.in_proj_bias is not None, "batch_first": bool(m.batch_first)}
    if isinstance(m, (nn.GRU, nn.LSTM)):
        kind = "LSTM" if isinstance(m, nn.LSTM) else "GRU"
        if getattr(m, "proj_size", 0):
            raise ExportError("LSTM proj_size > 0 is not supported")
        return kind, {
            "input_size": m.input_size, "hidden_size": m.hidden_size,
            "num_layers": m.num_layers, "bias": bool(m.bias),
            "bidirectional": bool(m.bidirectional), "batch_first": bool(m.batch_first)}
    if isinstance(m, (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)):
        kind = type(m).__name__ if type(m) in (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer) \
            else ("TransformerDecoderLayer" if isinstance(m, nn.TransformerDecoderLayer)
                  else "TransformerEncoderLayer")
        sa = m.self_attn
        config_of_module(sa)  # same refusals
        if m.linear1.bias is None or m.norm1.bias is None:
            raise ExportError("%s without biases is not supported" % kind)
        return kind, {
            "d_model": sa.embed_dim, "nhead": sa.num_heads,
            "dim_feedforward": m.linear1.out_features, "activation": _act_name(m),
            "layer_norm_eps": float(m.norm1.eps), "norm_first": bool(m.norm_first),
            "batch_first": bool(sa.batch_first)}
    raise ExportError("%s is not supported (supported: %s; whole seq2seq models: "
                      "scripts/attnlab_torch.py's Seq2Seq and TransformerSeq2Seq)"
                      % (type(m).__name__, ", ".join(KINDS)))


def config_of_state_dict(sd, a):
    """(kind, config) of a state_dict from --kind, the flags and the weight shapes."""
    kind = a.kind
    if kind not in KINDS:
        raise ExportError("a state_dict needs --kind (one of %s)" % ", ".join(KINDS))

    def need(key):
        if key not in sd:
            raise ExportError("state_dict has no '%s' (is --kind %s right?)" % (key, kind))
        return sd[key]

    def flag(name, default):
        v = getattr(a, name)
        return default if v is None else v

    if kind == "MultiheadAttention":
        if a.num_heads is None:
            raise ExportError("--num-heads is required for a MultiheadAttention state_dict")
        if "q_proj_weight" in sd:
            raise ExportError("kdim/vdim != embed_dim is not supported")
        E = need("in_proj_weight").shape[1]
        return kind, {"embed_dim": flag("embed_dim", E), "num_heads": a.num_heads,
                      "bias": "in_proj_bias" in sd, "batch_first": a.batch_first}
    if kind in ("GRU", "LSTM"):
        G = 4 if kind == "LSTM" else 3
        w = need("weight_ih_l0")
        layers = 1 + max(int(k.split("_l")[1].split("_")[0]) for k in sd if k.startswith("weight_ih_l"))
        return kind, {"input_size": flag("input_size", w.shape[1]),
                      "hidden_size": flag("hidden_size", w.shape[0] // G),
                      "num_layers": flag("num_layers", layers),
                      "bias": "bias_ih_l0" in sd,
                      "bidirectional": a.bidirectional or "weight_ih_l0_reverse" in sd,
                      "batch_first": a.batch_first}
    if a.nhead is None:
        raise ExportError("--nhead is required for a %s state_dict" % kind)
    w1 = need("linear1.weight")
    return kind, {"d_model": flag("d_model", w1.shape[1]), "nhead": a.nhead,
                  "dim_feedforward": flag("dim_feedforward", w1.shape[0]),
                  "activation": a.activation, "layer_norm_eps": a.layer_norm_eps,
                  "norm_first": a.norm_first, "batch_first": a.batch_first}


def export(obj, args=None):
    """A module or a state_dict (+ args) -> (kind, config, bytes of the file): a layer file,
    or a model file for attnlab_torch's Seq2Seq / TransformerSeq2Seq."""
    if attnlab_torch.reference_kind(obj):
        try:
            kind, meta, tensors = attnlab_torch.model_file_parts(obj)
        except (TypeError, ValueError) as e:
            raise ExportError(str(e))
        return kind, obj.config, attnlab_torch.safetensors_bytes(tensors, meta)
    if isinstance(obj, nn.Module):
        kind, config = config_of_module(obj)
        sd = obj.state_dict()
    elif isinstance(obj, dict):
        if args is None:
            raise ExportError("a state_dict needs --kind and the config flags")
        sd = obj
        kind, config = config_of_state_dict(sd, args)
    else:
        raise ExportError("expected a torch.save()d nn.Module or state_dict, got %s" % type(obj).__name__)
    try:
        tensors = attnlab_torch.checked_tensors(sd)
    except ValueError as e:
        raise ExportError(str(e))
    meta = {"format": "attnlab-layer", "kind": kind,
            "config": json.dumps(config, separators=(",", ":")),
            "exported_by": "scripts/export_torch.py (torch %s)" % torch.__version__}
    return kind, config, attnlab_torch.safetensors_bytes(tensors, meta)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="torch.save(module) or torch.save(state_dict) file")
    p.add_argument("output", help="the layer file to write (.safetensors)")
    p.add_argument("--kind", choices=KINDS, help="class of a state_dict's module")
    for f in ("embed-dim", "num-heads", "input-size", "hidden-size", "num-layers", "d-model",
              "nhead", "dim-feedforward"):
        p.add_argument("--" + f, type=int)
    p.add_argument("--bidirectional", action="store_true")
    p.add_argument("--batch-first", action="store_true")
    p.add_argument("--norm-first", action="store_true")
    p.add_argument("--activation", choices=("relu", "gelu"), default="relu")
    p.add_argument("--layer-norm-eps", type=float, default=1e-5)
    a = p.parse_args(argv)
    try:
        try:
            obj = torch.load(a.input, map_location="cpu")
        except Exception as e:  # noqa: BLE001 (any unpickling failure)
            raise ExportError("cannot read %s with torch.load: %s" % (a.input, e))
        if isinstance(obj, nn.Module) and a.kind:
            raise ExportError("--kind is for a state_dict; %s holds a whole %s" % (a.input, type(obj).__name__))
        kind, config, data = export(obj, a)
    except ExportError as e:
        print("export_torch.py: %s" % e, file=sys.stderr)
        return 2
    with open(a.output, "wb") as f:
        f.write(data)
    print("wrote %s: %s %s (%d bytes)" % (a.output, kind, json.dumps(config), len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
