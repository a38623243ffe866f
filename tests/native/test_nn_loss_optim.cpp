// Losses and optimizers: cross-entropy (ignore index, label smoothing), MSE,
// BCE-with-logits against torch (nn_loss.json) plus gradient checks;
// SGD/Adam/AdamW three steps against torch.optim (nn_optim.json); clipping;
// LR schedules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/nn/loss.hpp"
#include "attnlab/nn/optim.hpp"
#include "nn_test_util.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using namespace attnlab::testutil;

TEST(NnLossParity, CrossEntropyTorch) {
  const json fx = load_fixture("nn_loss.json");
  double el = 0, eg = 0;
  for (const json& c : fx["ce"]) {
    const Tensor logits = tensor_of(c["logits"]);
    const std::vector<int> tg = c["targets"].get<std::vector<int>>();
    Tensor d;
    size_t cnt = 0;
    const float loss = cross_entropy(logits, tg, &d, c["ignore_index"].get<int>(),
                                     c["label_smoothing"].get<float>(), &cnt);
    size_t want = 0;
    for (int v : tg) want += v != c["ignore_index"].get<int>();
    EXPECT_EQ(cnt, want);
    EXPECT_LT(want, tg.size());  // every case ignores some rows
    el = std::max(el, std::fabs(static_cast<double>(loss) - c["loss"].get<double>()));
    eg = std::max(eg, max_err(d, c["dlogits"]));
  }
  EXPECT_LT(el, 1e-5);
  EXPECT_LT(eg, 1e-6);
  std::printf("[parity] cross_entropy max err loss %.3g grad %.3g\n", el, eg);

  const Tensor p = tensor_of(fx["mse"]["pred"]), t = tensor_of(fx["mse"]["target"]);
  Tensor dp;
  EXPECT_NEAR(mse(p, t, &dp), fx["mse"]["loss"].get<double>(), 1e-5);
  EXPECT_LT(max_err(dp, fx["mse"]["dpred"]), 1e-6);
  const Tensor z = tensor_of(fx["bce"]["logits"]), y = tensor_of(fx["bce"]["target"]);
  Tensor dz;
  EXPECT_NEAR(bce_with_logits(z, y, &dz), fx["bce"]["loss"].get<double>(), 1e-5);
  EXPECT_LT(max_err(dz, fx["bce"]["dlogits"]), 1e-6);
}

TEST(NnLossGrad, CrossEntropyAndFriends) {
  Rng rng(12);
  Tensor logits = random_tensor({5, 4}, rng, 2.f);
  const std::vector<int> tg = {1, 3, 3, 0, 2};
  for (float ls : {0.f, 0.15f}) {
    auto loss = [&]() { return static_cast<double>(cross_entropy(logits, tg, nullptr, 3, ls)); };
    Tensor d;
    cross_entropy(logits, tg, &d, 3, ls);
    for (size_t c = 0; c < 4; ++c) EXPECT_EQ(d(1, c), 0.f);  // ignored rows get no gradient
    std::vector<GradTarget> t{tensor_target("logits", logits, d)};
    std::printf("[grad] cross_entropy ls=%.2f %.3g\n", ls, check_grads(loss, t, 1e-2f));
  }
  Tensor z = random_tensor({3, 3}, rng, 3.f);
  Tensor y = random_tensor({3, 3}, rng);
  for (size_t i = 0; i < y.size(); ++i) y.data()[i] = y.data()[i] > 0 ? 1.f : 0.f;
  Tensor dz;
  bce_with_logits(z, y, &dz);
  std::vector<GradTarget> t{tensor_target("bce", z, dz)};
  check_grads([&]() { return static_cast<double>(bce_with_logits(z, y, nullptr)); }, t, 1e-2f);
  // stable at extreme logits
  Tensor big = zeros({2});
  big(0) = 200.f;
  big(1) = -200.f;
  Tensor yy = zeros({2});
  yy(1) = 1.f;
  EXPECT_NEAR(bce_with_logits(big, yy, nullptr), 200.f, 1e-3);
  // all rows ignored: zero loss, zero grad (torch gives NaN)
  Tensor d;
  EXPECT_EQ(cross_entropy(logits, {3, 3, 3, 3, 3}, &d, 3), 0.f);
  EXPECT_EQ(d(0, 0), 0.f);
  try {
    cross_entropy(logits, {1, 2, 7, 0, 0}, nullptr);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("got 7 at row 2"), std::string::npos) << e.what();
  }
}

// Token-level distillation's target: q = (1-lam) ((1-eps) onehot + eps/C) + lam teacher.
TEST(NnLossGrad, CrossEntropyWithATeacher) {
  Rng rng(31);
  const size_t N = 5, C = 4;
  Tensor logits = random_tensor({N, C}, rng, 2.f);
  const std::vector<int> tg = {1, 3, 3, 0, 2};  // ignore_index 3: rows 1 and 2
  // teacher rows: softmax of random numbers
  std::vector<float> q(N * C);
  for (size_t i = 0; i < N; ++i) {
    double s = 0;
    for (size_t c = 0; c < C; ++c) s += q[i * C + c] = std::exp(2.f * rng.uniform(-1.f, 1.f));
    for (size_t c = 0; c < C; ++c) q[i * C + c] = float(q[i * C + c] / s);
  }
  auto ce = [&](float ls, float lam, float* d) {
    return cross_entropy(N, C, logits.data(), tg.data(), d, 3, ls, nullptr, q.data(), lam);
  };
  // lam = 0 is the plain loss, bit for bit; lam = 1 without smoothing is -sum q log p, computed here
  for (float ls : {0.f, 0.15f}) EXPECT_EQ(ce(ls, 0.f, nullptr), cross_entropy(logits, tg, nullptr, 3, ls));
  double want = 0;
  for (size_t i : {size_t(0), size_t(3), size_t(4)}) {
    double m = -1e30, z = 0;
    for (size_t c = 0; c < C; ++c) m = std::max(m, double(logits(i, c)));
    for (size_t c = 0; c < C; ++c) z += std::exp(double(logits(i, c)) - m);
    for (size_t c = 0; c < C; ++c) want -= q[i * C + c] * (double(logits(i, c)) - m - std::log(z));
  }
  EXPECT_NEAR(ce(0.f, 1.f, nullptr), want / 3, 1e-5);
  // linear in lam
  for (float ls : {0.f, 0.15f})
    EXPECT_NEAR(ce(ls, 0.3f, nullptr), 0.7 * ce(ls, 0.f, nullptr) + 0.3 * ce(ls, 1.f, nullptr), 1e-5);
  // the gradient, by finite differences; ignored rows get none
  for (float ls : {0.f, 0.15f})
    for (float lam : {0.3f, 1.f}) {
      Tensor d = zeros({N, C});
      ce(ls, lam, d.data());
      for (size_t c = 0; c < C; ++c) EXPECT_EQ(d(2, c), 0.f);
      std::vector<GradTarget> t{tensor_target("logits", logits, d)};
      std::printf("[grad] cross_entropy teacher ls=%.2f lam=%.1f %.3g\n", ls, lam,
                  check_grads([&]() { return static_cast<double>(ce(ls, lam, nullptr)); }, t, 1e-2f));
    }
  // a teacher row that is not a distribution, or a weight outside [0, 1]: an error, and the
  // gradient buffer untouched, repeatedly
  std::vector<float> d(N * C, 7.f);
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<float> bad = q;
    bad[4 * C + 1] += 0.5f;  // row 4 sums to 1.5
    try {
      cross_entropy(N, C, logits.data(), tg.data(), d.data(), 3, 0.f, nullptr, bad.data(), 0.5f);
      ADD_FAILURE() << "a row summing to 1.5 was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("teacher row 4 sums to 1.5"), std::string::npos) << e.what();
    }
    bad = q;
    bad[0] = -0.25f;
    bad[1] += 0.25f;
    EXPECT_THROW(cross_entropy(N, C, logits.data(), tg.data(), d.data(), 3, 0.f, nullptr, bad.data(), 0.5f), Error);
    bad = q;
    bad[1 * C] = 5.f;  // an ignored row is not read
    EXPECT_NO_THROW(cross_entropy(N, C, logits.data(), tg.data(), nullptr, 3, 0.f, nullptr, bad.data(), 0.5f));
    EXPECT_THROW(ce(0.f, 1.5f, d.data()), Error);
    EXPECT_THROW(ce(0.f, -0.1f, d.data()), Error);
  }
  EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](float v) { return v == 7.f; }));
}

namespace {
void optim_parity(const std::string& which, double& worst) {
  const json fx = load_fixture("nn_optim.json")[which];
  Param a, b;
  a.value = tensor_of(fx["init"]["a"]);
  a.grad = zeros({3, 4});
  b.value = tensor_of(fx["init"]["b"]);
  b.grad = zeros({5});
  ParamList ps;
  ps.add("a", a);
  ps.add("b", b);
  std::unique_ptr<Optimizer> opt;
  // hyper-parameters as in scripts/fixtures_nn.py
  if (which == "adam") opt = std::make_unique<Adam>(ps, 0.01f, 0.9f, 0.99f, 1e-8f, 0.05f);
  if (which == "adamw") opt = std::make_unique<AdamW>(ps, 0.01f, 0.8f, 0.95f, 1e-6f, 0.1f);
  if (which == "sgd") opt = std::make_unique<SGD>(ps, 0.05f, 0.9f, 0.01f, true);
  for (size_t s = 0; s < 3; ++s) {
    a.grad = tensor_of(fx["grads"][s]["a"]);
    b.grad = tensor_of(fx["grads"][s]["b"]);
    opt->step();
    const double e = std::max(max_err(a.value, fx["after"][s]["a"]),
                              max_err(b.value, fx["after"][s]["b"]));
    EXPECT_LT(e, 2e-6) << which << " step " << s;
    worst = std::max(worst, e);
  }
  EXPECT_EQ(opt->steps, 3);
}
}  // namespace

TEST(NnOptimParity, AdamAdamWSgdTorch) {
  double wa = 0, ww = 0, ws = 0;
  optim_parity("adam", wa);
  optim_parity("adamw", ww);
  optim_parity("sgd", ws);
  std::printf("[parity] Adam max err %.3g, AdamW %.3g, SGD(nesterov) %.3g over 3 steps\n", wa, ww,
              ws);
}

TEST(NnOptim, StateIsNamedAndComplete) {
  Param a({2, 2}), b({3});
  ParamList ps;
  ps.add("enc.w", a);
  ps.add("enc.b", b);
  Adam adam(ps);
  auto st = adam.state();
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].first, "enc.w.exp_avg");
  EXPECT_EQ(st[3].first, "enc.b.exp_avg_sq");
  SGD plain(ps, 0.1f);
  EXPECT_TRUE(plain.state().empty());
  SGD mom(ps, 0.1f, 0.9f);
  EXPECT_EQ(mom.state().size(), 2u);
}

TEST(NnOptim, ClipGradNorm) {
  Param a({2}), b({1});
  a.grad(0) = 3.f;
  a.grad(1) = 0.f;
  b.grad(0) = 4.f;
  ParamList ps;
  ps.add("a", a);
  ps.add("b", b);
  EXPECT_NEAR(clip_grad_norm(ps, 10.f), 5.f, 1e-6);  // below the bound: unchanged
  EXPECT_EQ(a.grad(0), 3.f);
  EXPECT_NEAR(clip_grad_norm(ps, 1.f), 5.f, 1e-6);
  EXPECT_NEAR(a.grad(0), 0.6f, 1e-5);
  EXPECT_NEAR(b.grad(0), 0.8f, 1e-5);
}

TEST(NnOptim, Schedules) {
  LrSchedule s;
  s.base_lr = 1.f;
  s.warmup = 4;
  s.total = 14;
  s.decay = LrSchedule::Decay::Cosine;
  EXPECT_FLOAT_EQ(s.lr_at(0), 0.25f);
  EXPECT_FLOAT_EQ(s.lr_at(3), 1.f);
  EXPECT_FLOAT_EQ(s.lr_at(4), 1.f);
  EXPECT_NEAR(s.lr_at(9), 0.5f, 1e-6);  // half way through the cosine
  EXPECT_NEAR(s.lr_at(14), 0.f, 1e-6);
  EXPECT_NEAR(s.lr_at(100), 0.f, 1e-6);
  s.decay = LrSchedule::Decay::Linear;
  s.min_lr = 0.1f;
  EXPECT_NEAR(s.lr_at(9), 0.55f, 1e-6);
  s.decay = LrSchedule::Decay::Step;
  s.step_size = 3;
  s.gamma = 0.5f;
  EXPECT_FLOAT_EQ(s.lr_at(6), 1.f);  // 2 steps after warm-up
  EXPECT_FLOAT_EQ(s.lr_at(7), 0.5f);
  EXPECT_FLOAT_EQ(s.lr_at(10), 0.25f);
  EXPECT_EQ(decay_from_string("cosine"), LrSchedule::Decay::Cosine);
  EXPECT_THROW(decay_from_string("exp"), Error);
}
