// The code of each score function in the list (attention/score_list.hpp):
// one struct per score with its parameters, checks, forward, backward and
// one-query scoring, and the table row built from it.
#include <cmath>
#include <vector>

#include "attnlab/attention/score.hpp"
#include "attnlab/kernels/kernels.hpp"

namespace attnlab::attention {
namespace {

namespace k = attnlab::kernels;
constexpr float kCosEps = 1e-8f;

size_t no_prepared(const ScoreConfig&) { return 0; }
void no_prepare(const Score&, size_t, const float*, float*) {}
void no_params(Score&, Rng&) {}
void collect_none(Score&, ParamList&, const std::string&) {}
uint64_t count_none(const ScoreConfig&) { return 0; }
void check_none(const Score&, const Tensor3&, const Tensor3&) {}
// The prepared keys of the scores that project them (general: weight, additive: key_proj):
// keys (S,Dk) -> out (S,R) = keys W^T for W (R,Dk), R the kind's key_width
void project_keys(const Param& w, size_t R, size_t Dk, size_t S, const float* keys, float* out) {
  k::gemm(false, true, S, R, Dk, 1.f, keys, Dk, w.value.data(), Dk, 0.f, out, R);
}

// ---------------------------------------------------------------- dot, scaled dot
template <bool kScaled>
struct DotLike {
  static float alpha(size_t Dk) { return kScaled ? 1.f / std::sqrt(float(Dk)) : 1.f; }
  static void forward(const Score&, const Tensor3& q, const Tensor3& kk, Tensor3& sc, Score::Cache*) {
    // q: (B,Tq,D) k: (B,S,D) -> sc: (B,Tq,S)
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    for (size_t b = 0; b < B; ++b)
      k::gemm(false, true, Tq, S, Dk, alpha(Dk), q.data() + b * Tq * Dq, Dq,
              kk.data() + b * S * Dk, Dk, 0.f, sc.data() + b * Tq * S, S);
  }
  static void backward(Score&, const Tensor3& dsc, const Score::Cache& c, Tensor3& dq, Tensor3& dk) {
    const Tensor3 &q = c.q, &kk = c.k;
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    for (size_t b = 0; b < B; ++b) {
      const float* g = dsc.data() + b * Tq * S;
      k::gemm(false, false, Tq, Dk, S, alpha(Dk), g, S, kk.data() + b * S * Dk, Dk, 0.f,
              dq.data() + b * Tq * Dq, Dq);
      k::gemm(true, false, S, Dq, Tq, alpha(Dk), g, S, q.data() + b * Tq * Dq, Dq, 0.f,
              dk.data() + b * S * Dk, Dk);
    }
  }
  static void score_query(const Score& s, size_t S, const float* q, const float*, const float* keys,
                          const float*, float* out, float*) {
    const size_t D = s.config().key_dim;
    k::gemv(false, S, D, alpha(D), keys, D, q, 0.f, out);
  }
};

// ---------------------------------------------------------------- one weight matrix
// The parameter of the scores whose only one is the matrix `weight` (general, location):
// Kind::weight_shape(config) gives its {rows, cols}; initialised U(-1/sqrt(cols), 1/sqrt(cols)).
template <class Kind>
struct OneWeight {
  static void init(Score& s, Rng& rng) {
    const std::vector<size_t> shape = Kind::weight_shape(s.config());
    detail::init_uniform(s.weight, shape, 1.f / std::sqrt(float(shape[1])), rng);
  }
  static void collect(Score& s, ParamList& out, const std::string& p) { out.add(p + "weight", s.weight); }
  static uint64_t count(const ScoreConfig& c) {
    const std::vector<size_t> shape = Kind::weight_shape(c);
    return uint64_t(shape[0]) * shape[1];
  }
  static void check_weight(const Score& s) {
    detail::check_param_shape("weight", s.weight, Kind::weight_shape(s.config()));
  }
};

// ---------------------------------------------------------------- general (bilinear)
struct General : OneWeight<General> {
  static std::vector<size_t> weight_shape(const ScoreConfig& c) { return {c.query_dim, c.key_dim}; }
  static void check(const Score& s, const Tensor3&, const Tensor3&) { check_weight(s); }
  static void forward(const Score& s, const Tensor3& q, const Tensor3& kk, Tensor3& sc, Score::Cache* cache) {
    // kw = k W^T: (B,S,Dq); sc = q kw^T
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    Tensor3 kw = Tensor3::from_shape({B, S, Dq});
    detail::linear_forward(B * S, Dk, Dq, kk.data(), Dk, s.weight.value.data(), nullptr, kw.data(), Dq);
    for (size_t b = 0; b < B; ++b)
      k::gemm(false, true, Tq, S, Dq, 1.f, q.data() + b * Tq * Dq, Dq, kw.data() + b * S * Dq, Dq,
              0.f, sc.data() + b * Tq * S, S);
    if (cache) cache->kw = std::move(kw);
  }
  static void backward(Score& s, const Tensor3& dsc, const Score::Cache& c, Tensor3& dq, Tensor3& dk) {
    const Tensor3 &q = c.q, &kk = c.k;
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    Tensor3 dkw = Tensor3::from_shape({B, S, Dq});
    for (size_t b = 0; b < B; ++b) {
      const float* g = dsc.data() + b * Tq * S;
      k::gemm(false, false, Tq, Dq, S, 1.f, g, S, c.kw.data() + b * S * Dq, Dq, 0.f,
              dq.data() + b * Tq * Dq, Dq);
      k::gemm(true, false, S, Dq, Tq, 1.f, g, S, q.data() + b * Tq * Dq, Dq, 0.f,
              dkw.data() + b * S * Dq, Dq);
    }
    detail::linear_backward(B * S, Dk, Dq, kk.data(), Dk, s.weight.value.data(), dkw.data(), Dq,
                            dk.data(), Dk, false, s.weight.grad.data(), nullptr);
  }
  static size_t key_width(const ScoreConfig& c) { return c.query_dim; }
  static void prepare_keys(const Score& s, size_t S, const float* keys, float* out) {
    project_keys(s.weight, key_width(s.config()), s.config().key_dim, S, keys, out);
  }
  static void score_query(const Score& s, size_t S, const float* q, const float*, const float*,
                          const float* prepared, float* out, float*) {
    const size_t Dq = s.config().query_dim;
    k::gemv(false, S, Dq, 1.f, prepared, Dq, q, 0.f, out);
  }
};

// ---------------------------------------------------------------- additive (concat)
struct Additive {
  static void init(Score& s, Rng& rng) {
    const ScoreConfig& c = s.config();
    detail::init_uniform(s.query_weight, {c.attn_dim, c.query_dim}, 1.f / std::sqrt(float(c.query_dim)), rng);
    detail::init_uniform(s.key_weight, {c.attn_dim, c.key_dim}, 1.f / std::sqrt(float(c.key_dim)), rng);
    detail::init_uniform(s.v, {c.attn_dim}, 1.f / std::sqrt(float(c.attn_dim)), rng);
  }
  static void collect(Score& s, ParamList& out, const std::string& p) {
    out.add(p + "query_proj.weight", s.query_weight);
    out.add(p + "key_proj.weight", s.key_weight);
    out.add(p + "v", s.v);
  }
  static uint64_t count(const ScoreConfig& c) {
    return uint64_t(c.attn_dim) * (uint64_t(c.query_dim) + c.key_dim + 1);
  }
  static void check(const Score& s, const Tensor3&, const Tensor3&) {
    const ScoreConfig& c = s.config();
    detail::check_param_shape("query_proj.weight", s.query_weight, {c.attn_dim, c.query_dim});
    detail::check_param_shape("key_proj.weight", s.key_weight, {c.attn_dim, c.key_dim});
    detail::check_param_shape("v", s.v, {c.attn_dim});
  }
  // one row of scores: h = tanh(ka_s + qa) (S,A), out = h v
  static void row(const Score& s, size_t S, const float* qa, const float* ka, float* h, float* out) {
    const size_t A = s.config().attn_dim;
    for (size_t j = 0; j < S; ++j)
      for (size_t a = 0; a < A; ++a) h[j * A + a] = ka[j * A + a] + qa[a];
    k::tanh(S * A, h, h);
    k::gemv(false, S, A, 1.f, h, A, s.v.value.data(), 0.f, out);
  }
  static void forward(const Score& s, const Tensor3& q, const Tensor3& kk, Tensor3& sc, Score::Cache* cache) {
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    const size_t A = s.config().attn_dim;
    Tensor3 qa = Tensor3::from_shape({B, Tq, A}), ka = Tensor3::from_shape({B, S, A});
    detail::linear_forward(B * Tq, Dq, A, q.data(), Dq, s.query_weight.value.data(), nullptr, qa.data(), A);
    detail::linear_forward(B * S, Dk, A, kk.data(), Dk, s.key_weight.value.data(), nullptr, ka.data(), A);
    std::vector<float> local;
    if (cache) cache->hidden = Tensor4::from_shape({B, Tq, S, A});
    else local.resize(S * A);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < Tq; ++t) {
        float* h = cache ? cache->hidden.data() + (b * Tq + t) * S * A : local.data();
        row(s, S, qa.data() + (b * Tq + t) * A, ka.data() + b * S * A, h, sc.data() + (b * Tq + t) * S);
      }
    if (cache) {
      cache->qa = std::move(qa);
      cache->ka = std::move(ka);
    }
  }
  static void backward(Score& s, const Tensor3& dsc, const Score::Cache& c, Tensor3& dq, Tensor3& dk) {
    const Tensor3 &q = c.q, &kk = c.k;
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    const size_t A = s.config().attn_dim;
    Tensor3 dqa = xt::zeros<float>({B, Tq, A}), dka = xt::zeros<float>({B, S, A});
    std::vector<float> dpre(S * A);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < Tq; ++t) {
        const float* h = c.hidden.data() + (b * Tq + t) * S * A;
        const float* g = dsc.data() + (b * Tq + t) * S;
        k::gemv(true, S, A, 1.f, h, A, g, 1.f, s.v.grad.data());  // dv += h^T g
        // dh = g v^T, dpre = dh * (1 - h^2)
        for (size_t j = 0; j < S; ++j) k::scale(A, g[j], s.v.value.data(), dpre.data() + j * A);
        k::tanh_backward(S * A, h, dpre.data(), dpre.data());
        float* dqt = dqa.data() + (b * Tq + t) * A;
        float* dkb = dka.data() + b * S * A;
        for (size_t j = 0; j < S; ++j) {
          k::add(A, dpre.data() + j * A, dqt);
          k::add(A, dpre.data() + j * A, dkb + j * A);
        }
      }
    detail::linear_backward(B * Tq, Dq, A, q.data(), Dq, s.query_weight.value.data(), dqa.data(), A,
                            dq.data(), Dq, false, s.query_weight.grad.data(), nullptr);
    detail::linear_backward(B * S, Dk, A, kk.data(), Dk, s.key_weight.value.data(), dka.data(), A,
                            dk.data(), Dk, false, s.key_weight.grad.data(), nullptr);
  }
  static size_t key_width(const ScoreConfig& c) { return c.attn_dim; }
  static void prepare_keys(const Score& s, size_t S, const float* keys, float* out) {
    project_keys(s.key_weight, key_width(s.config()), s.config().key_dim, S, keys, out);
  }
  static void score_query(const Score& s, size_t S, const float* q, const float* qproj, const float*,
                          const float* prepared, float* out, float* scratch) {
    const size_t A = s.config().attn_dim, Dq = s.config().query_dim;
    float qa_local[256];
    std::vector<float> qa_heap;
    if (!qproj) {
      float* qa = A <= 256 ? qa_local : (qa_heap.resize(A), qa_heap.data());
      k::gemv(false, A, Dq, 1.f, s.query_weight.value.data(), Dq, q, 0.f, qa);
      qproj = qa;
    }
    row(s, S, qproj, prepared, scratch, out);
  }
};

// ---------------------------------------------------------------- cosine
struct Cosine {
  static float norm(size_t D, const float* x) { return std::max(std::sqrt(k::dot(D, x, x)), kCosEps); }
  static void forward(const Score&, const Tensor3& q, const Tensor3& kk, Tensor3& sc, Score::Cache* cache) {
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    Tensor2 qn = Tensor2::from_shape({B, Tq}), kn = Tensor2::from_shape({B, S});
    for (size_t i = 0; i < B * Tq; ++i) qn.data()[i] = norm(Dq, q.data() + i * Dq);
    for (size_t i = 0; i < B * S; ++i) kn.data()[i] = norm(Dk, kk.data() + i * Dk);
    for (size_t b = 0; b < B; ++b) {
      float* sb = sc.data() + b * Tq * S;
      k::gemm(false, true, Tq, S, Dk, 1.f, q.data() + b * Tq * Dq, Dq, kk.data() + b * S * Dk, Dk,
              0.f, sb, S);
      for (size_t t = 0; t < Tq; ++t)
        for (size_t j = 0; j < S; ++j) sb[t * S + j] /= qn(b, t) * kn(b, j);
    }
    if (cache) {
      cache->qn = std::move(qn);
      cache->kn = std::move(kn);
      cache->scores = sc;
    }
  }
  static void backward(Score&, const Tensor3& dsc, const Score::Cache& c, Tensor3& dq, Tensor3& dk) {
    const Tensor3 &q = c.q, &kk = c.k;
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2), Dk = kk.shape(2);
    std::vector<float> G(Tq * S), rs(Tq), cs(S);
    for (size_t b = 0; b < B; ++b) {
      const float* g = dsc.data() + b * Tq * S;
      const float* cv = c.scores.data() + b * Tq * S;
      std::fill(rs.begin(), rs.end(), 0.f);
      std::fill(cs.begin(), cs.end(), 0.f);
      for (size_t t = 0; t < Tq; ++t)
        for (size_t j = 0; j < S; ++j) {
          G[t * S + j] = g[t * S + j] / (c.qn(b, t) * c.kn(b, j));
          const float gc = g[t * S + j] * cv[t * S + j];
          rs[t] += gc;
          cs[j] += gc;
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
      for (size_t j = 0; j < S; ++j)
        if (c.kn(b, j) > kCosEps) k::axpy(Dk, -cs[j] / (c.kn(b, j) * c.kn(b, j)), kb + j * Dk, dkb + j * Dk);
    }
  }
  static size_t key_width(const ScoreConfig&) { return 1; }  // the key's clamped norm
  static void prepare_keys(const Score& s, size_t S, const float* keys, float* out) {
    const size_t D = s.config().key_dim;
    for (size_t j = 0; j < S; ++j) out[j] = norm(D, keys + j * D);
  }
  static void score_query(const Score& s, size_t S, const float* q, const float*, const float* keys,
                          const float* prepared, float* out, float*) {
    const size_t D = s.config().key_dim;
    k::gemv(false, S, D, 1.f, keys, D, q, 0.f, out);
    const float qn = norm(D, q);
    for (size_t j = 0; j < S; ++j) out[j] /= qn * prepared[j];
  }
};

// ---------------------------------------------------------------- location
struct Location : OneWeight<Location> {
  static std::vector<size_t> weight_shape(const ScoreConfig& c) { return {c.max_keys, c.query_dim}; }
  static void check(const Score& s, const Tensor3&, const Tensor3& kk) {
    ATTNLAB_CHECK(kk.shape(1) <= s.config().max_keys, "Score location: expected at most max_keys = ",
                  s.config().max_keys, " keys, got S = ", kk.shape(1));
    check_weight(s);
  }
  static void forward(const Score& s, const Tensor3& q, const Tensor3& kk, Tensor3& sc, Score::Cache*) {
    const size_t B = q.shape(0), Tq = q.shape(1), S = kk.shape(1), Dq = q.shape(2);
    for (size_t b = 0; b < B; ++b)
      k::gemm(false, true, Tq, S, Dq, 1.f, q.data() + b * Tq * Dq, Dq, s.weight.value.data(), Dq, 0.f,
              sc.data() + b * Tq * S, S);
  }
  static void backward(Score& s, const Tensor3& dsc, const Score::Cache& c, Tensor3& dq, Tensor3&) {
    const Tensor3& q = c.q;
    const size_t B = q.shape(0), Tq = q.shape(1), S = c.k.shape(1), Dq = q.shape(2);
    for (size_t b = 0; b < B; ++b) {
      const float* g = dsc.data() + b * Tq * S;
      k::gemm(false, false, Tq, Dq, S, 1.f, g, S, s.weight.value.data(), Dq, 0.f, dq.data() + b * Tq * Dq, Dq);
      k::gemm(true, false, S, Dq, Tq, 1.f, g, S, q.data() + b * Tq * Dq, Dq, 1.f, s.weight.grad.data(), Dq);
    }
  }
  static void score_query(const Score& s, size_t S, const float* q, const float*, const float*,
                          const float*, float* out, float*) {
    ATTNLAB_CHECK(S <= s.config().max_keys, "Score location: expected at most max_keys = ",
                  s.config().max_keys, " keys, got S = ", S);
    const size_t Dq = s.config().query_dim;
    k::gemv(false, S, Dq, 1.f, s.weight.value.data(), Dq, q, 0.f, out);
  }
};

// The rows (kind and name come from the list): aliases, formula, dimension rules, code.
struct DotScore {
  static ScoreSpec spec() {
    using D = DotLike<false>;
    return {ScoreKind{}, nullptr, {}, "s . h", true, false, false, true, no_params, collect_none, count_none,
            check_none, D::forward, D::backward, no_prepared, no_prepare, D::score_query};
  }
};
struct ScaledDotScore {
  static ScoreSpec spec() {
    using D = DotLike<true>;
    return {ScoreKind{}, nullptr, {}, "s . h / sqrt(d)", true, false, false, true,
            no_params, collect_none, count_none, check_none, D::forward, D::backward, no_prepared, no_prepare,
            D::score_query};
  }
};
struct GeneralScore {
  static ScoreSpec spec() {
    return {ScoreKind{}, nullptr, {"bilinear"}, "s^T W h", false, false, false, true,
            General::init, General::collect, General::count, General::check, General::forward, General::backward,
            General::key_width, General::prepare_keys, General::score_query};
  }
};
struct AdditiveScore {
  static ScoreSpec spec() {
    return {ScoreKind{}, nullptr, {"concat"}, "v^T tanh(W1 s + W2 h)", false, true, false,
            true, Additive::init, Additive::collect, Additive::count, Additive::check, Additive::forward,
            Additive::backward, Additive::key_width, Additive::prepare_keys, Additive::score_query};
  }
};
struct CosineScore {
  static ScoreSpec spec() {
    return {ScoreKind{}, nullptr, {}, "s . h / (|s| |h|)", true, false, false, true, no_params,
            collect_none, count_none, check_none, Cosine::forward, Cosine::backward, Cosine::key_width,
            Cosine::prepare_keys, Cosine::score_query};
  }
};
struct LocationScore {
  static ScoreSpec spec() {
    return {ScoreKind{}, nullptr, {}, "(W s)[i]", false, false, true, false, Location::init,
            Location::collect, Location::count, Location::check, Location::forward, Location::backward, no_prepared,
            no_prepare, Location::score_query};
  }
};

ScoreSpec row(ScoreKind kind, const char* name, ScoreSpec s) {
  s.kind = kind;
  s.name = name;
  return s;
}

}  // namespace

const std::vector<ScoreSpec>& score_table() {
#define ATTNLAB_SCORE_ROW(id, name) row(ScoreKind::id, name, id##Score::spec()),
  static const std::vector<ScoreSpec> table = {ATTNLAB_SCORE_LIST(ATTNLAB_SCORE_ROW)};
#undef ATTNLAB_SCORE_ROW
  return table;
}

}  // namespace attnlab::attention
