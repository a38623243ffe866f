// Seq2seq models trained in PyTorch with the reference definitions (scripts/attnlab_torch.py)
// and exported with save_attnlab (fixtures by scripts/fixtures_seq2seq_torch.py): each file
// loads through the one seq2seq loader, decodes every held-out input greedily (float32) to
// PyTorch's tokens, with each chosen token's probability and the final </s> probability
// within 1e-5 relative of PyTorch's float64 reference; damaged files are clear Errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/core/error.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "cli_test_util.hpp"
#include "fixture_util.hpp"

using namespace attnlab;
using namespace attnlab::models;
using nlohmann::json;

namespace {

constexpr double kRelTol = 1e-5;

std::string fixture_path(const std::string& file) {
  return std::string(ATTNLAB_FIXTURES_DIR) + "/seq2seq_torch/" + file;
}
json expected() { return attnlab::testing::load_fixture("seq2seq_torch/expected.json"); }

double rel(double got, double want) { return std::fabs(got - want) / std::max(std::fabs(want), 1e-30); }

// what load_translator says about a damaged file (empty: it loaded)
std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    (void)load_translator(io::decode(bytes));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// the file re-encoded with `edit` applied to its tensors and metadata
template <class Edit>
std::vector<uint8_t> edited(const std::string& file, Edit edit) {
  io::SafeTensors st = io::read_file(fixture_path(file));
  edit(st);
  std::vector<io::TensorView> views;
  for (const auto& t : st.tensors) views.push_back({t.name, t.shape, t.data.data()});
  return io::encode(views, st.metadata);
}

}  // namespace

TEST(Seq2SeqTorch, FixturesCoverTheKinds) {
  const json ex = expected();
  std::vector<std::string> scores;
  size_t transformers = 0, bidir = 0, lstm = 0;
  for (const json& m : ex.at("models")) {
    if (m.at("kind") == "transformer-seq2seq") {
      ++transformers;
      continue;
    }
    scores.push_back(m.at("config").at("score").get<std::string>());
    bidir += m.at("config").at("bidirectional").get<bool>();
    lstm += m.at("config").at("rnn") == "lstm";
  }
  for (const char* s : {"additive", "general", "dot", "scaled_dot", "cosine", "location", "local_p"})
    EXPECT_NE(std::find(scores.begin(), scores.end(), s), scores.end()) << s;
  EXPECT_GE(transformers, 2u);
  EXPECT_GE(bidir, 1u);
  EXPECT_GE(lstm, 1u);
}

TEST(Seq2SeqTorch, GreedyDecodingMatchesPyTorch) {
  const json ex = expected();
  size_t checked = 0;
  double worst = 0;
  for (const json& m : ex.at("models")) {
    const std::string name = m.at("name");
    SCOPED_TRACE(name);
    const std::unique_ptr<Translator> t = load_translator(io::read_file(fixture_path(m.at("file"))));
    EXPECT_EQ(std::string(t->kind()), m.at("kind").get<std::string>());
    DecodeOptions o;
    o.beam = 1;
    o.precision = DecodePrecision::F32;
    for (const json& c : m.at("cases")) {
      const std::string input = c.at("input");
      SCOPED_TRACE(input);
      const Translation r = t->translate(input, o);
      EXPECT_EQ(r.tokens, c.at("tokens").get<std::vector<std::string>>());
      EXPECT_EQ(r.text, c.at("text").get<std::string>());
      const std::vector<double> probs = c.at("probs").get<std::vector<double>>();
      ASSERT_EQ(r.probs.size(), probs.size());
      for (size_t i = 0; i < probs.size(); ++i) {
        worst = std::max(worst, rel(r.probs[i], probs[i]));
        EXPECT_LT(rel(r.probs[i], probs[i]), kRelTol) << "step " << i;
      }
      worst = std::max(worst, rel(r.eos_prob, c.at("eos_prob").get<double>()));
      EXPECT_LT(rel(r.eos_prob, c.at("eos_prob").get<double>()), kRelTol);
      ++checked;
    }
  }
  EXPECT_GE(checked, 50u);
  std::printf("%zu inputs; largest relative probability error %.2e\n", checked, worst);
}

TEST(Seq2SeqTorch, DamagedFilesAreClearErrors) {
  const std::string f = "gru_additive.safetensors";
  const std::vector<uint8_t> good = io::read_bytes(fixture_path(f));
  EXPECT_EQ(load_error(good), "");
  // a tensor under another name: the missing one is named
  std::string e = load_error(edited(f, [](io::SafeTensors& st) {
    for (auto& t : st.tensors)
      if (t.name == "attention.v") t.name = "attention.vv";
  }));
  EXPECT_NE(e.find("attention.v"), std::string::npos) << e;
  // a tensor left out: fewer values than the config needs
  e = load_error(edited(f, [](io::SafeTensors& st) {
    st.tensors.erase(std::remove_if(st.tensors.begin(), st.tensors.end(),
                                    [](const io::TensorData& t) { return t.name == "attention.v"; }),
                     st.tensors.end());
  }));
  EXPECT_NE(e.find("does not match the weights"), std::string::npos) << e;
  // a tensor of the wrong shape is named
  e = load_error(edited(f, [](io::SafeTensors& st) {
    for (auto& t : st.tensors)
      if (t.name == "combine.weight") {
        t.shape = {t.shape[0] / 2, t.shape[1] * 2};
      }
  }));
  EXPECT_NE(e.find("combine.weight"), std::string::npos) << e;
  // a config the weights do not fit (score changed: the additive weights are unexpected,
  // or the general weight is missing)
  e = load_error(edited(f, [](io::SafeTensors& st) {
    json c = json::parse(st.metadata.at("config"));
    c["score"] = "general";
    st.metadata["config"] = c.dump();
  }));
  EXPECT_NE(e, "");
  // an unknown score in the config names the known ones
  e = load_error(edited(f, [](io::SafeTensors& st) {
    json c = json::parse(st.metadata.at("config"));
    c["score"] = "bahdanau";
    st.metadata["config"] = c.dump();
  }));
  EXPECT_NE(e.find("bahdanau"), std::string::npos) << e;
  EXPECT_NE(e.find("additive"), std::string::npos) << e;
  // a target vocabulary of the wrong size
  e = load_error(edited(f, [](io::SafeTensors& st) {
    json v = json::parse(st.metadata.at("tgt_vocab"));
    v.push_back("z");
    st.metadata["tgt_vocab"] = v.dump();
  }));
  EXPECT_NE(e.find("target tokens"), std::string::npos) << e;
  // a truncated file
  std::vector<uint8_t> cut(good.begin(), good.begin() + long(good.size() / 2));
  try {
    (void)io::decode(cut);
    ADD_FAILURE() << "a truncated file decoded";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()), "");
  }
}

class Seq2SeqTorchCli : public attnlab::testing::CliTest {};

TEST_F(Seq2SeqTorchCli, PredictDecodesAsPyTorch) {
  const json ex = expected();
  for (const json& m : ex.at("models")) {
    const json& c = m.at("cases").at(0);
    const attnlab::testing::CliRun r =
        run("predict --model " + fixture_path(m.at("file")) + " --precision f32 --input " +
            c.at("input").get<std::string>());
    ASSERT_EQ(r.code, 0) << m.at("name") << ": " << r.err;
    EXPECT_NE(r.out.find(c.at("text").get<std::string>()), std::string::npos)
        << m.at("name") << ": " << r.out;
  }
}
