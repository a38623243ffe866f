// Feed-forward layers: finite-difference gradient checks (every input and
// parameter), LayerNorm parity with torch (fixture nn_layernorm.json),
// embedding padding semantics, dropout statistics and determinism, errors.
#include <gtest/gtest.h>

#include <cstdio>

#include "attnlab/nn/layers.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using namespace attnlab::testutil;

TEST(NnLayersGrad, Linear) {
  double w = 0;
  for (auto shape : std::vector<std::vector<size_t>>{{1, 3}, {4, 5}, {2, 3, 6}}) {
    Rng rng(shape.size() * 7 + shape.back());
    const size_t in = shape.back(), out = 4;
    Linear lin(in, out, rng);
    ParamList ps;
    lin.collect(ps, "fc.");
    Tensor x = random_tensor(shape, rng);
    std::vector<size_t> os = shape;
    os.back() = out;
    const Tensor R = random_tensor(os, rng);
    auto loss = [&]() { return dot_sum(lin.forward(x), R); };
    ps.zero_grad();
    const Tensor dx = lin.backward(x, R);
    // the input-gradient-only form: the same dx bit for bit, dW and db untouched
    const std::vector<float> gw(lin.weight.gdata(), lin.weight.gdata() + lin.weight.size());
    Tensor dx_in = empty(Shape(x.shape().begin(), x.shape().end()));
    lin.backward_input(x.size() / in, R.data(), dx_in.data());
    for (size_t i = 0; i < dx.size(); ++i) ASSERT_EQ(dx_in.data()[i], dx.data()[i]) << "dx at " << i;
    EXPECT_EQ(std::vector<float>(lin.weight.gdata(), lin.weight.gdata() + lin.weight.size()), gw);
    std::vector<GradTarget> tg{tensor_target("x", x, dx), tensor_target("x (backward_input)", x, dx_in),
                               param_target("W", lin.weight), param_target("b", lin.bias)};
    w = std::max(w, check_grads(loss, tg));
  }
  std::printf("[grad] Linear worst relative error %.3g\n", w);
}

TEST(NnLayers, LinearMatchesNaive) {
  Rng rng(2);
  Linear lin(7, 5, rng);
  const Tensor x = random_tensor({3, 7}, rng);
  const Tensor y = lin.forward(x);
  for (size_t r = 0; r < 3; ++r)
    for (size_t o = 0; o < 5; ++o) {
      double s = lin.bias.value(o);
      for (size_t i = 0; i < 7; ++i) s += static_cast<double>(x(r, i)) * lin.weight.value(o, i);
      EXPECT_NEAR(y(r, o), s, 1e-5);
    }
  EXPECT_THROW(lin.forward(zeros({3, 6})), Error);
}

TEST(NnLayersGrad, EmbeddingWithPadding) {
  Rng rng(4);
  Embedding emb(6, 3, rng, /*padding_idx=*/0);
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(emb.weight.value(0, j), 0.f);  // torch zeroes it
  ParamList ps;
  emb.collect(ps, "emb.");
  const std::vector<int> ids = {1, 0, 3, 3, 5, 0};
  const Tensor R = random_tensor({2, 3, 3}, rng);
  auto loss = [&]() { return dot_sum(emb.forward(ids, {2, 3}), R); };
  ps.zero_grad();
  emb.backward(ids, R);
  // the padding row never gets a gradient; repeated ids accumulate
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(emb.weight.grad(0, j), 0.f);
    EXPECT_NEAR(emb.weight.grad(3, j), R(0, 2, j) + R(1, 0, j), 1e-6);
  }
  // the finite-difference gradient of the padding row is not zero (its rows are
  // used), so check the non-padding rows only, as torch does
  std::vector<GradTarget> tg{{"W[1:]", emb.weight.data() + 3, 15,
                              std::vector<float>(emb.weight.gdata() + 3, emb.weight.gdata() + 18)}};
  std::printf("[grad] Embedding %.3g\n", check_grads(loss, tg));
  // a stored (non-zero) padding row is output as stored, like torch
  emb.weight.value(0, 1) = 2.5f;
  EXPECT_EQ(emb.forward(ids, {6})(1, 1), 2.5f);
  try {
    emb.forward(std::vector<int>{1, 6}, {2});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ids in [0, 6)"), std::string::npos) << e.what();
  }
}

TEST(NnLayersGrad, LayerNorm) {
  double w = 0;
  for (auto shape : std::vector<std::vector<size_t>>{{1, 4}, {3, 8}, {2, 2, 5}}) {
    Rng rng(shape.back());
    LayerNorm ln(shape.back());
    for (size_t i = 0; i < ln.dim; ++i) {
      ln.weight.value(i) = rng.normal(1.f, 0.5f);
      ln.bias.value(i) = rng.normal(0.f, 0.5f);
    }
    ParamList ps;
    ln.collect(ps, "ln.");
    Tensor x = random_tensor(shape, rng, 2.f);
    const Tensor R = random_tensor(shape, rng);
    auto loss = [&]() { return dot_sum(ln.forward(x), R); };
    LayerNorm::Cache c;
    ln.forward(x, &c);
    ps.zero_grad();
    const Tensor dx = ln.backward(x, R, c);
    std::vector<GradTarget> tg{tensor_target("x", x, dx), param_target("w", ln.weight),
                               param_target("b", ln.bias)};
    w = std::max(w, check_grads(loss, tg, 1e-2f, 2e-2));
  }
  std::printf("[grad] LayerNorm worst relative error %.3g\n", w);
}

TEST(NnLayersParity, LayerNormTorch) {
  const json fx = load_fixture("nn_layernorm.json");
  LayerNorm ln(7, fx["eps"].get<float>());
  ln.weight.value = tensor_of(fx["weight"]);
  ln.bias.value = tensor_of(fx["bias"]);
  const Tensor x = tensor_of(fx["x"]);
  LayerNorm::Cache c;
  const Tensor y = ln.forward(x, &c);
  const Tensor dx = ln.backward(x, tensor_of(fx["R"]), c);
  const double ey = max_err(y, fx["y"]);
  const double eg = std::max({max_err(dx, fx["dx"]), max_err(ln.weight.grad, fx["dweight"]),
                              max_err(ln.bias.grad, fx["dbias"])});
  EXPECT_LT(ey, 1e-5);
  EXPECT_LT(eg, 1e-4);
  std::printf("[parity] LayerNorm max err y %.3g grads %.3g\n", ey, eg);
}

TEST(NnLayersGrad, Activations) {
  for (Act a : {Act::ReLU, Act::Tanh, Act::Sigmoid, Act::GELU, Act::Identity}) {
    Rng rng(static_cast<uint64_t>(a) + 1);
    Tensor x = random_tensor({3, 7}, rng, 1.5f);
    // keep relu inputs away from the kink so central differences are valid
    for (size_t i = 0; i < x.size(); ++i)
      if (std::fabs(x.data()[i]) < 0.05f) x.data()[i] = 0.3f;
    const Tensor R = random_tensor({3, 7}, rng);
    auto loss = [&]() { return dot_sum(Activation::forward(a, x), R); };
    const Tensor y = Activation::forward(a, x);
    const Tensor dx = Activation::backward(a, x, y, R);
    std::vector<GradTarget> tg{tensor_target(act_name(a), x, dx)};
    const double e = check_grads(loss, tg, 1e-3f);
    std::printf("[grad] %s %.3g\n", act_name(a), e);
  }
  EXPECT_EQ(act_from_string("gelu"), Act::GELU);
  EXPECT_THROW(act_from_string("swish"), Error);
}

TEST(NnLayers, Dropout) {
  Dropout d(0.25f);
  Rng r1(5), r2(5);
  const Tensor x = xt::ones<float>(std::vector<size_t>{100, 100});
  Tensor m1, m2;
  const Tensor y1 = d.forward(x, r1, true, &m1);
  const Tensor y2 = d.forward(x, r2, true, &m2);
  size_t zeros_n = 0;
  double mean = 0;
  for (size_t i = 0; i < y1.size(); ++i) {
    EXPECT_EQ(y1.data()[i], y2.data()[i]);  // same seed, same mask
    zeros_n += y1.data()[i] == 0.f;
    mean += y1.data()[i];
    EXPECT_TRUE(y1.data()[i] == 0.f || std::fabs(y1.data()[i] - 1.f / 0.75f) < 1e-6);
  }
  EXPECT_NEAR(zeros_n / 10000.0, 0.25, 0.02);
  EXPECT_NEAR(mean / 10000.0, 1.0, 0.03);  // inverted scaling keeps the mean
  // eval: identity, no mask
  Tensor m3;
  const Tensor y3 = d.forward(x, r1, false, &m3);
  EXPECT_TRUE(is_empty(m3));
  EXPECT_EQ(y3(3, 3), 1.f);
  // backward applies the same mask
  const Tensor dx = d.backward(x, m1);
  for (size_t i = 0; i < dx.size(); ++i) EXPECT_EQ(dx.data()[i], m1.data()[i]);
  EXPECT_THROW(Dropout(1.f), Error);
}

TEST(NnLayersGrad, Dropout) {
  Rng rng(21);
  Dropout d(0.4f);
  Tensor x = random_tensor({5, 6}, rng);
  const Tensor R = random_tensor({5, 6}, rng);
  auto loss = [&]() {
    Rng dr(3);  // the same mask every evaluation
    return dot_sum(d.forward(x, dr, true, nullptr), R);
  };
  Rng dr(3);
  Tensor mask;
  d.forward(x, dr, true, &mask);
  const Tensor dx = d.backward(R, mask);
  std::vector<GradTarget> tg{tensor_target("x", x, dx)};
  std::printf("[grad] Dropout %.3g\n", check_grads(loss, tg));
}

TEST(NnLayersGrad, MLP) {
  double w = 0;
  for (Act a : {Act::Tanh, Act::GELU}) {
    Rng rng(8);
    MLP mlp({5, 8, 6, 3}, a, rng, 0.2f);
    ParamList ps;
    mlp.collect(ps, "mlp.");
    EXPECT_NO_THROW(ps.get("mlp.3.weight"));  // nn.Sequential numbering with dropout
    Tensor x = random_tensor({4, 5}, rng);
    const Tensor R = random_tensor({4, 3}, rng);
    // fixed dropout mask: replay the same Rng state in every evaluation
    auto loss = [&]() {
      Rng dr(77);
      return dot_sum(mlp.forward(x, nullptr, &dr, true), R);
    };
    MLP::Cache c;
    Rng dr(77);
    mlp.forward(x, &c, &dr, true);
    ps.zero_grad();
    const Tensor dx = mlp.backward(R, c);
    std::vector<GradTarget> tg{tensor_target("x", x, dx)};
    for (auto& it : ps.items()) tg.push_back(param_target(it.first, *it.second));
    w = std::max(w, check_grads(loss, tg, 1e-2f));
  }
  std::printf("[grad] MLP worst relative error %.3g\n", w);
}
