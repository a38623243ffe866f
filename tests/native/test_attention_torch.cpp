// Parity with PyTorch 1.13 on committed fixtures (scripts/fixtures_attention.py,
// reference computed in float64 from float32 inputs; attnlab runs in float32).
// Tolerances: |ours - torch| <= 2e-5 + 2e-4 |torch| for outputs/weights and
// 5e-5 + 5e-4 |torch| for gradients (float32 accumulation over <= 12 terms).
#include "attention_test_util.hpp"

#include <cstdio>
#include <memory>

#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/local.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/attention/relative.hpp"

using namespace attn_test;

namespace {
constexpr double kOutAtol = 2e-5, kOutRtol = 2e-4, kGradAtol = 5e-5, kGradRtol = 5e-4;

// The layer of a fixture case: built from the given sizes (or config) with Rng(1), then every
// parameter, listed in pl, set from the case.
template <class Layer, class... Sizes>
std::unique_ptr<Layer> case_layer(const nlohmann::json& c, ParamList& pl, const Sizes&... sizes) {
  Rng rng(1);
  auto layer = std::make_unique<Layer>(sizes..., rng);
  layer->collect(pl, "");
  jparams(pl, c);
  return layer;
}

// the largest error of the query, key and value gradients against the case's
inline double qkv_grads_close(const std::string& name, const Tensor3& dq, const Tensor3& dk, const Tensor3& dv,
                              const nlohmann::json& c) {
  double e = expect_close(name + " grad.query", dq.data(), jflat(c["grad.query"]), kGradAtol, kGradRtol);
  e = std::max(e, expect_close(name + " grad.key", dk.data(), jflat(c["grad.key"]), kGradAtol, kGradRtol));
  return std::max(e, expect_close(name + " grad.value", dv.data(), jflat(c["grad.value"]), kGradAtol, kGradRtol));
}
}  // namespace

TEST(TorchParity, MultiheadAttention) {
  const nlohmann::json all = load_fixture("attention_mha.json");
  const size_t ncases = for_each_case(all, [&](const std::string& name, const nlohmann::json& c) {
    const size_t E = c["E"], H = c["H"];
    Rng rng(1);
    MultiheadAttention mha(E, H, rng);
    jparam(mha.in_proj_weight, c["in_proj_weight"]);
    jparam(mha.in_proj_bias, c["in_proj_bias"]);
    jparam(mha.out_proj_weight, c["out_proj.weight"]);
    jparam(mha.out_proj_bias, c["out_proj.bias"]);
    MhaOptions opt;
    opt.need_weights = true;
    opt.average_attn_weights = c["average_attn_weights"];
    if (c.contains("key_padding_mask")) {
      auto sh = jshape(c["key_padding_mask"]);
      opt.key_padding_mask = BoolTensor2::from_shape(sh);
      auto v = jflat(c["key_padding_mask"]);
      for (size_t i = 0; i < v.size(); ++i) opt.key_padding_mask.data()[i] = v[i] != 0.f;
    }
    if (c.contains("attn_mask_bool")) {
      auto sh = jshape(c["attn_mask_bool"]);
      xt::xarray<bool> m = xt::xarray<bool>::from_shape(sh);
      auto v = jflat(c["attn_mask_bool"]);
      for (size_t i = 0; i < v.size(); ++i) m.data()[i] = v[i] != 0.f;
      opt.attn_mask_bool = m;
    }
    if (c.contains("attn_mask_float")) {
      auto sh = jshape(c["attn_mask_float"]);
      xt::xarray<float> m = xt::xarray<float>::from_shape(sh);
      auto v = jflat(c["attn_mask_float"]);
      std::copy(v.begin(), v.end(), m.data());
      opt.attn_mask_float = m;
    }
    opt.is_causal = c.value("is_causal", false);
    const bool self = c["self_attn"];
    Tensor3 q, k, v;
    if (self) {
      q = jtensor<Tensor3>(c["x"]);
    } else {
      q = jtensor<Tensor3>(c["query"]);
      k = jtensor<Tensor3>(c["key"]);
      v = jtensor<Tensor3>(c["value"]);
    }
    const Tensor3 R = jtensor<Tensor3>(c["R"]);
    MultiheadAttention::Cache cache;
    MhaResult r = self ? mha.forward(q, q, q, opt, &cache) : mha.forward(q, k, v, opt, &cache);
    double e_out = expect_close(name + " out", r.out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
    const auto wref = jflat(c["weights"]);
    const float* w = opt.average_attn_weights ? r.weights.data() : r.head_weights.data();
    const size_t wsize = opt.average_attn_weights ? r.weights.size() : r.head_weights.size();
    ASSERT_EQ(wsize, wref.size()) << name;
    double e_w = expect_close(name + " weights", w, wref, kOutAtol, kOutRtol);
    mha.in_proj_weight.zero_grad();
    mha.in_proj_bias.zero_grad();
    mha.out_proj_weight.zero_grad();
    mha.out_proj_bias.zero_grad();
    Tensor3 dq, dk, dv;
    // loss = sum(out * R) + sum(weights * RW) (weights averaged or per head)
    const xt::xarray<float> RW = jtensor<xt::xarray<float>>(c["RW"]);
    mha.backward(R, cache, dq, dk, dv, nullptr, &RW);
    double e_g = 0;
    if (self) {
      for (size_t i = 0; i < dq.size(); ++i) dq.data()[i] += dk.data()[i] + dv.data()[i];
      e_g = std::max(e_g, expect_close(name + " grad.x", dq.data(), jflat(c["grad.x"]), kGradAtol, kGradRtol));
    } else {
      e_g = qkv_grads_close(name, dq, dk, dv, c);
    }
    double e_p = 0;
    e_p = std::max(e_p, expect_close(name + " grad.in_proj_weight", mha.in_proj_weight.gdata(), jflat(c["grad.in_proj_weight"]), kGradAtol, kGradRtol));
    e_p = std::max(e_p, expect_close(name + " grad.in_proj_bias", mha.in_proj_bias.gdata(), jflat(c["grad.in_proj_bias"]), kGradAtol, kGradRtol));
    e_p = std::max(e_p, expect_close(name + " grad.out_proj.weight", mha.out_proj_weight.gdata(), jflat(c["grad.out_proj.weight"]), kGradAtol, kGradRtol));
    e_p = std::max(e_p, expect_close(name + " grad.out_proj.bias", mha.out_proj_bias.gdata(), jflat(c["grad.out_proj.bias"]), kGradAtol, kGradRtol));
    std::printf("[parity] mha %-18s max|err| out %.2e weights %.2e input-grads %.2e param-grads %.2e\n",
                name.c_str(), e_out, e_w, e_g, e_p);
  });
  EXPECT_GE(ncases, 6u);
}

TEST(TorchParity, ScoreFunctionsAttend) {
  const nlohmann::json all = load_fixture("attention_scores.json");
  const size_t ncases = for_each_case(all, [&](const std::string& name, const nlohmann::json& c) {
    const ScoreKind kind = parse_score_kind(c["kind"].get<std::string>());
    Rng rng(1);
    Attention att({kind, c["Dq"], c["Dk"], c["A"], c["max_keys"]}, rng);
    ParamList pl;
    att.collect(pl, "");
    for (auto& p : pl.items()) {
      ASSERT_TRUE(c.contains(p.first)) << name << " fixture lacks parameter " << p.first;
      jparam(*p.second, c[p.first]);
    }
    AttendMask mask;
    mask.lengths = c["lengths"].get<std::vector<size_t>>();
    Tensor3 q = jtensor<Tensor3>(c["query"]), k = jtensor<Tensor3>(c["key"]), v = jtensor<Tensor3>(c["value"]);
    const Tensor3 R = jtensor<Tensor3>(c["R"]), RW = jtensor<Tensor3>(c["RW"]);
    Attention::Cache cache;
    AttendResult r = att.forward(q, k, v, mask, &cache);
    const double e_out = expect_close(name + " out", r.out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
    const double e_w = expect_close(name + " weights", r.weights.data(), jflat(c["weights"]), kOutAtol, kOutRtol);
    pl.zero_grad();
    Tensor3 dq, dk, dv;
    att.backward(R, cache, dq, dk, dv, &RW);
    const double e_g = qkv_grads_close(name, dq, dk, dv, c);
    const double e_p = param_grads_close(pl, c, name, kGradAtol, kGradRtol);
    std::printf("[parity] attend %-10s max|err| out %.2e weights %.2e input-grads %.2e param-grads %.2e\n",
                name.c_str(), e_out, e_w, e_g, e_p);
  });
  EXPECT_EQ(ncases, 6u);
}

TEST(TorchParity, LocalAttentionMonotonicAndPredictive) {
  const nlohmann::json all = load_fixture("attention_more.json");
  for (const char* key : {"local_m", "local_p"}) {
    const auto& c = all.at(key);
    LocalConfig cfg;
    cfg.mode = c["mode"] == "p" ? LocalMode::Predictive : LocalMode::Monotonic;
    cfg.window = c["window"];
    cfg.score = {ScoreKind::General, c["Dq"], c["Dk"]};
    cfg.predictor_dim = c["A"];
    ParamList pl;
    const auto la = case_layer<LocalAttention>(c, pl, cfg);
    const auto lengths = c["lengths"].get<std::vector<size_t>>();
    Tensor3 q = jtensor<Tensor3>(c["query"]), k = jtensor<Tensor3>(c["key"]), v = jtensor<Tensor3>(c["value"]);
    LocalAttention::Cache cache;
    LocalResult r = la->forward(q, k, v, lengths, &cache);
    const std::string name = key;
    const double e_out = expect_close(name + " out", r.out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
    const double e_w = expect_close(name + " weights", r.weights.data(), jflat(c["weights"]), kOutAtol, kOutRtol);
    expect_close(name + " positions", r.positions.data(), jflat(c["positions"]), kOutAtol, kOutRtol);
    pl.zero_grad();
    Tensor3 dq, dk, dv;
    la->backward(jtensor<Tensor3>(c["R"]), cache, dq, dk, dv);
    const double e_g = qkv_grads_close(name, dq, dk, dv, c);
    const double e_p = param_grads_close(pl, c, name, kGradAtol, kGradRtol);
    std::printf("[parity] %-16s max|err| out %.2e weights %.2e input-grads %.2e param-grads %.2e\n",
                key, e_out, e_w, e_g, e_p);
  }
}

TEST(TorchParity, ContextPooling) {
  const nlohmann::json all = load_fixture("attention_more.json");
  const auto& c = all.at("pooling");
  ParamList pl;
  const auto pool = case_layer<ContextPooling>(c, pl, c["D"].get<size_t>(), c["A"].get<size_t>());
  Tensor3 h = jtensor<Tensor3>(c["h"]);
  ContextPooling::Cache cache;
  PoolingResult r = pool->forward(h, c["lengths"].get<std::vector<size_t>>(), &cache);
  const double e_out = expect_close("pooling out", r.out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
  const double e_w = expect_close("pooling weights", r.weights.data(), jflat(c["weights"]), kOutAtol, kOutRtol);
  pl.zero_grad();
  Tensor3 dh;
  const Tensor2 RW = jtensor<Tensor2>(c["RW"]);
  pool->backward(jtensor<Tensor2>(c["R"]), cache, dh, &RW);
  const double e_g = expect_close("pooling grad.h", dh.data(), jflat(c["grad.h"]), kGradAtol, kGradRtol);
  const double e_p = param_grads_close(pl, c, "pooling", kGradAtol, kGradRtol);
  std::printf("[parity] pooling          max|err| out %.2e weights %.2e input-grads %.2e param-grads %.2e\n",
              e_out, e_w, e_g, e_p);
}

TEST(TorchParity, MultiheadDisagreementTerms) {
  const nlohmann::json all = load_fixture("attention_more.json");
  const auto& c = all.at("mha_disagreement");
  ParamList pl;
  const auto mha = case_layer<MultiheadAttention>(c, pl, c["E"].get<size_t>(), c["H"].get<size_t>());
  MhaOptions opt;
  opt.key_padding_mask = BoolTensor2::from_shape(jshape(c["key_padding_mask"]));
  const auto km = jflat(c["key_padding_mask"]);
  for (size_t i = 0; i < km.size(); ++i) opt.key_padding_mask.data()[i] = km[i] != 0.f;
  Tensor3 q = jtensor<Tensor3>(c["query"]), k = jtensor<Tensor3>(c["key"]), v = jtensor<Tensor3>(c["value"]);
  MultiheadAttention::Cache cache;
  MhaResult r = mha->forward(q, k, v, opt, &cache);
  const double e_out = expect_close("disagreement out", r.out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
  const DisagreementTerms t = mha->disagreement(cache);
  const auto ref = c["terms"].get<std::vector<double>>();
  EXPECT_NEAR(t.subspace, ref[0], 1e-5);
  EXPECT_NEAR(t.position, ref[1], 1e-5);
  EXPECT_NEAR(t.output, ref[2], 1e-5);
  const auto wr = c["weights_reg"].get<std::vector<float>>();
  const DisagreementWeights w{wr[0], wr[1], wr[2]};
  pl.zero_grad();
  Tensor3 dq, dk, dv;
  mha->backward(jtensor<Tensor3>(c["R"]), cache, dq, dk, dv, &w);
  const double e_g = qkv_grads_close("disagreement", dq, dk, dv, c);
  const double e_p = param_grads_close(pl, c, "disagreement", kGradAtol, kGradRtol);
  std::printf("[parity] mha+disagreement max|err| out %.2e terms %.2e/%.2e/%.2e input-grads %.2e param-grads %.2e\n",
              e_out, std::fabs(t.subspace - ref[0]), std::fabs(t.position - ref[1]),
              std::fabs(t.output - ref[2]), e_g, e_p);
}

// Transformer-XL: the fixture uses the reference code's pad-and-reshape relative shift.
TEST(TorchParity, TransformerXLRelativeAttentionWithMemory) {
  const nlohmann::json all = load_fixture("attention_more.json");
  const auto& c = all.at("relxl");
  ParamList pl;
  const auto rel = case_layer<RelMultiheadAttention>(c, pl, RelConfig{c["E"], c["H"], c["Dh"], c["mem_len"]});
  rel->set_memory(jtensor<Tensor3>(c["memory"]));
  Tensor3 x = jtensor<Tensor3>(c["x"]);
  RelMultiheadAttention::Cache cache;
  Tensor4 W;
  Tensor3 out = rel->forward(x, &cache, true, &W);
  const double e_out = expect_close("relxl out", out.data(), jflat(c["out"]), kOutAtol, kOutRtol);
  const double e_w = expect_close("relxl weights", W.data(), jflat(c["weights"]), kOutAtol, kOutRtol);
  const auto nm = jflat(c["new_memory"]);
  ASSERT_EQ(rel->memory().size(), nm.size());
  expect_close("relxl new memory", rel->memory().data(), nm, 0.0, 0.0);
  pl.zero_grad();
  Tensor3 dx;
  rel->backward(jtensor<Tensor3>(c["R"]), cache, dx);
  const double e_g = expect_close("relxl grad.x", dx.data(), jflat(c["grad.x"]), kGradAtol, kGradRtol);
  const double e_p = param_grads_close(pl, c, "relxl", kGradAtol, kGradRtol);
  std::printf("[parity] transformer-xl   max|err| out %.2e weights %.2e input-grads %.2e param-grads %.2e\n",
              e_out, e_w, e_g, e_p);
}
