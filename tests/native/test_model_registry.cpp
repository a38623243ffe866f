// The one list of model kinds (models/registry.hpp): every kind in the list
// has a small model here that is saved with the shared SaveOptions, opened once
// as a ModelFile, loaded through its row, and answers the shared interface
// (params, config as JSON, save, predict on JSON input, describe). The shipped
// model files load through the list and predict as their classes do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/data/sotu.hpp"
#include "attnlab/models/autoint.hpp"
#include "attnlab/models/din.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/mmoe.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/models/xl_lm.hpp"
#include "attnlab/models/toy_seq2seq.hpp"
#include "model_test_util.hpp"
#include "vocab_test_util.hpp"

using namespace attnlab;
using attnlab::testing::letters;
using json = nlohmann::json;

namespace {

// A small model of a kind: its file bytes, its parameter count and config, a valid
// predict input and a check of predict's output.
struct Sample {
  std::vector<uint8_t> bytes;
  size_t params = 0;
  json config;
  json input;
  std::function<void(const json&)> check_output;
};

Sample toy(const io::SaveOptions& o) {
  models::ToyConfig c;
  c.emb = 4;
  c.hidden = 5;
  models::ToySeq2Seq m(c, 3);
  ParamList ps;
  m.collect(ps);
  return {m.save(o), ps.count(), json::parse(c.to_json()), {{"tokens", {"s1", "s2", "s3"}}},
          [](const json& r) {
            EXPECT_EQ(r["cols"], 3);
            EXPECT_EQ(r["attention"].size(), r["rows"].get<size_t>() * 3);
          }};
}

// the two sequence-to-sequence kinds: letters ABCDEF -> XYZ, at most 6 output tokens
template <class Model, class Config>
Sample translator(Config c, json input, const io::SaveOptions& o) {
  c.max_src_len = 10;
  c.max_tgt_len = 6;
  Model m(c, letters("ABCDEF"), letters("XYZ"), 5);
  ParamList ps;
  m.collect(ps);
  return {m.save(o), ps.count(), json::parse(m.config().to_json()), std::move(input),
          [](const json& r) {
            EXPECT_EQ(r["cols"], r["input"].size());
            EXPECT_EQ(r["rows"], r["output"].size());
            EXPECT_LE(r["output"].size(), 6u);
          }};
}

Sample seq2seq(const io::SaveOptions& o) {
  return translator<models::Seq2Seq>(attnlab::testing::tiny_seq2seq_config(),
                                     {{"text", "abc"}, {"precision", "f32"}}, o);
}

Sample transformer(const io::SaveOptions& o) {
  return translator<models::TransformerSeq2Seq>(attnlab::testing::small_transformer_config(),
                                                {{"text", "abc"}, {"beam", 2}}, o);
}

// the kinds whose config is a flat struct with to_json(): model seeded as given
template <class Model, class Config>
Sample flat(const Config& c, uint64_t seed, json input, std::function<void(const json&)> check,
            const io::SaveOptions& o) {
  Model m(c, seed);
  return {m.save(o), m.params().count(), json::parse(c.to_json()), std::move(input),
          std::move(check)};
}

Sample han(const io::SaveOptions& o) {
  data::Vocab v;
  for (const char* w : {"free", "money", "hello", "meeting"}) v.add(w);
  models::HAN m(attnlab::testing::tiny_han_config(), v, 2);
  return {m.save(o), m.params().count(), m.config().to_json(),
          {{"text", "Free money now. Hello, see you at the meeting."}}, [](const json& r) {
            ASSERT_EQ(r["probs"].size(), 2u);
            EXPECT_NEAR(r["probs"][0].get<double>() + r["probs"][1].get<double>(), 1.0, 1e-5);
            EXPECT_GE(r["sentences"].size(), 1u);
          }};
}

Sample mmoe(const io::SaveOptions& o) {
  const models::MMoEConfig c = attnlab::testing::tiny_mmoe_config();
  return flat<models::MMoE>(c, 4, {{"x", {{0.1, 0.2, 0.3}, {1, -1, 0}}}}, [](const json& r) {
            ASSERT_EQ(r["pred"].size(), 2u);
            EXPECT_EQ(r["pred"][0].size(), 2u);
          }, o);
}

Sample din(const io::SaveOptions& o) {
  const models::DINConfig c = attnlab::testing::tiny_din_config();
  return flat<models::DIN>(c, 6, {{"history", {{1, 0}, {5, 1}, {7, 1}}}, {"candidate", {9, 1}}},
                           [](const json& r) {
                             const double p = r["p_click"].get<double>();
                             EXPECT_GT(p, 0.0);
                             EXPECT_LT(p, 1.0);
                             EXPECT_EQ(r["weights"].size(), 3u);
                           }, o);
}

Sample autoint(const io::SaveOptions& o) {
  const models::AutoIntConfig c = attnlab::testing::tiny_autoint_config();
  return flat<models::AutoInt>(c, 8, {{"ids", {{0, 1, 2}, {2, 3, 4}}}},
                               [](const json& r) { EXPECT_EQ(r["p_click"].size(), 2u); }, o);
}

Sample char_lm(const io::SaveOptions& o) {
  models::CharLM m(attnlab::testing::tiny_char_lm_config(), data::CharVocab::from_symbols({data::utf8_encode(0xFFFD), "\n", "a", "b", "c"}), 9);
  return {m.save(o.dtype, o.meta), m.params().count(), m.config().to_json(),
          {{"prompt", "ab"}, {"n", 7}, {"seed", 3}}, [](const json& r) {
            EXPECT_EQ(r["n"].get<size_t>(), 7u);
            EXPECT_EQ(r["prompt"], "ab");
            EXPECT_FALSE(r["text"].get<std::string>().empty());
          }};
}

const std::map<std::string, Sample (*)(const io::SaveOptions&)> kSamples = {
    {"toy-reverse", toy}, {"seq2seq", seq2seq}, {"transformer-seq2seq", transformer},
    {"han", han},         {"mmoe", mmoe},       {"din", din},
    {"autoint", autoint}, {"char-lm", char_lm}};

}  // namespace

TEST(ModelRegistry, EveryKindLoadsSavesAndPredictsThroughTheList) {
  std::set<std::string> names;
  for (const models::ModelKind& k : models::model_kinds()) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "listed twice";
    ASSERT_TRUE(kSamples.count(k.name)) << "a kind without a sample here: add one";
    EXPECT_FALSE(k.title.empty());
    EXPECT_FALSE(k.description.empty());
    EXPECT_FALSE(k.predict_input.empty());
    EXPECT_EQ(models::find_model_kind(k.name), &k);
    for (io::DType dt : {io::DType::F32, io::DType::F16}) {
      const Sample s = kSamples.at(k.name)({dt, {{"note", "registry test"}}});
      const models::ModelFile f = models::open_model_file(s.bytes.data(), s.bytes.size(), "mem");
      EXPECT_EQ(f.kind, &k);
      EXPECT_EQ(f.info.extra.at("note"), "registry test");
      const std::unique_ptr<models::Model> m = models::load_model(f);
      EXPECT_EQ(m->params().count(), s.params);
      EXPECT_EQ(m->config(), s.config);
      // the same options give the same file (f16 storage included)
      EXPECT_EQ(m->save({dt, {{"note", "registry test"}}}), s.bytes);
      const json d = models::describe_model(f);
      EXPECT_EQ(d["kind"], k.name);
      EXPECT_EQ(d["parameters"], s.params);
      EXPECT_EQ(d["dtype"], io::dtype_name(dt));
      EXPECT_EQ(d["config"], s.config);
      s.check_output(m->predict(s.input));
      EXPECT_THROW(m->predict(json::object()), Error);
      EXPECT_THROW(m->predict(json::array({1, 2})), Error);
    }
  }
  EXPECT_EQ(names.size(), kSamples.size()) << "a sample for a kind that is not listed";
  const json list = models::model_kinds_json();
  ASSERT_EQ(list.size(), names.size());
  for (const auto& k : list) EXPECT_TRUE(names.count(k["name"].get<std::string>()));
}

TEST(ModelRegistry, BadFilesAndUnknownKindsAreClearErrors) {
  models::ToySeq2Seq m(models::ToyConfig{}, 1);
  ParamList ps;
  m.collect(ps);
  const io::ModelInfo other{"word2vec", "{}", {}, {}};
  const std::vector<uint8_t> b = io::save_model(other, ps);
  try {
    models::open_model_file(b.data(), b.size(), "w2v.safetensors");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("w2v.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find("word2vec"), std::string::npos) << msg;
    EXPECT_NE(msg.find(models::model_kind_names()), std::string::npos) << msg;
  }
  const std::vector<uint8_t> ck = io::encode(io::param_views(ps), {{"kind", "attnlab-checkpoint"}});
  EXPECT_THROW(models::open_model_file(ck.data(), ck.size()), Error);  // no config
  const std::vector<uint8_t> good = m.save({});
  EXPECT_THROW(models::open_model_file(good.data(), good.size() / 2), Error);
  EXPECT_THROW(models::read_model_file("/nonexistent/model.safetensors"), Error);
  // a file whose config the kind rejects: the error names the source
  io::ModelInfo bad{"mmoe", R"({"experts": 0})", {}, {}};
  const std::vector<uint8_t> bb = io::save_model(bad, ps);
  const models::ModelFile f = models::open_model_file(bb.data(), bb.size(), "bad-mmoe");
  try {
    models::load_model(f);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad-mmoe"), std::string::npos) << e.what();
  }
}

// The shipped models: one read, kind from the list, and predict through the list gives what
// the model class gives.
TEST(ModelRegistry, ShippedModelsLoadAndPredictAsBefore) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/";
  size_t seen = 0;
  for (const char* name : {"g2p-cmudict", "dates", "han-spam"}) {
    const std::string path = dir + name + "/model.safetensors";
    if (access(path.c_str(), R_OK) != 0) continue;
    ++seen;
    const models::ModelFile f = models::read_model_file(path);
    const auto m = models::load_model(f);
    if (f.info.kind == "seq2seq") {
      const auto direct = models::Seq2Seq::load(io::read_file(path));
      const std::string text = f.info.extra.at("data") == "dates" ? "3/14/1992" : "attention";
      models::DecodeOptions o;
      o.beam = 4;
      const models::Translation t = direct->translate(text, o);
      const json r = m->predict({{"text", text}, {"beam", 4}});
      EXPECT_EQ(r["text"], t.text) << name;
      EXPECT_EQ(r["attention"].get<std::vector<float>>(), t.attention) << name;
    } else {
      ASSERT_EQ(f.info.kind, "han");
      const auto direct = models::HAN::load(io::read_bytes(path));
      const std::string text = "Subject: win cash\n\nClaim your free prize now. Click here.";
      EXPECT_EQ(m->predict({{"text", text}}), direct->classify(text).to_json()) << name;
    }
  }
  if (seen == 0) GTEST_SKIP() << "no shipped models under " << dir;
}

// The page's model index (models/index.json) names only kinds in the list, and every file it
// names opens as that kind and loads through the list.
TEST(ModelRegistry, PageIndexUsesTheListedKinds) {
  const std::string src = ATTNLAB_SOURCE_DIR;
  const std::vector<uint8_t> bytes = [&] {
    try {
      return io::read_bytes(src + "/models/index.json");
    } catch (const Error&) {
      return std::vector<uint8_t>();
    }
  }();
  if (bytes.empty()) GTEST_SKIP() << "no models/index.json";
  const json index = json::parse(bytes.begin(), bytes.end());
  ASSERT_TRUE(index.is_array());
  ASSERT_FALSE(index.empty());
  for (const json& e : index) {
    const std::string kind = e.at("kind"), url = e.at("url");
    SCOPED_TRACE(url);
    EXPECT_NE(models::find_model_kind(kind), nullptr) << kind;
    const models::ModelFile f = models::read_model_file(src + "/" + url);
    EXPECT_EQ(f.kind->name, kind);
    EXPECT_GT(models::load_model(f)->params().count(), 0u);
  }
}
