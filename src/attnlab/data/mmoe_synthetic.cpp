#include "attnlab/core/checked.hpp"
#include "attnlab/data/mmoe_synthetic.hpp"

#include <cmath>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::data {

MMoESyntheticData make_mmoe_synthetic(const MMoESyntheticConfig& cfg) {
  ATTNLAB_CHECK(cfg.n > 0, "mmoe synthetic: n must be > 0");
  ATTNLAB_CHECK(cfg.dim >= 2, "mmoe synthetic: dim must be >= 2 (two orthogonal directions), got ",
                cfg.dim);
  ATTNLAB_CHECK(std::isfinite(cfg.p) && std::fabs(cfg.p) <= 1.f,
                "mmoe synthetic: correlation p must be in [-1, 1], got ", cfg.p);
  ATTNLAB_CHECK(cfg.m >= 0, "mmoe synthetic: m (sine terms) must be >= 0, got ", cfg.m);
  ATTNLAB_CHECK(std::isfinite(cfg.noise) && cfg.noise >= 0.f && std::isfinite(cfg.c),
                "mmoe synthetic: noise must be >= 0 and c finite");
  ATTNLAB_CHECK(cfg.alpha.empty() == cfg.beta.empty(),
                "mmoe synthetic: give both alpha and beta lists or neither, got ", cfg.alpha.size(),
                " alphas and ", cfg.beta.size(), " betas");
  ATTNLAB_CHECK(cfg.alpha.empty() || cfg.alpha.size() == static_cast<size_t>(cfg.m),
                "mmoe synthetic: expected m = ", cfg.m, " alphas and betas, got ", cfg.alpha.size());
  for (size_t i = 0; i < cfg.alpha.size(); ++i)
    ATTNLAB_CHECK(std::isfinite(cfg.alpha[i]) && std::isfinite(cfg.beta[i]),
                  "mmoe synthetic: alpha/beta ", i, " is not finite");
  const size_t d = cfg.dim;
  MMoESyntheticData out;
  out.n = cfg.n;
  out.dim = d;

  // u1, u2: Gram-Schmidt on two Gaussian vectors
  Rng task_rng((cfg.task_seed ? cfg.task_seed : cfg.seed) * 2654435761ull + 17);
  std::vector<double> u1(d), u2(d);
  for (auto& v : u1) v = task_rng.normal();
  for (auto& v : u2) v = task_rng.normal();
  double n1 = 0;
  for (double v : u1) n1 += v * v;
  n1 = std::sqrt(n1);
  for (auto& v : u1) v /= n1;
  double dp = 0;
  for (size_t i = 0; i < d; ++i) dp += u1[i] * u2[i];
  for (size_t i = 0; i < d; ++i) u2[i] -= dp * u1[i];
  double n2 = 0;
  for (double v : u2) n2 += v * v;
  n2 = std::sqrt(n2);
  for (auto& v : u2) v /= n2;

  const double p = cfg.p, q = std::sqrt(std::max(0.0, 1.0 - p * p));
  out.w1.resize(d);
  out.w2.resize(d);
  for (size_t i = 0; i < d; ++i) {
    out.w1[i] = static_cast<float>(cfg.c * u1[i]);
    out.w2[i] = static_cast<float>(cfg.c * (p * u1[i] + q * u2[i]));
  }

  // sine shapes, shared by both tasks
  out.alpha.resize(static_cast<size_t>(cfg.m));
  out.beta.resize(static_cast<size_t>(cfg.m));
  for (int i = 1; i <= cfg.m; ++i) {
    const size_t j = static_cast<size_t>(i - 1);
    if (!cfg.alpha.empty()) {
      out.alpha[j] = cfg.alpha[j];
      out.beta[j] = cfg.beta[j];
    } else if (cfg.shape == SineShape::Random) {
      out.alpha[j] = static_cast<float>(task_rng.normal());
      out.beta[j] = static_cast<float>(task_rng.normal());
    } else {
      out.alpha[j] = static_cast<float>(i);
      out.beta[j] = static_cast<float>(i * i);
    }
  }

  Rng rng(cfg.seed ^ 0x5DEECE66Dull);
  out.x.resize(checked_product("mmoe synthetic: n x dim", {cfg.n, d}));
  out.y.resize(cfg.n * 2);
  for (size_t s = 0; s < cfg.n; ++s) {
    float* x = out.x.data() + s * d;
    double a1 = 0, a2 = 0;
    for (size_t i = 0; i < d; ++i) {
      x[i] = static_cast<float>(rng.normal());
      a1 += static_cast<double>(out.w1[i]) * x[i];
      a2 += static_cast<double>(out.w2[i]) * x[i];
    }
    double y1 = a1, y2 = a2;
    for (size_t i = 0; i < out.alpha.size(); ++i) {
      const double al = out.alpha[i], be = out.beta[i];
      y1 += std::sin(al * a1 + be);
      y2 += std::sin(al * a2 + be);
    }
    y1 += cfg.noise * rng.normal();
    y2 += cfg.noise * rng.normal();
    out.y[2 * s] = static_cast<float>(y1);
    out.y[2 * s + 1] = static_cast<float>(y2);
  }
  return out;
}

double pearson(const float* a, const float* b, size_t n, size_t sa, size_t sb) {
  ATTNLAB_CHECK(n >= 2, "pearson: need at least 2 samples, got ", n);
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) {
    ma += a[i * sa];
    mb += b[i * sb];
  }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    const double da = a[i * sa] - ma, db = b[i * sb] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  ATTNLAB_CHECK(saa > 0 && sbb > 0, "pearson: a sequence is constant");
  return sab / std::sqrt(saa * sbb);
}

}  // namespace attnlab::data
