// Shared helpers for the attention tests: random tensors, a finite-difference
// gradient checker, and fixture loading. (Not a test_*.cpp, so not its own executable.)
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_util.hpp"
#include "attnlab/attention/common.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"

namespace attn_test {

using namespace attnlab;
using namespace attnlab::attention;

inline Tensor3 randn3(size_t a, size_t b, size_t c, Rng& rng, float s = 1.f) {
  Tensor3 t = Tensor3::from_shape({a, b, c});
  for (auto& x : t) x = rng.normal(0.f, s);
  return t;
}
inline Tensor2 randn2(size_t a, size_t b, Rng& rng, float s = 1.f) {
  Tensor2 t = Tensor2::from_shape({a, b});
  for (auto& x : t) x = rng.normal(0.f, s);
  return t;
}
inline void randomize(ParamList& pl, Rng& rng, float s = 0.5f) {
  for (auto& it : pl.items())
    for (size_t i = 0; i < it.second->size(); ++i) it.second->data()[i] = rng.normal(0.f, s);
}
inline double dotd(const float* a, const float* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(a[i]) * double(b[i]);
  return s;
}
template <class T>
double dotd(const T& a, const T& b) {
  EXPECT_EQ(a.size(), b.size());
  return dotd(a.data(), b.data(), std::min(a.size(), b.size()));
}
// every parameter of a layer (or a model's part), under its own names after `prefix`
template <class Layer>
ParamList params_of(Layer& layer, const std::string& prefix = "") {
  ParamList pl;
  layer.collect(pl, prefix);
  return pl;
}
// a (B,T) key padding mask: true (padded) at the given (batch, position) entries only
inline BoolTensor2 padding_mask(size_t B, size_t T, std::initializer_list<std::pair<size_t, size_t>> padded) {
  BoolTensor2 m = BoolTensor2::from_shape({B, T});
  m.fill(false);
  for (const auto& [b, t] : padded) m(b, t) = true;
  return m;
}
inline bool all_finite(const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// Worst finite-difference errors seen so far (printed at exit of each test binary
// by PrintGradSummary) so the report can quote them.
struct GradStats {
  double worst_rel = 0;  // max over checks of ||num - ana|| / max(||num||, ||ana||)
  std::string worst_name;
  size_t checks = 0, elements = 0;
};
inline GradStats& grad_stats() {
  static GradStats s;
  return s;
}

// Central differences on every element of x (n floats): num = (L(x+e) - L(x-e)) / 2e.
// Passes if the vector-relative error ||num - ana|| / max(||num||, ||ana||, floor) <= tol
// and every element satisfies |num - ana| <= tol * max(|num|, |ana|) + atol,
// atol = tol * 0.1 * max(1, max|ana|).
template <class LossFn>
void check_grad(const std::string& name, float* x, const float* ana, size_t n, LossFn loss,
                float eps = 1e-2f, double tol = 1e-2) {
  std::vector<double> num(n);
  for (size_t i = 0; i < n; ++i) {
    const float old = x[i];
    x[i] = old + eps;
    const double lp = loss();
    x[i] = old - eps;
    const double lm = loss();
    x[i] = old;
    num[i] = (lp - lm) / (2.0 * double(eps));
  }
  double dn = 0, nn = 0, na = 0, amax = 0;
  for (size_t i = 0; i < n; ++i) {
    dn += (num[i] - ana[i]) * (num[i] - ana[i]);
    nn += num[i] * num[i];
    na += double(ana[i]) * ana[i];
    amax = std::max(amax, std::fabs(double(ana[i])));
  }
  const double rel = std::sqrt(dn) / std::max({std::sqrt(nn), std::sqrt(na), 1e-3});
  EXPECT_LE(rel, tol) << name << ": vector-relative FD error " << rel;
  const double atol = tol * 0.1 * std::max(1.0, amax);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = std::fabs(num[i] - ana[i]);
    if (e > tol * std::max(std::fabs(num[i]), std::fabs(double(ana[i]))) + atol) {
      if (bad++ < 3)
        ADD_FAILURE() << name << "[" << i << "]: numeric " << num[i] << " analytic " << ana[i];
    }
  }
  EXPECT_TRUE(all_finite(ana, n)) << name << ": non-finite analytic gradient";
  auto& st = grad_stats();
  ++st.checks;
  st.elements += n;
  if (rel > st.worst_rel) {
    st.worst_rel = rel;
    st.worst_name = name;
  }
}

class GradSummary : public ::testing::Environment {
 public:
  void TearDown() override {
    const auto& s = grad_stats();
    if (s.checks)
      std::printf("[grad summary] %zu FD checks over %zu elements; worst vector-relative error %.3g (%s)\n",
                  s.checks, s.elements, s.worst_rel, s.worst_name.c_str());
  }
};

// ------------------------------------------------------------ fixtures
using attnlab::testing::for_each_case;
using attnlab::testing::load_fixture;
inline std::vector<size_t> jshape(const nlohmann::json& t) {
  return t.at("shape").get<std::vector<size_t>>();
}
inline std::vector<float> jflat(const nlohmann::json& t) { return attnlab::testing::fixture_floats(t); }
template <class T>
T jtensor(const nlohmann::json& t) {
  auto sh = jshape(t);
  T out = T::from_shape(sh);
  auto v = jflat(t);
  EXPECT_EQ(v.size(), out.size());
  std::copy(v.begin(), v.end(), out.data());
  return out;
}
inline void jparam(Param& p, const nlohmann::json& t) {
  auto v = jflat(t);
  ASSERT_EQ(v.size(), p.size());
  std::copy(v.begin(), v.end(), p.data());
}
// max |a - ref| / (1 + |ref|) style error: returns max abs error; EXPECT within atol + rtol|ref|
inline double expect_close(const std::string& name, const float* a, const std::vector<float>& ref,
                           double atol, double rtol) {
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs(double(a[i]) - ref[i]);
    worst = std::max(worst, e);
    if (!(e <= atol + rtol * std::fabs(ref[i])) && bad++ < 3)
      ADD_FAILURE() << name << "[" << i << "]: got " << a[i] << " want " << ref[i];
  }
  return worst;
}
// every registered parameter from the fixture case (the parameter names are its keys)
inline void jparams(const ParamList& pl, const nlohmann::json& c) {
  for (auto& p : pl.items()) jparam(*p.second, c.at(p.first));
}
// the max error of every parameter's grad against the case's "grad.<name>"
inline double param_grads_close(const ParamList& pl, const nlohmann::json& c,
                                const std::string& name, double atol, double rtol) {
  double e = 0;
  for (auto& p : pl.items())
    e = std::max(e, expect_close(name + " grad." + p.first, p.second->gdata(),
                                 jflat(c["grad." + p.first]), atol, rtol));
  return e;
}

}  // namespace attn_test
