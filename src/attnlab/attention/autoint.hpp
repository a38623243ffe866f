// AutoInt's interacting layer (Song et al., CIKM 2019, "AutoInt: Automatic
// Feature Interaction Learning via Self-Attentive Neural Networks", eq. 5-8):
// multi-head self-attention across the M feature fields of one sample.
//
//   for each head h (H heads of size d'):
//     alpha^h_{m,k} = softmax_k( <W_Q^h e_m, W_K^h e_k> )        (eq. 5-6)
//                     (divided by sqrt(d') when `scaled`; the paper's form is
//                      the plain inner product, so scaled = false by default)
//     e~^h_m = sum_k alpha^h_{m,k} W_V^h e_k                       (eq. 6)
//   e~_m = e~^1_m (+) ... (+) e~^H_m          (concatenation, H*d')  (eq. 7)
//   e^Res_m = ReLU(e~_m + W_Res e_m)          residual on (default)  (eq. 8)
//   e^Res_m = ReLU(e~_m)                      residual off
//
// Bias-free, as in the paper. Parameters (names = safetensors keys under the
// caller's prefix), head h owns rows [h*d', (h+1)*d') of each projection:
//   query.weight (H*d', D), key.weight (H*d', D), value.weight (H*d', D),
//   residual.weight (H*d', D) (only when residual is on).
// Init: every weight ~ U(-1/sqrt(D), 1/sqrt(D)) (torch.nn.Linear's bound).
// No masks: every field attends to every field (M >= 1).
#pragma once
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/attention/common.hpp"

namespace attnlab::attention {

struct InteractingOptions {
  size_t heads = 2;      // H
  size_t head_dim = 8;   // d'
  bool residual = true;  // add W_Res e_m before the ReLU (eq. 8)
  bool scaled = false;   // divide the scores by sqrt(d') (not in the paper)
};

struct InteractingResult {
  Tensor3 out;      // (B,M,H*d') = e^Res
  Tensor4 weights;  // (B,H,M,M): weights(b,h,m,k) = alpha^h_{m,k}; rows sum to 1
};

class InteractingLayer {
 public:
  struct Cache {
    Tensor3 e;                // (B,M,D) input
    std::vector<float> proj;  // (B*M, 3*H*d'): [Q | K | V] per field row
    Tensor4 P;                // (B,H,M,M) attention weights
    Tensor3 pre;              // (B,M,H*d') e~ (+ W_Res e): the ReLU input
  };

  InteractingLayer() = default;
  // Throws attnlab::Error if input_dim, heads or head_dim is 0.
  InteractingLayer(size_t input_dim, const InteractingOptions& opt, Rng& rng);
  size_t input_dim() const { return D_; }
  size_t output_dim() const { return opt_.heads * opt_.head_dim; }  // H*d'
  const InteractingOptions& options() const { return opt_; }
  // registers query.weight, key.weight, value.weight (and residual.weight) under prefix
  void collect(ParamList& out, const std::string& prefix);
  // number of parameters: (3 + residual) * H*d' * D
  size_t param_count() const;

  // e: (B,M,D) -> out: (B,M,H*d'), weights: (B,H,M,M). cache (optional) for backward.
  // Throws for M = 0, a last dim other than D, or a NaN/inf value.
  InteractingResult forward(const Tensor3& e, Cache* cache = nullptr) const;
  // Same, for an array of any rank: throws unless it is 3-d (B,M,D).
  InteractingResult forward(const xt::xarray<float>& e, Cache* cache = nullptr) const;
  // dout: (B,M,H*d'), dweights (optional): (B,H,M,M) gradient w.r.t. the returned
  // weights -> de (B,M,D), overwritten. Parameter grads accumulate.
  void backward(const Tensor3& dout, const Cache& cache, Tensor3& de,
                const Tensor4* dweights = nullptr);

  Param query, key, value, residual;  // each (H*d', D)

 private:
  size_t D_ = 0;
  InteractingOptions opt_;
};

}  // namespace attnlab::attention
