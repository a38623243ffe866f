// Context-vector attention pooling (Yang et al. 2016 HAN word/sentence
// attention; the MMoE "attention gate" uses the same form):
//   u_i = tanh(W h_i + b),  a = softmax_i(u_i . u_ctx) over valid i,  out = sum_i a_i h_i
// Parameters: "proj.weight" W (A,D), "proj.bias" b (A), "context" u_ctx (A).
// lengths (B) = valid item count per batch item (items [len, T) are ignored);
// an item with length 0 gets zero weights and a zero output (documented, never NaN).
#pragma once
#include "attnlab/attention/common.hpp"

namespace attnlab::attention {

struct PoolingResult {
  Tensor2 out;      // (B,D)
  Tensor2 weights;  // (B,T)
};

class ContextPooling {
 public:
  struct Cache {
    Tensor3 h;  // (B,T,D)
    Tensor3 u;  // (B,T,A)
    Tensor2 a;  // (B,T)
  };
  ContextPooling() = default;
  ContextPooling(size_t input_dim, size_t attn_dim, Rng& rng);
  void collect(ParamList& out, const std::string& prefix);

  // h: (B,T,D), lengths (B) or empty -> out: (B,D), weights: (B,T)
  PoolingResult forward(const Tensor3& h, const std::vector<size_t>& lengths = {},
                        Cache* cache = nullptr) const;
  // dout: (B,D), dweights (optional, (B,T)) -> dh (B,T,D) overwritten; param grads accumulate
  void backward(const Tensor2& dout, const Cache& cache, Tensor3& dh,
                const Tensor2* dweights = nullptr);
  // backward() without the parameter grads (no dW gemm, no bias or context sums): dh only
  void backward_input(const Tensor2& dout, const Cache& cache, Tensor3& dh,
                      const Tensor2* dweights = nullptr) const;

  Param weight;   // (A,D)
  Param bias;     // (A)
  Param context;  // (A)

 private:
  void backward_into(const Tensor2& dout, const Cache& cache, Tensor3& dh, const Tensor2* dweights,
                     float* dctx, float* dW, float* db) const;
  size_t D_ = 0, A_ = 0;
};

}  // namespace attnlab::attention
