// Transformer encoder and decoder layers (Vaswani et al. 2017) with PyTorch
// nn.TransformerEncoderLayer / nn.TransformerDecoderLayer semantics (batch_first=True).
//
// Encoder layer, sa = self-attention, ff = linear2(dropout(act(linear1(.)))):
//   norm_first = false (post-norm, the paper):  x = norm1(x + drop1(sa(x)))
//                                               x = norm2(x + drop2(ff(x)))
//   norm_first = true  (pre-norm):              x = x + drop1(sa(norm1(x)))
//                                               x = x + drop2(ff(norm2(x)))
// Decoder layer adds cross-attention ("multihead_attn") over the encoder output
// (memory) between the two, with norm2 and drop2; its feed-forward uses norm3 and drop3.
// Parameter names = PyTorch state_dict keys: self_attn.in_proj_weight,
// self_attn.in_proj_bias, self_attn.out_proj.{weight,bias}, [multihead_attn.* likewise],
// linear1.{weight,bias}, linear2.{weight,bias}, norm1.{weight,bias}, norm2.*, [norm3.*].
//
// Masks are MultiheadAttention's (MhaOptions, PyTorch polarity: true = ignored): the
// decoder's self-attention usually sets is_causal and a target key padding mask, its
// cross-attention the source key padding mask. A query row whose keys are all masked gets
// a zero attention output (PyTorch: NaN).
//
// Dropout draws from the caller's Rng when training (rng required then); with
// training = false (or dropout 0) the layers are deterministic. Dropout applies where
// PyTorch's layers apply it except inside the attention: the attention weights themselves
// are not dropped (MultiheadAttention has no dropout), so with dropout > 0 training
// differs from torch's in that one place (parity is tested with dropout = 0, as torch's
// eval mode).
//
// Incremental decoding (DecoderLayer::step): a per-layer key/value cache so one decoder
// step costs one new row per hypothesis; the cross-attention keys/values are projected once
// per source. Tested equal to the full (teacher-forced) forward.
#pragma once
#include <string>
#include <vector>

#include "attnlab/attention/multihead.hpp"
#include "attnlab/nn/layers.hpp"
#include "attnlab/nn/quantized.hpp"

namespace attnlab::attention {

struct TransformerLayerConfig {
  size_t d_model = 0;            // E
  size_t nhead = 1;              // H (E % H == 0)
  size_t dim_feedforward = 2048; // F
  float dropout = 0.1f;
  nn::Act activation = nn::Act::ReLU;  // ReLU or GELU (exact erf form, as torch)
  float layer_norm_eps = 1e-5f;
  bool norm_first = false;
  void validate() const;
};

namespace detail {
// One residual sub-block's saved state: the LayerNorm's input and statistics, the
// dropout mask on the sublayer's output (empty = no dropout).
struct ResidualCache {
  std::vector<float> ln_in, mean, rstd, mask;
};
// Feed-forward: linear2(dropout(act(linear1(x)))) on (rows,E) -> (rows,E)
struct FeedForwardCache {
  std::vector<float> in, pre, act, mask;  // linear1 input (rows,E), its output, act(.) (rows,F)
};
// Inverted dropout in place: mask (n) gets 0 (probability p) or 1/(1-p), x *= mask.
void dropout_inplace(float p, Rng& rng, size_t n, float* x, std::vector<float>& mask);
}  // namespace detail

// A layer's matrices quantized for inference (int8 or int16, one scale per row; see
// nn/quantized.hpp). Built by quantize(); passed to infer() / start() / step(), where
// nullptr means float32.
struct EncoderLayerQuant {
  nn::QuantMatrix qkv, out, ff1, ff2;
};
struct DecoderLayerQuant {
  nn::QuantMatrix self_qkv, self_out, cross_q, cross_kv, cross_out, ff1, ff2;
};

// Working buffers of inference (infer / step): sized by the first call, reused by the
// next ones, so a decode allocates once rather than at every layer and step. Contents
// are scratch: every call writes what it reads.
struct InferScratch {
  std::vector<float> s, a, ctx, h1, h2, qkv, hid, work, sx;
  std::vector<int16_t> qx;
};

class TransformerEncoderLayer {
 public:
  struct Cache {
    detail::ResidualCache r1, r2;
    MultiheadAttention::Cache sa;
    detail::FeedForwardCache ff;
  };
  TransformerEncoderLayer() = default;
  TransformerEncoderLayer(const TransformerLayerConfig& cfg, Rng& rng);
  const TransformerLayerConfig& config() const { return cfg_; }
  void collect(ParamList& out, const std::string& prefix);

  // x: (B,T,E) -> y: (B,T,E). self_opt: masks of the self-attention (its need_weights is
  // ignored); head_weights (optional) -> (B,H,T,T) self-attention of each head.
  Tensor3 forward(const Tensor3& x, const MhaOptions& self_opt = {}, Cache* cache = nullptr,
                  Rng* rng = nullptr, bool training = false, Tensor4* head_weights = nullptr);
  // dy: (B,T,E) -> dx (B,T,E) overwritten; parameter grads accumulate. reg (optional):
  // disagreement penalty weights on the self-attention (see disagreement.hpp).
  void backward(const Tensor3& dy, const Cache& cache, Tensor3& dx,
                const DisagreementWeights* reg = nullptr);
  DisagreementTerms disagreement(const Cache& cache) const { return self_attn.disagreement(cache.sa); }

  // ---- inference on one sequence (dropout off, no masks)
  // x: (S,E) -> y: (S,E) (y may not alias x); head_w (H,S,S) optional. q: quantized
  // matrices (nullptr = float32, the same arithmetic as forward()).
  // scratch: reused buffers (nullptr = the call's own).
  void infer(size_t S, const float* x, float* y, const EncoderLayerQuant* q = nullptr,
             float* head_w = nullptr, InferScratch* scratch = nullptr) const;
  EncoderLayerQuant quantize(bool int8) const;

  MultiheadAttention self_attn;
  nn::Linear linear1, linear2;
  nn::LayerNorm norm1, norm2;

 private:
  TransformerLayerConfig cfg_;
};

// Per-layer decoding state for n hypotheses: the self-attention keys/values of the
// positions decoded so far and the cross-attention keys/values of the source.
struct DecoderLayerState {
  size_t n = 0, cap = 0, len = 0;  // hypotheses, capacity (positions), positions stored
  std::vector<float> k, v;         // (n, cap, E); rows at or past len are not read
  size_t S = 0;
  std::vector<float> mkv;          // (S, 2E): keys | values of the source, shared by every hypothesis
  InferScratch scratch;            // step()'s buffers when it is given none
  std::vector<float> spare_k, spare_v;  // reorder()'s target, swapped with k, v
  // keep hypotheses parents[0..m) (indices into the current n) in that order
  void reorder(const std::vector<size_t>& parents, size_t E);
};

class TransformerDecoderLayer {
 public:
  struct Cache {
    detail::ResidualCache r1, r2, r3;
    MultiheadAttention::Cache sa, ca;
    detail::FeedForwardCache ff;
  };
  TransformerDecoderLayer() = default;
  TransformerDecoderLayer(const TransformerLayerConfig& cfg, Rng& rng);
  const TransformerLayerConfig& config() const { return cfg_; }
  void collect(ParamList& out, const std::string& prefix);

  // x: (B,T,E), memory: (B,S,E) -> y: (B,T,E). self_opt (usually is_causal + target key
  // padding), cross_opt (source key padding). self_w (B,H,T,T), cross_w (B,H,T,S) optional.
  Tensor3 forward(const Tensor3& x, const Tensor3& memory, const MhaOptions& self_opt = {},
                  const MhaOptions& cross_opt = {}, Cache* cache = nullptr, Rng* rng = nullptr,
                  bool training = false, Tensor4* self_w = nullptr, Tensor4* cross_w = nullptr);
  // dy: (B,T,E) -> dx (B,T,E), dmemory (B,S,E), both overwritten; parameter grads
  // accumulate. reg_self / reg_cross: disagreement penalties (optional).
  void backward(const Tensor3& dy, const Cache& cache, Tensor3& dx, Tensor3& dmemory,
                const DisagreementWeights* reg_self = nullptr,
                const DisagreementWeights* reg_cross = nullptr);
  DisagreementTerms self_disagreement(const Cache& c) const { return self_attn.disagreement(c.sa); }
  DisagreementTerms cross_disagreement(const Cache& c) const { return multihead_attn.disagreement(c.ca); }

  // ---- incremental decoding (inference; dropout off)
  // memory: (S,E) of one source -> st with n hypotheses and room for cap positions
  // (scratch: the quantized product's buffers, st.scratch when none is given)
  void start(const float* memory, size_t S, size_t n, size_t cap, DecoderLayerState& st,
             const DecoderLayerQuant* q = nullptr, InferScratch* scratch = nullptr) const;
  // x: (n,E) the rows at position st.len -> y: (n,E) (may alias x); appends to the cache.
  // self_w (n,H,len+1) and cross_w (n,H,S) optional.
  // q: quantized matrices (nullptr = float32).
  // scratch: buffers shared with other layers' calls (nullptr = st.scratch).
  void step(const float* x, float* y, DecoderLayerState& st, float* self_w = nullptr,
            float* cross_w = nullptr, const DecoderLayerQuant* q = nullptr,
            InferScratch* scratch = nullptr) const;
  DecoderLayerQuant quantize(bool int8) const;

  MultiheadAttention self_attn, multihead_attn;
  nn::Linear linear1, linear2;
  nn::LayerNorm norm1, norm2, norm3;

 private:
  TransformerLayerConfig cfg_;
};

}  // namespace attnlab::attention
