#include "attnlab/attention/score.hpp"

#include <cmath>

#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {

namespace k = attnlab::kernels;
constexpr float kCosEps = 1e-8f;

ScoreKind parse_score_kind(const std::string& n) {
  if (n == "dot") return ScoreKind::Dot;
  if (n == "scaled_dot") return ScoreKind::ScaledDot;
  if (n == "general" || n == "bilinear") return ScoreKind::General;
  if (n == "additive" || n == "concat") return ScoreKind::Additive;
  if (n == "cosine") return ScoreKind::Cosine;
  if (n == "location") return ScoreKind::Location;
  throw Error("score kind: expected one of dot, scaled_dot, general, additive, cosine, location; got '" +
              n + "'");
}

const char* score_kind_name(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::Dot: return "dot";
    case ScoreKind::ScaledDot: return "scaled_dot";
    case ScoreKind::General: return "general";
    case ScoreKind::Additive: return "additive";
    case ScoreKind::Cosine: return "cosine";
    case ScoreKind::Location: return "location";
  }
  return "?";
}

Score::Score(const ScoreConfig& cfg, Rng& rng) : cfg_(cfg) {
  ATTNLAB_CHECK(cfg.query_dim > 0, "Score: query_dim must be > 0, got ", cfg.query_dim);
  switch (cfg.kind) {
    case ScoreKind::Dot:
    case ScoreKind::ScaledDot:
    case ScoreKind::Cosine:
      ATTNLAB_CHECK(cfg.key_dim == cfg.query_dim, "Score ", score_kind_name(cfg.kind),
                    ": expected key_dim == query_dim, got key_dim ", cfg.key_dim,
                    " and query_dim ", cfg.query_dim);
      break;
    case ScoreKind::General:
      ATTNLAB_CHECK(cfg.key_dim > 0, "Score general: key_dim must be > 0");
      detail::init_uniform(weight, {cfg.query_dim, cfg.key_dim},
                           1.f / std::sqrt(float(cfg.key_dim)), rng);
      break;
    case ScoreKind::Additive:
      ATTNLAB_CHECK(cfg.key_dim > 0 && cfg.attn_dim > 0,
                    "Score additive: key_dim and attn_dim must be > 0, got ", cfg.key_dim, ", ",
                    cfg.attn_dim);
      detail::init_uniform(query_weight, {cfg.attn_dim, cfg.query_dim},
                           1.f / std::sqrt(float(cfg.query_dim)), rng);
      detail::init_uniform(key_weight, {cfg.attn_dim, cfg.key_dim},
                           1.f / std::sqrt(float(cfg.key_dim)), rng);
      detail::init_uniform(v, {cfg.attn_dim}, 1.f / std::sqrt(float(cfg.attn_dim)), rng);
      break;
    case ScoreKind::Location:
      ATTNLAB_CHECK(cfg.max_keys > 0, "Score location: max_keys must be > 0");
      detail::init_uniform(weight, {cfg.max_keys, cfg.query_dim},
                           1.f / std::sqrt(float(cfg.query_dim)), rng);
      break;
  }
}

void Score::collect(ParamList& out, const std::string& prefix) {
  switch (cfg_.kind) {
    case ScoreKind::General:
    case ScoreKind::Location: out.add(prefix + "weight", weight); break;
    case ScoreKind::Additive:
      out.add(prefix + "query_proj.weight", query_weight);
      out.add(prefix + "key_proj.weight", key_weight);
      out.add(prefix + "v", v);
      break;
    default: break;
  }
}

void Score::check_inputs(const Tensor3& q, const Tensor3& kk) const {
  ATTNLAB_CHECK(q.shape(0) == kk.shape(0), "Score: query batch ", q.shape(0),
                " != key batch ", kk.shape(0));
  ATTNLAB_CHECK(q.shape(2) == cfg_.query_dim, "Score ", score_kind_name(cfg_.kind),
                ": expected query last dim ", cfg_.query_dim, ", got query ", detail::shape_of(q));
  if (cfg_.kind != ScoreKind::Location)
    ATTNLAB_CHECK(kk.shape(2) == cfg_.key_dim, "Score ", score_kind_name(cfg_.kind),
                  ": expected key last dim ", cfg_.key_dim, ", got keys ", detail::shape_of(kk));
  ATTNLAB_CHECK(kk.shape(1) > 0, "Score: zero-length keys (S = 0) cannot be attended; got keys ",
                detail::shape_of(kk));
  switch (cfg_.kind) {
    case ScoreKind::General: detail::check_param_shape("weight", weight, {cfg_.query_dim, cfg_.key_dim}); break;
    case ScoreKind::Location:
      ATTNLAB_CHECK(kk.shape(1) <= cfg_.max_keys, "Score location: expected at most max_keys = ",
                    cfg_.max_keys, " keys, got S = ", kk.shape(1));
      detail::check_param_shape("weight", weight, {cfg_.max_keys, cfg_.query_dim});
      break;
    case ScoreKind::Additive:
      detail::check_param_shape("query_proj.weight", query_weight, {cfg_.attn_dim, cfg_.query_dim});
      detail::check_param_shape("key_proj.weight", key_weight, {cfg_.attn_dim, cfg_.key_dim});
      detail::check_param_shape("v", v, {cfg_.attn_dim});
      break;
    default: break;
  }
}

Tensor3 Score::forward(const Tensor3& q, const Tensor3& kk, Cache* cache) const {
  // q: (B,Tq,Dq) k: (B,S,Dk) -> scores: (B,Tq,S)
  check_inputs(q, kk);
  const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2),
               Dk = kk.shape(2);
  Tensor3 sc = Tensor3::from_shape({B, Tq, S});
  if (cache) {
    cache->q = q;
    cache->k = kk;
  }
  switch (cfg_.kind) {
    case ScoreKind::Dot:
    case ScoreKind::ScaledDot: {
      const float alpha = cfg_.kind == ScoreKind::Dot ? 1.f : 1.f / std::sqrt(float(Dk));
      for (size_t b = 0; b < B; ++b)
        k::gemm(false, true, Tq, S, Dk, alpha, q.data() + b * Tq * Dq, Dq,
                kk.data() + b * S * Dk, Dk, 0.f, sc.data() + b * Tq * S, S);
      break;
    }
    case ScoreKind::General: {
      Tensor3 kw = Tensor3::from_shape({B, S, Dq});
      detail::linear_forward(B * S, Dk, Dq, kk.data(), Dk, weight.value.data(), nullptr,
                             kw.data(), Dq);
      for (size_t b = 0; b < B; ++b)
        k::gemm(false, true, Tq, S, Dq, 1.f, q.data() + b * Tq * Dq, Dq,
                kw.data() + b * S * Dq, Dq, 0.f, sc.data() + b * Tq * S, S);
      if (cache) cache->kw = std::move(kw);
      break;
    }
    case ScoreKind::Additive: {
      const size_t A = cfg_.attn_dim;
      Tensor3 qa = Tensor3::from_shape({B, Tq, A}), ka = Tensor3::from_shape({B, S, A});
      detail::linear_forward(B * Tq, Dq, A, q.data(), Dq, query_weight.value.data(), nullptr,
                             qa.data(), A);
      detail::linear_forward(B * S, Dk, A, kk.data(), Dk, key_weight.value.data(), nullptr,
                             ka.data(), A);
      std::vector<float> local;
      if (cache) cache->hidden = Tensor4::from_shape({B, Tq, S, A});
      else local.resize(S * A);
      for (size_t b = 0; b < B; ++b)
        for (size_t t = 0; t < Tq; ++t) {
          float* h = cache ? cache->hidden.data() + (b * Tq + t) * S * A : local.data();
          const float* qt = qa.data() + (b * Tq + t) * A;
          const float* kb = ka.data() + b * S * A;
          for (size_t s = 0; s < S; ++s) {
            for (size_t a = 0; a < A; ++a) h[s * A + a] = kb[s * A + a] + qt[a];
          }
          k::tanh(S * A, h, h);
          k::gemv(false, S, A, 1.f, h, A, v.value.data(), 0.f, sc.data() + (b * Tq + t) * S);
        }
      if (cache) {
        cache->qa = std::move(qa);
        cache->ka = std::move(ka);
      }
      break;
    }
    case ScoreKind::Cosine: {
      Tensor2 qn = Tensor2::from_shape({B, Tq}), kn = Tensor2::from_shape({B, S});
      for (size_t i = 0; i < B * Tq; ++i)
        qn.data()[i] = std::max(std::sqrt(k::dot(Dq, q.data() + i * Dq, q.data() + i * Dq)), kCosEps);
      for (size_t i = 0; i < B * S; ++i)
        kn.data()[i] = std::max(std::sqrt(k::dot(Dk, kk.data() + i * Dk, kk.data() + i * Dk)), kCosEps);
      for (size_t b = 0; b < B; ++b) {
        float* sb = sc.data() + b * Tq * S;
        k::gemm(false, true, Tq, S, Dk, 1.f, q.data() + b * Tq * Dq, Dq,
                kk.data() + b * S * Dk, Dk, 0.f, sb, S);
        for (size_t t = 0; t < Tq; ++t)
          for (size_t s = 0; s < S; ++s) sb[t * S + s] /= qn(b, t) * kn(b, s);
      }
      if (cache) {
        cache->qn = std::move(qn);
        cache->kn = std::move(kn);
        cache->scores = sc;
      }
      break;
    }
    case ScoreKind::Location: {
      for (size_t b = 0; b < B; ++b)
        k::gemm(false, true, Tq, S, Dq, 1.f, q.data() + b * Tq * Dq, Dq, weight.value.data(), Dq,
                0.f, sc.data() + b * Tq * S, S);
      break;
    }
  }
  return sc;
}

void Score::backward(const Tensor3& dsc, const Cache& c, Tensor3& dq, Tensor3& dk) {
  const Tensor3& q = c.q;
  const Tensor3& kk = c.k;
  const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2),
               Dk = kk.shape(2);
  ATTNLAB_CHECK(dsc.shape(0) == B && dsc.shape(1) == Tq && dsc.shape(2) == S,
                "Score backward: expected dscores (", B, ",", Tq, ",", S, "), got ",
                detail::shape_of(dsc));
  dq = xt::zeros<float>({B, Tq, Dq});
  dk = xt::zeros<float>({B, S, Dk});
  switch (cfg_.kind) {
    case ScoreKind::Dot:
    case ScoreKind::ScaledDot: {
      const float alpha = cfg_.kind == ScoreKind::Dot ? 1.f : 1.f / std::sqrt(float(Dk));
      for (size_t b = 0; b < B; ++b) {
        const float* g = dsc.data() + b * Tq * S;
        k::gemm(false, false, Tq, Dk, S, alpha, g, S, kk.data() + b * S * Dk, Dk, 0.f,
                dq.data() + b * Tq * Dq, Dq);
        k::gemm(true, false, S, Dq, Tq, alpha, g, S, q.data() + b * Tq * Dq, Dq, 0.f,
                dk.data() + b * S * Dk, Dk);
      }
      break;
    }
    case ScoreKind::General: {
      Tensor3 dkw = Tensor3::from_shape({B, S, Dq});
      for (size_t b = 0; b < B; ++b) {
        const float* g = dsc.data() + b * Tq * S;
        k::gemm(false, false, Tq, Dq, S, 1.f, g, S, c.kw.data() + b * S * Dq, Dq, 0.f,
                dq.data() + b * Tq * Dq, Dq);
        k::gemm(true, false, S, Dq, Tq, 1.f, g, S, q.data() + b * Tq * Dq, Dq, 0.f,
                dkw.data() + b * S * Dq, Dq);
      }
      detail::linear_backward(B * S, Dk, Dq, kk.data(), Dk, weight.value.data(), dkw.data(), Dq,
                              dk.data(), Dk, false, weight.grad.data(), nullptr);
      break;
    }
    case ScoreKind::Additive: {
      const size_t A = cfg_.attn_dim;
      Tensor3 dqa = xt::zeros<float>({B, Tq, A}), dka = xt::zeros<float>({B, S, A});
      std::vector<float> dpre(S * A);
      for (size_t b = 0; b < B; ++b)
        for (size_t t = 0; t < Tq; ++t) {
          const float* h = c.hidden.data() + (b * Tq + t) * S * A;
          const float* g = dsc.data() + (b * Tq + t) * S;
          // dv += h^T g
          k::gemv(true, S, A, 1.f, h, A, g, 1.f, v.grad.data());
          // dh = g v^T, dpre = dh * (1 - h^2)
          for (size_t s = 0; s < S; ++s) k::scale(A, g[s], v.value.data(), dpre.data() + s * A);
          k::tanh_backward(S * A, h, dpre.data(), dpre.data());
          float* dqt = dqa.data() + (b * Tq + t) * A;
          float* dkb = dka.data() + b * S * A;
          for (size_t s = 0; s < S; ++s) {
            k::add(A, dpre.data() + s * A, dqt);
            k::add(A, dpre.data() + s * A, dkb + s * A);
          }
        }
      detail::linear_backward(B * Tq, Dq, A, q.data(), Dq, query_weight.value.data(), dqa.data(),
                              A, dq.data(), Dq, false, query_weight.grad.data(), nullptr);
      detail::linear_backward(B * S, Dk, A, kk.data(), Dk, key_weight.value.data(), dka.data(), A,
                              dk.data(), Dk, false, key_weight.grad.data(), nullptr);
      break;
    }
    case ScoreKind::Cosine: {
      std::vector<float> G(Tq * S), rs(Tq), cs(S);
      for (size_t b = 0; b < B; ++b) {
        const float* g = dsc.data() + b * Tq * S;
        const float* cv = c.scores.data() + b * Tq * S;
        std::fill(rs.begin(), rs.end(), 0.f);
        std::fill(cs.begin(), cs.end(), 0.f);
        for (size_t t = 0; t < Tq; ++t)
          for (size_t s = 0; s < S; ++s) {
            G[t * S + s] = g[t * S + s] / (c.qn(b, t) * c.kn(b, s));
            const float gc = g[t * S + s] * cv[t * S + s];
            rs[t] += gc;
            cs[s] += gc;
          }
        const float* qb = q.data() + b * Tq * Dq;
        const float* kb = kk.data() + b * S * Dk;
        float* dqb = dq.data() + b * Tq * Dq;
        float* dkb = dk.data() + b * S * Dk;
        k::gemm(false, false, Tq, Dk, S, 1.f, G.data(), S, kb, Dk, 0.f, dqb, Dq);
        k::gemm(true, false, S, Dq, Tq, 1.f, G.data(), S, qb, Dq, 0.f, dkb, Dk);
        for (size_t t = 0; t < Tq; ++t)
          if (c.qn(b, t) > kCosEps)  // a clamped norm is a constant: no gradient through it
            k::axpy(Dq, -rs[t] / (c.qn(b, t) * c.qn(b, t)), qb + t * Dq, dqb + t * Dq);
        for (size_t s = 0; s < S; ++s)
          if (c.kn(b, s) > kCosEps)
            k::axpy(Dk, -cs[s] / (c.kn(b, s) * c.kn(b, s)), kb + s * Dk, dkb + s * Dk);
      }
      break;
    }
    case ScoreKind::Location: {
      for (size_t b = 0; b < B; ++b) {
        const float* g = dsc.data() + b * Tq * S;
        k::gemm(false, false, Tq, Dq, S, 1.f, g, S, weight.value.data(), Dq, 0.f,
                dq.data() + b * Tq * Dq, Dq);
        k::gemm(true, false, S, Dq, Tq, 1.f, g, S, q.data() + b * Tq * Dq, Dq, 1.f,
                weight.grad.data(), Dq);
      }
      break;
    }
  }
}

}  // namespace attnlab::attention
