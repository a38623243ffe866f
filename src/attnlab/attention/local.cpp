#include "attnlab/attention/local.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/core/checked.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;

LocalAttention::LocalAttention(const LocalConfig& cfg, Rng& rng) : score(cfg.score, rng), cfg_(cfg) {
  ATTNLAB_CHECK(cfg.window >= 1, "LocalAttention: window D must be >= 1 (sigma = D/2), got ",
                cfg.window);
  if (cfg_.predictor_dim == 0) cfg_.predictor_dim = cfg.score.query_dim;
  if (cfg.mode == LocalMode::Predictive) {
    const size_t A = cfg_.predictor_dim, Dq = cfg.score.query_dim;
    detail::init_uniform(pred_weight, {A, Dq}, 1.f / std::sqrt(float(Dq)), rng);
    detail::init_uniform(pred_v, {A}, 1.f / std::sqrt(float(A)), rng);
  }
}

uint64_t LocalAttention::param_count(const LocalConfig& cfg) {
  const uint64_t score = score_spec(cfg.score.kind).param_count(cfg.score);
  if (cfg.mode != LocalMode::Predictive) return score;
  const uint64_t A = cfg.predictor_dim ? cfg.predictor_dim : cfg.score.query_dim;
  return score + A * cfg.score.query_dim + A;
}

void LocalAttention::collect(ParamList& out, const std::string& prefix) {
  score.collect(out, prefix + "score.");
  if (cfg_.mode == LocalMode::Predictive) {
    out.add(prefix + "predictor.weight", pred_weight);
    out.add(prefix + "predictor.v", pred_v);
  }
}

LocalResult LocalAttention::forward(const Tensor3& q, const Tensor3& kk, const Tensor3& v,
                                    const std::vector<size_t>& lengths, Cache* cache) const {
  // q: (B,T,Dq) k: (B,S,Dk) v: (B,S,Dv) -> out: (B,T,Dv), weights: (B,T,S), positions: (B,T)
  detail::check_qkv("LocalAttention", q, kk, v);
  const size_t B = q.shape(0), T = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dv = v.shape(2);
  const std::vector<size_t> len = detail::valid_lengths("LocalAttention", lengths, B, S, "S");
  const bool pred = cfg_.mode == LocalMode::Predictive;
  const size_t A = cfg_.predictor_dim;
  const float D = float(cfg_.window), sigma = D / 2.f;

  LocalResult r;
  r.positions = Tensor2::from_shape({B, T});
  Tensor3 hid;
  Tensor2 sig;
  if (pred) {
    detail::check_param_shape("predictor.weight", pred_weight, {A, Dq});
    hid = Tensor3::from_shape({B, T, A});
    sig = Tensor2::from_shape({B, T});
    detail::linear_forward(B * T, Dq, A, q.data(), Dq, pred_weight.value.data(), nullptr,
                           hid.data(), A);
    k::tanh(hid.size(), hid.data(), hid.data());
    for (size_t i = 0; i < B * T; ++i)
      sig.data()[i] = k::dot(A, hid.data() + i * A, pred_v.value.data());
    k::sigmoid(sig.size(), sig.data(), sig.data());
  }
  Tensor3 sc = score.forward(q, kk, cache ? &cache->score : nullptr);
  Tensor3 mask = Tensor3::from_shape({B, T, S});
  for (size_t b = 0; b < B; ++b)
    for (size_t t = 0; t < T; ++t) {
      float* m = &mask(b, t, 0);
      std::fill(m, m + S, kNegInf);
      if (len[b] == 0) {
        r.positions(b, t) = 0.f;
        continue;
      }
      const float p = pred ? float(len[b]) * sig(b, t) : float(std::min(t, len[b] - 1));
      r.positions(b, t) = p;
      const long lo = std::max(0L, long(std::ceil(p - D)));
      const long hi = std::min(long(len[b]) - 1, long(std::floor(p + D)));
      for (long s = lo; s <= hi; ++s) m[s] = 0.f;
    }
  Tensor3 align = Tensor3::from_shape({B, T, S});
  k::softmax_rows(B * T, S, sc.data(), S, mask.data(), S, align.data(), S);
  r.weights = align;
  if (pred) {
    const float inv2s2 = 1.f / (2.f * sigma * sigma);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < T; ++t) {
        float* w = &r.weights(b, t, 0);
        const float p = r.positions(b, t);
        for (size_t s = 0; s < S; ++s)
          if (w[s] != 0.f) w[s] *= std::exp(-(float(s) - p) * (float(s) - p) * inv2s2);
      }
  }
  r.out = Tensor3::from_shape({B, T, Dv});
  for (size_t b = 0; b < B; ++b)
    k::gemm(false, false, T, Dv, S, 1.f, r.weights.data() + b * T * S, S, v.data() + b * S * Dv,
            Dv, 0.f, r.out.data() + b * T * Dv, Dv);
  if (cache) {
    cache->align = std::move(align);
    cache->weights = r.weights;
    cache->p = r.positions;
    cache->hid = std::move(hid);
    cache->sig = std::move(sig);
    cache->q = q;
    cache->v = v;
    cache->len = len;
  }
  return r;
}

void LocalAttention::backward(const Tensor3& dout, const Cache& c, Tensor3& dq, Tensor3& dk,
                              Tensor3& dv) {
  const size_t B = c.weights.shape(0), T = c.weights.shape(1), S = c.weights.shape(2),
               Dv = c.v.shape(2), Dq = c.q.shape(2);
  ATTNLAB_CHECK(dout.shape(0) == B && dout.shape(1) == T && dout.shape(2) == Dv,
                "LocalAttention backward: expected dout (", B, ",", T, ",", Dv, "), got ",
                detail::shape_of(dout));
  const bool pred = cfg_.mode == LocalMode::Predictive;
  Tensor3 dW = Tensor3::from_shape({B, T, S});
  dv = Tensor3::from_shape({B, S, Dv});
  for (size_t b = 0; b < B; ++b) {
    const float* g = dout.data() + b * T * Dv;
    k::gemm(false, true, T, S, Dv, 1.f, g, Dv, c.v.data() + b * S * Dv, Dv, 0.f,
            dW.data() + b * T * S, S);
    k::gemm(true, false, S, Dv, T, 1.f, c.weights.data() + b * T * S, S, g, Dv, 0.f,
            dv.data() + b * S * Dv, Dv);
  }
  Tensor2 dz;
  if (pred) {
    // weights = align * g(p): dalign = dW * g, dp = sum_s dW * weights * (s - p) / sigma^2
    const float sigma = float(cfg_.window) / 2.f, inv_s2 = 1.f / (sigma * sigma);
    dz = xt::zeros<float>({B, T});
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < T; ++t) {
        float* d = &dW(b, t, 0);
        const float* al = &c.align(b, t, 0);
        const float* w = &c.weights(b, t, 0);
        const float p = c.p(b, t);
        float dp = 0.f;
        for (size_t s = 0; s < S; ++s) {
          if (al[s] == 0.f) { d[s] = 0.f; continue; }
          dp += d[s] * w[s] * (float(s) - p) * inv_s2;
          d[s] *= w[s] / al[s];
        }
        const float sg = c.sig(b, t);
        dz(b, t) = dp * float(c.len[b]) * sg * (1.f - sg);
      }
  }
  k::softmax_rows_backward(B * T, S, c.align.data(), dW.data(), dW.data());
  score.backward(dW, c.score, dq, dk);
  if (pred) {
    const size_t A = cfg_.predictor_dim;
    Tensor3 dpre = Tensor3::from_shape({B, T, A});
    for (size_t i = 0; i < B * T; ++i) {
      const float z = dz.data()[i];
      k::axpy(A, z, c.hid.data() + i * A, pred_v.grad.data());
      k::scale(A, z, pred_v.value.data(), dpre.data() + i * A);
    }
    k::tanh_backward(dpre.size(), c.hid.data(), dpre.data(), dpre.data());
    detail::linear_backward(B * T, Dq, A, c.q.data(), Dq, pred_weight.value.data(), dpre.data(), A,
                            dq.data(), Dq, true, pred_weight.grad.data(), nullptr);
  }
}

void LocalAttention::predictive_weights(size_t S, float* hid, float* w,
                                        std::vector<float>& mask) const {
  // hid: (A) W_p q, w: (S) scores -> w: (S) weights (as forward, one query, all S keys valid)
  const size_t A = pred_v.value.size();
  const float D = float(cfg_.window), sigma = D / 2.f, inv2s2 = 1.f / (2.f * sigma * sigma);
  k::tanh(A, hid, hid);
  float sg = k::dot(A, hid, pred_v.value.data());
  k::sigmoid(1, &sg, &sg);
  const float p = float(S) * sg;
  const long lo = std::max(0L, long(std::ceil(p - D)));
  const long hi = std::min(long(S) - 1, long(std::floor(p + D)));
  mask.resize(S);
  for (size_t j = 0; j < S; ++j) mask[j] = (long(j) >= lo && long(j) <= hi) ? 0.f : kNegInf;
  k::softmax_rows(1, S, w, S, mask.data(), 0, w, S);
  for (size_t j = 0; j < S; ++j)
    if (w[j] != 0.f) w[j] *= std::exp(-(float(j) - p) * (float(j) - p) * inv2s2);
}

std::vector<float> local_window_allowed(const LocalConfig& cfg, const LocalResult& r, size_t T,
                                        size_t S, size_t valid) {
  std::vector<float> allowed(checked_product("local window mask", {T, S}), 0.f);
  const double D = static_cast<double>(cfg.window) + 0.5;
  for (size_t i = 0; i < T; ++i) {
    const double p = cfg.mode == LocalMode::Monotonic ? static_cast<double>(i) : r.positions(0, i);
    for (size_t j = 0; j < S && j < valid; ++j)
      allowed[i * S + j] = std::fabs(static_cast<double>(j) - p) > D ? 0.f : 1.f;
  }
  return allowed;
}

}  // namespace attnlab::attention
