// Layer files exported from PyTorch (scripts/export_torch.py, fixtures by
// scripts/fixtures_layers.py): loaded natively, every output within 1e-5 of PyTorch's
// float64 reference (max error over the tensor's max magnitude); the functional
// attention calls likewise; damaged files and calls of the wrong shape are clear Errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/layer_file.hpp"
#include "error_test_util.hpp"
#include "fixture_util.hpp"

using namespace attnlab;
using namespace attnlab::models;
using attnlab::testing::expect_error_with;
using nlohmann::json;

namespace {

constexpr double kRelTol = 1e-5;

std::vector<uint8_t> layer_bytes(const std::string& file) {
  return io::read_bytes(std::string(ATTNLAB_FIXTURES_DIR) + "/layers/" + file);
}

LayerArray arr(const json& t) {
  LayerArray a;
  a.shape = t.at("shape").get<std::vector<size_t>>();
  a.data = attnlab::testing::fixture_floats(t);
  return a;
}
LayerMask msk(const json& call, const char* key) {
  LayerMask m;
  if (!call.contains(key)) return m;
  const json& t = call.at(key);
  m.shape = t.at("shape").get<std::vector<size_t>>();
  for (auto& x : t.at("data")) m.data.push_back(x.get<float>());
  m.boolean = t.at("bool").get<bool>();
  return m;
}

// a tensor of `shape` filled with v (its count from the shape), for calls checked for shape
LayerArray filled(std::vector<size_t> shape, float v = 0.f) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return {shape, std::vector<float>(n, v)};
}
// a mask of `shape` filled with v (boolean or additive)
LayerMask mask_filled(std::vector<size_t> shape, float v, bool boolean) {
  return {shape, filled(shape, v).data, boolean};
}

// max |got - want| / max |want|
double rel_err(const LayerArray& got, const json& want, const std::string& what) {
  EXPECT_EQ(got.shape, want.at("shape").get<std::vector<size_t>>()) << what;
  const std::vector<float> w = attnlab::testing::fixture_floats(want);
  EXPECT_EQ(got.count(), w.size()) << what;
  double err = 0, mag = 0;
  for (size_t i = 0; i < std::min(w.size(), got.count()); ++i) {
    err = std::max(err, std::fabs(double(got.values()[i]) - double(w[i])));
    mag = std::max(mag, std::fabs(double(w[i])));
  }
  return err / std::max(mag, 1e-30);
}

json cases() { return attnlab::testing::load_fixture("layers/cases.json"); }

}  // namespace

TEST(LayerFile, EveryExportedLayerMatchesPyTorch) {
  const json all = cases();
  ASSERT_GE(all.at("layers").size(), 10u);
  for (const json& c : all.at("layers")) {
    const std::string name = c.at("name");
    const auto bytes = layer_bytes(c.at("file"));
    auto layer = load_layer(bytes.data(), bytes.size(), name);
    ASSERT_EQ(layer_kind_name(layer->kind()), c.at("kind").get<std::string>()) << name;
    const json& call = c.at("call");
    const json& exp = c.at("expect");
    double worst = 0;
    switch (layer->kind()) {
      case LayerKind::MultiheadAttention: {
        MhaCall m;
        m.query = arr(call.at("query"));
        if (!call.value("self", false)) {
          m.key = arr(call.at("key"));
          m.value = arr(call.at("value"));
        }
        m.key_padding_mask = msk(call, "keyPaddingMask");
        m.attn_mask = msk(call, "attnMask");
        m.is_causal = call.value("isCausal", false);
        m.need_weights = call.value("needWeights", true);
        m.average_attn_weights = call.value("averageAttnWeights", true);
        const MhaReturn r = layer->forward_mha(m);
        worst = std::max(worst, rel_err(r.out, exp.at("out"), name + " out"));
        if (exp.contains("weights")) worst = std::max(worst, rel_err(r.weights, exp.at("weights"), name + " weights"));
        else EXPECT_TRUE(r.weights.empty()) << name;
        break;
      }
      case LayerKind::GRU:
      case LayerKind::LSTM: {
        RnnCall rc;
        rc.x = arr(call.at("input"));
        if (call.contains("h0")) rc.h0 = arr(call.at("h0"));
        if (call.contains("c0")) rc.c0 = arr(call.at("c0"));
        if (call.contains("lengths")) rc.lengths = call.at("lengths").get<std::vector<size_t>>();
        const RnnReturn r = layer->forward_rnn(rc);
        worst = std::max(worst, rel_err(r.out, exp.at("out"), name + " out"));
        worst = std::max(worst, rel_err(r.h_n, exp.at("hN"), name + " hN"));
        if (exp.contains("cN")) worst = std::max(worst, rel_err(r.c_n, exp.at("cN"), name + " cN"));
        break;
      }
      case LayerKind::TransformerEncoderLayer: {
        TransformerCall tc;
        tc.x = arr(call.at("src"));
        tc.self_mask = msk(call, "srcMask");
        tc.self_key_padding = msk(call, "srcKeyPaddingMask");
        worst = rel_err(layer->forward_transformer(tc), exp.at("out"), name);
        break;
      }
      case LayerKind::TransformerDecoderLayer: {
        TransformerCall tc;
        tc.x = arr(call.at("tgt"));
        tc.memory = arr(call.at("memory"));
        tc.self_mask = msk(call, "tgtMask");
        tc.memory_mask = msk(call, "memoryMask");
        tc.self_key_padding = msk(call, "tgtKeyPaddingMask");
        tc.memory_key_padding = msk(call, "memoryKeyPaddingMask");
        worst = rel_err(layer->forward_transformer(tc), exp.at("out"), name);
        break;
      }
    }
    EXPECT_LT(worst, kRelTol) << name;
    std::printf("  %-34s max error / max |reference| = %.2e\n", name.c_str(), worst);
    // the file the loader writes back loads to the same layer
    const auto again = layer->save();
    auto layer2 = load_layer(again.data(), again.size(), name + " (saved again)");
    EXPECT_EQ(layer2->config(), layer->config()) << name;
    for (auto& it : layer->params().items())
      EXPECT_TRUE(std::equal(it.second->value.begin(), it.second->value.end(),
                             layer2->params().get(it.first).value.begin()))
          << name << " " << it.first;
  }
}

TEST(LayerFile, FunctionalAttentionMatchesPyTorch) {
  const json all = cases();
  for (const json& c : all.at("functional")) {
    const std::string name = c.at("name");
    const json& call = c.at("call");
    const LayerMask m = msk(call, "mask");
    const bool causal = call.value("causal", false);
    FunctionalReturn r;
    if (c.at("fn") == "scaledDot")
      r = scaled_dot_attention(arr(call.at("q")), arr(call.at("k")), arr(call.at("v")), m, causal, 0);
    else
      r = additive_attention(arr(call.at("q")), arr(call.at("k")), arr(call.at("v")), arr(call.at("wq")),
                             arr(call.at("wk")), arr(call.at("va")), m, causal);
    EXPECT_LT(rel_err(r.out, c.at("expect").at("out"), name), kRelTol) << name;
    EXPECT_LT(rel_err(r.weights, c.at("expect").at("weights"), name), kRelTol) << name;
  }
}

// ---- bad files
namespace {
// The fixture file with its header's metadata / tensors edited.
std::vector<uint8_t> edited(const std::string& file,
                            const std::function<void(std::map<std::string, std::string>&,
                                                     std::vector<io::TensorData>&)>& edit) {
  const auto b = layer_bytes(file);
  io::SafeTensors st = io::decode(b);
  edit(st.metadata, st.tensors);
  std::vector<io::TensorView> views;
  for (auto& t : st.tensors) views.push_back({t.name, t.shape, t.data.data()});
  return io::encode(views, st.metadata);
}
std::string load_error(const std::vector<uint8_t>& b) {
  try {
    load_layer(b.data(), b.size(), "bad.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded)";
}
void set_config(std::map<std::string, std::string>& meta, const char* key, const json& v) {
  json c = json::parse(meta["config"]);
  c[key] = v;
  meta["config"] = c.dump();
}
}  // namespace

TEST(LayerFile, DamagedOrMismatchedFilesAreClearErrors) {
  const std::string mha = "mha_self_seqfirst.safetensors";
  auto b = layer_bytes(mha);
  std::vector<uint8_t> cut(b.begin(), b.begin() + b.size() / 2);
  EXPECT_NE(load_error(cut).find("bad.safetensors: "), std::string::npos) << load_error(cut);
  EXPECT_NE(load_error({1, 2, 3}).find("8-byte header"), std::string::npos) << load_error({1, 2, 3});

  auto e = load_error(edited(mha, [](auto& m, auto&) { m["format"] = "something"; }));
  EXPECT_NE(e.find("'format' is 'something', expected 'attnlab-layer'"), std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { m["kind"] = "Conv2d"; }));
  EXPECT_NE(e.find("unknown layer kind 'Conv2d' (expected one of MultiheadAttention, GRU"), std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { m["config"] = "{not json"; }));
  EXPECT_NE(e.find("'config' is not valid JSON"), std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { set_config(m, "num_heads", 3); }));
  EXPECT_NE(e.find("embed_dim (8) must be divisible by num_heads (3)"), std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { set_config(m, "embed_dim", 16); }));
  EXPECT_NE(e.find("tensor 'in_proj_weight' has shape (24,8) but the config asks for (48,16)"),
            std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { set_config(m, "embed_dim", "8"); }));
  EXPECT_NE(e.find("'embed_dim' must be a non-negative integer"), std::string::npos) << e;
  e = load_error(edited(mha, [](auto& m, auto&) { set_config(m, "add_bias_kv", true); }));
  EXPECT_NE(e.find("add_bias_kv = true is not supported"), std::string::npos) << e;
  // a config asking for a layer far larger than the file: refused before allocating,
  // with the size arithmetic checked (3E x E wraps 32 bits at E = 2^16)
  e = load_error(edited(mha, [](auto& m, auto&) { set_config(m, "embed_dim", 65536); set_config(m, "num_heads", 1); }));
  EXPECT_NE(e.find("is more than the limit"), std::string::npos) << e;
  e = load_error(edited("gru_2layer_bi.safetensors", [](auto&, auto& t) { t.pop_back(); }));
  EXPECT_NE(e.find("missing tensor 'bias_hh_l1_reverse' (expected shape (18)"), std::string::npos) << e;
  e = load_error(edited("gru_2layer_bi.safetensors", [](auto& m, auto&) { set_config(m, "num_layers", 1); }));
  EXPECT_NE(e.find("unexpected tensor 'weight_ih_l1'"), std::string::npos) << e;
  e = load_error(edited("lstm_3layer.safetensors", [](auto& m, auto&) { set_config(m, "proj_size", 2); }));
  EXPECT_NE(e.find("proj_size = 2 is not supported"), std::string::npos) << e;
  e = load_error(edited("encoder_postnorm_relu.safetensors", [](auto& m, auto&) { set_config(m, "activation", "tanh"); }));
  EXPECT_NE(e.find("'activation' must be \"relu\" or \"gelu\""), std::string::npos) << e;
  e = load_error(edited("encoder_postnorm_relu.safetensors", [](auto& m, auto&) { set_config(m, "dim_feedforward", 17); }));
  EXPECT_NE(e.find("tensor 'linear1.weight' has shape (16,8) but the config asks for (17,8)"), std::string::npos) << e;
  e = load_error(edited("encoder_postnorm_relu.safetensors", [](auto& m, auto&) { m["kind"] = "TransformerDecoderLayer"; }));
  EXPECT_NE(e.find("missing tensor 'multihead_attn.in_proj_weight'"), std::string::npos) << e;
}

TEST(LayerFile, CallsOfTheWrongShapeAreClearErrors) {
  auto b = layer_bytes("mha_self_seqfirst.safetensors");  // E = 8, H = 2, sequence first
  auto mha = load_layer(b.data(), b.size());
  MhaCall c;
  c.query = filled({5, 3, 7});
  expect_error_with([&] { mha->forward_mha(c); }, "query: expected last dimension 8 ((T,B,E))");
  c.query = {{5, 3, 8}, std::vector<float>(100, 0.f)};
  expect_error_with([&] { mha->forward_mha(c); }, "shape (5,3,8) needs 120 values, got 100");
  c.query = filled({5, 3, 8});
  c.key = filled({4, 2, 8});
  c.value = c.key;
  expect_error_with([&] { mha->forward_mha(c); }, "disagree on the batch or the key length");
  c.key = {};
  expect_error_with([&] { mha->forward_mha(c); }, "give both key and value, or neither");
  c.value = {};
  c.key_padding_mask = mask_filled({3, 4}, 0.f, true);
  expect_error_with([&] { mha->forward_mha(c); }, "key_padding_mask: expected shape (3,5), got (3,4)");
  c.key_padding_mask = {};
  c.attn_mask = mask_filled({5, 5}, NAN, false);
  expect_error_with([&] { mha->forward_mha(c); }, "finite or -Infinity");
  c.attn_mask = mask_filled({6, 5}, 0.f, true);
  expect_error_with([&] { mha->forward_mha(c); }, "attn_mask: expected shape (5,5) or (6,5,5)");
  expect_error_with([&] { mha->forward_rnn(RnnCall{}); }, "this layer is a MultiheadAttention, not a GRU or LSTM");

  auto g = layer_bytes("gru_2layer_bi.safetensors");  // I = 4, H = 6, L = 2, D = 2, sequence first
  auto gru = load_layer(g.data(), g.size());
  RnnCall r;
  r.x = filled({5, 3, 4});
  r.h0 = filled({2, 3, 6});
  expect_error_with([&] { gru->forward_rnn(r); }, "h0: expected shape (4,3,6)");
  r.h0 = {};
  r.lengths = {5, 0, 2};
  expect_error_with([&] { gru->forward_rnn(r); }, "lengths[1] = 0 is not in [1, 5]");
  r.lengths = {5, 2};
  expect_error_with([&] { gru->forward_rnn(r); }, "expected 3 lengths");
  r.lengths = {};
  r.c0 = filled({4, 3, 6});
  expect_error_with([&] { gru->forward_rnn(r); }, "c0 is for LSTM only");

  auto d = layer_bytes("decoder_postnorm_batchfirst.safetensors");
  auto dec = load_layer(d.data(), d.size());
  TransformerCall t;
  t.x = filled({2, 4, 8});
  expect_error_with([&] { dec->forward_transformer(t); }, "memory (the encoder output) is required");
  t.memory = filled({3, 6, 8});
  expect_error_with([&] { dec->forward_transformer(t); }, "disagree on the batch");
}

TEST(LayerFile, SelfAttentionCallEqualsPassingTheSameTensorThrice) {
  auto b = layer_bytes("mha_self_seqfirst.safetensors");
  auto mha = load_layer(b.data(), b.size());
  MhaCall a;
  a.query = {{4, 2, 8}, {}};
  for (int i = 0; i < 64; ++i) a.query.data.push_back(std::sin(0.37f * float(i)));
  a.is_causal = true;
  MhaCall c = a;
  c.key = a.query;
  c.value = a.query;
  const MhaReturn r1 = mha->forward_mha(a), r2 = mha->forward_mha(c);
  ASSERT_EQ(r1.out.count(), r2.out.count());
  for (size_t i = 0; i < r1.out.count(); ++i) EXPECT_NEAR(r1.out.values()[i], r2.out.values()[i], 1e-6);
  // causal: query 0 attends to key 0 only
  EXPECT_FLOAT_EQ(r1.weights.values()[0], 1.f);
}
