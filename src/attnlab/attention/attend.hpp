// Attend: scores -> mask -> softmax -> weighted sum of the values.
//
//   Attention att({ScoreKind::Additive, Dq, Dk, A}, rng);
//   AttendMask m; m.lengths = {5, 3};               // keys [0,len) valid per batch item
//   Attention::Cache cache;
//   AttendResult r = att.forward(q, k, v, m, &cache); // r.out (B,Tq,Dv), r.weights (B,Tq,S)
//   att.backward(dout, cache, dq, dk, dv);
//
// Mask polarity: see common.hpp (bool true = ignore, lengths = valid counts,
// causal = j <= i). Each weight row sums to 1, or is all 0 when every key of
// that row is masked (the output row is then 0 and its gradients are 0).
//
// scaled_dot_attention() is the fused fast path for ScoreKind::ScaledDot: for
// each block of queries one gemm for the scores (scale folded in), one
// softmax_rows pass with the additive mask, one gemm into the output, with no
// (B,Tq,S) scores tensor. It gives the same numbers as Attention(ScaledDot).
#pragma once
#include "attnlab/attention/common.hpp"
#include "attnlab/attention/score.hpp"

namespace attnlab::attention {

struct AttendResult {
  Tensor3 out;      // (B,Tq,Dv)
  Tensor3 weights;  // (B,Tq,S)
};

class Attention {
 public:
  struct Cache {
    Score::Cache score;
    Tensor3 weights;  // (B,Tq,S)
    Tensor3 v;        // (B,S,Dv)
  };
  Attention() = default;
  Attention(const ScoreConfig& cfg, Rng& rng) : score(cfg, rng) {}
  void collect(ParamList& out, const std::string& prefix) { score.collect(out, prefix); }

  // q: (B,Tq,Dq) k: (B,S,Dk) v: (B,S,Dv) -> out: (B,Tq,Dv), weights: (B,Tq,S)
  AttendResult forward(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                       const AttendMask& mask = {}, Cache* cache = nullptr) const;
  // dout: (B,Tq,Dv); dweights (optional, (B,Tq,S)): gradient w.r.t. the returned weights.
  // dq, dk, dv are overwritten; score parameter grads accumulate.
  void backward(const Tensor3& dout, const Cache& cache, Tensor3& dq, Tensor3& dk, Tensor3& dv,
                const Tensor3* dweights = nullptr);

  Score score;
};

// Rows of queries handled per block by the fused path.
constexpr size_t kSdpaBlock = 128;
// Floats of workspace the raw fused kernel needs for S keys.
inline size_t sdpa_workspace_size(size_t S) { return kSdpaBlock * S; }

// Raw fused scaled-dot attention for one (batch, head) problem:
// out(Tq,Dv) = softmax(scale * q k^T + mask) v. q: (Tq,D) stride ldq, k: (S,D) stride ldk,
// v: (S,Dv) stride ldv, mask: additive (Tq,S) rows with stride mask_stride (0 = one row
// broadcast) or nullptr. weights (nullable): (Tq,S) stride ldw receives the softmax;
// work: sdpa_workspace_size(S) floats (used only when weights == nullptr).
void sdpa_raw(size_t Tq, size_t S, size_t D, size_t Dv, float scale, const float* q, size_t ldq,
              const float* k, size_t ldk, const float* v, size_t ldv, const float* mask,
              size_t mask_stride, float* out, size_t ldo, float* weights, size_t ldw,
              float* work);

// q: (B,Tq,D) k: (B,S,D) v: (B,S,Dv) -> out: (B,Tq,Dv), weights: (B,Tq,S) (empty if !need_weights)
AttendResult scaled_dot_attention(const Tensor3& q, const Tensor3& k, const Tensor3& v,
                                  const AttendMask& mask = {}, bool need_weights = true);

namespace detail {
// shared checks for (q,k,v) triples
void check_qkv(const char* who, const Tensor3& q, const Tensor3& k, const Tensor3& v);
}

}  // namespace attnlab::attention
