// The small configurations of the model kinds that several tests share, and the loaders'
// fuzz seeds (fuzz/make_seeds.cpp) too: the tiny model of each kind the model list's test
// (test_model_registry) saves and loads, and the models of the finite-difference tests. No
// gtest here, so the fuzz seed writer can include it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/din.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/toy_seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/models/xl_lm.hpp"

namespace attnlab::testing {

// A HAN of the given widths: word embeddings of emb, GRUs of `hidden` units per direction at
// both levels, attention (context vector) sizes word_ctx and sent_ctx
inline models::HANConfig han_config(size_t emb, size_t hidden, size_t word_ctx, size_t sent_ctx) {
  models::HANConfig c;
  c.emb = emb;
  c.word_hidden = c.sent_hidden = hidden;
  c.word_ctx = word_ctx;
  c.sent_ctx = sent_ctx;
  return c;
}

// a HAN small enough for finite differences (embedding, GRU and attention widths all
// different, so a swapped dimension shows)
inline models::HANConfig tiny_han_config() { return han_config(4, 3, 5, 4); }

// the keyword task's model size (han_test_util.hpp)
inline models::HANConfig keyword_han_config() { return han_config(16, 12, 16, 16); }

// A small RNN seq2seq (bidirectional GRU, additive scores of size 3); with the defaults, the
// model list's test's: embeddings of 3, 2 units per encoder direction, attentional vector of 3
inline models::Seq2SeqConfig tiny_seq2seq_config(size_t emb = 3, size_t enc_hidden = 2,
                                                 size_t combine = 3) {
  models::Seq2SeqConfig c;
  c.emb = emb;
  c.enc_hidden = enc_hidden;
  c.attn_dim = 3;
  c.combine = combine;
  return c;
}

// the Transformer seq2seq of the model list's test: 4 wide, 2 heads, one layer on each side
inline models::TransformerConfig small_transformer_config() {
  models::TransformerConfig c;
  c.d_model = 4;
  c.nhead = 2;
  c.dim_feedforward = 6;
  c.enc_layers = c.dec_layers = 1;
  return c;
}

// The Transformer seq2seq of the finite-difference tests (8 wide, 2 heads, feed-forward 12
// unless given), 2 layers on each side: no dropout, output tokens joined without a
// separator, at most 8 tokens in and out.
inline models::TransformerConfig tiny_transformer_config(size_t d_model = 8, size_t nhead = 2,
                                                         size_t dim_feedforward = 12) {
  models::TransformerConfig c;
  c.d_model = d_model;
  c.nhead = nhead;
  c.dim_feedforward = dim_feedforward;
  c.enc_layers = c.dec_layers = 2;
  c.dropout = 0.f;
  c.max_src_len = c.max_tgt_len = 8;
  c.output_sep = "";
  return c;
}

// MMoE over input_dim inputs: `experts` experts of expert_units units, towers of tower_units
inline models::MMoEConfig mmoe_config(size_t input_dim, size_t experts, size_t expert_units,
                                      size_t tower_units, models::GateKind gate) {
  models::MMoEConfig c;
  c.input_dim = input_dim;
  c.experts = experts;
  c.expert_units = expert_units;
  c.tower_units = tower_units;
  c.gate = gate;
  return c;
}

// MMoE with attention gates: 3 inputs, 2 experts of 4 units, towers of 2
inline models::MMoEConfig tiny_mmoe_config() { return mmoe_config(3, 2, 4, 2, models::GateKind::Attention); }

inline models::DINConfig tiny_din_config() {
  models::DINConfig c;
  c.items = 20;
  c.categories = 4;
  c.goods_dim = 3;
  c.cate_dim = 2;
  c.att_hidden = 5;
  c.mlp_hidden = {6};
  return c;
}

// AutoInt over fields of vocab[f] values, embeddings of embed_dim, `layers` interacting layers
// of `heads` heads of head_dim (residual, unscaled unless changed)
inline models::AutoIntConfig autoint_config(const std::vector<size_t>& vocab, size_t embed_dim,
                                            size_t layers, size_t heads, size_t head_dim) {
  models::AutoIntConfig c;
  c.vocab = vocab;
  c.embed_dim = embed_dim;
  c.layers = layers;
  c.heads = heads;
  c.head_dim = head_dim;
  return c;
}

// AutoInt over 3 fields, one interacting layer of 2 heads of 2
inline models::AutoIntConfig tiny_autoint_config() { return autoint_config({3, 4, 5}, 4, 1, 2, 2); }

// The toy reversal model: a vocabulary of `vocab` (3 specials and the symbols), embeddings of emb,
// GRUs of `hidden` units, sequences of min_len to max_len symbols
inline models::ToyConfig toy_config(size_t vocab, size_t emb, size_t hidden, size_t min_len, size_t max_len) {
  models::ToyConfig c;
  c.vocab = vocab;
  c.emb = emb;
  c.hidden = hidden;
  c.min_len = min_len;
  c.max_len = max_len;
  return c;
}

// Transformer-XL character LM: 8 wide, 2 heads, one layer, segments of 5 with a memory of 4
inline models::CharLMConfig tiny_char_lm_config() {
  models::CharLMConfig c;
  c.d_model = 8;
  c.n_head = 2;
  c.d_inner = 12;
  c.n_layer = 1;
  c.seg_len = 5;
  c.mem_len = 4;
  return c;
}

// Moves every parameter of m (a model with collect(ParamList&)) off its initialization by
// amount * (u - 1/2), u uniform in [0, 1) from Rng(seed), so that the output distribution and
// the attention are far from uniform.
template <class Model>
void perturb_params(Model& m, uint64_t seed, float amount) {
  ParamList ps;
  m.collect(ps);
  Rng r(seed);
  for (auto& it : ps.items())
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] += amount * (r.uniform() - 0.5f);
}

}  // namespace attnlab::testing
