// AutoInt: the interacting layer (finite-difference gradients for every input and
// parameter, attention rows, errors), the CTR model (loss gradient, parameter count,
// id errors, save/load), the synthetic pairwise-interaction generator, and learning:
// a trained AutoInt beats an untrained one and a no-interaction model on test AUC,
// and its attention links the two planted fields.
#include "attention_test_util.hpp"
#include "error_test_util.hpp"
#include "model_test_util.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "attnlab/attention/autoint.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/eval/class_metrics.hpp"
#include "attnlab/data/ctr_synthetic.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/nn/optim.hpp"

using namespace attn_test;
using attnlab::testing::autoint_config;
using attnlab::testing::error_of;
using attnlab::models::AutoInt;
using attnlab::models::AutoIntConfig;

static ::testing::Environment* const kSummary =
    ::testing::AddGlobalTestEnvironment(new GradSummary);

namespace {

struct LayerShape {
  size_t B, M, D, H, d;
  std::string label() const {
    return "B" + std::to_string(B) + "M" + std::to_string(M) + "D" + std::to_string(D) + "H" +
           std::to_string(H) + "d" + std::to_string(d);
  }
};
const std::vector<LayerShape> kShapes = {
    {2, 4, 5, 2, 3},
    {1, 1, 3, 1, 2},  // a single field: alpha = 1
    {3, 2, 4, 3, 2},
    {2, 6, 6, 1, 4},
};

}  // namespace

// ------------------------------------------------------------------ InteractingLayer
TEST(InteractingLayerGrad, EveryInputAndParameter) {
  for (const LayerShape& sh : kShapes)
    for (bool scaled : {false, true})
      for (bool residual : {true, false}) {
        Rng rng(11 + sh.B * 7 + sh.M * 3 + (scaled ? 100 : 0) + (residual ? 1000 : 0));
        InteractingOptions o;
        o.heads = sh.H;
        o.head_dim = sh.d;
        o.scaled = scaled;
        o.residual = residual;
        InteractingLayer layer(sh.D, o, rng);
        ParamList pl;
        layer.collect(pl, "");
        randomize(pl, rng);
        Tensor3 e = randn3(sh.B, sh.M, sh.D, rng);
        Tensor3 R = randn3(sh.B, sh.M, sh.H * sh.d, rng);
        Tensor4 RW = Tensor4::from_shape({sh.B, sh.H, sh.M, sh.M});
        for (auto& x : RW) x = rng.normal(0.f, 1.f);
        auto loss = [&] {
          const InteractingResult r = layer.forward(e);
          return dotd(r.out, R) + dotd(r.weights.data(), RW.data(), RW.size());
        };
        InteractingLayer::Cache cache;
        const InteractingResult r = layer.forward(e, &cache);
        ASSERT_TRUE(all_finite(r.out.data(), r.out.size()));
        pl.zero_grad();
        Tensor3 de;
        layer.backward(R, cache, de, &RW);
        const std::string tag = sh.label() + (scaled ? " scaled" : " plain") +
                                (residual ? " +res" : " -res");
        check_grad(tag + " de", e.data(), de.data(), e.size(), loss, 1e-3f);
        for (auto& it : pl.items())
          check_grad(tag + " " + it.first, it.second->data(), it.second->gdata(), it.second->size(),
                     loss, 1e-3f);
      }
}

TEST(InteractingLayerGrad, WithoutWeightsGradientAndAccumulation) {
  // backward without dweights equals backward with dweights = 0; param grads accumulate
  Rng rng(5);
  InteractingLayer layer(4, {2, 3, true, false}, rng);
  ParamList pl;
  layer.collect(pl, "");
  Tensor3 e = randn3(2, 3, 4, rng), R = randn3(2, 3, 6, rng);
  InteractingLayer::Cache c;
  layer.forward(e, &c);
  Tensor3 de1, de2;
  pl.zero_grad();
  layer.backward(R, c, de1);
  const xt::xarray<float> g1 = layer.query.grad;
  Tensor4 zero = xt::zeros<float>({2, 2, 3, 3});
  layer.backward(R, c, de2, &zero);
  for (size_t i = 0; i < de1.size(); ++i) EXPECT_FLOAT_EQ(de1.data()[i], de2.data()[i]);
  for (size_t i = 0; i < g1.size(); ++i)
    EXPECT_NEAR(layer.query.grad.data()[i], 2.f * g1.data()[i], 1e-5f);
}

TEST(InteractingLayer, ShapesAndAttentionRowsSumToOne) {
  for (const LayerShape& sh : kShapes) {
    Rng rng(3);
    InteractingLayer layer(sh.D, {sh.H, sh.d, true, false}, rng);
    EXPECT_EQ(layer.output_dim(), sh.H * sh.d);
    ParamList pl;
    layer.collect(pl, "");
    EXPECT_EQ(pl.count(), layer.param_count());
    EXPECT_EQ(pl.items().size(), 4u);
    EXPECT_NO_THROW(pl.get("query.weight"));
    EXPECT_NO_THROW(pl.get("residual.weight"));
    Tensor3 e = randn3(sh.B, sh.M, sh.D, rng, 3.f);
    const InteractingResult r = layer.forward(e);
    ASSERT_EQ(r.out.shape(0), sh.B);
    ASSERT_EQ(r.out.shape(1), sh.M);
    ASSERT_EQ(r.out.shape(2), sh.H * sh.d);
    ASSERT_EQ(r.weights.shape(1), sh.H);
    ASSERT_EQ(r.weights.shape(3), sh.M);
    for (size_t row = 0; row < sh.B * sh.H * sh.M; ++row) {
      double s = 0;
      for (size_t k = 0; k < sh.M; ++k) {
        const float w = r.weights.data()[row * sh.M + k];
        EXPECT_GE(w, 0.f);
        s += w;
      }
      EXPECT_NEAR(s, 1.0, 1e-5) << sh.label() << " row " << row;
    }
    for (float x : r.out) EXPECT_GE(x, 0.f);  // ReLU output
  }
}

TEST(InteractingLayer, MatchesANaiveReference) {
  // eq. 5-8 written out with plain loops, both options
  for (bool scaled : {false, true})
    for (bool residual : {true, false}) {
      Rng rng(21);
      const size_t B = 2, M = 3, D = 4, H = 2, d = 3, HD = H * d;
      InteractingLayer layer(D, {H, d, residual, scaled}, rng);
      Tensor3 e = randn3(B, M, D, rng);
      const InteractingResult r = layer.forward(e);
      auto proj = [&](const Param& W, size_t b, size_t m, size_t j) {
        double s = 0;
        for (size_t i = 0; i < D; ++i) s += double(W.value(j, i)) * e(b, m, i);
        return s;
      };
      for (size_t b = 0; b < B; ++b)
        for (size_t m = 0; m < M; ++m) {
          std::vector<double> out(HD, 0.0);
          for (size_t h = 0; h < H; ++h) {
            std::vector<double> s(M);
            double mx = -1e300, z = 0;
            for (size_t kk = 0; kk < M; ++kk) {
              s[kk] = 0;
              for (size_t j = h * d; j < (h + 1) * d; ++j)
                s[kk] += proj(layer.query, b, m, j) * proj(layer.key, b, kk, j);
              if (scaled) s[kk] /= std::sqrt(double(d));
              mx = std::max(mx, s[kk]);
            }
            for (size_t kk = 0; kk < M; ++kk) z += std::exp(s[kk] - mx);
            for (size_t kk = 0; kk < M; ++kk) {
              const double a = std::exp(s[kk] - mx) / z;
              EXPECT_NEAR(r.weights(b, h, m, kk), a, 1e-5);
              for (size_t j = h * d; j < (h + 1) * d; ++j) out[j] += a * proj(layer.value, b, kk, j);
            }
          }
          for (size_t j = 0; j < HD; ++j) {
            if (residual) out[j] += proj(layer.residual, b, m, j);
            EXPECT_NEAR(r.out(b, m, j), std::max(out[j], 0.0), 1e-5);
          }
        }
    }
}

TEST(InteractingLayer, ClearErrors) {
  Rng rng(1);
  EXPECT_NE(error_of([&] { InteractingLayer(4, {0, 3, true, false}, rng); }).find("heads"),
            std::string::npos);
  EXPECT_NE(error_of([&] { InteractingLayer(4, {2, 0, true, false}, rng); }).find("head_dim"),
            std::string::npos);
  EXPECT_NE(error_of([&] { InteractingLayer(0, {2, 3, true, false}, rng); }).find("input_dim"),
            std::string::npos);
  InteractingLayer layer(4, {2, 3, true, false}, rng);
  // D mismatch
  const std::string dm = error_of([&] { layer.forward(Tensor3(xt::zeros<float>({2, 3, 5}))); });
  EXPECT_NE(dm.find("D = 4"), std::string::npos) << dm;
  EXPECT_NE(dm.find("(2,3,5)"), std::string::npos) << dm;
  // M = 0
  const std::string m0 = error_of([&] { layer.forward(Tensor3(xt::zeros<float>({2, 0, 4}))); });
  EXPECT_NE(m0.find("M >= 1"), std::string::npos) << m0;
  // NaN / inf
  Tensor3 e = randn3(2, 3, 4, rng);
  e(1, 2, 3) = NAN;
  EXPECT_NE(error_of([&] { layer.forward(e); }).find("finite"), std::string::npos);
  e(1, 2, 3) = INFINITY;
  EXPECT_NE(error_of([&] { layer.forward(e); }).find("finite"), std::string::npos);
  // rank: a 2-d or 4-d array
  const xt::xarray<float> r2 = xt::zeros<float>({3, 4});
  const std::string rk = error_of([&] { layer.forward(r2); });
  EXPECT_NE(rk.find("rank 3"), std::string::npos) << rk;
  EXPECT_NE(rk.find("got rank 2"), std::string::npos) << rk;
  const xt::xarray<float> r4 = xt::zeros<float>({1, 2, 3, 4});
  EXPECT_THROW(layer.forward(r4), Error);
  // the xarray form gives the same result as the Tensor3 form
  e(1, 2, 3) = 0.5f;
  const xt::xarray<float> ea = e;
  const InteractingResult a = layer.forward(e), b = layer.forward(ea);
  for (size_t i = 0; i < a.out.size(); ++i) EXPECT_EQ(a.out.data()[i], b.out.data()[i]);
  // backward shapes
  InteractingLayer::Cache c;
  layer.forward(e, &c);
  Tensor3 de;
  EXPECT_THROW(layer.backward(Tensor3(xt::zeros<float>({2, 3, 5})), c, de), Error);
  Tensor4 bad = xt::zeros<float>({2, 2, 3, 2});
  EXPECT_THROW(layer.backward(Tensor3(xt::zeros<float>({2, 3, 6})), c, de, &bad), Error);
}

// ------------------------------------------------------------------ model
namespace {
std::vector<int> random_ids(const std::vector<size_t>& vocab, size_t B, Rng& rng) {
  std::vector<int> ids(B * vocab.size());
  for (size_t b = 0; b < B; ++b)
    for (size_t f = 0; f < vocab.size(); ++f) ids[b * vocab.size() + f] = int(rng.below(uint32_t(vocab[f])));
  return ids;
}
}  // namespace

TEST(AutoIntModel, LossGradientMatchesFiniteDifferences) {
  for (size_t L : {0u, 1u, 2u})
    for (bool residual : {true, false})
      for (bool scaled : {false, true}) {
        if (L == 0 && (!residual || scaled)) continue;
        AutoIntConfig cfg = autoint_config({3, 4, 2}, 4, L, 2, 3);
        cfg.residual = residual;
        cfg.scaled = scaled;
        AutoInt m(cfg, 9 + L);
        Rng rng(40 + L);
        // larger than the init, so attention is far from uniform and every gradient is
        // well above the float rounding of the finite differences
        randomize(m.params(), rng, 0.6f);
        const size_t B = 5;
        const std::vector<int> ids = random_ids(cfg.vocab, B, rng);
        std::vector<float> y(B);
        for (float& v : y) v = rng.uniform(0.f, 1.f);
        y[0] = 1.f;
        y[1] = 0.f;
        m.params().zero_grad();
        m.loss_and_grad(ids.data(), y.data(), B);
        auto loss = [&] { return double(m.loss(ids.data(), y.data(), B)); };
        const std::string tag = "AutoInt L" + std::to_string(L) + (residual ? " +res" : " -res") +
                                (scaled ? " scaled" : " plain");
        for (auto& it : m.params().items())
          check_grad(tag + " " + it.first, it.second->data(), it.second->gdata(),
                     it.second->size(), loss, 1e-3f);
      }
}

TEST(AutoIntModel, ParameterCountMatchesFormula) {
  for (size_t L : {0u, 1u, 3u})
    for (bool residual : {true, false}) {
      AutoIntConfig cfg = autoint_config({10, 3, 7, 5}, 6, L, 2, 4);
      cfg.residual = residual;
      AutoInt m(cfg, 1);
      const auto c = m.param_count();
      const size_t HD = 8, R = residual ? 1 : 0;
      EXPECT_EQ(c.embeddings, 6u * 25u);
      EXPECT_EQ(c.layers, L == 0 ? 0u : (3 + R) * HD * (6 + (L - 1) * HD));
      EXPECT_EQ(c.output, 4u * (L == 0 ? 6u : HD) + 1u);
      EXPECT_EQ(c.total, c.embeddings + c.layers + c.output);
      EXPECT_EQ(m.params().count(), c.total) << "L " << L << " residual " << residual;
    }
  AutoIntConfig cfg;  // defaults: 6 fields of 8, D 16, 2 layers of 2 heads x 8, residual
  // 16*48 + 4*16*(16 + 16) + 6*16 + 1
  EXPECT_EQ(AutoInt(cfg, 0).param_count().total, 768u + 2048u + 97u);
  EXPECT_NO_THROW(AutoInt(cfg, 0).params().get("layers.1.residual.weight"));
  EXPECT_NO_THROW(AutoInt(cfg, 0).params().get("embeddings.5.weight"));
  EXPECT_NO_THROW(AutoInt(cfg, 0).params().get("output.bias"));
}

TEST(AutoIntModel, OutputsAndErrors) {
  AutoIntConfig cfg;
  cfg.vocab = {3, 5, 4};
  AutoInt m(cfg, 2);
  Rng rng(3);
  const std::vector<int> ids = random_ids(cfg.vocab, 7, rng);
  const AutoInt::Output o = m.forward(ids);
  ASSERT_EQ(o.prob.size(), 7u);
  ASSERT_EQ(o.attention.size(), 2u);
  for (const Tensor4& a : o.attention) {
    ASSERT_EQ(a.shape(0), 7u);
    ASSERT_EQ(a.shape(1), cfg.heads);
    ASSERT_EQ(a.shape(2), 3u);
    ASSERT_EQ(a.shape(3), 3u);
    for (size_t row = 0; row < 7 * cfg.heads * 3; ++row)
      EXPECT_NEAR(a.data()[row * 3] + a.data()[row * 3 + 1] + a.data()[row * 3 + 2], 1.f, 1e-5f);
  }
  for (size_t b = 0; b < 7; ++b) {
    EXPECT_GT(o.prob[b], 0.f);
    EXPECT_LT(o.prob[b], 1.f);
    EXPECT_NEAR(o.prob[b], 1.f / (1.f + std::exp(-o.logit[b])), 1e-6f);
  }
  // id out of range: the message names the field, the range and the sample
  std::vector<int> bad = ids;
  bad[3 * 3 + 2] = 4;  // sample 3, field 2 (vocab 4)
  std::string msg = error_of([&] { m.forward(bad); });
  EXPECT_NE(msg.find("field 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sample 3"), std::string::npos) << msg;
  bad = ids;
  bad[1] = -1;
  msg = error_of([&] { m.forward(bad); });
  EXPECT_NE(msg.find("field 1"), std::string::npos) << msg;
  // wrong row length, empty batch
  EXPECT_THROW(m.forward(std::vector<int>(ids.begin(), ids.end() - 1)), Error);
  EXPECT_THROW(m.forward(std::vector<int>{}), Error);
  // labels
  std::vector<float> y(7, 0.f);
  y[4] = 2.f;
  EXPECT_NE(error_of([&] { m.loss_and_grad(ids.data(), y.data(), 7); }).find("labels"),
            std::string::npos);
  y[4] = NAN;
  EXPECT_THROW(m.loss(ids.data(), y.data(), 7), Error);
  // config
  AutoIntConfig c2 = cfg;
  c2.vocab = {};
  EXPECT_THROW(AutoInt(c2, 0), Error);
  c2 = cfg;
  c2.vocab[1] = 0;
  EXPECT_NE(error_of([&] { AutoInt(c2, 0); }).find("field 1"), std::string::npos);
  c2 = cfg;
  c2.heads = 0;
  EXPECT_NE(error_of([&] { AutoInt(c2, 0); }).find("heads"), std::string::npos);
  c2 = cfg;
  c2.head_dim = 0;
  EXPECT_THROW(AutoInt(c2, 0), Error);
  EXPECT_THROW(AutoIntConfig::from_json("{\"vocab\": [3, -1]}"), Error);
  EXPECT_THROW(AutoIntConfig::from_json("[1]"), Error);
}

TEST(AutoIntModel, SaveLoadRoundTrip) {
  AutoIntConfig cfg = autoint_config({4, 6, 3, 5}, 5, 3, 3, 2);
  cfg.residual = false;
  cfg.scaled = true;
  AutoInt m(cfg, 17);
  const std::vector<uint8_t> bytes = m.save({{"note", "test"}});
  const auto st = io::decode(bytes);
  EXPECT_EQ(st.meta("kind"), "autoint");
  EXPECT_EQ(st.meta("note"), "test");
  auto back = AutoInt::load(bytes.data(), bytes.size());
  EXPECT_EQ(back->config().vocab, cfg.vocab);
  EXPECT_EQ(back->config().layers, 3u);
  EXPECT_TRUE(back->config().scaled);
  EXPECT_FALSE(back->config().residual);
  Rng rng(2);
  const std::vector<int> ids = random_ids(cfg.vocab, 9, rng);
  const auto a = m.forward(ids), b = back->forward(ids);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(a.logit[i], b.logit[i]);
  for (size_t l = 0; l < 3; ++l)
    for (size_t i = 0; i < a.attention[l].size(); ++i)
      EXPECT_EQ(a.attention[l].data()[i], b.attention[l].data()[i]);
  // another kind of model file
  io::ModelInfo info;
  info.kind = "mmoe";
  info.config = "{}";
  ParamList none;
  const auto other = io::save_model(info, none);
  EXPECT_NE(error_of([&] { AutoInt::load(other.data(), other.size()); }).find("autoint"),
            std::string::npos);
}

// ------------------------------------------------------------------ synthetic data
namespace {
// AUC on `test` of the best per-value lookup table fitted on `train`, for the fields in
// `fields` jointly (one field: a main effect; two fields: the pair).
double lookup_auc(const data::CtrSyntheticData& train, const data::CtrSyntheticData& test,
                  const std::vector<size_t>& vocab, const std::vector<size_t>& fields) {
  const size_t F = vocab.size();
  auto key = [&](const int* row) {
    size_t k = 0;
    for (size_t f : fields) k = k * vocab[f] + size_t(row[f]);
    return k;
  };
  size_t cells = 1;
  for (size_t f : fields) cells *= vocab[f];
  std::vector<double> pos(cells, 1.0), tot(cells, 2.0);  // add-one smoothing
  for (size_t s = 0; s < train.n; ++s) {
    const size_t kk = key(train.ids.data() + s * F);
    pos[kk] += train.labels[s];
    tot[kk] += 1;
  }
  std::vector<int> labels(test.n);
  std::vector<double> scores(test.n);
  for (size_t s = 0; s < test.n; ++s) {
    const size_t kk = key(test.ids.data() + s * F);
    scores[s] = pos[kk] / tot[kk];
    labels[s] = int(test.labels[s]);
  }
  return eval::roc_auc(labels, scores);
}
double auc_of(const std::vector<float>& labels, const std::vector<float>& scores) {
  std::vector<int> l(labels.size());
  std::vector<double> s(scores.size());
  for (size_t i = 0; i < l.size(); ++i) l[i] = int(labels[i]), s[i] = scores[i];
  return eval::roc_auc(l, s);
}
}  // namespace

TEST(CtrSynthetic, SeededAndOnlyThePairPredicts) {
  data::CtrSyntheticConfig cfg;
  cfg.n = 20000;
  cfg.seed = 1;
  cfg.task_seed = 77;
  const auto train = data::make_ctr_synthetic(cfg);
  const auto again = data::make_ctr_synthetic(cfg);
  EXPECT_EQ(train.ids, again.ids);
  EXPECT_EQ(train.labels, again.labels);
  cfg.seed = 2;
  const auto test = data::make_ctr_synthetic(cfg);
  EXPECT_EQ(train.table, test.table);  // same task
  EXPECT_NE(train.ids, test.ids);      // fresh samples
  // the table is double-centred with unit RMS
  const size_t Va = cfg.vocab[cfg.field_a], Vb = cfg.vocab[cfg.field_b];
  double ss = 0;
  for (size_t i = 0; i < Va; ++i) {
    double r = 0;
    for (size_t j = 0; j < Vb; ++j) r += train.table[i * Vb + j], ss += double(train.table[i * Vb + j]) * train.table[i * Vb + j];
    EXPECT_NEAR(r, 0.0, 1e-4);
  }
  for (size_t j = 0; j < Vb; ++j) {
    double c = 0;
    for (size_t i = 0; i < Va; ++i) c += train.table[i * Vb + j];
    EXPECT_NEAR(c, 0.0, 1e-4);
  }
  EXPECT_NEAR(ss / double(Va * Vb), 1.0, 1e-4);
  // each single field alone is (nearly) useless; the planted pair is not
  double best_single = 0;
  for (size_t f = 0; f < cfg.vocab.size(); ++f)
    best_single = std::max(best_single, lookup_auc(train, test, cfg.vocab, {f}));
  const double pair = lookup_auc(train, test, cfg.vocab, {cfg.field_a, cfg.field_b});
  const double other_pair = lookup_auc(train, test, cfg.vocab, {0, 2});
  const double bayes = auc_of(test.labels, test.prob);
  std::printf("[ctr synthetic] test AUC: best single field %.4f, pair (a,b) %.4f, pair (0,2) %.4f, "
              "true probabilities %.4f\n",
              best_single, pair, other_pair, bayes);
  EXPECT_LT(best_single, 0.56);
  EXPECT_LT(other_pair, 0.56);
  EXPECT_GT(pair, 0.8);
  EXPECT_NEAR(pair, bayes, 0.01);
  // errors
  data::CtrSyntheticConfig bad = cfg;
  bad.field_b = bad.field_a;
  EXPECT_THROW(data::make_ctr_synthetic(bad), Error);
  bad = cfg;
  bad.vocab[2] = 0;
  EXPECT_NE(error_of([&] { data::make_ctr_synthetic(bad); }).find("field 2"), std::string::npos);
  bad = cfg;
  bad.n = 0;
  EXPECT_THROW(data::make_ctr_synthetic(bad), Error);
  bad = cfg;
  bad.noise = NAN;
  EXPECT_THROW(data::make_ctr_synthetic(bad), Error);
}

// ------------------------------------------------------------------ learning
namespace {
struct TrainRun {
  double auc = 0, untrained_auc = 0, seconds = 0;
  float final_loss = 0;
};
TrainRun train_autoint(AutoInt& m, const data::CtrSyntheticData& train,
                       const data::CtrSyntheticData& test, size_t epochs, size_t batch, float lr,
                       uint64_t seed) {
  TrainRun r;
  r.untrained_auc = auc_of(test.labels, m.forward(test.ids).prob);
  const auto t0 = std::chrono::steady_clock::now();
  nn::Adam opt(m.params(), lr);
  Rng rng(seed);
  const size_t F = train.fields;
  std::vector<size_t> idx(train.n);
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<int> xb;
  std::vector<float> yb;
  for (size_t e = 0; e < epochs; ++e) {
    rng.shuffle(idx);
    double tot = 0;
    for (size_t s = 0; s < train.n; s += batch) {
      const size_t B = std::min(batch, train.n - s);
      xb.resize(B * F);
      yb.resize(B);
      for (size_t i = 0; i < B; ++i) {
        std::copy(train.ids.begin() + std::ptrdiff_t(idx[s + i] * F),
                  train.ids.begin() + std::ptrdiff_t((idx[s + i] + 1) * F), xb.begin() + std::ptrdiff_t(i * F));
        yb[i] = train.labels[idx[s + i]];
      }
      tot += double(m.train_step(xb.data(), yb.data(), B, opt)) * double(B);
    }
    r.final_loss = float(tot / double(train.n));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.auc = auc_of(test.labels, m.forward(test.ids).prob);
  return r;
}
data::CtrSyntheticConfig learning_data(uint64_t seed, size_t n) {
  data::CtrSyntheticConfig c;
  c.n = n;
  c.seed = seed;
  c.task_seed = 1234;
  return c;
}
}  // namespace

namespace {
// Layer-1 attention of row q (heads averaged) on `partner` vs the mean over the
// distractor fields (neither a nor b): mean weights over the test set, the fraction of
// samples where the partner gets more, and that fraction among samples whose planted
// interaction is strong (|T[x_a][x_b]| >= 1).
struct AttnStats {
  double partner = 0, others = 0, wins = 0, wins_strong = 0;
};
AttnStats attention_stats(const Tensor4& A, const data::CtrSyntheticData& d, size_t q,
                          size_t partner, size_t fa, size_t fb, size_t Vb) {
  const size_t B = A.shape(0), H = A.shape(1), F = A.shape(2);
  AttnStats s;
  size_t wins = 0, strong = 0, wins_strong = 0;
  for (size_t b = 0; b < B; ++b) {
    double wt = 0, wo = 0;
    for (size_t h = 0; h < H; ++h) {
      const float* row = A.data() + ((b * H + h) * F + q) * F;
      wt += row[partner] / double(H);
      for (size_t k = 0; k < F; ++k)
        if (k != fa && k != fb) wo += row[k] / double(H * (F - 2));
    }
    const int* x = d.ids.data() + b * F;
    const bool is_strong = std::fabs(d.table[size_t(x[fa]) * Vb + size_t(x[fb])]) >= 1.f;
    wins += wt > wo;
    strong += is_strong;
    wins_strong += is_strong && wt > wo;
    s.partner += wt / double(B);
    s.others += wo / double(B);
  }
  s.wins = double(wins) / double(B);
  s.wins_strong = double(wins_strong) / double(std::max<size_t>(strong, 1));
  return s;
}
}  // namespace

// Trained on the pairwise task (8000 samples, 8 epochs of Adam, about 0.5 s), AutoInt
// reaches a test AUC near the true probabilities' (0.90); untrained it is at chance and
// the L = 0 model (no interacting layer, same embeddings and output) cannot express the
// pair. Measured in an exploration over model seeds 5-9 (L = 2, shuffle seed = model seed):
// trained 0.882-0.888, untrained 0.46-0.52, L = 0 0.533-0.546. Layer-1 attention of the
// rows a and b put 1.7-5.5x a distractor field's mean weight on the partner (untrained
// 0.9-1.05x); but per sample the partner beats the distractor mean in only 47-69% of
// samples (untrained 34-50%), so "in most samples" is not a property to rely on: the
// attention is peaked and value-dependent. This run (model seed 5, shuffle seed 1):
// AUC 0.884 / untrained 0.492 / L = 0 0.541; row a 0.202 on b vs 0.088 (wins 42.4%,
// 54.5% where |T| >= 1), row b 0.283 on a vs 0.073 (wins 62.5%, 71.7%). The assertions
// below are those observations with margin.
TEST(AutoIntLearning, BeatsUntrainedAndNoInteractionAndAttendsToThePlantedPair) {
  const auto train = data::make_ctr_synthetic(learning_data(1, 8000));
  const auto test = data::make_ctr_synthetic(learning_data(2, 4000));
  const double bayes = auc_of(test.labels, test.prob);
  const size_t fa = 1, fb = 4, Vb = 8;

  AutoIntConfig cfg;  // 6 fields of 8, D 16, 2 layers of 2 heads x 8, residual, unscaled
  AutoInt m(cfg, 5);
  const AttnStats ua = attention_stats(m.forward(test.ids).attention[0], test, fa, fb, fa, fb, Vb);
  const AttnStats ub = attention_stats(m.forward(test.ids).attention[0], test, fb, fa, fa, fb, Vb);
  const TrainRun run = train_autoint(m, train, test, 8, 128, 3e-3f, 1);

  AutoIntConfig lin = cfg;
  lin.layers = 0;  // logistic regression on the concatenated embeddings
  AutoInt base(lin, 5);
  const TrainRun brun = train_autoint(base, train, test, 8, 128, 3e-3f, 1);

  const AutoInt::Output trained = m.forward(test.ids);
  const Tensor4& A = trained.attention[0];
  const AttnStats sa = attention_stats(A, test, fa, fb, fa, fb, Vb);
  const AttnStats sb = attention_stats(A, test, fb, fa, fa, fb, Vb);
  std::printf("[autoint learning] test AUC: trained %.4f (untrained %.4f, train loss %.4f, %.2f s), "
              "no-interaction L=0 %.4f (untrained %.4f), true probabilities %.4f\n",
              run.auc, run.untrained_auc, run.final_loss, run.seconds, brun.auc,
              brun.untrained_auc, bayes);
  for (int r = 0; r < 2; ++r) {
    const AttnStats& t = r ? sb : sa;
    const AttnStats& u = r ? ub : ua;
    std::printf("[autoint attention] layer 1 row %s: partner %.3f vs distractor mean %.3f "
                "(untrained %.3f vs %.3f); partner wins in %.1f%% of samples (untrained %.1f%%), "
                "%.1f%% where |T| >= 1\n",
                r ? "b" : "a", t.partner, t.others, u.partner, u.others, 100 * t.wins,
                100 * u.wins, 100 * t.wins_strong);
  }
  // AUC: the trained model is near the ceiling; neither baseline comes close
  EXPECT_GT(bayes, 0.88);
  EXPECT_GT(run.auc, 0.85);
  EXPECT_GT(run.auc, bayes - 0.04);
  EXPECT_LT(run.untrained_auc, 0.6);
  EXPECT_LT(brun.auc, 0.6);
  EXPECT_GT(run.auc - brun.auc, 0.25);
  // attention: on average the partner field gets well above a distractor's share
  // (untrained it does not), and it wins per sample clearly more often than untrained,
  // most where the planted interaction is strong
  for (const AttnStats* t : {&sa, &sb}) EXPECT_GT(t->partner, 1.8 * t->others);
  for (const AttnStats* u : {&ua, &ub}) EXPECT_LT(u->partner, 1.2 * u->others);
  EXPECT_GT(0.5 * (sa.wins + sb.wins), 0.5 * (ua.wins + ub.wins) + 0.08);
  EXPECT_GT(0.5 * (sa.wins_strong + sb.wins_strong), 0.55);
  EXPECT_GT(std::max(sa.wins, sb.wins), 0.55);  // at least one of the two rows: most samples
}
