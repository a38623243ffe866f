// DIN local activation unit: a plain-loop reference forward, finite-difference
// gradients (normalized and not, with padding and an empty history), the
// paper's "intensity" semantics, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "attention_test_util.hpp"
#include "attnlab/attention/din.hpp"

using namespace attn_test;

static ::testing::Environment* const kSummary =
    ::testing::AddGlobalTestEnvironment(new GradSummary);

namespace {

// The whole forward in double, written from the formula in din.hpp.
void reference(const ActivationUnit& u, const Tensor3& e, const Tensor2& v,
               const std::vector<size_t>& len, std::vector<double>& out, std::vector<double>& w) {
  const size_t B = e.shape(0), T = e.shape(1), D = e.shape(2), H = u.hidden();
  out.assign(B * D, 0.0);
  w.assign(B * T, 0.0);
  for (size_t b = 0; b < B; ++b) {
    const size_t L = len.empty() ? T : len[b];
    std::vector<double> s(T, 0.0);
    for (size_t t = 0; t < L; ++t) {
      std::vector<double> z(4 * D);
      for (size_t d = 0; d < D; ++d) {
        const double x = e(b, t, d), y = v(b, d);
        z[d] = x, z[D + d] = y, z[2 * D + d] = x - y, z[3 * D + d] = x * y;
      }
      double score = u.fc2_bias.value(0);
      for (size_t h = 0; h < H; ++h) {
        double a = u.fc1_bias.value(h);
        for (size_t i = 0; i < 4 * D; ++i) a += double(u.fc1_weight.value(h, i)) * z[i];
        if (a <= 0) a *= u.alpha.value(h);
        score += double(u.fc2_weight.value(0, h)) * a;
      }
      s[t] = score;
    }
    if (u.normalize() && L > 0) {
      double mx = s[0], sum = 0;
      for (size_t t = 1; t < L; ++t) mx = std::max(mx, s[t]);
      for (size_t t = 0; t < L; ++t) sum += std::exp(s[t] - mx);
      for (size_t t = 0; t < L; ++t) s[t] = std::exp(s[t] - mx) / sum;
    }
    for (size_t t = 0; t < L; ++t) {
      w[b * T + t] = s[t];
      for (size_t d = 0; d < D; ++d) out[b * D + d] += s[t] * e(b, t, d);
    }
  }
}

struct Case {
  size_t B, T, D, H;
  std::vector<size_t> len;
};
const Case kCases[] = {{2, 4, 3, 5, {4, 2}}, {1, 1, 2, 3, {}}, {3, 5, 4, 2, {1, 5, 0}},
                       {2, 9, 8, 7, {9, 3}}};

}  // namespace

TEST(ActivationUnit, MatchesPlainLoopReference) {
  for (bool norm : {false, true})
    for (const Case& c : kCases) {
      Rng rng(7 + c.T + norm);
      ActivationUnit u(c.D, c.H, rng, norm);
      ParamList pl;
      u.collect(pl, "");
      randomize(pl, rng);
      const Tensor3 e = randn3(c.B, c.T, c.D, rng);
      const Tensor2 v = randn2(c.B, c.D, rng);
      const ActivationUnitResult r = u.forward(e, v, c.len);
      std::vector<double> out, w;
      reference(u, e, v, c.len, out, w);
      for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(r.out.data()[i], out[i], 1e-4 * (1 + std::fabs(out[i])));
      for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(r.weights.data()[i], w[i], 1e-4 * (1 + std::fabs(w[i])));
      for (size_t b = 0; b < c.B; ++b) {
        const size_t L = c.len.empty() ? c.T : c.len[b];
        double sum = 0;
        for (size_t t = 0; t < c.T; ++t) {
          if (t >= L) {
            EXPECT_EQ(r.weights(b, t), 0.f) << "padding must get weight 0";
          }
          sum += r.weights(b, t);
        }
        if (norm && L > 0) {
          EXPECT_NEAR(sum, 1.0, 1e-5);
        }
        if (L == 0) {
          for (size_t d = 0; d < c.D; ++d) EXPECT_EQ(r.out(b, d), 0.f);
        }
      }
    }
}

TEST(ActivationUnit, GradientsEveryInputAndParameter) {
  for (bool norm : {false, true})
    for (const Case& c : kCases) {
      Rng rng(101 + c.T * 3 + norm);
      ActivationUnit u(c.D, c.H, rng, norm);
      ParamList pl;
      u.collect(pl, "");
      randomize(pl, rng);
      Tensor3 e = randn3(c.B, c.T, c.D, rng);
      Tensor2 v = randn2(c.B, c.D, rng);
      const Tensor2 R = randn2(c.B, c.D, rng), RW = randn2(c.B, c.T, rng);
      auto loss = [&] {
        const ActivationUnitResult r = u.forward(e, v, c.len);
        return dotd(r.out, R) + dotd(r.weights, RW);
      };
      ActivationUnit::Cache cache;
      u.forward(e, v, c.len, &cache);
      pl.zero_grad();
      Tensor3 de;
      Tensor2 dv;
      u.backward(R, cache, de, dv, &RW);
      const std::string tag = std::string(norm ? "din-softmax" : "din") + " B" +
                              std::to_string(c.B) + "T" + std::to_string(c.T);
      check_grad(tag + " de", e.data(), de.data(), e.size(), loss, 1e-3f, 2e-2);
      check_grad(tag + " dv", v.data(), dv.data(), v.size(), loss, 1e-3f, 2e-2);
      for (auto& it : pl.items()) {
        if (norm && it.first == "fc2.bias") {
          // softmax is shift-invariant: the bias has no effect, its gradient is 0
          // (finite differences would only measure float rounding)
          EXPECT_NEAR(it.second->grad(0), 0.f, 1e-5f) << tag;
          continue;
        }
        check_grad(tag + " d" + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                   loss, 1e-3f, 2e-2);
      }
    }
}

// The paper keeps the weights unnormalized so the output carries how MUCH of the
// history is relevant: showing every behaviour twice doubles the output; with
// normalize = true it leaves the output unchanged.
TEST(ActivationUnit, UnnormalizedWeightsKeepIntensity) {
  for (bool norm : {false, true}) {
    Rng rng(5);
    ActivationUnit u(4, 6, rng, norm);
    const Tensor3 e = randn3(2, 3, 4, rng);
    const Tensor2 v = randn2(2, 4, rng);
    Tensor3 e2 = Tensor3::from_shape({2, 6, 4});
    for (size_t b = 0; b < 2; ++b)
      for (size_t t = 0; t < 6; ++t)
        for (size_t d = 0; d < 4; ++d) e2(b, t, d) = e(b, t % 3, d);
    const Tensor2 o1 = u.forward(e, v).out, o2 = u.forward(e2, v).out;
    for (size_t i = 0; i < o1.size(); ++i)
      EXPECT_NEAR(o2.data()[i], (norm ? 1.f : 2.f) * o1.data()[i], 1e-4f * (1 + std::fabs(o1.data()[i])));
  }
}

TEST(ActivationUnit, BadInputIsAClearError) {
  Rng rng(3);
  ActivationUnit u(4, 5, rng);
  const Tensor3 e = randn3(2, 3, 4, rng);
  const Tensor2 v = randn2(2, 4, rng);
  auto expect_error = [](auto&& f, const std::string& part) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
    } catch (const attnlab::Error& ex) {
      EXPECT_NE(std::string(ex.what()).find(part), std::string::npos) << ex.what();
    }
  };
  expect_error([&] { u.forward(randn3(2, 3, 5, rng), v); }, "expected behaviours (B,T,4)");
  expect_error([&] { u.forward(e, randn2(3, 4, rng)); }, "expected candidate (2,4)");
  expect_error([&] { u.forward(Tensor3::from_shape({2, 0, 4}), v); }, "T = 0");
  expect_error([&] { u.forward(e, v, {1}); }, "lengths must have 2 entries");
  expect_error([&] { u.forward(e, v, {1, 4}); }, "lengths[1] = 4 exceeds T = 3");
  Tensor3 bad = e;
  bad(1, 2, 3) = std::nanf("");
  expect_error([&] { u.forward(bad, v); }, "behaviours");
  Tensor2 badv = v;
  badv(0, 0) = INFINITY;
  expect_error([&] { u.forward(e, badv); }, "candidate");
  expect_error([&] { ActivationUnit(0, 3, rng); }, "must be > 0");
  // a failed call leaves the unit usable
  EXPECT_EQ(u.forward(e, v).out.shape(1), 4u);
}
