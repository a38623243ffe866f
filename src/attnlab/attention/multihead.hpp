// Multi-head attention with PyTorch nn.MultiheadAttention semantics
// (batch_first=True, dropout=0, kdim=vdim=embed_dim, no add_bias_kv/add_zero_attn).
//
// Parameters (names = PyTorch state_dict keys, so a state dict maps 1:1):
//   in_proj_weight (3E,E)  rows [0,E) = W_q, [E,2E) = W_k, [2E,3E) = W_v
//   in_proj_bias   (3E)
//   out_proj.weight (E,E), out_proj.bias (E)
// Init as PyTorch: xavier_uniform in_proj_weight, zero biases, out_proj.weight
// U(-1/sqrt(E), 1/sqrt(E)) (attnlab::Rng, so the numbers differ from torch's).
//
// MASKS (PyTorch polarity):
//   key_padding_mask (B,S) bool: true = that key is IGNORED (padding).
//   attn_mask_bool (T,S) or (B*H,T,S) bool: true = NOT allowed to attend.
//   attn_mask_float (T,S) or (B*H,T,S) float: ADDED to the scores (0 keep, -inf block).
//   is_causal: key j allowed for query i only if j <= i (adds tril; unlike
//     PyTorch, no attn_mask needs to be passed alongside).
// All given masks combine. A query row with every key masked gets zero weights
// and a zero context (output = out_proj.bias), never NaN (PyTorch gives NaN).
//
// Weights: need_weights = false returns none (fastest). average_attn_weights =
// true returns weights (B,T,S) averaged over heads; false returns head_weights
// (B,H,T,S).
//
// Fast path: when query, key and value are the same tensor object (self
// attention), one (B*T,E)x(E,3E) gemm makes Q, K and V. Per (batch, head) the
// fused sdpa_raw (gemm, masked softmax_rows, gemm) runs on strided head views,
// with no transposes or copies.
#pragma once
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/attention/common.hpp"
#include "attnlab/attention/disagreement.hpp"

namespace attnlab::attention {

struct MhaOptions {
  BoolTensor2 key_padding_mask;        // (B,S), true = ignore; size 0 = none
  xt::xarray<bool> attn_mask_bool;     // (T,S) or (B*H,T,S), true = not allowed; 0-d (default) = none
  xt::xarray<float> attn_mask_float;   // (T,S) or (B*H,T,S), additive; 0-d (default) = none
  bool is_causal = false;
  bool need_weights = true;
  bool average_attn_weights = true;
  // Disagreement terms only (disagreement() and backward's reg), off by default (the
  // terms then use every row, as the paper's formulas): when true, keys masked by
  // key_padding_mask are left out of the subspace term, and padded queries out of the
  // position and output terms. Padded queries = query_padding_mask (B,T), true = padded;
  // when it is not given in self-attention, key_padding_mask. Attention itself is unchanged.
  bool disagreement_skip_padding = false;
  BoolTensor2 query_padding_mask;
};

struct MhaResult {
  Tensor3 out;           // (B,T,E)
  Tensor3 weights;       // (B,T,S) if need_weights && average_attn_weights
  Tensor4 head_weights;  // (B,H,T,S) if need_weights && !average_attn_weights
};

class MultiheadAttention {
 public:
  struct Cache {
    Tensor3 query, key, value;  // inputs (B,T,E), (B,S,E), (B,S,E)
    std::vector<float> proj;    // Q, K, V projections (layout below)
    size_t q_off = 0, k_off = 0, v_off = 0, ldq = 0, ldk = 0, ldv = 0;
    bool packed = false;
    Tensor4 P;    // (B,H,T,S) softmax weights
    Tensor3 ctx;  // (B,T,E) heads' outputs before out_proj
    BoolTensor2 skip_keys, skip_queries;  // rows left out of the disagreement terms (size 0 = none)
  };

  MultiheadAttention() = default;
  MultiheadAttention(size_t embed_dim, size_t num_heads, Rng& rng, bool bias = true);
  size_t embed_dim() const { return E_; }
  size_t num_heads() const { return H_; }
  size_t head_dim() const { return E_ / H_; }
  bool has_bias() const { return bias_; }
  // registers in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias under prefix
  void collect(ParamList& out, const std::string& prefix);

  // query: (B,T,E) key,value: (B,S,E) -> out: (B,T,E), weights: (B,T,S) or (B,H,T,S)
  MhaResult forward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                    const MhaOptions& opt = {}, Cache* cache = nullptr);
  // dout: (B,T,E) -> dquery (B,T,E), dkey, dvalue (B,S,E) (overwritten; for self
  // attention add the three). Parameter grads accumulate. If reg is given, the
  // gradient of reg->subspace*S_sub + reg->position*S_pos + reg->output*S_out
  // (see disagreement.hpp) is added as if that penalty were part of the loss.
  // dweights (optional): gradient w.r.t. the returned weights, (B,T,S) for averaged
  // weights or (B,H,T,S) for per-head weights (e.g. attention supervision losses).
  void backward(const Tensor3& dout, const Cache& cache, Tensor3& dquery, Tensor3& dkey,
                Tensor3& dvalue, const DisagreementWeights* reg = nullptr,
                const xt::xarray<float>* dweights = nullptr);
  // the three similarity terms for the forward pass held in cache
  DisagreementTerms disagreement(const Cache& cache) const;

  Param in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias;

 private:
  // checks forward's inputs (shapes, masks, parameters); returns whether a mask is per head
  bool check_forward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                     const MhaOptions& opt) const;
  // builds the additive mask for batch item b, head h into mask_; returns the row
  // stride to use (0 = single broadcast row) and sets *ptr (nullptr = no mask)
  size_t build_mask(const MhaOptions& opt, size_t B, size_t T, size_t S, size_t b, size_t h,
                    const float** ptr);
  size_t E_ = 0, H_ = 0;
  bool bias_ = true;
  std::vector<float> proj_, ctx_, mask_, work_;  // reusable workspaces (no cache)
};

// head_weights (B,H,T,S) -> their mean over heads (B,T,S) (what PyTorch's
// average_attn_weights gives, for callers that keep the heads too).
Tensor3 mean_over_heads(const Tensor4& head_weights);

}  // namespace attnlab::attention
