#include "attnlab/attention/attend.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

namespace detail {
void check_qkv(const char* who, const Tensor3& q, const Tensor3& kk, const Tensor3& v) {
  ATTNLAB_CHECK(q.shape(0) == kk.shape(0) && kk.shape(0) == v.shape(0), who,
                ": expected equal batch sizes, got query ", shape_of(q), ", keys ", shape_of(kk),
                ", values ", shape_of(v));
  ATTNLAB_CHECK(kk.shape(1) == v.shape(1), who, ": keys and values must have the same length S, got keys ",
                shape_of(kk), ", values ", shape_of(v));
  ATTNLAB_CHECK(kk.shape(1) > 0, who, ": zero-length keys (S = 0): nothing to attend to; got keys ",
                shape_of(kk));
  ATTNLAB_CHECK(q.shape(0) > 0, who, ": empty batch, got query ", shape_of(q));
  check_finite("query", q.data(), q.size());
  check_finite("keys", kk.data(), kk.size());
  check_finite("values", v.data(), v.size());
}
}  // namespace detail

AttendResult Attention::forward(const Tensor3& q, const Tensor3& kk, const Tensor3& v,
                                const AttendMask& mask, Cache* cache) const {
  // q: (B,Tq,Dq) k: (B,S,Dk) v: (B,S,Dv) -> out: (B,Tq,Dv), weights: (B,Tq,S)
  detail::check_qkv("attend", q, kk, v);
  const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dv = v.shape(2);
  AttendResult r;
  r.weights = score.forward(q, kk, cache ? &cache->score : nullptr);
  if (!mask.empty()) {
    const Tensor3 am = additive_mask(mask, B, Tq, S);
    k::softmax_rows(B * Tq, S, r.weights.data(), S, am.data(), S, r.weights.data(), S);
  } else {
    k::softmax_rows(B * Tq, S, r.weights.data(), S, nullptr, 0, r.weights.data(), S);
  }
  r.out = Tensor3::from_shape({B, Tq, Dv});
  for (size_t b = 0; b < B; ++b)
    k::gemm(false, false, Tq, Dv, S, 1.f, r.weights.data() + b * Tq * S, S,
            v.data() + b * S * Dv, Dv, 0.f, r.out.data() + b * Tq * Dv, Dv);
  if (cache) {
    cache->weights = r.weights;
    cache->v = v;
  }
  return r;
}

void Attention::backward(const Tensor3& dout, const Cache& c, Tensor3& dq, Tensor3& dk,
                         Tensor3& dv, const Tensor3* dweights) {
  const size_t B = c.weights.shape(0), Tq = c.weights.shape(1), S = c.weights.shape(2),
               Dv = c.v.shape(2);
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == Tq && dout.shape(2) == Dv,
                "attend backward: expected dout (", B, ",", Tq, ",", Dv, "), got ",
                detail::shape_of(dout));
  Tensor3 dsc = Tensor3::from_shape({B, Tq, S});
  if (dweights) {
    ATTNLAB_CHECK(dweights->shape() == c.weights.shape(), "attend backward: dweights shape ",
                  detail::shape_of(*dweights), " != weights shape ", detail::shape_of(c.weights));
    dsc = *dweights;
  }
  dv = Tensor3::from_shape({B, S, Dv});
  for (size_t b = 0; b < B; ++b) {
    const float* P = c.weights.data() + b * Tq * S;
    const float* g = dout.data() + b * Tq * Dv;
    // dP = dout v^T ; dv = P^T dout
    k::gemm(false, true, Tq, S, Dv, 1.f, g, Dv, c.v.data() + b * S * Dv, Dv,
            dweights ? 1.f : 0.f, dsc.data() + b * Tq * S, S);
    k::gemm(true, false, S, Dv, Tq, 1.f, P, S, g, Dv, 0.f, dv.data() + b * S * Dv, Dv);
  }
  k::softmax_rows_backward(B * Tq, S, c.weights.data(), dsc.data(), dsc.data());
  score.backward(dsc, c.score, dq, dk);
}

void sdpa_raw(size_t Tq, size_t S, size_t D, size_t Dv, float scale, const float* q, size_t ldq,
              const float* kk, size_t ldk, const float* v, size_t ldv, const float* mask,
              size_t mask_stride, float* out, size_t ldo, float* weights, size_t ldw,
              float* work) {
  for (size_t t0 = 0; t0 < Tq; t0 += kSdpaBlock) {
    const size_t rows = std::min(kSdpaBlock, Tq - t0);
    float* P = weights ? weights + t0 * ldw : work;
    const size_t ldp = weights ? ldw : S;
    k::gemm(false, true, rows, S, D, scale, q + t0 * ldq, ldq, kk, ldk, 0.f, P, ldp);
    k::softmax_rows(rows, S, P, ldp, mask ? mask + t0 * mask_stride : nullptr, mask_stride, P,
                    ldp);
    k::gemm(false, false, rows, Dv, S, 1.f, P, ldp, v, ldv, 0.f, out + t0 * ldo, ldo);
  }
}

AttendResult scaled_dot_attention(const Tensor3& q, const Tensor3& kk, const Tensor3& v,
                                  const AttendMask& mask, bool need_weights) {
  // q: (B,Tq,D) k: (B,S,D) v: (B,S,Dv) -> out: (B,Tq,Dv), weights: (B,Tq,S)
  detail::check_qkv("scaled_dot_attention", q, kk, v);
  ATTNLAB_CHECK(q.shape(2) == kk.shape(2), "scaled_dot_attention: expected query dim == key dim, got query ",
                detail::shape_of(q), ", keys ", detail::shape_of(kk));
  const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), D = q.shape(2), Dv = v.shape(2);
  AttendResult r;
  r.out = Tensor3::from_shape({B, Tq, Dv});
  if (need_weights) r.weights = Tensor3::from_shape({B, Tq, S});
  std::vector<float> work(need_weights ? 0 : sdpa_workspace_size(S));
  Tensor3 am;
  if (!mask.empty()) am = additive_mask(mask, B, Tq, S);
  const float scale = 1.f / std::sqrt(float(D));
  for (size_t b = 0; b < B; ++b)
    sdpa_raw(Tq, S, D, Dv, scale, q.data() + b * Tq * D, D, kk.data() + b * S * D, D,
             v.data() + b * S * Dv, Dv, mask.empty() ? nullptr : am.data() + b * Tq * S, S,
             r.out.data() + b * Tq * Dv, Dv, need_weights ? r.weights.data() + b * Tq * S : nullptr,
             S, work.data());
  return r;
}

}  // namespace attnlab::attention
