// Transformer encoder/decoder layers: PyTorch parity on committed fixtures
// (scripts/fixtures_transformer.py: nn.TransformerEncoderLayer / nn.TransformerDecoderLayer,
// float64 reference from float32 inputs), finite-difference gradients (both norm_first
// settings, masks, dropout with a replayed mask, disagreement penalties), the positional
// encodings, and the incremental decoder step against the full forward.
#include "attention_test_util.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "attnlab/attention/transformer.hpp"
#include "attnlab/nn/positional.hpp"

using namespace attn_test;

static ::testing::Environment* const kSummary =
    ::testing::AddGlobalTestEnvironment(new GradSummary);

namespace {

// two layers of float32 arithmetic (LayerNorm, softmax, 16-wide feed-forward) against a
// float64 reference
constexpr double kOutAtol = 5e-5, kOutRtol = 5e-4, kGradAtol = 2e-4, kGradRtol = 1e-3;

BoolTensor2 jbool2(const nlohmann::json& t) {
  BoolTensor2 m = BoolTensor2::from_shape(jshape(t));
  auto v = jflat(t);
  for (size_t i = 0; i < v.size(); ++i) m.data()[i] = v[i] != 0.f;
  return m;
}

TransformerLayerConfig fixture_config(const nlohmann::json& c) {
  TransformerLayerConfig cfg;
  cfg.d_model = c["E"];
  cfg.nhead = c["H"];
  cfg.dim_feedforward = c["F"];
  cfg.dropout = 0.f;
  cfg.activation = nn::act_from_string(c["activation"]);
  cfg.norm_first = c["norm_first"];
  return cfg;
}

// loads every registered parameter from the fixture (fails if one is missing)
void load_params(ParamList& pl, const nlohmann::json& c, const std::string& name) {
  for (auto& p : pl.items()) {
    ASSERT_TRUE(c.contains(p.first)) << name << ": fixture lacks parameter " << p.first;
    jparam(*p.second, c[p.first]);
  }
}

// Every case of `kind` in the fixture: the layer built from the case's config with its
// nparams parameters loaded, then run(layer, case, name) does forward and backward and
// returns the max errors of {output, input grads}; the parameter grads are checked here.
template <class Layer, class Run>
void layer_parity(const char* kind, size_t nparams, Run run) {
  const nlohmann::json all = load_fixture("transformer_layers.json");
  double worst[3] = {0, 0, 0};
  const size_t ncases = for_each_case(all, [&](const std::string& name, const nlohmann::json& c) {
    Rng rng(1);
    Layer layer(fixture_config(c), rng);
    ParamList pl;
    layer.collect(pl, "");
    EXPECT_EQ(pl.items().size(), nparams);
    load_params(pl, c, name);
    pl.zero_grad();
    const std::array<double, 2> e = run(layer, c, name);
    const double e_p = param_grads_close(pl, c, name, kGradAtol, kGradRtol);
    std::printf("[parity] %-26s max|err| out %.2e input-grads %.2e param-grads %.2e\n",
                name.c_str(), e[0], e[1], e_p);
    worst[0] = std::max(worst[0], e[0]);
    worst[1] = std::max(worst[1], e[1]);
    worst[2] = std::max(worst[2], e_p);
  }, kind);
  std::printf("[parity] %s worst: out %.2e input-grads %.2e param-grads %.2e\n", kind, worst[0],
              worst[1], worst[2]);
  EXPECT_EQ(ncases, 4u);
}

}  // namespace

TEST(TorchParity, TransformerEncoderLayer) {
  layer_parity<TransformerEncoderLayer>(
      "encoder", 12,
      [](TransformerEncoderLayer& layer, const nlohmann::json& c, const std::string& name) {
        MhaOptions opt;
        opt.key_padding_mask = jbool2(c["key_padding_mask"]);
        opt.is_causal = c["causal"];
        const Tensor3 x = jtensor<Tensor3>(c["x"]), R = jtensor<Tensor3>(c["R"]);
        TransformerEncoderLayer::Cache cache;
        const Tensor3 y = layer.forward(x, opt, &cache);
        Tensor3 dx;
        layer.backward(R, cache, dx);
        return std::array<double, 2>{
            expect_close(name + " out", y.data(), jflat(c["out"]), kOutAtol, kOutRtol),
            expect_close(name + " grad.x", dx.data(), jflat(c["grad.x"]), kGradAtol, kGradRtol)};
      });
}

TEST(TorchParity, TransformerDecoderLayer) {
  layer_parity<TransformerDecoderLayer>(
      "decoder", 18,
      [](TransformerDecoderLayer& layer, const nlohmann::json& c, const std::string& name) {
        MhaOptions so, co;
        so.key_padding_mask = jbool2(c["tgt_key_padding_mask"]);
        so.is_causal = true;
        co.key_padding_mask = jbool2(c["memory_key_padding_mask"]);
        const Tensor3 x = jtensor<Tensor3>(c["x"]), mem = jtensor<Tensor3>(c["memory"]),
                      R = jtensor<Tensor3>(c["R"]);
        TransformerDecoderLayer::Cache cache;
        const Tensor3 y = layer.forward(x, mem, so, co, &cache);
        Tensor3 dx, dmem;
        layer.backward(R, cache, dx, dmem);
        const double e_out =
            expect_close(name + " out", y.data(), jflat(c["out"]), kOutAtol, kOutRtol);
        const double e_x =
            expect_close(name + " grad.x", dx.data(), jflat(c["grad.x"]), kGradAtol, kGradRtol);
        return std::array<double, 2>{
            e_out, std::max(e_x, expect_close(name + " grad.memory", dmem.data(),
                                              jflat(c["grad.memory"]), kGradAtol, kGradRtol))};
      });
}

// ------------------------------------------------------------------ finite differences
namespace {

struct LayerCase {
  std::string name;
  bool norm_first;
  nn::Act act;
  float dropout;  // > 0: training with a mask replayed from a reseeded Rng
  DisagreementWeights reg;
  bool skip_padding = false;  // padded rows left out of the disagreement terms
};

TransformerLayerConfig small_config(const LayerCase& lc) {
  TransformerLayerConfig cfg;
  cfg.d_model = 8;
  cfg.nhead = 2;
  cfg.dim_feedforward = 12;
  cfg.dropout = lc.dropout;
  cfg.activation = lc.act;
  cfg.norm_first = lc.norm_first;
  return cfg;
}

// the layer of the decoding and inference tests: pre-norm with GELU or post-norm with ReLU, no dropout
TransformerLayerConfig inference_config(bool norm_first) {
  return small_config({"", norm_first, norm_first ? nn::Act::GELU : nn::Act::ReLU, 0.f, {}});
}

const std::vector<LayerCase> kLayerCases = {
    {"post relu", false, nn::Act::ReLU, 0.f, {}},
    {"pre relu", true, nn::Act::ReLU, 0.f, {}},
    {"post gelu dropout", false, nn::Act::GELU, 0.25f, {}},
    {"pre gelu dropout", true, nn::Act::GELU, 0.25f, {}},
    {"post disagreement", false, nn::Act::ReLU, 0.f, {0.6f, 0.8f, 0.7f}},
    {"pre disagreement", true, nn::Act::GELU, 0.f, {0.6f, 0.8f, 0.7f}},
    {"post disagreement skip-pad", false, nn::Act::GELU, 0.f, {0.6f, 0.8f, 0.7f}, true},
    {"pre disagreement skip-pad", true, nn::Act::ReLU, 0.f, {0.6f, 0.8f, 0.7f}, true},
};

// ReLU's kink: a step of 1e-2 can cross it (the central difference then mixes both
// slopes), so ReLU cases step 1e-3 (float32 noise ~1e-6 / 2e-3 stays below the tolerance)
float fd_step(const LayerCase& lc) { return lc.act == nn::Act::ReLU ? 1e-3f : 1e-2f; }

void check_params(const std::string& name, ParamList& pl, const std::function<double()>& loss,
                  float eps) {
  for (auto& p : pl.items()) {
    std::vector<float> g(p.second->grad.data(), p.second->grad.data() + p.second->size());
    check_grad(name + " " + p.first, p.second->data(), g.data(), p.second->size(), loss, eps);
  }
}

}  // namespace

TEST(TransformerLayerGrad, EncoderEveryInputAndParameter) {
  for (const LayerCase& lc : kLayerCases) {
    Rng rng(11);
    TransformerEncoderLayer layer(small_config(lc), rng);
    ParamList pl = params_of(layer);
    const size_t B = 2, T = 4, E = 8;
    Tensor3 x = randn3(B, T, E, rng);
    const Tensor3 R = randn3(B, T, E, rng);
    MhaOptions opt;
    opt.key_padding_mask = padding_mask(B, T, {{1, 3}, {1, 2}});
    opt.is_causal = lc.norm_first;  // causal in the pre-norm cases, padding only in post-norm
    opt.disagreement_skip_padding = lc.skip_padding;
    const bool train = lc.dropout > 0.f;
    auto loss = [&]() {
      Rng drop(5);
      TransformerEncoderLayer::Cache c;
      const Tensor3 y = layer.forward(x, opt, &c, &drop, train);
      double l = dotd(y, R);
      l += layer.disagreement(c).weighted(lc.reg);
      return l;
    };
    Rng drop(5);
    TransformerEncoderLayer::Cache c;
    const Tensor3 y = layer.forward(x, opt, &c, &drop, train);
    pl.zero_grad();
    Tensor3 dx;
    layer.backward(R, c, dx, lc.reg.any() ? &lc.reg : nullptr);
    check_grad("encoder " + lc.name + " x", x.data(), dx.data(), x.size(), loss, fd_step(lc));
    check_params("encoder " + lc.name, pl, loss, fd_step(lc));
  }
}

TEST(TransformerLayerGrad, DecoderEveryInputAndParameter) {
  for (const LayerCase& lc : kLayerCases) {
    Rng rng(12);
    TransformerDecoderLayer layer(small_config(lc), rng);
    ParamList pl = params_of(layer);
    const size_t B = 2, T = 3, S = 4, E = 8;
    Tensor3 x = randn3(B, T, E, rng), mem = randn3(B, S, E, rng);
    const Tensor3 R = randn3(B, T, E, rng);
    MhaOptions so, co;
    so.is_causal = true;
    so.key_padding_mask = padding_mask(B, T, {{0, 2}});
    co.key_padding_mask = padding_mask(B, S, {{1, 3}, {1, 2}});
    so.disagreement_skip_padding = co.disagreement_skip_padding = lc.skip_padding;
    co.query_padding_mask = so.key_padding_mask;
    const bool train = lc.dropout > 0.f;
    auto loss = [&]() {
      Rng drop(6);
      TransformerDecoderLayer::Cache c;
      const Tensor3 y = layer.forward(x, mem, so, co, &c, &drop, train);
      double l = dotd(y, R);
      l += layer.self_disagreement(c).weighted(lc.reg) + layer.cross_disagreement(c).weighted(lc.reg);
      return l;
    };
    Rng drop(6);
    TransformerDecoderLayer::Cache c;
    const Tensor3 y = layer.forward(x, mem, so, co, &c, &drop, train);
    pl.zero_grad();
    Tensor3 dx, dmem;
    const DisagreementWeights* reg = lc.reg.any() ? &lc.reg : nullptr;
    layer.backward(R, c, dx, dmem, reg, reg);
    check_grad("decoder " + lc.name + " x", x.data(), dx.data(), x.size(), loss, fd_step(lc));
    check_grad("decoder " + lc.name + " memory", mem.data(), dmem.data(), mem.size(), loss,
               fd_step(lc));
    check_params("decoder " + lc.name, pl, loss, fd_step(lc));
  }
}

TEST(TransformerLayer, DropoutOnlyWhenTraining) {
  LayerCase lc{"", false, nn::Act::ReLU, 0.5f, {}};
  Rng rng(3);
  TransformerEncoderLayer layer(small_config(lc), rng);
  const Tensor3 x = randn3(2, 3, 8, rng);
  Rng d1(1), d2(2);
  const Tensor3 a = layer.forward(x, {}, nullptr, &d1, false);
  const Tensor3 b = layer.forward(x, {}, nullptr, &d2, false);
  EXPECT_EQ(dotd(a, a), dotd(b, b));  // eval: deterministic
  const Tensor3 c = layer.forward(x, {}, nullptr, &d1, true);
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff += std::fabs(a.data()[i] - c.data()[i]);
  EXPECT_GT(diff, 1e-3);  // training drops
  EXPECT_THROW(layer.forward(x, {}, nullptr, nullptr, true), Error);
}

TEST(TransformerLayer, BadInputsAreErrors) {
  Rng rng(3);
  TransformerLayerConfig cfg;
  cfg.d_model = 6;
  cfg.nhead = 4;
  EXPECT_THROW(TransformerEncoderLayer(cfg, rng), Error);  // 6 % 4 != 0
  cfg.nhead = 2;
  cfg.activation = nn::Act::Tanh;
  EXPECT_THROW(TransformerEncoderLayer(cfg, rng), Error);
  cfg.activation = nn::Act::ReLU;
  TransformerDecoderLayer dec(cfg, rng);
  EXPECT_THROW(dec.forward(randn3(2, 3, 5, rng), randn3(2, 4, 6, rng)), Error);
  EXPECT_THROW(dec.forward(randn3(2, 3, 6, rng), randn3(1, 4, 6, rng)), Error);
}

// The padding-aware disagreement terms of a padded batch equal the mean of the terms of
// each item computed alone without padding (self- and cross-attention).
TEST(TransformerLayer, DisagreementSkipsPaddingLikeUnpaddedItems) {
  Rng rng(31);
  MultiheadAttention mha(8, 4, rng);
  const size_t T = 5, S = 6, E = 8, keep_t = 3, keep_s = 4;
  const Tensor3 x = randn3(2, T, E, rng), m = randn3(2, S, E, rng);
  auto slice = [&](const Tensor3& t, size_t b, size_t rows) {
    Tensor3 o = Tensor3::from_shape({1, rows, E});
    std::copy(t.data() + b * t.shape(1) * E, t.data() + (b * t.shape(1) + rows) * E, o.data());
    return o;
  };
  for (bool self : {true, false}) {
    MhaOptions opt;
    opt.disagreement_skip_padding = true;
    const size_t Sk = self ? T : S, ks = self ? keep_t : keep_s;
    opt.key_padding_mask = BoolTensor2::from_shape({2, Sk});
    opt.key_padding_mask.fill(false);
    for (size_t s = ks; s < Sk; ++s) opt.key_padding_mask(1, s) = true;
    if (!self) {
      opt.query_padding_mask = BoolTensor2::from_shape({2, T});
      opt.query_padding_mask.fill(false);
      for (size_t t = keep_t; t < T; ++t) opt.query_padding_mask(1, t) = true;
    }
    MultiheadAttention::Cache c, c0, c1;
    self ? mha.forward(x, x, x, opt, &c) : mha.forward(x, m, m, opt, &c);
    const DisagreementTerms all = mha.disagreement(c);
    const Tensor3 x0 = slice(x, 0, T), x1 = slice(x, 1, keep_t), m0 = slice(m, 0, S), m1 = slice(m, 1, keep_s);
    self ? mha.forward(x0, x0, x0, {}, &c0) : mha.forward(x0, m0, m0, {}, &c0);
    self ? mha.forward(x1, x1, x1, {}, &c1) : mha.forward(x1, m1, m1, {}, &c1);
    const DisagreementTerms t0 = mha.disagreement(c0), t1 = mha.disagreement(c1);
    EXPECT_NEAR(all.subspace, 0.5f * (t0.subspace + t1.subspace), 1e-5) << "self " << self;
    EXPECT_NEAR(all.position, 0.5f * (t0.position + t1.position), 1e-5) << "self " << self;
    EXPECT_NEAR(all.output, 0.5f * (t0.output + t1.output), 1e-5) << "self " << self;
    // off (the default), the padded rows count and the terms differ
    MultiheadAttention::Cache cd;
    MhaOptions plain = opt;
    plain.disagreement_skip_padding = false;
    self ? mha.forward(x, x, x, plain, &cd) : mha.forward(x, m, m, plain, &cd);
    EXPECT_GT(std::fabs(mha.disagreement(cd).subspace - all.subspace), 1e-4f);
  }
  MhaOptions bad;
  bad.disagreement_skip_padding = true;
  bad.query_padding_mask = BoolTensor2::from_shape({2, T + 1});
  MultiheadAttention::Cache cb;
  EXPECT_THROW(mha.forward(x, m, m, bad, &cb), Error);
}

// ------------------------------------------------------------------ incremental decoding
TEST(TransformerDecoderStep, EqualsFullForwardWithReorder) {
  for (bool nf : {false, true}) {
    Rng rng(21);
    TransformerDecoderLayer layer(inference_config(nf), rng);
    const size_t n = 3, T = 5, S = 4, E = 8, H = 2, tr = 2;
    const Tensor3 mem1 = randn3(1, S, E, rng);
    const Tensor3 X = randn3(n, T, E, rng), Z = randn3(n, T, E, rng);
    const std::vector<size_t> parents = {2, 0, 0};
    // X2: the sequences after the reorder at position tr
    Tensor3 X2 = Tensor3::from_shape({n, T, E});
    for (size_t j = 0; j < n; ++j)
      for (size_t t = 0; t < T; ++t)
        for (size_t e = 0; e < E; ++e) X2(j, t, e) = t < tr ? X(parents[j], t, e) : Z(j, t, e);
    Tensor3 memn = Tensor3::from_shape({n, S, E});
    for (size_t j = 0; j < n; ++j)
      std::copy(mem1.data(), mem1.data() + S * E, memn.data() + j * S * E);
    MhaOptions so;
    so.is_causal = true;
    Tensor4 sw, cw;
    const Tensor3 full = layer.forward(X2, memn, so, {}, nullptr, nullptr, false, &sw, &cw);

    DecoderLayerState st;
    layer.start(mem1.data(), S, n, T, st);
    double worst = 0, worst_w = 0;
    std::vector<float> x(n * E), y(n * E), sws(n * H * T), cws(n * H * S);
    for (size_t t = 0; t < T; ++t) {
      if (t == tr) st.reorder(parents, E);
      for (size_t j = 0; j < n; ++j)
        for (size_t e = 0; e < E; ++e) x[j * E + e] = t < tr ? X(j, t, e) : Z(j, t, e);
      layer.step(x.data(), y.data(), st, sws.data(), cws.data());
      if (t < tr) continue;  // before the reorder the rows belong to other sequences
      for (size_t j = 0; j < n; ++j) {
        for (size_t e = 0; e < E; ++e)
          worst = std::max(worst, double(std::fabs(y[j * E + e] - full(j, t, e))));
        for (size_t h = 0; h < H; ++h) {
          for (size_t s = 0; s <= t; ++s)
            worst_w = std::max(worst_w, double(std::fabs(sws[(j * H + h) * (t + 1) + s] - sw(j, h, t, s))));
          for (size_t s = 0; s < S; ++s)
            worst_w = std::max(worst_w, double(std::fabs(cws[(j * H + h) * S + s] - cw(j, h, t, s))));
        }
      }
    }
    EXPECT_EQ(st.len, T);
    EXPECT_LT(worst, 2e-5) << "norm_first " << nf;
    EXPECT_LT(worst_w, 2e-6) << "norm_first " << nf;
    std::printf("[step] norm_first=%d max|step - full| out %.2e weights %.2e\n", int(nf), worst, worst_w);
    std::vector<float> extra(n * E);
    EXPECT_THROW(layer.step(x.data(), extra.data(), st), Error);  // capacity used up
  }
}

// Inference paths: the encoder's one-sequence infer() in float32 equals forward(); the
// int16 and int8 copies of the matrices (quantize()) stay close to float32 in the
// encoder and in the decoder step, with relative errors ordered int16 < int8.
TEST(TransformerInference, EncoderInferEqualsForwardAndQuantizedIsClose) {
  for (bool nf : {false, true}) {
    Rng rng(31);
    const TransformerLayerConfig cfg = inference_config(nf);
    TransformerEncoderLayer layer(cfg, rng);
    const size_t S = 7, E = cfg.d_model, H = cfg.nhead;
    const Tensor3 x = randn3(1, S, E, rng);
    Tensor4 hw;
    const Tensor3 ref = layer.forward(x, {}, nullptr, nullptr, false, &hw);
    std::vector<float> y(S * E), w(H * S * S);
    layer.infer(S, x.data(), y.data(), nullptr, w.data());
    double worst = 0, worst_w = 0, norm = 0;
    for (size_t i = 0; i < S * E; ++i) {
      worst = std::max(worst, double(std::fabs(y[i] - ref.data()[i])));
      norm = std::max(norm, double(std::fabs(ref.data()[i])));
    }
    for (size_t i = 0; i < H * S * S; ++i) worst_w = std::max(worst_w, double(std::fabs(w[i] - hw.data()[i])));
    EXPECT_LT(worst, 1e-5) << "norm_first " << nf;
    EXPECT_LT(worst_w, 1e-6) << "norm_first " << nf;
    double err[2] = {0, 0};
    for (int i8 = 0; i8 < 2; ++i8) {
      const EncoderLayerQuant q = layer.quantize(i8 == 1);
      std::vector<float> yq(S * E);
      layer.infer(S, x.data(), yq.data(), &q);
      for (size_t i = 0; i < S * E; ++i) err[i8] = std::max(err[i8], double(std::fabs(yq[i] - ref.data()[i])) / norm);
    }
    EXPECT_GT(err[0], 0.0);  // the quantized path really ran
    EXPECT_LT(err[0], 1e-3) << "int16, norm_first " << nf;
    EXPECT_LT(err[1], 3e-2) << "int8, norm_first " << nf;
    EXPECT_LT(err[0], err[1]);
    std::printf("[infer] norm_first=%d encoder: f32 vs forward %.2e; relative error int16 %.2e int8 %.2e\n",
                int(nf), worst, err[0], err[1]);
  }
}

TEST(TransformerInference, QuantizedDecoderStepIsClose) {
  for (bool nf : {false, true}) {
    Rng rng(33);
    const TransformerLayerConfig cfg = inference_config(nf);
    TransformerDecoderLayer layer(cfg, rng);
    const size_t n = 2, T = 4, S = 5, E = cfg.d_model;
    const Tensor3 mem = randn3(1, S, E, rng), X = randn3(n, T, E, rng);
    double err[2] = {0, 0};
    DecoderLayerState ref;
    layer.start(mem.data(), S, n, T, ref);
    std::vector<std::vector<float>> yref(T, std::vector<float>(n * E));
    std::vector<float> x(n * E);
    for (size_t t = 0; t < T; ++t) {
      for (size_t j = 0; j < n; ++j) std::copy(X.data() + (j * T + t) * E, X.data() + (j * T + t + 1) * E, x.begin() + long(j * E));
      layer.step(x.data(), yref[t].data(), ref);
    }
    for (int i8 = 0; i8 < 2; ++i8) {
      const DecoderLayerQuant q = layer.quantize(i8 == 1);
      DecoderLayerState st;
      layer.start(mem.data(), S, n, T, st, &q);
      std::vector<float> y(n * E);
      for (size_t t = 0; t < T; ++t) {
        for (size_t j = 0; j < n; ++j) std::copy(X.data() + (j * T + t) * E, X.data() + (j * T + t + 1) * E, x.begin() + long(j * E));
        layer.step(x.data(), y.data(), st, nullptr, nullptr, &q);
        double norm = 0;
        for (float v : yref[t]) norm = std::max(norm, double(std::fabs(v)));
        for (size_t i = 0; i < n * E; ++i) err[i8] = std::max(err[i8], double(std::fabs(y[i] - yref[t][i])) / norm);
      }
    }
    EXPECT_GT(err[0], 0.0);
    EXPECT_LT(err[0], 1e-3) << "int16, norm_first " << nf;
    EXPECT_LT(err[1], 3e-2) << "int8, norm_first " << nf;
    EXPECT_LT(err[0], err[1]);
    std::printf("[infer] norm_first=%d decoder step: relative error int16 %.2e int8 %.2e\n", int(nf), err[0], err[1]);
  }
}

// ------------------------------------------------------------------ positional encodings
TEST(PositionalEncoding, SinusoidFormulaAndOffsets) {
  Rng rng(1);
  nn::PositionalEncoding pe(nn::PosKind::Sinusoidal, 50, 6, rng);
  EXPECT_EQ(params_of(pe, "pos.").items().size(), 0u);
  std::vector<float> x(2 * 3 * 6, 0.f);
  pe.forward(2, 3, x.data(), 7);  // positions 7, 8, 9
  for (size_t b = 0; b < 2; ++b)
    for (size_t t = 0; t < 3; ++t)
      for (size_t c = 0; c < 6; ++c) {
        const double f = std::pow(10000.0, -double(c / 2 * 2) / 6.0);
        const double want = c % 2 ? std::cos((7 + t) * f) : std::sin((7 + t) * f);
        EXPECT_NEAR(x[(b * 3 + t) * 6 + c], want, 1e-6);
      }
  EXPECT_THROW(pe.forward(1, 2, x.data(), 49), Error);
  EXPECT_THROW(nn::pos_kind_from_string("rotary"), Error);
}

TEST(PositionalEncoding, LearnedGradient) {
  Rng rng(2);
  nn::PositionalEncoding pe(nn::PosKind::Learned, 6, 4, rng);
  ParamList pl = params_of(pe, "pos.");
  ASSERT_EQ(pl.items().size(), 1u);
  EXPECT_EQ(pl.items()[0].first, "pos.weight");
  const size_t B = 2, T = 3, D = 4, start = 2;
  const Tensor3 x0 = randn3(B, T, D, rng), R = randn3(B, T, D, rng);
  auto loss = [&]() {
    Tensor3 x = x0;
    pe.forward(B, T, x.data(), start);
    double l = 0;
    for (size_t i = 0; i < x.size(); ++i) l += double(x.data()[i]) * x.data()[i] * R.data()[i];
    return l;
  };
  Tensor3 x = x0;
  pe.forward(B, T, x.data(), start);
  Tensor3 dy = Tensor3::from_shape({B, T, D});
  for (size_t i = 0; i < x.size(); ++i) dy.data()[i] = 2.f * x.data()[i] * R.data()[i];
  pl.zero_grad();
  pe.backward(B, T, dy.data(), start);
  check_grad("learned pos", pe.weight.data(), pe.weight.gdata(), pe.weight.size(), loss);
  for (size_t c = 0; c < D * start; ++c) EXPECT_EQ(pe.weight.grad.data()[c], 0.f);  // unused rows
}
