// DIN local activation unit: a plain-loop reference forward, finite-difference
// gradients (normalized and not, with padding and an empty history), the
// paper's "intensity" semantics, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "attention_test_util.hpp"
#include "attnlab/attention/din.hpp"
#include "error_test_util.hpp"

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
  using attnlab::testing::expect_error_with;
  expect_error_with([&] { u.forward(randn3(2, 3, 5, rng), v); }, "expected behaviours (B,T,4)");
  expect_error_with([&] { u.forward(e, randn2(3, 4, rng)); }, "expected candidate (2,4)");
  expect_error_with([&] { u.forward(Tensor3::from_shape({2, 0, 4}), v); }, "T = 0");
  expect_error_with([&] { u.forward(e, v, {1}); }, "lengths must have 2 entries");
  expect_error_with([&] { u.forward(e, v, {1, 4}); }, "lengths[1] = 4 exceeds T = 3");
  Tensor3 bad = e;
  bad(1, 2, 3) = std::nanf("");
  expect_error_with([&] { u.forward(bad, v); }, "behaviours");
  Tensor2 badv = v;
  badv(0, 0) = INFINITY;
  expect_error_with([&] { u.forward(e, badv); }, "candidate");
  expect_error_with([&] { ActivationUnit(0, 3, rng); }, "must be > 0");
  // a failed call leaves the unit usable
  EXPECT_EQ(u.forward(e, v).out.shape(1), 4u);
}

// ---------------------------------------------------------------- the DIN model
#include "attnlab/data/behavior_synthetic.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/ctr_synthetic.hpp"
#include "attnlab/models/din.hpp"
#include "attnlab/models/recsys_fit.hpp"
#include "model_test_util.hpp"

using models::din_batch;

TEST(BehaviorData, SeededAndAsDocumented) {
  data::BehaviorOptions o;
  const data::BehaviorData a = data::make_behavior_data(3000, o, 5), b = data::make_behavior_data(3000, o, 5);
  EXPECT_EQ(a.hist_items, b.hist_items);
  EXPECT_EQ(a.label, b.label);
  EXPECT_NE(data::make_behavior_data(3000, o, 6).hist_items, a.hist_items);
  size_t clicks = 0;
  double click_rate_many = 0, click_rate_none = 0, many = 0, none = 0;
  for (size_t s = 0; s < a.n; ++s) {
    ASSERT_GE(a.hist_len[s], o.min_len);
    ASSERT_LE(a.hist_len[s], o.max_len);
    int same = 0;
    for (size_t t = 0; t < a.hist_len[s]; ++t) {
      ASSERT_EQ(a.hist_cats[s * a.T + t], a.item_category[size_t(a.hist_items[s * a.T + t])]);
      same += a.hist_cats[s * a.T + t] == a.cand_cat[s];
    }
    ASSERT_EQ(same, a.n_same[s]);
    ASSERT_EQ(a.cand_cat[s], a.item_category[size_t(a.cand_item[s])]);
    clicks += size_t(a.label[s]);
    if (same >= 5) click_rate_many += a.label[s], ++many;
    if (same == 0) click_rate_none += a.label[s], ++none;
  }
  // both classes occur, and the click rate follows the count of relevant behaviours
  EXPECT_GT(clicks, a.n / 5);
  EXPECT_LT(clicks, a.n * 4 / 5);
  ASSERT_GT(many, 50);
  ASSERT_GT(none, 50);
  EXPECT_GT(click_rate_many / many, 0.9);
  EXPECT_LT(click_rate_none / none, 0.1);
  data::BehaviorOptions bad = o;
  bad.interests = o.categories + 1;
  EXPECT_THROW(data::make_behavior_data(10, bad, 1), attnlab::Error);
}

TEST(DINModel, GradientsBothPoolings) {
  for (bool att : {true, false}) {
    // the model list's tiny DIN with more items and categories
    models::DINConfig cfg = attnlab::testing::tiny_din_config();
    cfg.items = 30;
    cfg.categories = 5;
    cfg.att_hidden = 4;
    cfg.attention = att;
    models::DIN m(cfg, 3);
    data::BehaviorOptions o;
    o.items = 30;
    o.categories = 5;
    o.min_len = 0;
    o.max_len = 4;
    const data::BehaviorData d = data::make_behavior_data(5, o, 2);
    const models::DINBatch bt = din_batch(d, 0, 5);
    // the mean binary cross-entropy, summed in double here: nn::bce_with_logits returns a
    // float, too coarse for central differences at eps 1e-3 (kinks of ReLU/PReLU rule out
    // a larger eps)
    auto loss = [&] {
      const models::DINOutput out = m.forward(bt);
      double s = 0;
      for (size_t b = 0; b < bt.B; ++b) {
        const double x = out.logits[b], y = d.label[b];
        s += std::max(x, 0.0) - x * y + std::log1p(std::exp(-std::fabs(x)));
      }
      return s / double(bt.B);
    };
    m.params().zero_grad();
    m.loss_and_grad(bt, std::vector<int>(d.label.begin(), d.label.begin() + 5));
    for (auto& it : m.params().items())
      check_grad(std::string(att ? "din-model " : "base-model ") + it.first, it.second->data(),
                 it.second->gdata(), it.second->size(), loss, 1e-3f, 2e-2);
  }
}

TEST(DINModel, BadInputIsAClearError) {
  models::DIN m(models::DINConfig{}, 1);
  const data::BehaviorData d = data::make_behavior_data(4, data::BehaviorOptions{}, 1);
  models::DINBatch bt = din_batch(d, 0, 4);
  bt.hist_items[1] = 600;  // items = 600
  try {
    m.forward(bt);
    ADD_FAILURE() << "no error for an item id out of range";
  } catch (const attnlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("history item id 600 at 1 is outside [0, 600)"),
              std::string::npos)
        << e.what();
  }
  bt = din_batch(d, 0, 4);
  bt.hist_len[2] = bt.T + 1;
  EXPECT_THROW(m.forward(bt), attnlab::Error);
  bt = din_batch(d, 0, 4);
  bt.cand_cat.pop_back();
  EXPECT_THROW(m.forward(bt), attnlab::Error);
  EXPECT_THROW(m.loss_and_grad(din_batch(d, 0, 4), {0, 1, 2, 0}), attnlab::Error);
  models::DINConfig bad;
  bad.goods_dim = 0;
  EXPECT_THROW(models::DIN(bad, 1), attnlab::Error);
  EXPECT_EQ(m.forward(din_batch(d, 0, 4)).probs.size(), 4u);  // still usable
}

// A short training on the synthetic click data: DIN beats an untrained model and
// the paper's Base model (sum pooling) on fresh samples, and its activation unit
// singles out the behaviours of the candidate's category. The paper's DIN keeps
// the weights unnormalized, so they carry a sign that the MLP reads together with
// the candidate embedding: we compare magnitudes there, and the weights
// themselves for the softmax-normalized variant.
TEST(DINModel, LearnsTheCountOfRelevantBehaviours) {
  data::BehaviorOptions o;
  const data::BehaviorData train = data::make_behavior_data(12000, o, 1);
  const data::BehaviorData test = data::make_behavior_data(3000, o, 2);
  const char* names[3] = {"base (sum pooling)", "DIN", "DIN, softmax weights"};
  double auc[3] = {0, 0, 0}, auc_untrained = 0;
  for (int kind = 0; kind < 3; ++kind) {
    models::DINConfig cfg;
    cfg.attention = kind > 0;
    cfg.normalize = kind == 2;
    models::DIN m(cfg, 7);
    if (kind == 1) auc_untrained = eval::roc_auc(test.label, models::din_predict(m, test));
    const auto hist = models::fit_din(m, train, test, {});
    ASSERT_EQ(hist.size(), 6u);
    EXPECT_LT(hist.back().loss, hist.front().loss) << names[kind];
    auc[kind] = hist.back().test_auc;
    if (kind == 0) continue;
    // per history with both kinds of behaviour: mean weight (magnitude for DIN) of the
    // candidate's category against the others
    const models::DINOutput out = m.forward(din_batch(test, 0, 1000));
    size_t rows = 0, higher = 0;
    double same = 0, other = 0;
    for (size_t s = 0; s < 1000; ++s) {
      double ss = 0, so = 0;
      size_t ns = 0, no = 0;
      for (size_t t = 0; t < test.hist_len[s]; ++t) {
        const double w = kind == 1 ? std::fabs(out.weights(s, t)) : out.weights(s, t);
        if (test.hist_cats[s * test.T + t] == test.cand_cat[s]) {
          ss += w, ++ns;
        } else {
          so += w, ++no;
        }
      }
      if (!ns || !no) continue;
      ++rows;
      higher += ss / double(ns) > so / double(no);
      same += ss / double(ns);
      other += so / double(no);
    }
    std::printf("[din] %s: mean %sweight%s on the candidate's category %.3f vs %.3f on others; "
                "higher in %zu of %zu histories\n",
                names[kind], kind == 1 ? "|" : "", kind == 1 ? "|" : "", same / double(rows), other / double(rows),
                higher, rows);
    EXPECT_GT(higher, rows * 4 / 5) << names[kind];
  }
  std::printf("[din] test AUC: untrained %.3f, %s %.3f, %s %.3f, %s %.3f\n", auc_untrained,
              names[0], auc[0], names[1], auc[1], names[2], auc[2]);
  EXPECT_GT(auc[1], 0.9);
  EXPECT_GT(auc[1], auc_untrained + 0.2);
  EXPECT_GT(auc[1], auc[0] + 0.03);
  // the paper's reason for dropping the softmax: the label depends on how MANY
  // behaviours are relevant, which normalized weights cannot carry
  EXPECT_GT(auc[1], auc[2] + 0.02);
}

// The AutoInt loop of recsys_fit (what the wasm package runs): the test AUC after
// a few epochs is far above chance and the epoch callback sees every epoch.
TEST(RecsysFit, AutoIntLearnsThePlantedPair) {
  data::CtrSyntheticConfig dc;
  dc.n = 8000;
  dc.seed = 1;
  dc.task_seed = 1;
  const data::CtrSyntheticData train = data::make_ctr_synthetic(dc);
  dc.n = 3000;
  dc.seed = 2;
  const data::CtrSyntheticData test = data::make_ctr_synthetic(dc);
  models::AutoInt m(models::AutoIntConfig{}, 3);
  size_t calls = 0;
  models::RecsysFitOptions o;
  o.epochs = 5;
  const auto hist = models::fit_autoint(m, train, test, o, [&](const models::RecsysEpoch& e) {
    EXPECT_EQ(e.epoch, ++calls);
  });
  EXPECT_EQ(calls, 5u);
  std::printf("[recsys] autoint test AUC by epoch:");
  for (const auto& e : hist) std::printf(" %.3f", e.test_auc);
  std::printf("\n");
  EXPECT_GT(hist.back().test_auc, 0.8);
  models::RecsysFitOptions bad;
  bad.epochs = 0;
  EXPECT_THROW(models::fit_autoint(m, train, test, bad), attnlab::Error);
}
