#include "attnlab/core/checked.hpp"
#include "attnlab/data/ctr_synthetic.hpp"

#include <cmath>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::data {

CtrSyntheticData make_ctr_synthetic(const CtrSyntheticConfig& cfg) {
  const size_t F = cfg.vocab.size();
  ATTNLAB_CHECK(cfg.n > 0, "ctr_synthetic: n must be > 0");
  ATTNLAB_CHECK(F >= 2, "ctr_synthetic: need at least 2 fields, got ", F);
  for (size_t f = 0; f < F; ++f)
    ATTNLAB_CHECK(cfg.vocab[f] > 0 && cfg.vocab[f] <= (1u << 30),
                  "ctr_synthetic: vocab of field ", f, " must be in [1, 2^30], got ", cfg.vocab[f]);
  ATTNLAB_CHECK(cfg.field_a < F && cfg.field_b < F && cfg.field_a != cfg.field_b,
                "ctr_synthetic: field_a and field_b must be two different fields in [0, ", F,
                "), got ", cfg.field_a, " and ", cfg.field_b);
  ATTNLAB_CHECK(std::isfinite(cfg.scale) && cfg.scale >= 0.f,
                "ctr_synthetic: scale must be finite and >= 0, got ", cfg.scale);
  ATTNLAB_CHECK(std::isfinite(cfg.noise) && cfg.noise >= 0.f,
                "ctr_synthetic: noise must be finite and >= 0, got ", cfg.noise);
  ATTNLAB_CHECK(std::isfinite(cfg.bias), "ctr_synthetic: bias must be finite, got ", cfg.bias);

  // ---- the table: N(0,1), double-centred, unit RMS
  const size_t Va = cfg.vocab[cfg.field_a], Vb = cfg.vocab[cfg.field_b];
  Rng trng(cfg.task_seed ? cfg.task_seed : cfg.seed);
  std::vector<double> t(Va * Vb);
  for (double& x : t) x = trng.normal();
  std::vector<double> rmean(Va, 0.0), cmean(Vb, 0.0);
  double mean = 0;
  for (size_t i = 0; i < Va; ++i)
    for (size_t j = 0; j < Vb; ++j) {
      rmean[i] += t[i * Vb + j] / double(Vb);
      cmean[j] += t[i * Vb + j] / double(Va);
      mean += t[i * Vb + j] / double(Va * Vb);
    }
  double ss = 0;
  for (size_t i = 0; i < Va; ++i)
    for (size_t j = 0; j < Vb; ++j) {
      double& x = t[i * Vb + j];
      x = x - rmean[i] - cmean[j] + mean;
      ss += x * x;
    }
  const double rms = std::sqrt(ss / double(Va * Vb));
  CtrSyntheticData d;
  d.n = cfg.n;
  d.fields = F;
  d.table.resize(checked_product("ctr synthetic: vocab a x vocab b", {Va, Vb}));
  for (size_t i = 0; i < Va * Vb; ++i) d.table[i] = rms > 0 ? float(t[i] / rms) : 0.f;

  // ---- samples
  Rng rng(cfg.seed);
  d.ids.resize(checked_product("ctr synthetic: n x fields", {cfg.n, F}));
  d.labels.resize(cfg.n);
  d.prob.resize(cfg.n);
  for (size_t s = 0; s < cfg.n; ++s) {
    int* row = d.ids.data() + s * F;
    for (size_t f = 0; f < F; ++f) row[f] = int(rng.below(uint32_t(cfg.vocab[f])));
    const float z = cfg.scale * d.table[size_t(row[cfg.field_a]) * Vb + size_t(row[cfg.field_b])] +
                    cfg.bias;
    d.prob[s] = 1.f / (1.f + std::exp(-z));
    const float zn = z + cfg.noise * float(rng.normal());
    d.labels[s] = rng.uniform() < 1.0 / (1.0 + std::exp(-double(zn))) ? 1.f : 0.f;
  }
  return d;
}

}  // namespace attnlab::data
