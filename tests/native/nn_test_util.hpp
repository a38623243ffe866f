// Shared helpers for the nn/io/train tests: fixture loading and
// finite-difference gradient checks (double-sided, relative error on the
// whole gradient of loss = sum(out * R)).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_util.hpp"
#include "attnlab/core/param.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/nn/tensor.hpp"

namespace attnlab::testutil {

using nn::Tensor;
using json = nlohmann::json;

using attnlab::testing::load_fixture;

inline Tensor tensor_of(const json& j) {
  std::vector<size_t> shape = j["shape"].get<std::vector<size_t>>();
  std::vector<float> data = attnlab::testing::fixture_floats(j);
  Tensor t = nn::empty(shape);
  EXPECT_EQ(t.size(), data.size());
  std::copy(data.begin(), data.end(), t.data());
  return t;
}

// max |a - b| over a tensor and a fixture tensor (checks the element count)
inline double max_err(const Tensor& a, const json& j) {
  const std::vector<float> d = attnlab::testing::fixture_floats(j);
  EXPECT_EQ(a.size(), d.size());
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), d.size()); ++i)
    m = std::max(m, static_cast<double>(std::fabs(a.data()[i] - d[i])));
  return m;
}

inline Tensor random_tensor(const std::vector<size_t>& shape, Rng& rng, float scale = 1.f) {
  Tensor t = nn::empty(shape);
  for (size_t i = 0; i < t.size(); ++i) t.data()[i] = rng.normal(0.f, scale);
  return t;
}

inline double dot_sum(const Tensor& a, const Tensor& r) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a.data()[i]) * r.data()[i];
  return s;
}

struct GradTarget {
  std::string name;
  float* x;       // the value to perturb
  size_t n;
  std::vector<float> analytic;  // gradient computed by backward
};

// Compares analytic and central-difference gradients of loss() for each
// target (at most max_per entries each, chosen at random). Fails the test if
// the relative error ||a - num|| / max(||a||, ||num||) exceeds tol. Returns the
// worst relative error seen.
inline double check_grads(const std::function<double()>& loss, std::vector<GradTarget>& targets,
                          float eps = 1e-2f, double tol = 1e-2, size_t max_per = 40,
                          uint64_t seed = 99) {
  Rng rng(seed);
  double worst = 0;
  for (auto& t : targets) {
    EXPECT_EQ(t.analytic.size(), t.n) << t.name;
    std::vector<size_t> idx(t.n);
    for (size_t i = 0; i < t.n; ++i) idx[i] = i;
    if (t.n > max_per) {
      rng.shuffle(idx);
      idx.resize(max_per);
    }
    double dd = 0, aa = 0, nn2 = 0;
    for (size_t i : idx) {
      const float v = t.x[i];
      t.x[i] = v + eps;
      const double lp = loss();
      t.x[i] = v - eps;
      const double lm = loss();
      t.x[i] = v;
      const double num = (lp - lm) / (2.0 * eps);
      const double a = t.analytic[i];
      dd += (a - num) * (a - num);
      aa += a * a;
      nn2 += num * num;
    }
    const double denom = std::max(std::sqrt(std::max(aa, nn2)), 1e-6);
    const double rel = std::sqrt(dd) / denom;
    worst = std::max(worst, rel);
    EXPECT_LT(rel, tol) << "gradient of " << t.name << ": |analytic|=" << std::sqrt(aa)
                        << " |numeric|=" << std::sqrt(nn2);
  }
  return worst;
}

inline GradTarget param_target(const std::string& name, Param& p) {
  return {name, p.data(), p.size(), std::vector<float>(p.grad.data(), p.grad.data() + p.size())};
}
inline GradTarget tensor_target(const std::string& name, Tensor& x, const Tensor& g) {
  EXPECT_EQ(x.size(), g.size()) << name;
  return {name, x.data(), x.size(), std::vector<float>(g.data(), g.data() + g.size())};
}

}  // namespace attnlab::testutil
